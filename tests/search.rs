//! The search engine, end to end through its public API: the exact safety
//! guarantees (wins are played, threats are parried, a forced draw is taken
//! when everything else loses), the win-in-1 solver against brute force,
//! determinism, the memory bound, the limits and the stop flag (also
//! through the binary), the simple players, and short self-play games. The
//! `bench` command is tested in tests/bench.rs.
//!
//! Every search here is node-limited and small, so the whole file runs in a
//! few seconds in release mode.

mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use supernova::notation::{cli, hwpn};
use supernova::rules::{
    Action, EndReason, GameResult, Outcome, Player, Position, Rules, TurnEnumerator,
};
use supernova::search::{
    Clock, Decision, PlayerKind, SearchLimits, SearchOptions, SearchResult, Searcher, Solver,
};
use supernova::tools::selfplay::{self, MatchPlayer, MatchSettings};
use supernova::tools::Ending;

fn position(text: &str) -> Position {
    hwpn::parse(text)
        .unwrap_or_else(|error| panic!("{text}: {error}"))
        .position
}

fn options(player: PlayerKind) -> SearchOptions {
    SearchOptions {
        player,
        hash_mb: 16,
        ..SearchOptions::default()
    }
}

fn search(position: &Position, options: SearchOptions, nodes: u64) -> SearchResult {
    let stop = AtomicBool::new(false);
    Searcher::new(options).search(position, &[], &SearchLimits::nodes(nodes), &stop, |_| {})
}

/// Plays a turn on the rules core; panics if it is not legal.
fn play(position: &Position, rules: &Rules, turn: &[Action]) -> (Position, Outcome) {
    let mut next = *position;
    for &action in turn {
        next.try_apply(rules, action)
            .unwrap_or_else(|reason| panic!("{action:?} illegal in {position:?}: {reason}"));
    }
    let outcome = next
        .end_turn(rules)
        .unwrap_or_else(|reason| panic!("turn {turn:?} cannot end in {position:?}: {reason}"));
    (next, outcome)
}

/// Whether the side to move has a winning turn, by listing every turn.
fn brute_force_win(position: &Position, rules: &Rules) -> bool {
    let mover = position.side_to_move();
    let mut found = false;
    TurnEnumerator::default().for_each_turn(position, rules, |_, _, outcome| {
        found |= outcome == Outcome::Win(mover);
    });
    found
}

/// Whether the turn is safe: it wins, or the opponent has no winning reply.
fn is_safe(position: &Position, rules: &Rules, turn: &[Action]) -> bool {
    let (after, outcome) = play(position, rules, turn);
    match outcome {
        Outcome::Win(winner) => winner == position.side_to_move(),
        Outcome::Draw => false,
        Outcome::Ongoing => !brute_force_win(&after, rules),
    }
}

// ----- exact guarantees -----------------------------------------------------

/// Positions where the side to move can eliminate the opponent at once.
const WINS_IN_ONE: &[&str] = &[
    // A red sacrifice captures the last defender.
    "r1b3:r3g3:/y2b1:g2:g1 0",
    // A sitting duck: one blue ship moved in overpopulates the home.
    "r1y3:g3:/y2b1::b2b2/y3:b1: 0",
];

#[test]
fn a_win_in_one_is_played_with_value_one() {
    let rules = Rules::STANDARD;
    for text in WINS_IN_ONE {
        let root = position(text);
        for player in [PlayerKind::Mcts, PlayerKind::Greedy] {
            let result = search(&root, options(player), 2_000);
            assert_eq!(
                result.decision,
                Decision::ImmediateWin,
                "{player:?} on {text}"
            );
            assert!(
                result.value > 0.99,
                "{player:?} on {text}: value {}",
                result.value
            );
            let (_, outcome) = play(&root, &rules, &result.best_turn);
            assert_eq!(outcome, Outcome::Win(root.side_to_move()), "{text}");
        }
    }
}

