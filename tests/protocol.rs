//! The text protocol end to end, through the real binary: golden
//! transcripts, junk input, and the promptness of `stop` and `isready`.
//!
//! Golden transcripts live in tests/golden: `NAME.in` holds the commands
//! (lines starting with `#` are comments) and `NAME.out` the expected
//! transcript, with times and speeds replaced by `T` and `N`, the machine's
//! `Threads` and `Hash` bounds by `THREADS` and `HASH`, and only the final
//! `info` block of each search kept (progress lines depend on the clock).
//! After an intended change, regenerate them with
//! `SUPERNOVA_BLESS=1 cargo test --release --test protocol` and review the
//! diff.

mod common;
mod engine_process;

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use engine_process::{synchronise, Engine, REPLY_LIMIT};
use supernova::engine::{max_hash_mb, max_threads};
use supernova::protocol::command::{self, Command as ProtocolCommand};
use supernova::search::TUNABLES;

fn golden_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// Replaces the number after `key` in an `info` line by `placeholder`.
fn blank_number(line: &str, key: &str, placeholder: &str) -> String {
    let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
    for index in 0..words.len().saturating_sub(1) {
        if words[index] == key {
            words[index + 1] = placeholder.to_string();
        }
    }
    words.join(" ")
}

/// Keeps only the last block of `info depth` lines (from its `multipv 1`
/// line on) and blanks times and speeds; drops the tunables' option lines,
/// which another test checks against the tunables table.
fn normalise(lines: Vec<String>) -> Vec<String> {
    let is_search_info = |line: &str| line.starts_with("info depth");
    let last_block_start = lines
        .iter()
        .rposition(|line| is_search_info(line) && line.contains(" multipv 1 "));
    lines
        .into_iter()
        .enumerate()
        .filter(|(index, line)| {
            !is_search_info(line) || last_block_start.is_some_and(|start| *index >= start)
        })
        .map(|(_, line)| line)
        .filter(|line| !(line.starts_with("option name ") && line.contains(" type float ")))
        .map(|line| blank_number(&blank_number(&line, "time", "T"), "nps", "N"))
        .map(|line| blank_machine_bounds(&line))
        .collect()
}

/// Replaces the machine's `Threads` and `Hash` bounds (which follow its
/// processors and memory) by `THREADS` and `HASH`.
fn blank_machine_bounds(line: &str) -> String {
    let bounds = [
        ("Threads", max_threads(), "THREADS"),
        ("Hash", max_hash_mb(), "HASH"),
    ];
    for (option, bound, placeholder) in bounds {
        let listed = format!("option name {option} type spin ");
        let refused = format!("info string error: option {option}: ");
        if line.starts_with(&listed) || line.starts_with(&refused) {
            return line
                .replace(&format!(" max {bound}"), &format!(" max {placeholder}"))
                .replace(&format!(" to {bound}"), &format!(" to {placeholder}"));
        }
    }
    line.to_string()
}

/// Runs a golden input and returns the normalised transcript.
fn run_golden(name: &str) -> String {
    let input = std::fs::read_to_string(golden_path(&format!("{name}.in"))).unwrap();
    let mut engine = Engine::start();
    let mut transcript = Vec::new();
    for line in input.lines() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        transcript.push(format!("> {line}"));
        engine.send(line);
        let words: Vec<&str> = line.split_whitespace().collect();
        let replies = match words.first().copied() {
            Some("go") => engine.read_until(|reply| {
                reply.starts_with("bestmove") || reply.starts_with("info string error")
            }),
            Some("quit") => engine.read_to_end(),
            _ => {
                // Synchronise: everything the command printed comes before
                // the answer to this extra isready.
                engine.send("isready");
                let expected = if line.trim() == "isready" { 2 } else { 1 };
                let mut seen = 0;
                let mut replies = engine.read_until(|reply| {
                    if reply == "readyok" {
                        seen += 1;
                    }
                    seen == expected
                });
                replies.pop();
                replies
            }
        };
        transcript.extend(
            normalise(replies)
                .into_iter()
                .map(|reply| format!("< {reply}")),
        );
    }
    assert!(engine.wait().success(), "the engine exits cleanly on quit");
    transcript.join("\n") + "\n"
}

fn check_golden(name: &str) {
    let actual = run_golden(name);
    let expected_path = golden_path(&format!("{name}.out"));
    if std::env::var_os("SUPERNOVA_BLESS").is_some() {
        std::fs::write(&expected_path, &actual).unwrap();
        eprintln!("blessed {}", expected_path.display());
        return;
    }
    let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
    if actual != expected {
        let first_difference = actual
            .lines()
            .zip(expected.lines())
            .enumerate()
            .find(|(_, (actual, expected))| actual != expected)
            .map(|(index, (actual, expected))| {
                format!(
                    "line {}:\n  expected: {expected}\n  actual:   {actual}",
                    index + 1
                )
            })
            .unwrap_or_else(|| "the transcripts differ in length".to_string());
        panic!(
            "golden transcript {name} differs at {first_difference}\n\
             full transcript:\n{actual}\n\
             If the change is intended: SUPERNOVA_BLESS=1 cargo test --release --test protocol"
        );
    }
}

