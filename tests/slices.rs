//! Slices of a match and of a self-play generation, the way machines of a
//! cluster play them: `supernova match --games-list` slices merged with
//! `--merge` print the whole match's closing lines (a game found twice
//! counts once, copies that differ are an error), and `supernova train
//! --self-play-files` slices write the one-machine generation's files.

mod common;

use std::path::Path;

use common::{scratch_directory, supernova, text};

/// A command's standard error as text.
fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A small node-limited match (deterministic), with `extra` arguments.
const MATCH: &[&str] = &[
    "match",
    "--engine",
    "name=mcts",
    "--engine",
    "name=greedy",
    "option.Player=greedy",
    "--games",
    "8",
    "--nodes",
    "50",
    "--max-turns",
    "30",
];

const SPRT: &[&str] = &["--sprt", "elo0=-50", "elo1=50", "alpha=0.05", "beta=0.05"];

/// Runs the match with `extra`, writing records and results into
/// `directory`, and returns its output; it must succeed.
fn play(directory: &Path, extra: &[&str]) -> String {
    let place = directory.to_str().unwrap();
    let mut arguments = MATCH.to_vec();
    arguments.extend(["--pgnout", place, "--results", place, "--build", "abc123"]);
    arguments.extend(extra);
    let output = supernova(&arguments);
    let out = text(&output);
    assert!(output.status.success(), "{out}{}", stderr(&output));
    out
}

/// The closing lines of a match's output: those after its last game.
fn closing(out: &str) -> Vec<String> {
    let lines: Vec<&str> = out.lines().collect();
    let last = lines
        .iter()
        .rposition(|line| line.starts_with("Finished game") || line.starts_with("Merged "))
        .unwrap_or_else(|| panic!("no game in {out}"));
    lines[last + 1..]
        .iter()
        .map(|line| line.to_string())
        .collect()
}

/// `supernova match --merge` over `directories` (with `extra`).
fn merge(directories: &[&Path], extra: &[&str]) -> std::process::Output {
    let mut arguments = vec!["match", "--merge"];
    arguments.extend(directories.iter().map(|path| path.to_str().unwrap()));
    arguments.extend(extra);
    supernova(&arguments)
}

