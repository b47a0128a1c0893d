//! Hostile timing and volume at the protocol, end to end through the
//! binary: a flood of long lines while the command loop is busy stays
//! bounded in memory and `isready` is answered as soon as the work before
//! it is done; `stop` reaches a running search while the loop is busy and
//! the queue full; a multi-player search with a huge node limit answers
//! `isready`, `stop` and `quit`; and `go` right after `stop` (with or
//! without a `position` between) gets its own `bestmove`, in order, never
//! a refusal.

mod engine_process;

use std::time::{Duration, Instant};

use engine_process::{synchronise, Engine};

/// A crowded position (161,355 distinct turns): `turns 1` lists and sorts
/// them all, about half a second of work on the command loop.
fn crowded_position() -> String {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/positions/big_in_check.txt");
    let text = std::fs::read_to_string(path).unwrap();
    let line = text
        .lines()
        .find(|line| !line.starts_with('#'))
        .expect("a position");
    format!("position pos {line}")
}

/// One junk line just under the line cap (1 MiB with its newline).
fn long_junk_line() -> Vec<u8> {
    let mut line = vec![b'x'; (1 << 20) - 1];
    line.push(b'\n');
    line
}

/// Lines of 1 MiB sent while the loop works on `turns` used to pile up in
/// the input queue: 800 of them grew the engine from 5 MB to 802 MB, and
/// `readyok` came seconds after the work was done. Now the queue holds a
/// few megabytes, the rest is dropped with one error, and `readyok`
/// follows the last `turns` answer at once.
#[test]
fn long_lines_sent_while_the_loop_is_busy_are_bounded_and_isready_follows_the_work() {
    const JUNK_LINES: usize = 300;
    let mut engine = Engine::start();
    engine.send(&crowded_position());
    for _ in 0..3 {
        engine.send("turns 1");
    }
    let junk = long_junk_line();
    let mut flood = Vec::with_capacity(junk.len() * 20);
    for _ in 0..20 {
        flood.extend_from_slice(&junk);
    }
    for _ in 0..JUNK_LINES / 20 {
        engine.send_bytes(&flood);
    }
    engine.send("isready");
    let mut last_turns = None;
    let lines = engine.read_until(|line| {
        if line.starts_with("turns total") {
            last_turns = Some(Instant::now());
        }
        line == "readyok"
    });
    let after_work = last_turns.expect("the turns were answered").elapsed();
    let peak = engine.peak_memory();
    let errors: Vec<&String> = lines
        .iter()
        .filter(|line| line.starts_with("info string error"))
        .collect();
    assert!(
        errors.len() < JUNK_LINES,
        "some junk was dropped: {} errors",
        errors.len()
    );
    assert!(
        errors
            .iter()
            .any(|line| line.contains("input queue full") && line.contains("lines dropped")),
        "the drop is reported: {:?}",
        errors.last()
    );
    assert!(
        after_work < Duration::from_secs(2),
        "readyok came {after_work:?} after the last turns answer"
    );
    if let Some(peak) = peak {
        // The listing of 161,355 turns takes some 60 MB; the queue a few.
        assert!(peak < 160 << 20, "peak memory {} MB", peak >> 20);
    }
    engine.send("position startpos");
    engine.send("go nodes 20");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    assert!(lines.last().unwrap().starts_with("bestmove home."));
    engine.quit();
}

/// `stop` is acted on when it is read: a running search answers while the
/// command loop is still busy with `turns` lines sent before the `stop`.
/// Before, the `bestmove` came only after all of them.
#[test]
fn stop_reaches_a_running_search_while_the_loop_is_busy() {
    let mut engine = Engine::start();
    engine.send(&crowded_position());
    engine.send("go infinite");
    synchronise(&mut engine);
    for _ in 0..4 {
        engine.send("turns 1");
    }
    let junk = long_junk_line();
    for _ in 0..8 {
        engine.send_bytes(&junk);
    }
    engine.send("stop");
    let mut turns_before = 0;
    let lines = engine.read_until(|line| {
        turns_before += usize::from(line.starts_with("turns total"));
        line.starts_with("bestmove")
    });
    assert!(
        turns_before < 4,
        "the bestmove came after all the turns lines: {:?}",
        lines.iter().rev().take(3).collect::<Vec<_>>()
    );
    let rest = synchronise(&mut engine);
    let answered = rest
        .iter()
        .filter(|line| line.starts_with("turns total"))
        .count();
    assert_eq!(turns_before + answered, 4, "every turns line answered");
    assert!(!rest.iter().any(|line| line.starts_with("bestmove")));
    engine.quit();
}