#[test]
fn golden_handshake_options_errors_and_extensions() {
    check_golden("handshake");
}

#[test]
fn golden_searches_results_and_players() {
    check_golden("search");
}

#[test]
fn hwi_lists_every_tunable_with_its_range() {
    let mut engine = Engine::start();
    engine.send("hwi");
    let lines = engine.read_until(|line| line == "hwiok");
    for spec in TUNABLES {
        let expected = format!(
            "option name {} type float default {} min {} max {}",
            spec.name, spec.default, spec.min, spec.max
        );
        if spec.name == "move_overhead_ms" {
            // Listed once, under its UCI name.
            assert!(!lines.contains(&expected), "listed twice: {expected}");
            let overhead = format!(
                "option name Move Overhead type spin default {} min {} max {}",
                spec.default, spec.min, spec.max
            );
            assert_eq!(
                lines.iter().filter(|line| **line == overhead).count(),
                1,
                "{lines:?}"
            );
        } else {
            assert!(lines.contains(&expected), "missing: {expected}");
        }
    }
    let overhead_lines = lines
        .iter()
        .filter(|line| line.to_ascii_lowercase().contains("overhead"))
        .count();
    assert_eq!(overhead_lines, 1, "{lines:?}");
    engine.quit();
}

/// A game of 200,000 passes after the setup turns, in one `position` line
/// (just under the 1 MiB line cap). The history keeps its repetition counts
/// incrementally (see the unit tests of `rules::history`), so this takes a
/// fraction of a second; when every turn rescanned the whole history it
/// took about a minute, and the engine could not answer `isready` meanwhile.
/// Only the protocol's generous reply limit bounds the time here.
#[test]
fn a_long_moves_list_is_read_in_linear_time() {
    const PASSES: usize = 200_000;
    let mut line = String::from("position startpos moves home.r1.b3.g3 home.y2.b1.g3");
    for _ in 0..PASSES {
        line.push_str(" pass");
    }
    let mut engine = Engine::start();
    engine.send(&line);
    engine.send("d");
    engine.send("isready");
    let lines = engine.read_until(|line| line == "readyok");
    let expected_turns = format!("turns played: {} since the position's base", PASSES + 2);
    assert!(lines.contains(&expected_turns), "{lines:?}");
    let expected_status = format!(
        "status: ongoing, position seen {} times, the side to move may claim a draw by repetition",
        PASSES / 2 + 1
    );
    assert!(lines.contains(&expected_status), "{lines:?}");
    // A turn after an automatic draw is refused, naming it.
    engine.send("setoption name Repetition value auto@3");
    engine.send(&line);
    engine.send("isready");
    let lines = engine.read_until(|line| line == "readyok");
    assert!(
        lines.contains(
            &"info string error: turn 7 'pass' comes after the end of the game (1/2-1/2 repetition)"
                .to_string()
        ),
        "{lines:?}"
    );
    engine.quit();
}

