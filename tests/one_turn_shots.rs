//! One-turn shots: the suite `positions/tactics/one_turn_shots.txt` of
//! positions from the engine's own games where the turn it played lost
//! material to a single reply (a red sacrifice that captures elsewhere, a
//! catastrophe), and a turn that loses nothing to any reply exists.
//!
//! Every claim is checked exhaustively by the rules core: the swing of a
//! turn is the most material the opponent's best single reply takes from
//! the mover, over every distinct legal reply. The normal tests check each
//! suite line (the played turn really loses that much) and that the engine,
//! at a node limit, avoids the shots. The ignored `find_one_turn_shots`
//! rebuilds candidates from a match's records (see the test).

use std::sync::atomic::AtomicBool;

use supernova::notation::hwpn;
use supernova::notation::turn::{format_turn, Style};
use supernova::notation::Board;
use supernova::protocol::read_game;
use supernova::record::GameRecord;
use supernova::rules::{Action, Position, Rules};
use supernova::search::{PlayerKind, SearchLimits, SearchOptions, SearchResult, Searcher, Solver};
use supernova::tools::material::{played, worst_reply, ELIMINATED, SAFE, SHOT};

const SUITE: &str = "positions/tactics/one_turn_shots.txt";

/// The node limit at which the engine must avoid the suite's shots.
const SUITE_NODES: u64 = 3_000;

/// The node limit of the deeper search that must find a safe turn for a
/// position to join the suite.
const DEEP_NODES: u64 = 40_000;

/// One suite line: the position, and the turn played in the game.
struct Shot {
    board: Board,
    played: Vec<Action>,
    source: String,
}

fn suite() -> Vec<Shot> {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(SUITE);
    let text = std::fs::read_to_string(path).unwrap();
    let rules = Rules::STANDARD;
    text.lines()
        .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .map(|line| {
            let (body, comment) = line.split_once('#').expect("a comment");
            let board = hwpn::parse(body.trim()).unwrap_or_else(|error| panic!("{line}: {error}"));
            let turn = comment
                .split_once("played ")
                .and_then(|(_, rest)| rest.split_whitespace().next())
                .expect("the played turn");
            let (_, mut turns) = read_game(&board, &rules, &[turn])
                .unwrap_or_else(|error| panic!("{line}: {error}"));
            Shot {
                board,
                played: turns.remove(0),
                source: comment.trim().to_string(),
            }
        })
        .collect()
}

#[test]
fn every_suite_turn_loses_a_shot_to_one_reply() {
    let rules = Rules::STANDARD;
    let shots = suite();
    assert!(shots.len() >= 10, "{} positions", shots.len());
    for shot in &shots {
        let after = played(&shot.board.position, &rules, &shot.played).expect("a legal turn");
        let (swing, _) = worst_reply(&after, &rules);
        assert!(
            swing >= SHOT,
            "{}: the played turn swings {swing}",
            shot.source
        );
    }
}

#[test]
fn the_shot_guard_avoids_the_one_turn_shots_at_a_node_limit() {
    let rules = Rules::STANDARD;
    let shots = suite();
    let mut guarded = SearchOptions::default();
    guarded.tunables.set("shot_guard", 4.5).unwrap();
    guarded.tunables.set("shot_guard_visits", 0.1).unwrap();
    let mut failures = Vec::new();
    for shot in &shots {
        let root = &shot.board.position;
        let result = search_with(root, SUITE_NODES, guarded.clone());
        let swing = played(root, &rules, &result.best_turn)
            .map_or(0.0, |after| worst_reply(&after, &rules).0);
        if swing >= SHOT {
            failures.push(format!(
                "{}: {} swings {swing}",
                shot.source,
                format_turn(&shot.board, &rules, &result.best_turn, Style::Token)
            ));
        }
    }
    eprintln!(
        "one-turn shots: {} of {} avoided at {SUITE_NODES} nodes with the shot guard",
        shots.len() - failures.len(),
        shots.len()
    );
    // Most of the suite's positions are won by far, where the tree's values
    // are near 1 and a lost ship moves them little: the tree alone avoids
    // 46 of the 77 without the stretch far ahead (`stretch_above=1`) and 55
    // with it (the default), and with the shot guard too, which lists every
    // reply to the tree's turn and moves to a well-visited candidate whose
    // worst reply leaves it better, 67 (64 without the stretch). Each line
    // below names a shot it left.
    assert!(shots.len() - failures.len() >= 62, "{failures:#?}");
}