/// A multi-player `go nodes 18446744073709551615` searched on the command
/// loop until the process was killed, `isready` and `stop` unanswered. It
/// now runs on its own thread: `isready` is answered while it runs, `stop`
/// ends it with a legal turn, the next `go` runs (one sent during a search
/// waits for its answer, as when searches ran on the loop), and `quit`
/// ends a huge search at once.
#[test]
fn a_huge_multi_player_search_answers_isready_stop_and_quit() {
    let mut engine = Engine::start();
    engine.send("setoption name Players value 3");
    engine.send("position startpos");
    engine.send("go nodes 18446744073709551615");
    std::thread::sleep(Duration::from_millis(300));
    let asked = Instant::now();
    let before = synchronise(&mut engine);
    assert!(asked.elapsed() < Duration::from_secs(5), "{before:?}");
    assert!(before.is_empty(), "nothing before readyok: {before:?}");
    let asked = Instant::now();
    engine.send("stop");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    assert!(asked.elapsed() < Duration::from_secs(5));
    assert!(
        lines.last().unwrap().starts_with("bestmove home."),
        "{lines:?}"
    );
    assert!(
        lines[lines.len() - 2].starts_with("info nodes "),
        "{lines:?}"
    );
    engine.send("go nodes 50");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    assert!(
        !lines.iter().any(|line| line.contains("error")),
        "{lines:?}"
    );
    // A go sent while one runs waits for its answer: both come, in order.
    engine.send("go nodes 2000");
    engine.send("go nodes 50");
    let lines = engine.read_until(|line| line.starts_with("info nodes 50 "));
    assert_eq!(
        lines
            .iter()
            .filter(|line| line.starts_with("bestmove"))
            .count(),
        1
    );
    assert!(lines[0].starts_with("info nodes 2000 "), "{lines:?}");
    engine.next_line();
    engine.send("go nodes 18446744073709551615");
    std::thread::sleep(Duration::from_millis(100));
    let asked = Instant::now();
    engine.send("quit");
    assert!(engine.wait().success());
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "quit took {:?}",
        asked.elapsed()
    );
}

/// Counts the `bestmove` lines of `lines` and checks that none is an error.
fn bestmoves(lines: &[String]) -> Vec<&str> {
    for line in lines {
        assert!(!line.contains("error"), "{line}");
    }
    lines
        .iter()
        .filter_map(|line| line.strip_prefix("bestmove "))
        .collect()
}

/// `stop` and then `go` at once, as UCI GUIs send them, used to be refused
/// as "a search is already running" in nearly every pair. Each `go` now
/// waits for the stopped search's `bestmove` and then searches: one
/// `bestmove` per `go`, in order, with a `position` between or an option.
#[test]
fn go_right_after_stop_is_answered_in_order_never_refused() {
    const PAIRS: usize = 300;
    let setup = "position startpos";
    let later = "position startpos moves home.r1.b3.g3 home.y2.b1.g3";
    let mut engine = Engine::start();
    let mut script = format!("{later}\ngo infinite\n");
    for _ in 0..PAIRS {
        script.push_str("stop\ngo infinite\n");
    }
    // A position between: the answers alternate between a setup turn
    // (the start) and a turn of the game (after both setups), so their
    // order shows.
    for pair in 0..PAIRS {
        let position = if pair % 2 == 0 { setup } else { later };
        script.push_str(&format!("stop\n{position}\ngo infinite\n"));
    }
    script.push_str("stop\nsetoption name MultiPV value 2\nnewgame\ngo nodes 30\n");
    engine.send_bytes(script.as_bytes());
    let mut count = 0;
    let expected = 2 * PAIRS + 2;
    let lines = engine.read_until(|line| {
        count += usize::from(line.starts_with("bestmove"));
        count == expected
    });
    let answers = bestmoves(&lines);
    assert_eq!(answers.len(), expected);
    for (index, answer) in answers[PAIRS + 1..=2 * PAIRS].iter().enumerate() {
        let setup_turn = answer.starts_with("home.");
        assert_eq!(setup_turn, index % 2 == 0, "answer {index}: {answer}");
    }
    assert!(answers[..=PAIRS]
        .iter()
        .all(|answer| !answer.starts_with("home.")));
    assert!(answers[expected - 1].starts_with("home."));
    let rest = synchronise(&mut engine);
    assert!(rest.is_empty(), "nothing more: {rest:?}");
    engine.quit();
}

/// The same for multi-player searches: `stop`, `position` and `go` at once
/// get one `bestmove` per `go`, in order.
#[test]
fn multi_player_go_right_after_stop_is_answered_in_order() {
    const PAIRS: usize = 100;
    let mut engine = Engine::start();
    let mut script = String::from("setoption name Players value 3\nposition startpos\n");
    script.push_str("go nodes 1000000000\n");
    for _ in 0..PAIRS {
        script.push_str("stop\nposition startpos\ngo nodes 1000000000\n");
    }
    script.push_str("stop\n");
    engine.send_bytes(script.as_bytes());
    let mut count = 0;
    let lines = engine.read_until(|line| {
        count += usize::from(line.starts_with("bestmove"));
        count == PAIRS + 1
    });
    let answers = bestmoves(&lines);
    assert!(answers.iter().all(|answer| answer.starts_with("home.")));
    let rest = synchronise(&mut engine);
    assert!(rest.is_empty(), "nothing more: {rest:?}");
    engine.quit();
}
