//! The protocol's multi-player extension and `supernova match` with three to
//! six engines, end to end through the binary: a session takes `Players`,
//! `Victory` and `Alignment`, reads multi-player positions and turns, answers
//! `go` with a legal turn and the result with one score per seat, refuses bad
//! input without changing its state, and goes back to the two-player game; a
//! match of three engines rotates the seats, prints the per-seat table,
//! survives a crashing engine and writes records that replay.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};

use common::{binary, supernova, text};
use supernova::notation::multi;
use supernova::rules::multi::MultiOutcome;
use supernova::rules::Rules;

/// Runs one engine session on `input` and returns its output lines.
fn session(input: &str) -> Vec<String> {
    let mut child = Command::new(binary())
        .arg("engine")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("the engine starts");
    child
        .stdin
        .take()
        .expect("stdin is piped")
        .write_all(input.as_bytes())
        .expect("the engine reads its input");
    let output = child.wait_with_output().expect("the engine ends");
    text(&output).lines().map(str::to_string).collect()
}

fn bestmoves(lines: &[String]) -> Vec<&str> {
    lines
        .iter()
        .filter_map(|line| line.strip_prefix("bestmove "))
        .collect()
}

const WIN_IN_ONE: &str = "players=3 A=r1y3:r3g3::/B=g2b1:r3:g1:/C=g1b2:::y3 0";

#[test]
fn a_three_player_session_plays_the_win_and_reports_scores_per_seat() {
    let input = format!(
        "setoption name Players value 3\n\
         setoption name Victory value sinister\n\
         position pos {WIN_IN_ONE}\n\
         go nodes 50\n\
         position pos {WIN_IN_ONE} moves capture.g1e.B\n\
         go nodes 50\n\
         d\n\
         quit\n"
    );
    let lines = session(&input);
    let moves = bestmoves(&lines);
    assert_eq!(moves, ["capture.g1e.B", "(none)"], "{lines:#?}");
    let info = lines
        .iter()
        .find(|line| line.starts_with("info nodes"))
        .expect("an info line before the bestmove");
    assert!(info.contains("shares p0 "), "{info}");
    assert!(info.contains(" p2 "), "{info}");
    assert!(info.ends_with("decision win"), "{info}");
    assert!(
        lines.contains(&"info string result 1-0-0 sinister".to_string()),
        "{lines:#?}"
    );
    assert!(
        lines
            .iter()
            .any(|line| line.starts_with("position players=3 ")
                && line.contains("victory=sinister")
                && line.contains("out=1")),
        "{lines:#?}"
    );
}

#[test]
fn engine_turns_from_the_start_are_legal_and_repeat_with_a_seed() {
    // Setup turns and a few more, each answer played back through the
    // session's own `position ... moves` and checked on a board here.
    let rules = Rules::STANDARD;
    let mut board = multi::parse("players=4 -/-/-/- 0").unwrap();
    let mut turns: Vec<String> = Vec::new();
    for _ in 0..8 {
        let mut input = String::from(
            "setoption name Players value 4\nsetoption name Seed value 5\nposition startpos",
        );
        if !turns.is_empty() {
            input.push_str(" moves ");
            input.push_str(&turns.join(" "));
        }
        // No `quit`: it would stop the search early, at a moment that
        // varies; the end of input lets a limited search finish.
        input.push_str("\ngo nodes 200\n");
        let lines = session(&input);
        let again = session(&input);
        let moves = bestmoves(&lines);
        assert_eq!(moves.len(), 1, "{lines:#?}");
        assert_eq!(
            moves,
            bestmoves(&again),
            "a fixed seed and node limit repeat"
        );
        let token = moves[0].to_string();
        board
            .play_turn_text(&rules, &token)
            .unwrap_or_else(|error| panic!("{token}: {error}"));
        turns.push(token);
    }
    assert_eq!(board.position.outcome(), MultiOutcome::Ongoing);
    assert!(board.position.created().len() == 4);
}

