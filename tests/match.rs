//! `supernova match` end to end: broken engines lose with the right reason,
//! and a short real match writes transcripts that `supernova replay` accepts.

mod common;

use std::path::PathBuf;

use common::{supernova, text};

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!(
        "supernova-match-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

/// Plays two games of a misbehaving engine against the greedy player (which
/// answers at once and never eliminates itself) and
/// returns the runner's output, after checking that the broken engine lost
/// both (once in each seat).
fn broken_match(mode: &str, limits: &[&str]) -> String {
    let mut arguments = vec![
        "match",
        "--engine",
        "name=broken",
        "arg=--misbehave",
        "arg=MODE",
        "--engine",
        "name=good",
        "option.Player=greedy",
        "--games",
        "2",
        "--margin",
        "300",
    ];
    arguments[4] = match mode {
        "crash" => "arg=crash",
        "hang" => "arg=hang",
        "illegal" => "arg=illegal",
        _ => "arg=garbage",
    };
    arguments.extend_from_slice(limits);
    let output = supernova(&arguments);
    let out = text(&output);
    assert!(
        output.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(out.contains("Score of broken vs good: 0 - 2 - 0"), "{out}");
    assert!(out.contains("Forfeits: 2 games"), "{out}");
    let finished: Vec<&str> = out
        .lines()
        .filter(|line| line.starts_with("Finished game"))
        .collect();
    assert_eq!(finished.len(), 2, "{out}");
    assert!(
        finished[0..2]
            .iter()
            .any(|line| line.contains("(broken vs good): 0-1 {broken ")),
        "{out}"
    );
    assert!(
        finished[0..2]
            .iter()
            .any(|line| line.contains("(good vs broken): 1-0 {broken ")),
        "{out}"
    );
    out
}

#[test]
fn a_crashing_engine_loses() {
    let out = broken_match("crash", &["--movetime", "50"]);
    assert_eq!(out.matches("{broken crashed (").count(), 2, "{out}");
}

#[test]
fn a_hanging_engine_loses() {
    let out = broken_match("hang", &["--movetime", "50"]);
    assert_eq!(
        out.matches("{broken hung: no bestmove within 350 ms}")
            .count(),
        2,
        "{out}"
    );
}

#[test]
fn a_hanging_engine_on_a_clock_loses_on_time() {
    let out = broken_match("hang", &["--tc", "0.2+0.01"]);
    assert_eq!(
        out.matches("{broken lost on time: no bestmove within")
            .count(),
        2,
        "{out}"
    );
}

#[test]
fn an_illegal_turn_loses() {
    let out = broken_match("illegal", &["--nodes", "100"]);
    assert_eq!(
        out.matches("{broken played an illegal turn 'build.")
            .count(),
        2,
        "{out}"
    );
}

#[test]
fn a_garbage_answer_loses() {
    let out = broken_match("garbage", &["--nodes", "100"]);
    assert_eq!(
        out.matches("{broken sent an unparsable turn '@@##!!'")
            .count(),
        2,
        "{out}"
    );
}

#[test]
fn a_short_real_match_writes_transcripts_that_replay() {
    let directory = scratch("real");
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
fn records_carry_draws_and_forfeits_to_replay() {
    // Two greedy players pass back and forth: a draw by repetition, which
    // the record's variants let replay judge on the board.
    let directory = scratch("draws");
    let output = supernova(&[
        "match",
        "--each",
        "option.Player=greedy",
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

    // A forfeit is not a result on the board: replay says so and reports
    // the record's result and its reason.
    let directory = scratch("forfeits");
    let output = supernova(&[
        "match",
        "--engine",
        "name=broken",
        "arg=--misbehave",
        "arg=illegal",
        "--engine",
        "name=good",
        "option.Player=greedy",
        "--games",
        "1",
        "--nodes",
        "10",
        "--pgnout",
        directory.to_str().unwrap(),
    ]);
    assert!(output.status.success(), "{}", text(&output));
    let replayed = replay_directory(&directory);
    assert!(
        replayed.contains(
            "game-0001.sdg: unfinished (record: Winner good, result 0-1 forfeit: broken played an illegal turn 'build."
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
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("could not start"));
}
