//! Search speed: iterations ("nodes") per second of the tree search on one
//! thread in a middle-game position (target: at least 300,000), the same
//! with two threads (target: at least 1.8 times as many), the per-node
//! costs (the win-in-1 solver, the threat test and the static evaluation),
//! and the exact two-turn check on the suite positions. Memory per node is printed
//! once, since criterion only measures time.
//!
//! Run with `cargo bench --bench search`; the throughput lines read as nodes
//! (or positions) per second.

use std::hint::black_box;
use std::sync::atomic::AtomicBool;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use supernova::rules::{Action, Outcome, Position, Rules};
use supernova::search::{
    static_evaluation, PlayerKind, SearchLimits, SearchOptions, Searcher, Solver, ThreatBudget,
    ThreatChecker,
};
use supernova::tools::bench::{parse_positions, BENCH_POSITIONS};

/// Iterations per measured search.
const NODES: u64 = 20_000;

fn bench_positions() -> Vec<(String, Position)> {
    parse_positions(BENCH_POSITIONS)
        .unwrap()
        .into_iter()
        .map(|entry| (entry.source, entry.position))
        .collect()
}

/// Middle-game positions of real games, by their source comment.
fn middle_games() -> Vec<(String, Position)> {
    let wanted = ["SDG game 29304 turn 17", "SDG game 17184 turn 24"];
    bench_positions()
        .into_iter()
        .filter(|(source, _)| wanted.iter().any(|name| source.starts_with(name)))
        .collect()
}

/// A node limit is searched in full, so each search runs exactly NODES
/// iterations (with one thread) and the throughput is exact.
fn options(threads: usize) -> SearchOptions {
    SearchOptions {
        threads,
        hash_mb: 128,
        tree_reuse: false,
        ..SearchOptions::default()
    }
}

fn search_speed(criterion: &mut Criterion) {
    let stop = AtomicBool::new(false);
    let limits = SearchLimits::nodes(NODES);
    let mut group = criterion.benchmark_group("search");
    group.throughput(Throughput::Elements(NODES));
    group.sample_size(20);
    for (source, position) in middle_games() {
        let name = source
            .split(" (")
            .next()
            .unwrap_or(&source)
            .replace(' ', "_");
        for threads in [1, 2] {
            let mut searcher = Searcher::new(options(threads));
            let result = searcher.search(&position, &[], &limits, &stop, |_| {});
            eprintln!(
                "{name}: {} tree nodes, {:.0} bytes per node",
                result.info.tree_nodes,
                result.info.tree_bytes as f64 / result.info.tree_nodes.max(1) as f64
            );
            group.bench_function(format!("{name}/{threads}_threads"), |bencher| {
                bencher.iter(|| {
                    searcher.clear();
                    searcher.search(black_box(&position), &[], &limits, &stop, |_| {})
                })
            });
        }
    }
    group.finish();
}

/// Every bench position and every position one action later, ended as a
/// turn: a spread of start-of-turn positions like those the tree creates.
fn turn_starts() -> Vec<Position> {
    let rules = Rules::STANDARD;
    let mut positions = Vec::new();
    for (_, position) in bench_positions() {
        positions.push(position);
        position.for_each_action(&rules, |action| {
            let mut next = position;
            next.apply_unchecked(&rules, action);
            if next.end_turn(&rules).is_ok() {
                positions.push(next);
            }
        });
    }
    positions
}

fn solver_and_eval_speed(criterion: &mut Criterion) {
    let rules = Rules::STANDARD;
    let positions = turn_starts();
    let mut group = criterion.benchmark_group("per_node");
    group.throughput(Throughput::Elements(positions.len() as u64));
    let mut solver = Solver::default();
    group.bench_function("win_in_1_solver", |bencher| {
        bencher.iter(|| {
            positions
                .iter()
                .filter(|position| solver.can_win(black_box(position), &rules))
                .count()
        })
    });
    group.bench_function("threat_test", |bencher| {
        bencher.iter(|| {
            positions
                .iter()
                .filter(|position| solver.threatened(black_box(position), &rules))
                .count()
        })
    });
    group.bench_function("static_evaluation", |bencher| {
        bencher.iter(|| {
            positions
                .iter()
                .map(|position| static_evaluation(black_box(position), &rules))
                .sum::<f32>()
        })
    });
    group.finish();
}

/// The two-turn suite, each position as it stands after a pass: there the
/// opponent can force a win in two, which is what the root's checks must
/// find before they can look for a defence.
fn two_turn_passes() -> Vec<Position> {
    let rules = Rules::STANDARD;
    parse_positions(include_str!("../positions/tactics/two_turn.txt"))
        .unwrap()
        .into_iter()
        .filter_map(|entry| {
            let mut after = entry.position;
            (after.end_turn(&rules) == Ok(Outcome::Ongoing)).then_some(after)
        })
        .collect()
}

/// The exact two-turn check from scratch (a new checker, nothing
/// remembered) on every suite position after a pass: the time the check
/// of a turn that loses takes in the search at most, and the figure that
/// has to fall for the suite to be solved at 100 ms a turn.
fn two_turn_check_speed(criterion: &mut Criterion) {
    let rules = Rules::STANDARD;
    let positions = two_turn_passes();
    let mut group = criterion.benchmark_group("two_turn");
    group.throughput(Throughput::Elements(positions.len() as u64));
    group.sample_size(10);
    group.bench_function("threat_after_pass", |bencher| {
        bencher.iter(|| {
            positions
                .iter()
                .filter(|position| {
                    ThreatChecker::default().forced_win_in_two(
                        black_box(position),
                        &rules,
                        ThreatBudget::work(u64::MAX),
                    ) == Some(true)
                })
                .count()
        })
    });
    // The other half of a check: proving that no plan exists, which each
    // candidate defence needs (every opponent turn listed, each with a
    // solver call, and the threatening ones refuted). The defences are the
    // engine's answers at 3,000 nodes, where it defends every suite
    // position (tests/two_turn.rs).
    let stop = AtomicBool::new(false);
    let defended: Vec<(Position, Vec<Action>)> =
        parse_positions(include_str!("../positions/tactics/two_turn.txt"))
            .unwrap()
            .into_iter()
            .map(|entry| {
                let mut searcher = Searcher::new(SearchOptions {
                    hash_mb: 16,
                    player: PlayerKind::Mcts,
                    ..SearchOptions::default()
                });
                let result = searcher.search(
                    &entry.position,
                    &[],
                    &SearchLimits::nodes(3_000),
                    &stop,
                    |_| {},
                );
                (entry.position, result.best_turn)
            })
            .collect();
    group.throughput(Throughput::Elements(defended.len() as u64));
    group.bench_function("defence_proof", |bencher| {
        bencher.iter(|| {
            let proven = defended
                .iter()
                .filter(|(position, turn)| {
                    ThreatChecker::default().is_defence(
                        black_box(position),
                        turn,
                        &rules,
                        ThreatBudget::work(u64::MAX),
                    ) == Some(true)
                })
                .count();
            assert_eq!(proven, defended.len(), "the engine defends every position");
            proven
        })
    });
    group.finish();
}

criterion_group!(
    benches,
    search_speed,
    solver_and_eval_speed,
    two_turn_check_speed
);
criterion_main!(benches);