#[test]
fn mutual_elimination_is_chosen_when_everything_else_loses() {
    // Player 1's r3 will capture player 0's last home ship; every turn loses
    // except moving it to player 1's home and blowing both homes up.
    let rules = Rules::STANDARD;
    let root = position("r2b1:y1:r3/y3::y2y2 0");
    assert!(Solver::default().threatened(&root, &rules));
    for player in [PlayerKind::Mcts, PlayerKind::Greedy] {
        let result = search(&root, options(player), 2_000);
        assert_eq!(result.decision, Decision::ForcedDraw, "{player:?}");
        let (_, outcome) = play(&root, &rules, &result.best_turn);
        assert_eq!(outcome, Outcome::Draw, "{player:?}");
    }
}

/// Positions where the opponent threatens to win and only some turns parry.
const MUST_DEFEND: &[&str] = &[
    // Player 1's r3 threatens player 0's only home ship; a second ship must
    // come home (23 of 284 turns are safe).
    "y1b2:g1:r3/r1g3::y3/g3:y2r2b1: 0",
    // The same with more distracting options (71 of 630 turns are safe).
    "y1b2:g1:r3/r1g3::y3/g3:y2r2b1:/b3:g2g2: 0",
];

#[test]
fn a_threat_is_parried() {
    let rules = Rules::STANDARD;
    for text in MUST_DEFEND {
        let root = position(text);
        assert!(Solver::default().threatened(&root, &rules), "{text}");
        for player in [PlayerKind::Mcts, PlayerKind::Greedy] {
            for nodes in [1, 300, 3_000] {
                let result = search(&root, options(player), nodes);
                assert!(
                    is_safe(&root, &rules, &result.best_turn),
                    "{player:?} with {nodes} nodes on {text} played {:?}",
                    result.best_turn
                );
                assert!(result.info.in_check || player == PlayerKind::Greedy);
            }
        }
    }
}

/// Tactics positions in `positions/tactics/*.txt` (HWPN per line, `#`
/// comments), judged by the file name: `win_in_1*` must be won at once,
/// anything else (e.g. `must_defend*`) must leave the opponent no win.
#[test]
fn tactics_files_are_solved() {
    let directory = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("positions/tactics");
    let Ok(entries) = std::fs::read_dir(&directory) else {
        eprintln!(
            "SKIPPED tactics_files_are_solved: {} is absent",
            directory.display()
        );
        return;
    };
    let rules = Rules::STANDARD;
    let mut failures = Vec::new();
    let mut checked = 0;
    for entry in entries {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "txt") {
            continue;
        }
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let positions = supernova::tools::bench::parse_positions(&text)
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        for entry in positions {
            let root = entry.position;
            let result = search(&root, options(PlayerKind::Mcts), 1_000);
            let solved = if name.starts_with("win_in_1") {
                play(&root, &rules, &result.best_turn).1 == Outcome::Win(root.side_to_move())
            } else {
                is_safe(&root, &rules, &result.best_turn)
            };
            checked += 1;
            if !solved {
                failures.push(format!(
                    "{name}: {} ({})",
                    hwpn::write(&root, None),
                    entry.source
                ));
            }
        }
    }
    eprintln!("tactics: {checked} positions checked");
    assert!(failures.is_empty(), "unsolved:\n{}", failures.join("\n"));
}

// ----- the solver against brute force ---------------------------------------

/// Positions from seeded random games in which nobody eliminates itself
/// (plain random play does so within a few turns, which makes few positions).
fn playout_positions(games: u64, rules: &Rules) -> Vec<Position> {
    use rand::{Rng, SeedableRng};
    let stop = AtomicBool::new(false);
    let mut enumerator = TurnEnumerator::default();
    let mut positions = Vec::new();
    for game in 0..games {
        let mut rng = rand::rngs::SmallRng::seed_from_u64(game * 7_919 + 13);
        let mut current = Position::start();
        let mut setup = Searcher::new(SearchOptions {
            player: PlayerKind::Random,
            seed: game,
            rules: *rules,
            hash_mb: 1,
            ..SearchOptions::default()
        });
        while current.in_setup() {
            let result = setup.search(&current, &[], &SearchLimits::default(), &stop, |_| {});
            current = play(&current, rules, &result.best_turn).0;
        }
        for _ in 0..60 {
            positions.push(current);
            let mover = current.side_to_move();
            let mut turns = Vec::new();
            enumerator.for_each_turn(&current, rules, |_, result, outcome| {
                if outcome != Outcome::Win(mover.opponent()) {
                    turns.push((*result, outcome));
                }
            });
            if turns.is_empty() {
                break;
            }
            let (next, outcome) = turns[rng.random_range(0..turns.len())];
            current = next;
            if outcome != Outcome::Ongoing {
                break;
            }
        }
    }
    positions
}