#[test]
fn bad_input_is_an_error_and_changes_nothing() {
    let input = format!(
        "setoption name Players value 7\n\
         setoption name Victory value everyone\n\
         setoption name Alignment value neutral\n\
         setoption name Players value 3\n\
         setoption name Alignment value evil\n\
         position pos {WIN_IN_ONE}\n\
         position pos players=4 -/-/-/- 0\n\
         position pos {WIN_IN_ONE} moves build.r9.A\n\
         position pos {WIN_IN_ONE} victory=sinister\n\
         go infinite\n\
         go\n\
         go nodes 5 nodes 5\n\
         go p3time 100\n\
         turns\n\
         d\n\
         quit\n"
    );
    let lines = session(&input);
    let errors: Vec<&String> = lines
        .iter()
        .filter(|line| line.starts_with("info string error: "))
        .collect();
    assert_eq!(errors.len(), 11, "{lines:#?}");
    for expected in [
        "'7': expected a whole number from 2 to 6",
        "'everyone': expected last, sinister or good-evil",
        "'neutral': expected good, evil or unknown",
        "the position has 4 players but the option Players is 3",
        "turn 1 'build.r9.A' cannot be played",
        "the position says victory=sinister but the option Victory is last",
        "'infinite': not available in multi-player games",
        "multi-player games need a limit",
        "'nodes': given twice",
        "'p3time': expected nodes, movetime",
        "'turns': not available in multi-player games",
    ] {
        assert!(
            errors.iter().any(|line| line.contains(expected)),
            "no error containing {expected:?} in {errors:#?}"
        );
    }
    // The last good position stands.
    assert!(
        lines.contains(&format!(
            "position {}",
            multi::write_board(&multi::parse(WIN_IN_ONE).unwrap())
        )),
        "{lines:#?}"
    );
    assert!(bestmoves(&lines).is_empty());
}

#[test]
fn players_two_is_the_two_player_protocol_again() {
    // No `quit`, which stops a search early: the end of input lets it finish.
    let plain = session("position startpos\ngo nodes 50\n");
    let back = session(
        "setoption name Players value 3\nposition startpos\nsetoption name Players value 2\nposition startpos\ngo nodes 50\n",
    );
    assert_eq!(bestmoves(&plain), bestmoves(&back));
    assert!(plain.iter().any(|line| line.starts_with("info depth")));
}

/// A protocol engine written in shell that completes the handshake and
/// crashes on its first `go`.
fn crashing_engine() -> Vec<String> {
    let script = "while read -r line; do case \"$line\" in \
                  hwi) echo 'id name crasher'; echo hwiok;; \
                  isready) echo readyok;; \
                  go*) exit 3;; \
                  quit) exit 0;; esac; done";
    vec![
        "name=crasher".to_string(),
        "cmd=sh".to_string(),
        "arg=-c".to_string(),
        format!("arg={script}"),
    ]
}