/// Junk lines, each of which the engine must reject with one error: random
/// bytes, and commands with missing, extra or bad arguments.
fn junk_lines(count: usize) -> Vec<Vec<u8>> {
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let templates: &[&str] = &[
        "position",
        "position startpos moves build.g1.Home0",
        "position startpos moves home.r1.b3.g3 home.r1.b3.g3 home.r1.b3.g3",
        "position startpos moves home.r1.b3",
        "position startpos moves pass",
        "position startpos junk",
        "position pos",
        "position pos -/- 2",
        "position pos r1b3:g3:/y2b1::g3",
        "position pos r1b3:g3:/y2b1::g3 0 moves sac.g3.Home0,sac.g3.Home0",
        "position pos r1b3:g3:/y2b1::g3 0 moves move.g3.Home0.Nowhere",
        "position pos r1r1r1r1:g3:/y2b1::g3 0",
        "position pos Home0=r1b3:g3:/home0=y2b1::g3 0",
        "position pos r1b3:g3:/y2b1::g3/b2:: 0",
        "position pos é=r1b3:g3:/y2b1::g3 0",
        "position kiwipete",
        "go nodes",
        "go nodes -1",
        "go nodes 1e9",
        "go movetime soon",
        "go depth 3",
        "go p1inc 10",
        "go ponder ponder",
        "ponderhit now",
        "go infinite nodes",
        "setoption",
        "setoption Hash",
        "setoption name",
        "setoption name Hash value",
        "setoption name Hash value 0",
        "setoption name Hash value 99999999999999999999",
        "setoption name Threads value 0",
        "setoption name MultiPV value -3",
        "setoption name Player value alphabeta",
        "setoption name Rules value fide",
        "setoption name Repetition value sometimes",
        "setoption name cpuct value inf",
        "setoption name cpuct value NaN",
        "setoption name Seed value -1",
        "setoption name Unknown Option value 3",
        "hwi extra",
        "isready now",
        "newgame please",
        "stop it",
        "quit later",
        "d d",
        "eval 3",
        "count all",
        "turns -5",
        "turns all 3",
        "uci",
        "ucinewgame",
        "bestmove pass",
        "\u{0}\u{0}\u{0}",
        "info string hello",
        "GO",
        "Position startpos",
    ];
    (0..count)
        .map(|_| {
            let choice = next() % 4;
            if choice == 0 {
                // Random bytes without a newline; a leading letter so the
                // line is never blank.
                let length = 1 + (next() % 60) as usize;
                let mut bytes = vec![b'z'];
                bytes.extend((0..length).map(|_| {
                    let byte = (next() % 256) as u8;
                    if byte == b'\n' {
                        b'?'
                    } else {
                        byte
                    }
                }));
                bytes
            } else {
                let mut line = templates[(next() % templates.len() as u64) as usize]
                    .as_bytes()
                    .to_vec();
                if choice == 2 {
                    // Mangle one byte; keep the result only if the parser
                    // rejects it (a mangled bad value could become a good one).
                    let at = (next() as usize) % line.len();
                    line[at] = (next() % 94 + 33) as u8;
                    if command::parse(&String::from_utf8_lossy(&line)).is_ok() {
                        line = b"mangled".to_vec();
                    }
                }
                if choice == 3 {
                    line.extend_from_slice(b"\r");
                }
                line
            }
        })
        .filter(|line| {
            // Keep only lines the parser rejects, or position/setoption
            // lines whose content the engine rejects (checked below by
            // counting one error per line).
            match command::parse(&String::from_utf8_lossy(line)) {
                Err(_) => true,
                Ok(ProtocolCommand::Position { .. }) | Ok(ProtocolCommand::SetOption { .. }) => {
                    true
                }
                Ok(_) => false,
            }
        })
        .collect()
}

#[test]
fn junk_input_never_changes_the_state_or_kills_the_engine() {
    let mut engine = Engine::start();
    engine.send("position startpos moves home.r1.b3.g3 home.y2.b1.g3 build.g1.Home0");
    engine.send("d");
    engine.send("isready");
    let before = engine.read_until(|line| line == "readyok");
    let junk = junk_lines(4000);
    assert!(junk.len() > 3000);
    let mut all = Vec::new();
    for line in &junk {
        all.extend_from_slice(line);
        all.push(b'\n');
    }
    // A very long line, and one over the 1 MiB limit.
    all.extend_from_slice(&vec![b'x'; 100_000]);
    all.push(b'\n');
    all.extend_from_slice(&vec![b'p'; (1 << 20) + 10]);
    all.push(b'\n');
    engine.send_bytes(&all);
    engine.send("d");
    engine.send("isready");
    let after = engine.read_until(|line| line == "readyok");
    let errors = after
        .iter()
        .filter(|line| line.starts_with("info string error: "))
        .count();
    assert_eq!(errors, junk.len() + 2, "one error per junk line");
    assert!(
        !after.iter().any(|line| line.starts_with("bestmove")),
        "no junk line started a search"
    );
    let board_after: Vec<&String> = after
        .iter()
        .filter(|line| !line.starts_with("info string error: "))
        .collect();
    let board_before: Vec<&String> = before.iter().collect();
    assert_eq!(board_after, board_before, "the position is unchanged");
    engine.quit();
}

#[test]
fn stop_ends_an_infinite_search_with_one_bestmove_and_isready_answers_during_it() {
    let mut engine = Engine::start();
    engine.send("position startpos moves home.r1.b3.g3 home.y2.b1.g3");
    engine.send("go infinite");
    engine.send("isready");
    let early = engine.read_until(|line| line == "readyok");
    assert!(
        !early.iter().any(|line| line.starts_with("bestmove")),
        "readyok came while the search ran"
    );
    std::thread::sleep(Duration::from_millis(100));
    engine.send("go nodes 10");
    let busy = engine.next_line();
    assert!(
        busy.starts_with("info string error: a search is already running"),
        "{busy}"
    );
    let asked = Instant::now();
    engine.send("stop");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    let waited = asked.elapsed();
    assert!(waited < REPLY_LIMIT);
    // The decision, then why the turn was played, then the turn.
    let decision_at = lines.len() - 3;
    assert!(lines[decision_at].starts_with("info string decision"));
    assert!(lines[decision_at + 1].starts_with("info string explain "));
    assert!(
        lines[decision_at - 1].starts_with("info depth"),
        "{lines:?}"
    );
    engine.send("isready");
    assert_eq!(engine.next_line(), "readyok", "exactly one bestmove");
    engine.quit();
}