fn compare_with_brute_force(positions: &[Position], rules: &Rules, limit: usize) -> (usize, usize) {
    let mut solver = Solver::default();
    let mut enumerator = TurnEnumerator::default();
    let (mut checked, mut wins) = (0, 0);
    for root in positions {
        let mover = root.side_to_move();
        let (mut count, mut expected) = (0, false);
        enumerator.for_each_turn(root, rules, |_, _, outcome| {
            count += 1;
            expected |= outcome == Outcome::Win(mover);
        });
        if count > limit {
            continue;
        }
        let found = solver.find_win(root, rules);
        assert_eq!(
            found.is_some(),
            expected,
            "solver disagrees with brute force under {rules} on {}",
            hwpn::write(root, None)
        );
        if let Some(turn) = found {
            assert_eq!(play(root, rules, &turn).1, Outcome::Win(mover));
            wins += 1;
        }
        // The threat test is the same solver after a pass.
        let mut passed = *root;
        if let Ok(Outcome::Ongoing) = passed.end_turn(rules) {
            let threat = solver.threatened(root, rules);
            assert_eq!(threat, solver.can_win(&passed, rules));
        }
        checked += 1;
    }
    (checked, wins)
}

#[test]
fn solver_agrees_with_brute_force_on_playouts() {
    for rules in [Rules::STANDARD, Rules::CLI, Rules::SDG] {
        let positions = playout_positions(12, &rules);
        let (checked, wins) = compare_with_brute_force(&positions, &rules, 5_000);
        eprintln!("{rules}: {checked} positions, {wins} with a win");
        assert!(checked > 250, "only {checked} positions under {rules}");
    }
}

#[test]
fn solver_agrees_with_brute_force_on_shared_positions() {
    let Some(path) = common::shared(
        "perft/dev.tsv",
        "solver_agrees_with_brute_force_on_shared_positions",
    ) else {
        return;
    };
    let text = std::fs::read_to_string(path).unwrap();
    let mut positions = Vec::new();
    for line in text.lines().skip(1) {
        let fields: Vec<&str> = line.split('\t').collect();
        let count: usize = fields[3].parse().unwrap();
        if count <= 1_000 {
            let side = Player::from_index(fields[2].parse().unwrap()).unwrap();
            positions.push(cli::parse(fields[4], side).unwrap().position);
        }
    }
    let mut total_wins = 0;
    for rules in [Rules::STANDARD, Rules::CLI] {
        let (checked, wins) = compare_with_brute_force(&positions, &rules, 1_000);
        assert!(checked > 1_000, "{checked}");
        total_wins += wins;
    }
    assert!(
        total_wins > 10,
        "too few winning positions to be a test: {total_wins}"
    );
}

// ----- determinism, memory, stopping ----------------------------------------

fn bench_positions() -> Vec<Position> {
    supernova::tools::bench::parse_positions(supernova::tools::bench::BENCH_POSITIONS)
        .unwrap()
        .into_iter()
        .map(|entry| entry.position)
        .collect()
}

#[test]
fn one_thread_with_a_node_limit_is_deterministic() {
    for root in bench_positions().iter().skip(2).take(3) {
        let first = search(root, options(PlayerKind::Mcts), 3_000);
        let second = search(root, options(PlayerKind::Mcts), 3_000);
        assert_eq!(first.best_turn, second.best_turn);
        assert_eq!(first.value, second.value);
        assert_eq!(first.info.iterations, second.info.iterations);
        assert_eq!(first.info.tree_nodes, second.info.tree_nodes);
        assert_eq!(first.info.candidates, second.info.candidates);
        assert_eq!(
            first.info.principal_variation,
            second.info.principal_variation
        );
        // The same searcher after clear() gives the same answer again.
        let mut searcher = Searcher::new(options(PlayerKind::Mcts));
        let stop = AtomicBool::new(false);
        let limits = SearchLimits::nodes(3_000);
        searcher.search(root, &[], &limits, &stop, |_| {});
        searcher.clear();
        let third = searcher.search(root, &[], &limits, &stop, |_| {});
        assert_eq!(first.best_turn, third.best_turn);
        assert_eq!(first.info.iterations, third.info.iterations);
    }
}

