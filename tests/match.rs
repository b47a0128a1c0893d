//! `supernova match` end to end: a short real match writes transcripts that
//! `supernova replay` accepts, draws are recorded, and bad arguments are
//! errors. Broken engines are in tests/broken_engines.

mod common;

use common::{scratch_directory, supernova, text};

#[test]
fn a_short_real_match_writes_transcripts_that_replay() {
    let directory = scratch_directory("match", "real");
    let output = supernova(&[
        "match",
        "--engine",
        "name=random",
        "option.Player=random",
        "option.Seed=3",
        "--engine",
        "name=greedy",
        "option.Player=greedy",
        "--games",
        "4",
        "--concurrency",
        "2",
        "--nodes",
        "200",
        "--max-turns",
        "40",
        "--pgnout",
        directory.to_str().unwrap(),
        "--sprt",
        "elo0=0",
        "elo1=100",
        "alpha=0.1",
        "beta=0.1",
    ]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert_eq!(
        out.lines()
            .filter(|line| line.starts_with("Finished game"))
            .count(),
        4,
        "{out}"
    );
    assert!(!out.contains("Forfeits"), "{out}");
    // Four games over two openings, each opening once from each seat:
    // nothing repeats.
    assert!(!out.contains("Repeats"), "{out}");
    let summary: Vec<&str> = out.lines().rev().take(5).collect();
    assert!(
        summary
            .iter()
            .any(|line| line.starts_with("Score of random vs greedy: ")),
        "{out}"
    );
    assert!(
        summary
            .iter()
            .any(|line| line.starts_with("Elo difference: ")),
        "{out}"
    );
    assert!(
        summary.iter().any(|line| line.starts_with("SPRT: llr ")),
        "{out}"
    );
    let mut files: Vec<String> = std::fs::read_dir(&directory)
        .unwrap()
        .map(|entry| entry.unwrap().path().display().to_string())
        .collect();
    files.sort();
    assert_eq!(files.len(), 4, "{files:?}");
    let mut arguments = vec!["replay".to_string()];
    arguments.extend(files.iter().cloned());
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    let replay = supernova(&arguments);
    let replayed = text(&replay);
    assert!(replay.status.success(), "{replayed}");
    assert!(
        replayed.contains("replayed 4 games: 4 legal, 0 illegal"),
        "{replayed}"
    );
    // The record's winner agrees with the board when a game ended on it.
    for line in replayed
        .lines()
        .filter(|line| line.contains("wins on the board"))
    {
        let winner = line.split('(').nth(1).unwrap().split(')').next().unwrap();
        assert!(
            line.contains(&format!("(record: Winner {winner}, result ")),
            "{line}"
        );
    }
    let _ = std::fs::remove_dir_all(&directory);
}

/// Replays every record in `directory` and returns the report lines.
fn replay_directory(directory: &std::path::Path) -> String {
    let mut files: Vec<String> = std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().path().display().to_string())
        .collect();
    files.sort();
    let mut arguments = vec!["replay".to_string()];
    arguments.extend(files);
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    let replay = supernova(&arguments);
    let replayed = text(&replay);
    assert!(replay.status.success(), "{replayed}");
    replayed
}