#[test]
fn end_of_input_stops_an_infinite_search_and_exits_cleanly() {
    let mut engine = Engine::start();
    engine.send("position startpos moves home.r1.b3.g3 home.y2.b1.g3");
    engine.send("go infinite");
    std::thread::sleep(Duration::from_millis(50));
    engine.close_input();
    let lines = engine.read_to_end();
    assert_eq!(
        lines
            .iter()
            .filter(|line| line.starts_with("bestmove"))
            .count(),
        1,
        "{lines:?}"
    );
    assert!(engine.wait().success());
}

#[test]
fn the_default_command_runs_the_protocol() {
    let output = common::supernova_with_input(&[], b"isready\nposition startpos\ngo nodes 10\n");
    let text = String::from_utf8(output.stdout).unwrap();
    assert!(output.status.success());
    assert!(text.starts_with("readyok\n"), "{text}");
    assert_eq!(text.matches("bestmove home.").count(), 1, "{text}");
}

/// The controller's half of the protocol reads every line the engine
/// writes in a handshake and a search as a typed reply.
#[test]
fn the_client_half_reads_every_engine_reply() {
    use supernova::engine::option_specs;
    use supernova::protocol::client::EngineProcess;
    use supernova::protocol::reply::Reply;
    use supernova::protocol::ENGINE_NAME;
    use supernova::search::SearchLimits;

    let mut engine =
        EngineProcess::spawn(env!("CARGO_BIN_EXE_supernova"), &["engine".to_string()]).unwrap();
    let identity = engine.identify(REPLY_LIMIT).unwrap();
    assert_eq!(identity.name.as_deref(), Some(ENGINE_NAME));
    assert_eq!(identity.options.len(), option_specs().len());
    let setup = ["home.r1.b3.g3", "home.y2.b1.g3"].map(str::to_string);
    for multi_pv in ["1", "3"] {
        engine
            .send(&ProtocolCommand::SetOption {
                name: "MultiPV".to_string(),
                value: multi_pv.to_string(),
            })
            .unwrap();
        engine
            .send(&ProtocolCommand::Position {
                base: Box::default(),
                turns: setup.to_vec(),
            })
            .unwrap();
        engine
            .send(&ProtocolCommand::Go(SearchLimits::nodes(300)))
            .unwrap();
        let (mut infos, mut strings) = (0, 0);
        let best = engine
            .wait_for(REPLY_LIMIT, |reply| match reply {
                Ok(Reply::Info(info)) => {
                    assert!(info.nodes.is_some() && !info.pv.is_empty(), "{info}");
                    infos += 1;
                    None
                }
                Ok(Reply::InfoString(_)) => {
                    strings += 1;
                    None
                }
                Ok(Reply::BestMove { turn, .. }) => Some(turn),
                Ok(other) => panic!("unexpected during a search: {other}"),
                Err(error) => panic!("a reply that does not read: {error}"),
            })
            .unwrap();
        assert!(best.is_some_and(|turn| !turn.is_empty()));
        // The decision and the explanation.
        assert!(infos >= 1 && strings == 2, "{infos} {strings}");
    }
    engine.synchronise(REPLY_LIMIT).unwrap();
    assert!(engine.errors.is_empty(), "{:?}", engine.errors);
    engine.quit();
}

/// Sets `position` and searches 100 nodes; returns the first `info depth`
/// line of the answer (a proven result is reported there in full).
fn first_depth_info(engine: &mut Engine, position: &str) -> String {
    engine.send(position);
    engine.send("go nodes 100");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    lines
        .into_iter()
        .find(|line| line.starts_with("info depth"))
        .expect("an info line before bestmove")
}

fn has_bestmove(lines: &[String]) -> bool {
    lines.iter().any(|line| line.starts_with("bestmove"))
}