#[test]
fn a_tiny_tree_recycles_and_the_search_still_finishes() {
    // 1 MB holds a few thousand nodes; 40,000 iterations fill it many
    // times. Each time it is nearly full the search recycles the least
    // visited branches and goes on growing, within the same memory.
    let rules = Rules::STANDARD;
    let root = bench_positions()[1];
    for threads in [1, 2] {
        let searcher_options = SearchOptions {
            hash_mb: 1,
            threads,
            ..SearchOptions::default()
        };
        let mut searcher = Searcher::new(searcher_options);
        assert!(searcher.tree_capacity_bytes() <= 1 << 20);
        let stop = AtomicBool::new(false);
        let limits = SearchLimits::nodes(40_000);
        let result = searcher.search(&root, &[], &limits, &stop, |_| {});
        assert!(result.info.recycles >= 1, "{threads} threads: no recycle");
        // One thread recycles before the tree is full. With two, the helper
        // can fill the last nodes between two of the leading thread's looks
        // and the node limit can come right then.
        if threads == 1 {
            assert!(result.info.hash_full < 1000, "{}", result.info.hash_full);
        }
        assert!(result.info.tree_bytes <= 1 << 20);
        assert!(
            result.info.iterations >= 40_000,
            "{}",
            result.info.iterations
        );
        play(&root, &rules, &result.best_turn);
    }
}

#[test]
fn the_stop_flag_ends_an_infinite_search() {
    let rules = Rules::STANDARD;
    let root = bench_positions()[3];
    let stop = AtomicBool::new(false);
    let limits = SearchLimits {
        infinite: true,
        ..SearchLimits::default()
    };
    let mut infos = 0;
    let result = std::thread::scope(|scope| {
        scope.spawn(|| {
            std::thread::sleep(Duration::from_millis(100));
            stop.store(true, Ordering::Relaxed);
        });
        let mut searcher = Searcher::new(SearchOptions {
            threads: 2,
            info_interval: Duration::from_millis(20),
            ..options(PlayerKind::Mcts)
        });
        searcher.search(&root, &[], &limits, &stop, |_| infos += 1)
    });
    assert!(infos >= 1);
    assert!(result.info.iterations > 0);
    play(&root, &rules, &result.best_turn);
}

#[test]
fn two_threads_respect_the_node_limit_and_play_legally() {
    let rules = Rules::STANDARD;
    for root in bench_positions().iter().skip(2).take(2) {
        let result = search(
            root,
            SearchOptions {
                threads: 2,
                ..options(PlayerKind::Mcts)
            },
            4_000,
        );
        // Threads add their counts in batches of 16, so the limit may be
        // passed by at most a batch per thread.
        assert!(
            result.info.iterations <= 4_000 + 2 * 16,
            "{}",
            result.info.iterations
        );
        play(root, &rules, &result.best_turn);
    }
}

#[test]
fn time_limits_end_the_search() {
    let rules = Rules::STANDARD;
    let root = bench_positions()[4];
    let stop = AtomicBool::new(false);
    // A 200 ms movetime, and a 500 ms clock whose hard limit is a quarter of
    // it: either must end the search well within 2 s, however loaded the
    // machine (the limit is watched every 32 iterations).
    for limits in [
        SearchLimits::movetime(Duration::from_millis(200)),
        SearchLimits {
            clock: Some(Clock {
                time_left: [Duration::from_millis(500); 2],
                increment: [Duration::from_millis(10); 2],
            }),
            ..SearchLimits::default()
        },
    ] {
        let started = Instant::now();
        let result =
            Searcher::new(options(PlayerKind::Mcts)).search(&root, &[], &limits, &stop, |_| {});
        let elapsed = started.elapsed();
        assert!(elapsed < Duration::from_secs(2), "{limits:?}: {elapsed:?}");
        assert!(result.info.iterations > 0, "{limits:?}");
        play(&root, &rules, &result.best_turn);
    }
}

/// The position after the README quick start's two setup turns
/// (`home.r1.b3.g3 home.y2.b1.g3`).
fn quick_start_position() -> Position {
    position("r1b3:g3:/y2b1::g3 0")
}