#[test]
fn records_carry_draws_to_replay() {
    // Two greedy players on the hand evaluation pass back and forth: a draw
    // by repetition, which the record's variants let replay judge on the
    // board.
    let directory = scratch_directory("match", "draws");
    let output = supernova(&[
        "match",
        "--each",
        "option.Player=greedy",
        "option.Eval=hand",
        "--engine",
        "name=first",
        "--engine",
        "name=second",
        "--games",
        "1",
        "--nodes",
        "10",
        "--pgnout",
        directory.to_str().unwrap(),
    ]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(out.contains("1/2-1/2 {repetition}"), "{out}");
    let record = std::fs::read_to_string(directory.join("game-0001.sdg")).unwrap();
    assert!(
        record.contains("Variants: \"Repetition auto@3, Max turns 200\"\n"),
        "{record}"
    );
    assert!(record.contains("\nWinner:\n"), "{record}");
    assert!(
        record.contains("\tReferee: 1/2-1/2 repetition\n"),
        "{record}"
    );
    let replayed = replay_directory(&directory);
    assert!(
        replayed.contains(
            "game-0001.sdg: draw by repetition (record: Winner none, result 1/2-1/2 repetition)"
        ),
        "{replayed}"
    );
    let _ = std::fs::remove_dir_all(&directory);
}

#[test]
fn a_clock_match_runs_without_forfeits() {
    let output = supernova(&[
        "match",
        "--each",
        "option.Player=random",
        "--engine",
        "name=first",
        "--engine",
        "name=second",
        "option.Seed=9",
        "--games",
        "2",
        "--tc",
        "2+0.05",
        "--max-turns",
        "30",
    ]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(!out.contains("Forfeits"), "{out}");
    assert!(out.contains("Score of first vs second: "), "{out}");
}

#[test]
fn bad_match_arguments_are_errors() {
    let output = supernova(&["match", "--engine", "name=a", "--movetime", "50"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("exactly two engines"));
    let output = supernova(&[
        "match",
        "--engine",
        "name=a",
        "--engine",
        "colour=red",
        "--movetime",
        "50",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("colour=red"));
    let output = supernova(&["match", "--engine", "name=a", "--engine", "name=b"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("no turn limit"));
    let output = supernova(&[
        "match",
        "--engine",
        "cmd=/nonexistent/engine",
        "--engine",
        "name=b",
        "--movetime",
        "50",
    ]);
    // An engine that cannot start stops the match before its first game,
    // as in cutechess-cli, with an error that says so.
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains(
            "error: the first engine failed its handshake: could not start: /nonexistent/engine: "
        ) && stderr.trim_end().ends_with("; no game was played"),
        "{stderr}"
    );
    assert!(text(&output).is_empty(), "{}", text(&output));
}

/// An engine's stderr explains a failed handshake: a bad `arg=` shows the
/// engine's own usage error, not only "failed its handshake".
#[test]
fn a_refused_engine_argument_is_explained_by_its_stderr() {
    let output = supernova(&[
        "match",
        "--engine",
        "name=a",
        "--engine",
        "name=b",
        "arg=--bogus",
        "--nodes",
        "50",
    ]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("the second engine failed its handshake: crashed (")
            && stderr.contains("its stderr ends: error: unexpected argument '--bogus'"),
        "{stderr}"
    );
}

/// A "Started game N" line as each game starts, a protocol log
/// per engine and game, and each played turn's score, depth and time in
/// the records, as cutechess-cli writes them in PGN comments.
#[test]
fn games_are_announced_logged_and_annotated() {
    let records = scratch_directory("match", "annotated-records");
    let logs = scratch_directory("match", "annotated-logs");
    let output = supernova(&[
        "match",
        "--engine",
        "name=tree",
        "--engine",
        "name=greedy",
        "option.Player=greedy",
        "--games",
        "2",
        "--nodes",
        "100",
        "--max-turns",
        "6",
        "--pgnout",
        records.to_str().unwrap(),
        "--log",
        logs.to_str().unwrap(),
    ]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    for (number, seats) in [(1, "tree vs greedy"), (2, "greedy vs tree")] {
        let started = format!("Started game {number} of 2 ({seats})");
        let finished = format!("Finished game {number} ({seats})");
        let started_at = out.find(&started).unwrap_or_else(|| panic!("{out}"));
        let finished_at = out.find(&finished).unwrap_or_else(|| panic!("{out}"));
        assert!(started_at < finished_at, "{out}");
    }
    let log = std::fs::read_to_string(logs.join("game-0001-p0-tree.log")).unwrap();
    for expected in [
        "> hwi",
        "< hwiok",
        "> go nodes 100",
        "< bestmove ",
        "> quit",
    ] {
        assert!(log.contains(expected), "{expected}: {log}");
    }
    assert!(logs.join("game-0002-p1-tree.log").exists());
    let record = std::fs::read_to_string(records.join("game-0001.sdg")).unwrap();
    // Every turn after the two setup turns carries its comment; the tree's
    // turns carry a score and a depth.
    let comments: Vec<&str> = record
        .lines()
        .filter(|line| line.starts_with("\t{"))
        .collect();
    assert_eq!(comments.len(), 6, "{record}");
    for comment in comments.iter().step_by(2) {
        let inner = comment.trim_start_matches("\t{").trim_end_matches('}');
        let (score, time) = inner.split_once(' ').unwrap();
        let (value, depth) = score.split_once('/').unwrap();
        assert!(
            value.parse::<f64>().is_ok() || value.contains('M'),
            "{comment}"
        );
        assert!(depth.parse::<u32>().is_ok(), "{comment}");
        assert!(time.ends_with('s'), "{comment}");
    }
    let replayed = replay_directory(&records);
    assert!(replayed.contains("replayed 2 games: 2 legal"), "{replayed}");
    let _ = std::fs::remove_dir_all(&records);
    let _ = std::fs::remove_dir_all(&logs);
}

/// Deterministic engines at a node limit play each opening and seating
/// once: over one opening, games 3 and 4 are games 1 and 2 again, and the
/// report says so and scores the two distinct games apart.
#[test]
fn a_node_limited_match_reports_its_repeated_games() {
    let directory = scratch_directory("match", "repeats");
    let openings = directory.join("one.txt");
    std::fs::write(&openings, "r1b2:g3:/r3b1::g3 0\n").unwrap();
    let output = supernova(&[
        "match",
        "--each",
        "option.Player=greedy",
        "--engine",
        "name=first",
        "--engine",
        "name=second",
        "--games",
        "4",
        "--nodes",
        "100",
        "--max-turns",
        "20",
        "--openings",
        openings.to_str().unwrap(),
    ]);
    let out = text(&output);
    let _ = std::fs::remove_dir_all(&directory);
    assert!(output.status.success(), "{out}");
    let line = out
        .lines()
        .find(|line| line.starts_with("Repeats: "))
        .unwrap_or_else(|| panic!("no Repeats line: {out}"));
    assert!(
        line.starts_with("Repeats: 2 of 4 games") && line.contains("the 2 distinct games"),
        "{line}"
    );
}

/// The two engines of the resign tests: a small search against greedy,
/// from one opening, both seats.
fn resign_match(directory: &std::path::Path, resign: &[&str]) -> (bool, String) {
    let openings = directory.join("one.txt");
    std::fs::write(&openings, "r1b2:g3:/r3b1::g3 0\n").unwrap();
    let records = directory.join("records");
    let mut arguments = vec![
        "match",
        "--engine",
        "name=mcts",
        "--engine",
        "name=greedy",
        "option.Player=greedy",
        "--games",
        "2",
        "--nodes",
        "300",
        "--max-turns",
        "60",
        "--openings",
        openings.to_str().unwrap(),
        "--pgnout",
        records.to_str().unwrap(),
    ];
    arguments.extend_from_slice(resign);
    let output = supernova(&arguments);
    let mut out = text(&output);
    for game in ["game-0001.sdg", "game-0002.sdg"] {
        out += &std::fs::read_to_string(records.join(game)).unwrap_or_default();
    }
    (output.status.success(), out)
}

#[test]
fn resign_adjudication_ends_games_the_engines_call_lost() {
    let directory = scratch_directory("match", "resign");
    // Any score below zero on one turn: each game ends at the first turn
    // an engine reports itself behind, as a win for the other.
    let (success, out) = resign_match(&directory, &["--resign", "movecount=1", "score=1"]);
    let (plain_success, plain) = resign_match(&directory, &[]);
    let _ = std::fs::remove_dir_all(&directory);
    assert!(success, "{out}");
    assert!(plain_success, "{plain}");
    let finished: Vec<&str> = out
        .lines()
        .filter(|line| line.starts_with("Finished game"))
        .collect();
    assert_eq!(finished.len(), 2, "{out}");
    for line in &finished {
        assert!(
            line.contains("resigned by adjudication: a score of -1 cp or lower on 1 turn in a row"),
            "{line}"
        );
        assert!(line.contains("1-0") || line.contains("0-1"), "{line}");
    }
    assert!(
        out.contains("Adjudicated: 2 games ended by --resign"),
        "{out}"
    );
    assert!(!out.contains("Forfeits:"), "{out}");
    // The records say so, and give the winner.
    assert_eq!(out.matches("Referee: ").count(), 2, "{out}");
    assert_eq!(
        out.lines()
            .filter(|line| line.contains("Referee: ") && line.contains("resigned by adjudication"))
            .count(),
        2,
        "{out}"
    );
    assert!(!out.contains("Winner:\n"), "{out}");
    // Without --resign the same games run on.
    assert!(!plain.contains("adjudication"), "{plain}");
    assert!(!plain.contains("Adjudicated:"), "{plain}");
}

#[test]
fn bad_resign_settings_are_named_errors() {
    for (arguments, named) in [
        (&["movecount=x", "score=900"][..], "movecount=x"),
        (
            &["movecount=3", "score=900", "twosided=maybe"],
            "twosided=maybe",
        ),
        (&["movecount=3", "depth=9"], "'depth'"),
    ] {
        let mut command = vec![
            "match", "--engine", "name=a", "--engine", "name=b", "--nodes", "10", "--resign",
        ];
        command.extend_from_slice(arguments);
        let output = supernova(&command);
        let error = String::from_utf8_lossy(&output.stderr);
        assert!(!output.status.success(), "{error}");
        assert!(error.contains(named), "{arguments:?}: {error}");
        assert!(!error.contains("panicked"), "{error}");
        assert!(text(&output).is_empty(), "no match was started");
    }
}
