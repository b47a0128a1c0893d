//! Move-generation speed: distinct-turn enumeration on the benchmark
//! positions A and B (the reference engine takes about 0.57 s and 1.1 s;
//! the target is about 6 ms and 11 ms), and single-action generation plus
//! apply (target: at least 20 million actions per second on one core).

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use supernova::notation::hwpn;
use supernova::rules::{ActionList, Position, Rules, TurnEnumerator};

/// The positions of `positions/perft.txt`, with their rules and counts.
fn perft_positions() -> Vec<(String, Rules, usize, Position)> {
    let text = include_str!("../positions/perft.txt");
    text.lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split('\t').collect();
            let rules: Rules = fields[1].parse().unwrap();
            let position = hwpn::parse(fields[3]).unwrap().position;
            (
                fields[0].to_string(),
                rules,
                fields[2].parse().unwrap(),
                position,
            )
        })
        .collect()
}

fn enumeration(criterion: &mut Criterion) {
    let mut group = criterion.benchmark_group("count_turns");
    let mut enumerator = TurnEnumerator::default();
    for (name, rules, count, position) in perft_positions() {
        if name != "A" && name != "B" {
            continue;
        }
        // The bench is only meaningful if the count is right.
        assert_eq!(enumerator.count(&position, &rules), count, "{name} {rules}");
        group.bench_function(format!("{name}/{rules}"), |bencher| {
            bencher.iter(|| enumerator.count(black_box(&position), &rules))
        });
    }
    group.finish();
}

/// Every position reached by a deterministic walk from A and B, so that the
/// single-action bench covers a spread of turn states.
fn action_positions() -> Vec<(Rules, Position)> {
    let mut positions = Vec::new();
    let mut list = ActionList::default();
    for (_, rules, _, start) in perft_positions() {
        let mut position = start;
        for step in 0..64usize {
            positions.push((rules, position));
            position.legal_actions(&rules, &mut list);
            let actions = list.as_slice();
            if actions.is_empty() || step % 4 == 3 {
                if position.end_turn(&rules).is_err() {
                    position = start;
                }
                continue;
            }
            position.apply_unchecked(&rules, actions[(step * 7919) % actions.len()]);
        }
    }
    positions
}

fn generate_and_apply(criterion: &mut Criterion) {
    let positions = action_positions();
    let mut list = ActionList::default();
    let total: usize = positions
        .iter()
        .map(|(rules, position)| {
            position.legal_actions(rules, &mut list);
            list.as_slice().len()
        })
        .sum();
    let mut group = criterion.benchmark_group("actions");
    group.throughput(Throughput::Elements(total as u64));
    group.bench_function("generate_and_apply", |bencher| {
        bencher.iter(|| {
            let mut checksum = 0u64;
            for (rules, position) in &positions {
                position.for_each_action(rules, |action| {
                    let mut next = *position;
                    next.apply_unchecked(rules, action);
                    checksum = checksum.wrapping_add(next.hash());
                });
            }
            black_box(checksum)
        })
    });
    group.finish();
}

criterion_group!(benches, enumeration, generate_and_apply);
criterion_main!(benches);