#[test]
fn a_node_limit_is_searched_in_full() {
    // Early stopping belongs to clock-managed searches: under a node limit
    // the search runs exactly that many iterations with one thread, even
    // when the choice looks settled.
    for root in [quick_start_position(), bench_positions()[5]] {
        let result = search(&root, options(PlayerKind::Mcts), 2_000);
        assert_eq!(result.decision, Decision::Search);
        assert_eq!(result.info.iterations, 2_000, "{root:?}");
    }
}

#[test]
fn phase_times_count_every_iteration_only_when_built_to() {
    // Built with `--features phase-timing`, every iteration of every thread
    // is timed and its phases fit inside it; otherwise nothing is counted
    // (and the timing compiles away).
    for threads in [1, 2] {
        let mut options = options(PlayerKind::Mcts);
        options.threads = threads;
        let result = search(&bench_positions()[5], options, 2_000);
        let phases = result.info.phases;
        if supernova::search::PhaseTimes::COUNTED {
            assert_eq!(phases.iterations, result.info.iterations);
            let parts =
                phases.select + phases.expand + phases.advance + phases.create + phases.backup;
            assert!(phases.total >= parts && parts > 0, "{phases:?}");
        } else {
            assert_eq!(phases, supernova::search::PhaseTimes::default());
        }
    }
}

#[test]
fn a_movetime_is_searched_in_full() {
    // UCI's movetime is "search exactly this long": no early stop when the
    // choice looks clear.
    let root = quick_start_position();
    let movetime = Duration::from_millis(300);
    let stop = AtomicBool::new(false);
    let started = Instant::now();
    let result = Searcher::new(options(PlayerKind::Mcts)).search(
        &root,
        &[],
        &SearchLimits::movetime(movetime),
        &stop,
        |_| {},
    );
    let elapsed = started.elapsed();
    assert_eq!(result.decision, Decision::Search);
    assert!(
        result.info.elapsed >= movetime && elapsed < Duration::from_secs(3),
        "a {movetime:?} search took {:?}",
        result.info.elapsed
    );
}

#[test]
fn a_search_stopped_before_it_starts_still_plays_a_real_turn() {
    // `go nodes 2000` then `quit` at once, or `go infinite` then `stop`: the
    // stop flag is set before the first iteration. The search still runs
    // that one iteration, which orders the root's actions by their priors,
    // and answers its turn after the exact safety checks, never a pass.
    let rules = Rules::STANDARD;
    let stop = AtomicBool::new(true);
    let mut roots = vec![quick_start_position()];
    roots.extend(MUST_DEFEND.iter().map(|text| position(text)));
    roots.extend(bench_positions().into_iter().skip(2).take(4));
    for root in roots {
        let one_iteration = search(&root, options(PlayerKind::Mcts), 1);
        for limits in [
            SearchLimits::nodes(2_000),
            SearchLimits {
                infinite: true,
                ..SearchLimits::default()
            },
        ] {
            let result =
                Searcher::new(options(PlayerKind::Mcts)).search(&root, &[], &limits, &stop, |_| {});
            assert!(
                !result.best_turn.is_empty(),
                "a pass after a stop in {root:?}"
            );
            assert!(is_safe(&root, &rules, &result.best_turn), "{root:?}");
            assert_eq!(result.best_turn, one_iteration.best_turn, "{root:?}");
            assert_eq!(result.info.best_turn, result.best_turn);
        }
    }
}

#[test]
fn the_tree_is_reused_after_the_opponent_replies() {
    let rules = Rules::STANDARD;
    let root = bench_positions()[5];
    let stop = AtomicBool::new(false);
    let limits = SearchLimits::nodes(5_000);
    let mut searcher = Searcher::new(options(PlayerKind::Mcts));
    let first = searcher.search(&root, &[], &limits, &stop, |_| {});
    let (after, _) = play(&root, &rules, &first.best_turn);
    // The reply the tree expected, so that its subtree is well explored.
    let reply = first
        .info
        .principal_variation
        .get(1)
        .cloned()
        .unwrap_or_default();
    let (next, outcome) = play(&after, &rules, &reply);
    assert_eq!(outcome, Outcome::Ongoing);
    let second = searcher.search(&next, &[root.hash(), after.hash()], &limits, &stop, |_| {});
    assert!(
        second.info.root_visits > second.info.iterations,
        "root visits {} after {} iterations: nothing reused",
        second.info.root_visits,
        second.info.iterations
    );
    play(&next, &rules, &second.best_turn);
}