/// `go infinite` never answers before `stop`, also where the
/// answer is settled at once: the setup book at the start, a proven win
/// (a win in one), and positions with one sensible turn (a mover's only
/// other turn, a sacrifice, eliminates it; the only turn that avoids an
/// immediate loss). A live position always has at least two legal turns:
/// `pass`, and a sacrifice of a ship. The search's `info` line comes
/// first, then nothing until `stop`; before the fix the `bestmove` followed
/// that line at once.
#[test]
fn go_infinite_answers_only_after_stop_even_when_the_turn_is_settled() {
    let mut engine = Engine::start();
    for (position, expected) in [
        ("position startpos", "bestmove home."),
        (
            "position pos r1b3:g3:/y2b2:r3:g1 0",
            "bestmove capture.g1.Home1",
        ),
        ("position pos r1b3:g3:/r1::r1 1", "bestmove pass"),
        // Decided by the root's exact checks: the only safe turn.
        (
            "position pos y1g2:r1:/y3g3:r3:b3 1",
            "bestmove build.b1.Home1",
        ),
    ] {
        engine.send(position);
        engine.send("go infinite");
        let first = engine.read_until(|line| line.starts_with("info depth"));
        assert!(!has_bestmove(&first), "{position}: {first:?}");
        // Other commands are answered meanwhile, and still no bestmove.
        engine.send("d");
        let meanwhile = synchronise(&mut engine);
        assert!(!has_bestmove(&meanwhile), "{position}: {meanwhile:?}");
        engine.send("stop");
        let lines = engine.read_until(|line| line.starts_with("bestmove"));
        let last = lines.last().unwrap();
        assert!(last.starts_with(expected), "{position}: {lines:?}");
        assert!(synchronise(&mut engine).is_empty(), "exactly one bestmove");
    }
    // A finished game has nothing to search, and still waits for stop.
    engine.send("position pos r1b3:g3:/x 1");
    engine.send("go infinite");
    assert!(synchronise(&mut engine).is_empty());
    engine.send("stop");
    assert_eq!(
        engine.read_until(|line| line.starts_with("bestmove")),
        ["info string result 1-0 elimination", "bestmove (none)"]
    );
    engine.quit();
}

/// `go ponder` searches until `ponderhit` or `stop`: after `ponderhit` the
/// search goes on under the `go`'s own limits (here exactly 500 nodes with
/// one thread) and answers by itself; after `stop` it answers what it has.
/// A `ponderhit` with no ponder search is ignored, as `stop` is.
#[test]
fn go_ponder_waits_for_ponderhit_or_stop() {
    let mut engine = Engine::start();
    engine.send("position startpos moves home.r1.b3.g3 home.y2.b1.g3 build.g1.Home0");
    engine.send("go ponder nodes 500");
    let during = synchronise(&mut engine);
    assert!(!has_bestmove(&during), "{during:?}");
    engine.send("ponderhit");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    let final_info = lines
        .iter()
        .rev()
        .find(|line| line.starts_with("info depth"))
        .unwrap();
    assert!(final_info.contains(" nodes 500 "), "{lines:?}");
    assert!(lines.contains(&"info string decision search".to_string()));
    assert!(synchronise(&mut engine).is_empty(), "exactly one bestmove");
    // A second ponderhit, with nothing to hit, is ignored.
    engine.send("ponderhit");
    assert!(synchronise(&mut engine).is_empty());
    // Pondering on a setup position (answered from the book) waits too.
    engine.send("position startpos moves home.r1.b3.g3");
    engine.send("go ponder movetime 100000");
    let first = engine.read_until(|line| line.starts_with("info depth"));
    assert!(!has_bestmove(&first));
    assert!(!has_bestmove(&synchronise(&mut engine)));
    engine.send("stop");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    assert!(
        lines.last().unwrap().starts_with("bestmove home."),
        "{lines:?}"
    );
    // `go ponder` given twice is an error.
    engine.send("go ponder ponder");
    assert!(engine
        .next_line()
        .starts_with("info string error: 'ponder'"));
    engine.quit();
}

/// With `Ponder` on, `bestmove` names the reply the engine expects, and
/// that reply can be played after the best turn; with it off (the default)
/// the line is plain `bestmove <turn>`.
#[test]
fn bestmove_names_the_expected_reply_with_ponder_on() {
    let mut engine = Engine::start();
    let game = "position startpos moves home.r1.b3.g3 home.y2.b1.g3";
    engine.send(game);
    engine.send("go nodes 1000");
    let plain = engine.read_until(|line| line.starts_with("bestmove"));
    assert_eq!(plain.last().unwrap().split(' ').count(), 2, "{plain:?}");
    engine.send("setoption name Ponder value true");
    engine.send("go nodes 1000");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    let words: Vec<&str> = lines.last().unwrap().split(' ').collect();
    let ["bestmove", turn, "ponder", reply] = words[..] else {
        panic!("expected bestmove <turn> ponder <turn>: {lines:?}");
    };
    engine.send(&format!("{game} {turn} {reply}"));
    engine.send("d");
    let board = synchronise(&mut engine);
    assert!(
        board.contains(&"turns played: 4 since the position's base".to_string()),
        "{board:?}"
    );
    engine.send("setoption name Ponder value maybe");
    assert!(engine
        .next_line()
        .starts_with("info string error: option Ponder: bad value 'maybe'"));
    engine.quit();
}