#[test]
fn a_three_engine_match_rotates_seats_survives_a_crash_and_replays() {
    let directory = std::env::temp_dir().join(format!("multi-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&directory);
    let records = directory.join("records");
    let mut arguments: Vec<String> = ["match", "--engine", "name=alpha", "--engine", "name=beta"]
        .iter()
        .map(|word| word.to_string())
        .collect();
    arguments.push("--engine".into());
    arguments.extend(crashing_engine());
    for word in [
        "--nodes",
        "100",
        "--games",
        "3",
        "--victory",
        "sinister",
        "--max-turns",
        "60",
        "--pgnout",
    ] {
        arguments.push(word.to_string());
    }
    arguments.push(records.display().to_string());
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    let output = supernova(&arguments);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(out.contains("Started multi-player match of 3 games: alpha, beta, crasher"));
    for seats in [
        "(alpha, beta, crasher)",
        "(beta, crasher, alpha)",
        "(crasher, alpha, beta)",
    ] {
        assert!(
            out.lines()
                .any(|line| line.starts_with("Finished game") && line.contains(seats)),
            "{out}"
        );
    }
    assert_eq!(out.matches("Forfeit in game").count(), 3, "{out}");
    assert!(out.contains("crasher (seat p2) "), "{out}");
    let crasher = out
        .lines()
        .find(|line| line.starts_with("crasher "))
        .expect("a table row for the crasher");
    assert!(crasher.contains("    0.0   0.0%"), "{crasher}");
    assert!(out.contains("Games 3: "), "{out}");
    assert!(out.contains("forfeits 3"), "{out}");
    assert!(out.trim_end().ends_with("Finished match"), "{out}");
    let mut files: Vec<String> = std::fs::read_dir(&records)
        .expect("the records directory exists")
        .map(|entry| {
            entry
                .expect("a directory entry")
                .path()
                .display()
                .to_string()
        })
        .collect();
    files.sort();
    assert_eq!(files.len(), 3, "{files:?}");
    let mut replay_arguments = vec!["replay", "--rules", "standard"];
    replay_arguments.extend(files.iter().map(String::as_str));
    let replay = supernova(&replay_arguments);
    let replayed = text(&replay);
    assert!(
        replayed.contains("replayed 3 games: 3 legal, 0 illegal"),
        "{replayed}"
    );
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn multi_player_match_arguments_are_checked() {
    let output = supernova(&[
        "match",
        "--engine",
        "name=a",
        "--engine",
        "name=b",
        "--engine",
        "name=c",
        "--nodes",
        "10",
        "--victory",
        "chaos",
    ]);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("expected last, sinister or good-evil"),
        "{error}"
    );
    let output = supernova(&[
        "match",
        "--engine",
        "name=a",
        "--engine",
        "name=b",
        "--nodes",
        "10",
        "--victory",
        "last",
    ]);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("only for a match of 3 to 6 engines"),
        "{error}"
    );
}

#[test]
fn the_same_position_again_in_a_game_gets_a_turn_that_leads_somewhere_new() {
    // Both searches see the same position; the second must not repeat the
    // first's result, and a new game answers as the first did.
    let position = "position pos players=3 A=r1y3:g3y1::/B=g2b1::g3y1:/C=g1b2:::y3g1 0";
    let input = format!(
        "setoption name Players value 3\n\
         {position}\ngo nodes 300\n\
         {position}\ngo nodes 300\n\
         newgame\n\
         {position}\ngo nodes 300\n"
    );
    let lines = session(&input);
    let moves = bestmoves(&lines);
    assert_eq!(moves.len(), 3, "{lines:#?}");
    assert_ne!(moves[0], moves[1], "{lines:#?}");
    assert_eq!(moves[0], moves[2], "{lines:#?}");
    assert!(
        lines.iter().any(|line| line.ends_with("decision cycle")),
        "{lines:#?}"
    );
}

#[test]
fn a_good_versus_evil_match_of_four_engines_plays_without_forfeits() {
    // Each engine is told its own alignment and sees only the revealed
    // Evil seats; the referee's names must stay the engines' names after
    // systems fade (otherwise a discovery named after a faded system could
    // be judged illegal and its engine forfeited).
    let output = supernova(&[
        "match",
        "--engine",
        "name=a",
        "--engine",
        "name=b",
        "--engine",
        "name=c",
        "option.Player=greedy",
        "--engine",
        "name=d",
        "option.Player=greedy",
        "--nodes",
        "200",
        "--games",
        "4",
        "--victory",
        "good-evil",
        "--max-turns",
        "120",
        "--seed",
        "4",
    ]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(out.contains("(4 players, victory good-evil"), "{out}");
    assert!(out.contains("Games 4: "), "{out}");
    assert!(out.contains("forfeits 0"), "{out}");
}