// ----- the simple players and setup ----------------------------------------

#[test]
fn greedy_and_random_are_legal_and_reproducible() {
    let rules = Rules::STANDARD;
    for root in bench_positions().iter().skip(2).take(6) {
        for player in [PlayerKind::Greedy, PlayerKind::Random] {
            let first = search(root, options(player), 0);
            let second = search(root, options(player), 0);
            assert_eq!(first.best_turn, second.best_turn, "{player:?}");
            play(root, &rules, &first.best_turn);
        }
    }
    // Different seeds give the random player different turns somewhere.
    let differs = bench_positions().iter().skip(2).any(|root| {
        let a = search(
            root,
            SearchOptions {
                seed: 1,
                ..options(PlayerKind::Random)
            },
            0,
        );
        let b = search(
            root,
            SearchOptions {
                seed: 2,
                ..options(PlayerKind::Random)
            },
            0,
        );
        a.best_turn != b.best_turn
    });
    assert!(differs);
}

#[test]
fn setup_turns_follow_the_book() {
    let rules = Rules::STANDARD;
    for player in [PlayerKind::Mcts, PlayerKind::Greedy, PlayerKind::Random] {
        let mut current = Position::start();
        for _ in 0..2 {
            let result = search(&current, options(player), 100);
            assert_eq!(result.decision, Decision::Setup);
            assert_eq!(result.best_turn.len(), 1);
            let Action::Homeworld {
                star,
                second_star: Some(second),
                ship,
            } = result.best_turn[0]
            else {
                panic!(
                    "{player:?}: not a two-star homeworld: {:?}",
                    result.best_turn
                );
            };
            assert_eq!(ship.size(), 3, "a Large starting ship");
            if player != PlayerKind::Random {
                assert_ne!(star.size(), second.size(), "no Gemini home");
            }
            current = play(&current, &rules, &result.best_turn).0;
        }
        assert!(!current.in_setup());
        if player != PlayerKind::Random {
            let sizes = |slot: u8| current.system(slot).size_mask();
            assert_ne!(sizes(0), sizes(1), "{player:?} chose the small universe");
        }
    }
}

// ----- self-play ------------------------------------------------------------

#[test]
fn short_self_play_games_end_legally() {
    let rules = Rules::STANDARD;
    let mcts = MatchPlayer {
        name: "mcts".to_string(),
        options: SearchOptions {
            hash_mb: 8,
            ..SearchOptions::default()
        },
        limits: SearchLimits::nodes(150),
    };
    let greedy = MatchPlayer {
        name: "greedy".to_string(),
        options: SearchOptions {
            player: PlayerKind::Greedy,
            hash_mb: 1,
            ..SearchOptions::default()
        },
        limits: SearchLimits::nodes(1),
    };
    let settings = MatchSettings {
        max_turns: 24,
        parallel_games: 2,
        ..MatchSettings::default()
    };
    let openings = selfplay::openings(2, 5, &rules);
    let summary = selfplay::run_match(&mcts, &greedy, &openings, &settings, |_| {});
    assert_eq!(summary.games.len(), 4);
    assert_eq!(summary.tally.games(), 4);
    for game in &summary.games {
        assert!(!game.ending.is_forfeit(), "{game:?}");
        // Replay the record on the rules core.
        let mut current = Position::start();
        let mut outcome = Outcome::Ongoing;
        for turn in &game.turns {
            assert_eq!(outcome, Outcome::Ongoing);
            (current, outcome) = play(&current, &rules, turn);
        }
        assert_eq!(
            outcome,
            if matches!(
                game.ending,
                Ending::Result(GameResult {
                    reason: EndReason::Elimination | EndReason::MutualElimination,
                    ..
                })
            ) {
                game.outcome()
            } else {
                Outcome::Ongoing
            }
        );
    }
}

// ----- the binary -----------------------------------------------------------