/// The suite on the clock, for `benches/README.md`: how many shots the
/// engine avoids at `$SUPERNOVA_SHOTS_MOVETIME` ms a turn (default 50), one
/// thread. Timed, so it reports and asserts nothing:
/// `SUPERNOVA_SHOTS_MOVETIME=20 cargo test --release --test one_turn_shots -- --ignored --nocapture at_a_movetime`.
/// `SUPERNOVA_SHOTS_OPTIONS="NAME=VALUE;..."` sets tunables first (`shot_guard=4.5;shot_guard_visits=0.1` turns the shot guard on).
/// `SUPERNOVA_SHOTS_NODES=N` searches N nodes a turn instead, to compare settings reproducibly.
#[test]
#[ignore]
fn one_turn_shots_at_a_movetime() {
    let movetime: u64 = std::env::var("SUPERNOVA_SHOTS_MOVETIME")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(50);
    let nodes: Option<u64> = std::env::var("SUPERNOVA_SHOTS_NODES")
        .ok()
        .and_then(|text| text.parse().ok());
    let rules = Rules::STANDARD;
    let shots = suite();
    let stop = AtomicBool::new(false);
    let mut avoided = 0;
    // Tunables to measure with, `NAME=VALUE` separated by `;`.
    let settings = std::env::var("SUPERNOVA_SHOTS_OPTIONS").unwrap_or_default();
    for shot in &shots {
        let mut options = SearchOptions {
            player: PlayerKind::Mcts,
            ..SearchOptions::default()
        };
        for (name, value) in settings.split(';').filter_map(|item| item.split_once('=')) {
            let value = value.parse().expect("a number");
            options.tunables.set(name, value).expect("a tunable");
        }
        let mut searcher = Searcher::new(options);
        let root = &shot.board.position;
        let limits = match nodes {
            Some(nodes) => SearchLimits::nodes(nodes),
            None => SearchLimits {
                movetime: Some(std::time::Duration::from_millis(movetime)),
                ..SearchLimits::default()
            },
        };
        let result = searcher.search(root, &[], &limits, &stop, |_| {});
        let swing = played(root, &rules, &result.best_turn)
            .map_or(0.0, |after| worst_reply(&after, &rules).0);
        if swing < SHOT {
            avoided += 1;
        }
    }
    let limit = nodes.map_or(format!("{movetime} ms"), |nodes| format!("{nodes} nodes"));
    println!(
        "one-turn shots: {avoided} of {} avoided at {limit} ({settings})",
        shots.len()
    );
}

/// Rebuilds candidate lines from a match's records: every turn of the
/// engine named `$SUPERNOVA_SHOTS_ENGINE` (default `mcts`) in the records of
/// `$SUPERNOVA_SHOTS_RECORDS` (a `--pgnout` folder, standard rules) whose
/// worst reply swings at least [`SHOT`], where the mover has no win at once
/// and a deeper search ([`DEEP_NODES`]) plays a safe turn. Lines go to
/// `$SUPERNOVA_SHOTS_OUT`.
#[test]
#[ignore]
fn find_one_turn_shots() {
    let (Some(directory), Some(out)) = (
        std::env::var_os("SUPERNOVA_SHOTS_RECORDS"),
        std::env::var_os("SUPERNOVA_SHOTS_OUT"),
    ) else {
        eprintln!("set SUPERNOVA_SHOTS_RECORDS and SUPERNOVA_SHOTS_OUT");
        return;
    };
    let engine = std::env::var("SUPERNOVA_SHOTS_ENGINE").unwrap_or_else(|_| "mcts".into());
    let rules = Rules::STANDARD;
    let mut names: Vec<_> = std::fs::read_dir(&directory)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "sdg"))
        .collect();
    names.sort();
    let mut lines = Vec::new();
    for path in names {
        let game = path.file_stem().unwrap().to_string_lossy().to_string();
        let text = std::fs::read_to_string(&path).unwrap();
        let Ok(record) = GameRecord::parse_sdg(&text) else {
            continue;
        };
        // The engine's seat: the participant named `engine`.
        let Some(seat) = record
            .header
            .participants
            .iter()
            .find(|participant| participant.name == engine)
            .map(|participant| if participant.seat == 'N' { 0 } else { 1 })
        else {
            continue;
        };
        let walk = record.walk(&rules);
        for (number, turn) in walk.turns.iter().enumerate() {
            let root = turn.board.position;
            if turn.mover.index() != seat || root.in_setup() {
                continue;
            }
            let Some(after) = played(&root, &rules, &turn.actions) else {
                continue;
            };
            let (swing, reply) = worst_reply(&after, &rules);
            if !(SHOT..ELIMINATED).contains(&swing) {
                continue;
            }
            if Solver::default().can_win(&root, &rules) {
                continue;
            }
            let safe = search(&root, DEEP_NODES).best_turn;
            let safe_swing = played(&root, &rules, &safe)
                .map_or(ELIMINATED, |after| worst_reply(&after, &rules).0);
            if safe_swing >= SAFE {
                continue;
            }
            let after_board = {
                let mut board = turn.board.clone();
                board.position = after;
                board
            };
            lines.push(format!(
                "{} # {game} turn {}: played {} loses {swing} to {}; safe at {DEEP_NODES} nodes: {}",
                hwpn::write_board(&turn.board),
                number + 1,
                format_turn(&turn.board, &rules, &turn.actions, Style::Token),
                format_turn(&after_board, &rules, &reply, Style::Token),
                format_turn(&turn.board, &rules, &safe, Style::Token),
            ));
            eprintln!("{}", lines.last().unwrap());
        }
    }
    std::fs::write(out, lines.join("\n") + "\n").unwrap();
}

/// The engine's search of `root` at a node limit: one thread, seed 0.
fn search(root: &Position, nodes: u64) -> SearchResult {
    search_with(root, nodes, SearchOptions::default())
}

/// [`search`] with other options.
fn search_with(root: &Position, nodes: u64, options: SearchOptions) -> SearchResult {
    let stop = AtomicBool::new(false);
    let mut searcher = Searcher::new(SearchOptions {
        hash_mb: 64,
        player: PlayerKind::Mcts,
        ..options
    });
    searcher.search(root, &[], &SearchLimits::nodes(nodes), &stop, |_| {})
}
