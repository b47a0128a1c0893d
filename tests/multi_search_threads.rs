//! The multi-player search on several threads and within its limits, end
//! to end through the binary: with `Threads 1`, a `Seed` and a node limit
//! the answer repeats; with `Threads 2` the node limit is the total over
//! the threads; `isready` and `stop` are answered at once while a threaded
//! search with a huge limit runs; `movetime` and each seat's clock bound
//! the search.

mod engine_process;

use engine_process::{synchronise, Engine};
use supernova::notation::multi;
use supernova::rules::Rules;

/// A three-player middle game, seat 0 to move, with many turns to choose
/// from (so the search decides, not the root's exact checks).
const MIDDLE_GAME: &str = "players=3 A=r1y3:g3y1::/B=g2b1::g3y1:/C=g1b2:::y3g1 0";

/// Starts an engine in a three-player game with `threads` threads and seed
/// 3, at [`MIDDLE_GAME`].
fn three_player_engine(threads: usize) -> Engine {
    let mut engine = Engine::start();
    engine.send("setoption name Players value 3");
    engine.send("setoption name Seed value 3");
    engine.send(&format!("setoption name Threads value {threads}"));
    engine.send(&format!("position pos {MIDDLE_GAME}"));
    let before = synchronise(&mut engine);
    assert!(before.is_empty(), "the setup is accepted: {before:?}");
    engine
}

/// The `info` line and the `bestmove` turn of the next answer.
fn answer(engine: &Engine) -> (String, String) {
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    let info = lines
        .iter()
        .rev()
        .find(|line| line.starts_with("info nodes"))
        .unwrap_or_else(|| panic!("an info line before bestmove: {lines:?}"))
        .clone();
    let turn = lines.last().unwrap()["bestmove ".len()..].to_string();
    (info, turn)
}

/// The number after `key` in an `info` line.
fn field(info: &str, key: &str) -> u64 {
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|&word| word == key).unwrap();
    words[at + 1].parse().unwrap()
}

/// The `info` line without its `time` field, which varies.
fn without_time(info: &str) -> String {
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = words.iter().position(|&word| word == "time").unwrap();
    [&words[..at], &words[at + 2..]].concat().join(" ")
}

/// Whether `turn` can be played on [`MIDDLE_GAME`].
fn is_legal(turn: &str) -> bool {
    let mut board = multi::parse(MIDDLE_GAME).unwrap();
    board.play_turn_text(&Rules::STANDARD, turn).is_ok()
}

#[test]
fn one_thread_repeats_and_two_threads_share_the_node_limit() {
    let mut engine = three_player_engine(1);
    engine.send("go nodes 3000");
    let (first_info, first_turn) = answer(&engine);
    assert_eq!(field(&first_info, "nodes"), 3000, "{first_info}");
    assert!(first_info.ends_with("decision search"), "{first_info}");
    assert!(is_legal(&first_turn), "{first_turn}");
    // A new game forgets the turns already played, so the same position
    // gets the same search again.
    engine.send("newgame");
    engine.send(&format!("position pos {MIDDLE_GAME}"));
    engine.send("go nodes 3000");
    let (second_info, second_turn) = answer(&engine);
    assert_eq!(second_turn, first_turn);
    assert_eq!(without_time(&second_info), without_time(&first_info));
    engine.quit();

    let mut engine = three_player_engine(2);
    engine.send("go nodes 3000");
    let (info, turn) = answer(&engine);
    assert_eq!(
        field(&info, "nodes"),
        3000,
        "the threads share the limit: {info}"
    );
    assert!(is_legal(&turn), "{turn}");
    engine.quit();
}

#[test]
fn isready_and_stop_are_answered_during_a_threaded_search() {
    let mut engine = three_player_engine(2);
    engine.send("go nodes 18446744073709551615");
    std::thread::sleep(std::time::Duration::from_millis(300));
    // The command loop is free while the trees grow: `readyok` comes
    // before any `bestmove`.
    let before = synchronise(&mut engine);
    assert!(
        before.iter().all(|line| !line.starts_with("bestmove")),
        "{before:?}"
    );
    engine.send("stop");
    let (info, turn) = answer(&engine);
    assert!(is_legal(&turn), "{turn}");
    // Stopped long before the trees reach their memory bound.
    assert!(field(&info, "nodes") < 1 << 20, "{info}");
    let after = synchronise(&mut engine);
    assert!(after.is_empty(), "one answer only: {after:?}");
    engine.quit();
}

#[test]
fn movetime_and_the_clock_of_the_seat_to_move_bound_the_search() {
    let mut engine = three_player_engine(2);
    engine.send("go movetime 200");
    let (info, turn) = answer(&engine);
    assert!(is_legal(&turn), "{turn}");
    // The tree takes four fifths of the time and the safety checks the rest.
    assert!(field(&info, "time") >= 160, "it uses its time: {info}");
    // Seat 0 has 4 s: a twentieth, less 50 ms of overhead, is 150 ms (120
    // of them the tree's); the others' clocks do not count.
    engine.send("go p0time 4000 p1time 1 p2time 1 p0inc 0");
    let (info, turn) = answer(&engine);
    assert!(is_legal(&turn), "{turn}");
    let time = field(&info, "time");
    assert!(time >= 120, "{info}");
    // A clock nearly out still gets a legal answer.
    engine.send("go p0time 60 p1time 60000 p2time 60000");
    let (_, turn) = answer(&engine);
    assert!(is_legal(&turn), "{turn}");
    engine.quit();
}