/// Runs the binary with `input` on its standard input; returns its output.
fn run_with_input(input: &str) -> String {
    let output = common::supernova_with_input(&[], input.as_bytes());
    assert!(output.status.success(), "{output:?}");
    String::from_utf8(output.stdout).unwrap()
}

#[test]
fn quit_or_stop_right_after_go_still_answers_a_real_turn() {
    // The README's quick start: `quit` arrives before the search has done
    // any work, and the answer must still be a real turn, not `bestmove
    // pass`, which would throw the turn away.
    let setup = "hwi\nposition startpos moves home.r1.b3.g3 home.y2.b1.g3\n";
    for _ in 0..3 {
        for ending in ["go nodes 2000\nquit\n", "go infinite\nstop\nquit\n"] {
            let output = run_with_input(&format!("{setup}{ending}"));
            let bestmove = output
                .lines()
                .filter_map(|line| line.strip_prefix("bestmove "))
                .collect::<Vec<_>>();
            assert_eq!(bestmove.len(), 1, "{ending:?}:\n{output}");
            assert_ne!(bestmove[0], "pass", "{ending:?}:\n{output}");
        }
    }
}

// ----- strength (manual) ----------------------------------------------------

/// A strength match, run by hand (it takes minutes), configured by
/// environment variables: `SUPERNOVA_MATCH_A` and `SUPERNOVA_MATCH_B`
/// (player descriptions, see `MatchPlayer::parse`), `SUPERNOVA_MATCH_OPENINGS`
/// (each played twice, colours swapped), `SUPERNOVA_MATCH_PARALLEL` (games
/// at once) and `SUPERNOVA_MATCH_SEED` (opening choice). For example:
///
/// ```text
/// SUPERNOVA_MATCH_A=mcts:ms=100 SUPERNOVA_MATCH_B=greedy SUPERNOVA_MATCH_OPENINGS=100 \
///     cargo test --release --test search -- --ignored strength_match --nocapture
/// ```
#[test]
#[ignore = "takes minutes; run by hand to measure strength"]
fn strength_match() {
    let variable =
        |name: &str, default: &str| std::env::var(name).unwrap_or_else(|_| default.to_string());
    let a = MatchPlayer::parse(&variable("SUPERNOVA_MATCH_A", "mcts:ms=100")).unwrap();
    let b = MatchPlayer::parse(&variable("SUPERNOVA_MATCH_B", "greedy")).unwrap();
    let openings: usize = variable("SUPERNOVA_MATCH_OPENINGS", "100").parse().unwrap();
    let parallel: usize = variable("SUPERNOVA_MATCH_PARALLEL", "2").parse().unwrap();
    let seed: u64 = variable("SUPERNOVA_MATCH_SEED", "1").parse().unwrap();
    let rules = Rules::STANDARD;
    let settings = MatchSettings {
        parallel_games: parallel,
        ..MatchSettings::default()
    };
    let openings = selfplay::openings(openings, seed, &rules);
    let started = std::time::Instant::now();
    let summary = selfplay::run_match(&a, &b, &openings, &settings, |game| {
        eprintln!(
            "opening {:>3} {} first: A scores {} ({:?}, {} turns)",
            game.opening,
            if game.a_first { "A" } else { "B" },
            game.score_a,
            game.ending,
            game.turns.len()
        );
    });
    let (elo, low, high) = summary.elo();
    let mut lengths: Vec<usize> = summary.games.iter().map(|game| game.turns.len()).collect();
    lengths.sort_unstable();
    let mut ends = std::collections::BTreeMap::new();
    for game in &summary.games {
        let end = match &game.ending {
            Ending::Result(result) => result.reason.word(),
            Ending::Forfeit { .. } => "forfeit",
            Ending::Aborted(_) => "aborted",
            Ending::Adjudicated { .. } => "adjudicated",
        };
        *ends.entry(end).or_insert(0) += 1;
    }
    println!(
        "{} vs {}: +{} ={} -{} score {:.3}, Elo {:+.0} (95% {:+.0} to {:+.0}), ends {:?}, median length {} turns, {:.0} s",
        a.name,
        b.name,
        summary.tally.wins,
        summary.tally.draws,
        summary.tally.losses,
        summary.score(),
        elo,
        low,
        high,
        ends,
        lengths[lengths.len() / 2],
        started.elapsed().as_secs_f64()
    );
}