/// A record without its turn times (the one thing two plays of a game at
/// a node limit do not share).
fn untimed(path: &Path) -> String {
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .map(|line| match line.rfind(' ') {
            Some(space) if line.ends_with("s}") => format!("{}}}", &line[..space]),
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn slices_merged_print_the_whole_matchs_closing_lines() {
    let root = scratch_directory("slices", "merge");
    let (whole, first, second) = (root.join("whole"), root.join("first"), root.join("second"));
    let whole_out = play(&whole, SPRT);
    // Game 3 is in both slices: it must count once.
    play(&first, &["--games-list", "1-3"]);
    let second_out = play(&second, &["--games-list", "3-8", "--concurrency", "2"]);
    assert!(
        second_out.contains("this run plays games 3-8"),
        "{second_out}"
    );
    assert_eq!(
        second_out
            .lines()
            .filter(|line| line.starts_with("Finished game"))
            .count(),
        6,
        "{second_out}"
    );
    let merged = merge(&[&first, &second], SPRT);
    let merged_out = text(&merged);
    assert!(merged.status.success(), "{merged_out}");
    assert!(
        merged_out.starts_with("Merged 8 games of mcts vs greedy (games 1-8, build abc123)"),
        "{merged_out}"
    );
    let expected = closing(&whole_out);
    assert!(
        expected[0].starts_with("Score of mcts vs greedy"),
        "{whole_out}"
    );
    assert!(expected.iter().any(|line| line.starts_with("SPRT: ")));
    assert_eq!(closing(&merged_out), expected, "{merged_out}\n{whole_out}");
    // The whole match and both slices together: still eight games.
    let again = text(&merge(&[&whole, &first, &second], SPRT));
    assert_eq!(closing(&again), expected, "{again}");
    for number in 1..=8 {
        let name = format!("game-{number:04}.sdg");
        let slice = if number <= 3 { &first } else { &second };
        let record = untimed(&whole.join(&name));
        assert!(record.contains("Build: bench signature abc123"), "{record}");
        assert_eq!(record, untimed(&slice.join(&name)), "{name}");
    }
}

#[test]
fn copies_that_differ_and_other_builds_are_errors() {
    let root = scratch_directory("slices", "differ");
    let (first, second) = (root.join("first"), root.join("second"));
    play(&first, &["--games-list", "1-2"]);
    std::fs::create_dir_all(&second).unwrap();
    let line = std::fs::read_to_string(first.join("game-0002.result")).unwrap();
    // The same game with one more turn: a copy that disagrees.
    let changed: Vec<String> = line
        .trim_end()
        .split('\t')
        .map(|field| match field.strip_prefix("turns=") {
            Some(turns) => format!("turns={}", turns.parse::<u32>().unwrap() + 1),
            None => field.to_string(),
        })
        .collect();
    let changed = changed.join("\t") + "\n";
    assert_ne!(changed, line);
    std::fs::write(second.join("game-0002.result"), &changed).unwrap();
    let output = merge(&[&first, &second], &[]);
    assert!(!output.status.success());
    let error = stderr(&output);
    assert!(error.contains("game 2 is in"), "{error}");
    assert!(text(&output).is_empty(), "{}", text(&output));
    // The same game of another build: not one match.
    let other = line.replace("build=abc123", "build=def456");
    std::fs::write(second.join("game-0002.result"), &other).unwrap();
    let error = stderr(&merge(&[&first, &second], &[]));
    assert!(error.contains("differ"), "{error}");
    std::fs::remove_file(second.join("game-0002.result")).unwrap();
    std::fs::write(
        second.join("game-0005.result"),
        other.replace("number=2", "number=5"),
    )
    .unwrap();
    let error = stderr(&merge(&[&first, &second], &[]));
    assert!(error.contains("different matches"), "{error}");
    // A bad line names its file.
    std::fs::write(second.join("game-0005.result"), "number=5\n").unwrap();
    let error = stderr(&merge(&[&first, &second], &[]));
    assert!(error.contains("game-0005.result"), "{error}");
}

#[test]
fn bad_slices_are_errors() {
    let root = scratch_directory("slices", "bad");
    let empty = root.join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    for (extra, expected) in [
        (&["--games-list", "9"][..], "from 1 to 8"),
        (&["--games-list", "2-1"], "--games-list '2-1'"),
        (&["--games-list", "x"], "expected a number"),
        (
            &[
                "--games-list",
                "1",
                "--sprt",
                "elo0=0",
                "elo1=5",
                "alpha=0.05",
                "beta=0.05",
            ],
            "--merge",
        ),
        (&["--build", "not hex!"], "--build"),
    ] {
        let mut arguments = MATCH.to_vec();
        arguments.extend(extra);
        let output = supernova(&arguments);
        assert!(!output.status.success(), "{extra:?}");
        let error = stderr(&output);
        assert!(error.contains(expected), "{extra:?}: {error}");
        assert!(!text(&output).contains("Finished game"), "{extra:?}");
    }
    let error = stderr(&merge(&[&empty], &[]));
    assert!(error.contains("no game results"), "{error}");
    let output = supernova(&[
        "match",
        "--merge",
        empty.to_str().unwrap(),
        "--engine",
        "name=a",
    ]);
    assert!(!output.status.success());
}

/// `supernova train` at the smallest settings, in `directory`, with `extra`.
fn train(directory: &Path, extra: &[&str]) -> std::process::Output {
    let mut arguments = vec![
        "train",
        "--dir",
        directory.to_str().unwrap(),
        "--games",
        "66",
        "--nodes",
        "2",
        "--gate-games",
        "2",
        "--gate-nodes",
        "2",
        "--epochs",
        "1",
        "--seed",
        "7",
        "--threads",
        "2",
    ];
    arguments.extend(extra);
    supernova(&arguments)
}

#[test]
fn self_play_slices_write_the_one_machine_generations_files() {
    let root = scratch_directory("slices", "train");
    let (whole, first, second) = (root.join("whole"), root.join("first"), root.join("second"));
    let output = train(&whole, &[]);
    assert!(output.status.success(), "{}", stderr(&output));
    for (directory, file) in [(&first, "0"), (&second, "1")] {
        let output = train(directory, &["--self-play-files", file]);
        assert!(output.status.success(), "{}", stderr(&output));
        // A slice plays and stops: no fitting, no gate.
        assert!(!directory.join("gen-001/candidate.net").exists());
        assert!(!directory.join("gen-001/gate.txt").exists());
    }
    for (directory, name) in [(&first, "games-0000.txt"), (&second, "games-0001.txt")] {
        let slice = std::fs::read_to_string(directory.join("gen-001").join(name)).unwrap();
        let one_machine = std::fs::read_to_string(whole.join("gen-001").join(name)).unwrap();
        assert!(slice.lines().count() > 66, "{name}: {slice}");
        assert_eq!(slice, one_machine, "{name}");
    }
    assert!(!first.join("gen-001/games-0001.txt").exists());
    let output = train(&first, &["--self-play-files", "2"]);
    assert!(!output.status.success());
    let error = stderr(&output);
    assert!(error.contains("beyond the generation's 2 files"), "{error}");
}
