//! Whole-turn enumeration speed: counting the distinct turns of the
//! reference engine's benchmark positions A and B (27,635 and 33,332 turns
//! under the `cli` rules) and of the real-game position with the most turns
//! (433,824, game 1016 turn 78 of `../shared/perft/dev.tsv`), and the search
//! of an in-check position whose root classifies every turn exactly (game
//! 33544 turn 47, 56,625 turns: the in-check fallback, where each turn's
//! result is also given to the win-in-1 solver). The figures are in
//! benches/README.md.
//!
//! Run with `cargo bench --bench enumeration`; each count is asserted
//! before it is timed.

use std::hint::black_box;
use std::sync::atomic::AtomicBool;

use criterion::{criterion_group, criterion_main, Criterion};
use supernova::notation::cli;
use supernova::rules::{Player, Position, Rules, TurnEnumerator};
use supernova::search::{SearchLimits, SearchOptions, Searcher};

/// Position A of the reference engine's benchmarks.
const A: &str = "Player1 (0, b3y1) r1- | Alpha (b1) r1- | Beta (b1) g1- | Gamma (b2) r1- \
                 | Delta (b2) g1- | Player2 (1, b3) b3y3y2g1-r2g2";
/// Position B of the reference engine's benchmarks.
const B: &str = "Sam (0, y1b3) r1g3- | Dave (1, r2y1) -g1b3 | Delos (b3) r1- \
                 | Lebling (g2) r1y1b2- | Kotok (g3) r3- | Minsky (g2) r2- \
                 | Licklider (g2) r2- | Frotz (r3) -g1b1 | Shrdlu (r3) -b1 | Fritz (b2) y3g1-";
/// The dev position with the most turns (game 1016, turn 78, player 0).
const WIDEST: &str = "Ts52 (0, b1) r1y3g1g2- | Twoshort (1, y3b1) -r1r3 | Endor (g3) y1y3- \
                      | Bluestar (b2) -y2 | Garden (g3) y2b1- | Shortbus (y2) g2g2b2b3- \
                      | Amideadyet (b3) y1g1- | R2D2 (r2) -b3 | C3Po (r2) -b2";
/// An in-check dev position whose search spends longest classifying every
/// turn (game 33544, turn 47, player 1 to move).
const IN_CHECK: &str = "Draw5Playall (0, r2b2) y3g1g3- | Wil (1, y1b1) b3-b3 | Y3 (y3) -r1r2g2b1 \
                        | G1 (g1) -b1b2 | G3 (g3) r2- | B3 (b3) -y1y2 | R3 (r3) -y2y3 \
                        | Ntvwbp (r1) y1g2g3b2-";

fn position(text: &str, side: Player) -> Position {
    cli::parse(text, side).unwrap().position
}

fn enumeration(criterion: &mut Criterion) {
    let rules: Rules = "cli".parse().unwrap();
    let mut group = criterion.benchmark_group("enumeration");
    let mut enumerator = TurnEnumerator::default();
    for (name, text, count) in [
        ("A", A, 27_635),
        ("B", B, 33_332),
        ("widest", WIDEST, 433_824),
    ] {
        let position = position(text, Player::First);
        // The bench is only meaningful if the count is right.
        assert_eq!(enumerator.count(&position, &rules), count, "{name}");
        if name == "widest" {
            group.sample_size(10);
        }
        group.bench_function(format!("count/{name}"), |bencher| {
            bencher.iter(|| enumerator.count(black_box(&position), &rules))
        });
    }
    group.finish();
}

fn in_check(criterion: &mut Criterion) {
    let position = position(IN_CHECK, Player::Second);
    let stop = AtomicBool::new(false);
    let limits = SearchLimits::nodes(1);
    let mut searcher = Searcher::new(SearchOptions {
        threads: 1,
        tree_reuse: false,
        ..SearchOptions::default()
    });
    let mut group = criterion.benchmark_group("in_check");
    group.sample_size(10);
    group.bench_function("search_1_node/33544_47", |bencher| {
        bencher.iter(|| {
            searcher.clear();
            searcher.search(black_box(&position), &[], &limits, &stop, |_| {})
        })
    });
    group.finish();
}

criterion_group!(benches, enumeration, in_check);
criterion_main!(benches);