/// When a safety check replaces the tree's turn, the final `multipv 1`
/// line is the turn played: a GUI shows that line as the engine's choice.
/// Suite position 51 of `positions/tactics/two_turn.txt`: at 3,000 nodes
/// the tree's favourite lets the opponent force a win in two, and the
/// defence search's turn replaces it (the test checks that it did).
#[test]
fn the_first_multipv_line_is_the_turn_played_when_a_check_replaces_it() {
    let suite = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("positions/tactics/two_turn.txt"),
    )
    .unwrap();
    let position = suite
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .nth(50)
        .unwrap();
    let position = position.split('#').next().unwrap().trim();
    let mut engine = Engine::start();
    engine.send("setoption name MultiPV value 3");
    engine.send(&format!("position pos {position}"));
    engine.send("go nodes 3000");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    let decision = &lines[lines.len() - 3];
    assert_eq!(decision, "info string decision two-turn-defence");
    let played = lines.last().unwrap().strip_prefix("bestmove ").unwrap();
    let block = lines
        .iter()
        .rposition(|line| line.starts_with("info depth") && line.contains(" multipv 1 "))
        .unwrap();
    let first_turn = |line: &str| {
        line.split(" pv ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    assert_eq!(first_turn(&lines[block]), played, "{}", lines[block]);
    let others: Vec<String> = lines[block + 1..lines.len() - 3]
        .iter()
        .map(|line| first_turn(line))
        .collect();
    assert_eq!(others.len(), 2, "{lines:?}");
    assert!(!others.iter().any(|turn| turn == played), "{others:?}");
    engine.quit();
}

/// Every `info` line reads as a typed reply: with `UCI_ShowWDL` on it
/// carries `wdl` summing to 1000 whose win share is its `winprob`; every
/// MultiPV line carries a whole line that plays from the position; a win
/// in one is `score mate 1`, and `eval` uses the same units as `info`.
#[test]
fn info_lines_carry_wdl_whole_lines_and_mate_scores() {
    use supernova::protocol::reply::{self, Reply, Score};

    let mut engine = Engine::start();
    let game = "position startpos moves home.r1.b3.g3 home.y2.b1.g3";
    engine.send("setoption name UCI_ShowWDL value true");
    engine.send("setoption name MultiPV value 3");
    engine.send(game);
    engine.send("go nodes 3000");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    let infos: Vec<reply::Info> = lines
        .iter()
        .filter(|line| line.starts_with("info depth"))
        .map(|line| match reply::parse(line) {
            Ok(Reply::Info(info)) => info,
            other => panic!("{line}: {other:?}"),
        })
        .collect();
    let last_three = &infos[infos.len() - 3..];
    for (rank, info) in last_three.iter().enumerate() {
        assert_eq!(info.multipv, Some(rank as u64 + 1));
        let [win, draw, loss] = info.wdl.expect("wdl with UCI_ShowWDL");
        assert_eq!(win + draw + loss, 1000, "{info}");
        assert_eq!(Some(win), info.winprob, "{info}");
        assert!(matches!(info.score, Some(Score::Centipawns(_))), "{info}");
        assert!(info.pv.len() >= 2, "a whole line on every multipv: {info}");
        // The line plays from the position.
        engine.send(&format!("{game} {}", info.pv.join(" ")));
        assert!(synchronise(&mut engine).is_empty(), "{info}");
        engine.send(game);
    }
    // A proven win is UCI's mate score, with its line to the end.
    engine.send("setoption name MultiPV value 1");
    let proven = first_depth_info(&mut engine, "position pos r1b3:g3:/y2b2:r3:g1 0");
    assert!(
        proven.contains(" score mate 1 winprob 1000 wdl 1000 0 0 "),
        "{proven}"
    );
    // A proven loss: passing lets the opponent capture the last home ship,
    // and the only other turn sacrifices it.
    let proven = first_depth_info(&mut engine, "position pos r1b3:g3:/r1:r3:r1 1");
    assert!(
        proven.contains(" score mate -1 winprob 0 wdl 0 0 1000 "),
        "{proven}"
    );
    // eval: cp and per mille, as info.
    engine.send(game);
    engine.send("eval");
    let eval = engine.next_line();
    let words: Vec<&str> = eval.split(' ').collect();
    let ["eval", "cp", cp, "winprob", winprob] = words[..] else {
        panic!("{eval}");
    };
    let cp: f64 = cp.parse().unwrap();
    let winprob: f64 = winprob.parse().unwrap();
    assert!((winprob - (cp + 1000.0) / 2.0).abs() <= 1.0, "{eval}");
    engine.quit();
}

/// `setoption` during a search is refused with the documented error and
/// changes nothing: after `stop`, a search reports as before the attempt.
#[test]
fn setoption_during_a_search_is_refused_and_changes_nothing() {
    let mut engine = Engine::start();
    engine.send("position startpos moves home.r1.b3.g3 home.y2.b1.g3");
    engine.send("go infinite");
    for option in [
        "MultiPV value 3",
        "UCI_ShowWDL value true",
        "Ponder value true",
        "Hash value 8",
        "cpuct value 2",
    ] {
        engine.send(&format!("setoption name {option}"));
        assert_eq!(
            engine
                .read_until(|line| line.starts_with("info string"))
                .last()
                .unwrap(),
            "info string error: a search is running: send stop first, then change options",
            "{option}"
        );
    }
    engine.send("stop");
    engine.read_until(|line| line.starts_with("bestmove"));
    engine.send("setoption name Ponder value false");
    engine.send("go nodes 300");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    for line in lines.iter().filter(|line| line.starts_with("info depth")) {
        assert!(line.contains(" multipv 1 "), "{line}");
        assert!(!line.contains(" wdl "), "{line}");
    }
    assert_eq!(lines.last().unwrap().split(' ').count(), 2, "{lines:?}");
    engine.quit();
}

/// `UCI_LimitStrength` with `UCI_Elo`: the search runs at most the level's
/// node budget whatever the limits, the choice among good turns is drawn
/// (reproducibly for a fixed seed), and the exact checks still hold: a win
/// in one is played, and so is the only turn that avoids losing at once.
#[test]
fn limited_strength_budgets_nodes_and_keeps_the_exact_checks() {
    use supernova::engine::strength::{LEVELS, MAX_ELO};

    let mut engine = Engine::start();
    engine.send("setoption name UCI_LimitStrength value true");
    // A weak level that still finds several good turns to choose among.
    let level = LEVELS[2];
    engine.send(&format!("setoption name UCI_Elo value {}", level.elo));
    engine.send(&format!("setoption name UCI_Elo value {}", MAX_ELO + 1));
    assert!(engine
        .next_line()
        .starts_with("info string error: option UCI_Elo: bad value"));
    let budget = level.nodes;
    let game = "position startpos moves home.r1.b3.g3 home.y2.b1.g3";
    let mut decisions = Vec::new();
    let mut answers = Vec::new();
    for seed in 1..=8 {
        engine.send(&format!("setoption name Seed value {seed}"));
        engine.send(game);
        engine.send("go nodes 100000");
        let lines = engine.read_until(|line| line.starts_with("bestmove"));
        let final_info = lines
            .iter()
            .rev()
            .find(|line| line.starts_with("info depth"))
            .unwrap();
        assert!(
            final_info.contains(&format!(" nodes {budget} ")),
            "{final_info}"
        );
        decisions.push(lines[lines.len() - 3].clone());
        answers.push(lines.last().unwrap().clone());
    }
    assert!(
        decisions.contains(&"info string decision limited-strength".to_string()),
        "{decisions:?}"
    );
    // The same seed gives the same turn.
    engine.send("setoption name Seed value 8");
    engine.send("go nodes 100000");
    let again = engine.read_until(|line| line.starts_with("bestmove"));
    assert_eq!(again.last(), answers.last());
    for (position, expected) in [
        (
            "position pos r1b3:g3:/y2b2:r3:g1 0",
            "bestmove capture.g1.Home1",
        ),
        (
            "position pos y1g2:r1:/y3g3:r3:b3 1",
            "bestmove build.b1.Home1",
        ),
    ] {
        engine.send(position);
        engine.send("go nodes 1000");
        let lines = engine.read_until(|line| line.starts_with("bestmove"));
        assert_eq!(lines.last().unwrap(), expected, "{lines:?}");
    }
    engine.quit();
}

/// A limited engine plays as it was calibrated: the search constants its
/// levels were measured with (exploration and contempt) hold whatever the
/// tunables are set to, so the same seed gives the same candidates, scores
/// and turns. (Changed exploration constants change them in this position;
/// contempt shows only where the tree meets a repetition.)
#[test]
fn limited_strength_ignores_the_tunables_its_levels_were_calibrated_without() {
    use supernova::engine::strength::LEVELS;

    let answers = |settings: &[&str]| {
        let mut engine = Engine::start();
        engine.send("setoption name UCI_LimitStrength value true");
        engine.send(&format!("setoption name UCI_Elo value {}", LEVELS[5].elo));
        for setting in settings {
            engine.send(setting);
        }
        let mut answers = Vec::new();
        for seed in 1..=4 {
            engine.send(&format!("setoption name Seed value {seed}"));
            engine.send(
                "position pos Sam=y1b3:r1g3:/Dave=r2y1::g1b3/Fritz=b2:y3g1:/Delos=b3:r1:/Lebling=g2:r1y1b2:/Minsky=g2:r2:/Licklider=g2:r2:/Kotok=g3:r3:/Shrdlu=r3::b1/Frotz=r3::g1b1 0",
            );
            engine.send("go nodes 100000");
            // The candidates' scores and lines, without the timing fields.
            for line in engine.read_until(|line| line.starts_with("bestmove")) {
                let mut words = line.split(' ').peekable();
                let mut kept = Vec::new();
                while let Some(word) = words.next() {
                    if matches!(word, "time" | "nps" | "hashfull") {
                        words.next();
                    } else {
                        kept.push(word);
                    }
                }
                answers.push(kept.join(" "));
            }
        }
        engine.send("quit");
        assert!(engine.wait().success());
        answers
    };
    let calibrated = answers(&[]);
    let changed = answers(&[
        "setoption name cpuct value 5",
        "setoption name cpuct_intra_turn value 5",
        "setoption name contempt value 0.9",
        "setoption name prior_exposed value -5",
        "setoption name prior_escape value 5",
    ]);
    assert_eq!(calibrated, changed);
}

#[test]
fn a_search_that_fills_a_tiny_hash_recycles_and_answers_a_legal_turn() {
    // Hash 1 holds a few thousand nodes; 60,000 iterations fill it many
    // times over. Without recycling the tree would stop at hashfull 1000;
    // with it, each time it is nearly full it drops its least visited
    // branches and goes on growing, so the last report is below that.
    // One thread checks the fill after every iteration, so that holds
    // every run. With two, the calling thread checks it and recycles while
    // the helper waits at the gate; on a loaded machine the helper can run
    // the last iterations alone into a full tree, so there only the
    // answer is checked.
    for threads in [1, 2] {
        let mut engine = Engine::start();
        engine.send("hwi");
        engine.read_until(|line| line == "hwiok");
        engine.send("setoption name Hash value 1");
        engine.send(&format!("setoption name Threads value {threads}"));
        engine.send("position startpos moves home.r1.b3.g3 home.y2.b1.g3");
        engine.send("go nodes 60000");
        let lines = engine.read_until(|line| line.starts_with("bestmove"));
        let last_info = lines
            .iter()
            .rev()
            .find(|line| line.starts_with("info depth"))
            .expect("a final info line");
        let words: Vec<&str> = last_info.split_whitespace().collect();
        let field = |name: &str| -> u64 {
            let at = words.iter().position(|word| *word == name).unwrap();
            words[at + 1].parse().unwrap()
        };
        assert!(field("nodes") >= 60_000, "{last_info}");
        if threads == 1 {
            assert!(field("hashfull") < 990, "{last_info}");
        }
        // The answer is a legal turn: the engine accepts it in a position.
        let turn = lines.last().unwrap().split_whitespace().nth(1).unwrap();
        engine.send(&format!(
            "position startpos moves home.r1.b3.g3 home.y2.b1.g3 {turn}"
        ));
        engine.send("isready");
        let reply = engine.read_until(|line| line == "readyok");
        assert_eq!(reply, vec!["readyok".to_string()], "{turn}");
        engine.send("quit");
        assert!(engine.wait().success());
    }
}

/// `EvalFile` reads only a regular file of a bounded size: a device that
/// never ends, a named pipe with no writer and an oversized file are each
/// refused at once with the reason, `isready` is answered straight after,
/// and the network in use stays (a search still runs on it).
#[test]
fn eval_file_refuses_devices_pipes_and_huge_files_at_once() {
    let folder = std::env::temp_dir().join(format!("supernova-evalfile-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).unwrap();
    let pipe = folder.join("pipe");
    let made = Command::new("mkfifo").arg(&pipe).status();
    let huge = folder.join("huge.net");
    std::fs::write(&huge, vec![b'0'; 5 << 20]).unwrap();
    let mut cases = vec![
        ("/dev/zero".to_string(), "a network file in a regular file"),
        (
            huge.display().to_string(),
            "at most 4194304 bytes, not 5242880",
        ),
        (
            folder.display().to_string(),
            "a network file in a regular file",
        ),
    ];
    if made.is_ok_and(|status| status.success()) {
        cases.push((
            pipe.display().to_string(),
            "a network file in a regular file",
        ));
    }
    let mut engine = Engine::start();
    for (path, reason) in &cases {
        let started = Instant::now();
        engine.send(&format!("setoption name EvalFile value {path}"));
        let replies = synchronise(&mut engine);
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{path}: answered after {:?}",
            started.elapsed()
        );
        assert_eq!(replies.len(), 1, "{path}: {replies:?}");
        assert!(
            replies[0].starts_with("info string error: option EvalFile: ")
                && replies[0].contains(reason),
            "{path}: {replies:?}"
        );
    }
    engine.send("position startpos moves home.r1.b3.g3 home.y2.b1.g3");
    engine.send("go nodes 50");
    let lines = engine.read_until(|line| line.starts_with("bestmove"));
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
    engine.quit();
    let _ = std::fs::remove_dir_all(&folder);
}
