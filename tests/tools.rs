//! The command-line tools end to end: analyse (its SDG output appended to a
//! record replays), annotate (exact blunders), play with piped input, and
//! the README's quick start.

mod common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use common::{supernova, text};

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

fn scratch_file(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!(
        "supernova-tools-test-{}-{name}",
        std::process::id()
    ))
}

/// The value after `label: ` on the first line that starts with it.
fn field<'a>(out: &'a str, label: &str) -> &'a str {
    out.lines()
        .find_map(|line| line.strip_prefix(label))
        .unwrap_or_else(|| panic!("no '{label}' line in:\n{out}"))
}

#[test]
fn analysed_sdg_turns_append_to_the_game_and_replay() {
    let record = golden("blunders.sdg");
    let path = record.to_str().unwrap();
    // Before turn 6 (Bob to move, threatened) and before turn 8 (after the last turn).
    for (turn, mover) in [("6", "Bob"), ("8", "Bob")] {
        let output = supernova(&[
            "analyse",
            "--game",
            path,
            "--turn",
            turn,
            "--nodes",
            "500",
            "--notation",
            "sdg",
        ]);
        let out = text(&output);
        assert!(output.status.success(), "{out}");
        let best = field(&out, "best: ").to_string();
        assert!(out.contains("principal variation:"), "{out}");
        // Keep the record up to the analysed turn and append the engine's choice.
        let original = std::fs::read_to_string(&record).unwrap();
        let cut = original
            .find(&format!("\n{turn}) "))
            .map_or(original.len(), |index| index + 1);
        let mut extended = original[..cut].trim_end().to_string();
        extended.push_str(&format!("\n\n{turn}) {mover}: {best}\n"));
        let extended_path = scratch_file(&format!("extended-{turn}.sdg"));
        std::fs::write(&extended_path, &extended).unwrap();
        let replay = supernova(&["replay", extended_path.to_str().unwrap()]);
        let replayed = text(&replay);
        assert!(replay.status.success(), "{extended}\n{replayed}");
        assert!(
            replayed.contains("replayed 1 games: 1 legal, 0 illegal"),
            "{replayed}"
        );
        let _ = std::fs::remove_file(extended_path);
    }
}

#[test]
fn analyse_reports_candidates_in_every_notation() {
    let arguments = [
        "analyse",
        "r1b3:g3y1:/y2b2::g3 0",
        "--nodes",
        "3000",
        "--multipv",
        "3",
        "--notation",
        "token",
    ];
    let output = supernova(&arguments);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(field(&out, "best: ").contains('.'), "a token: {out}");
    assert!(out.contains("win probability"), "{out}");
    assert!(out.contains("candidates:\n  1. "), "{out}");
    assert!(out.contains("\n  3. "), "{out}");
    // Reproducible with one thread and a node limit.
    let again = supernova(&arguments);
    let strip_speed = |text: &str| -> String {
        text.lines()
            .filter(|line| !line.starts_with("nodes "))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip_speed(&out), strip_speed(&text(&again)));
    let bad = supernova(&["analyse", "r1b3:g3:/y2b1::q3 0"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("q3"));
}

#[test]
fn annotate_finds_exactly_the_two_blunders() {
    let output = supernova(&[
        "annotate",
        golden("blunders.sdg").to_str().unwrap(),
        "--nodes",
        "300",
    ]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    let turn_six = out
        .lines()
        .position(|line| line.starts_with("6) Bob: Pass"))
        .unwrap();
    let lines: Vec<&str> = out.lines().collect();
    assert!(
        lines[turn_six + 1].contains("?? blunder: walks into an immediate loss"),
        "{out}"
    );
    assert!(lines[turn_six + 1].ends_with("Attack B3 Bob"), "{out}");
    let turn_seven = out
        .lines()
        .position(|line| line.starts_with("7) Alice: Pass"))
        .unwrap();
    assert!(
        lines[turn_seven + 1].contains("?? blunder: throws away a win"),
        "{out}"
    );
    assert!(
        lines[turn_seven].contains("engine prefers: Attack B3 Bob"),
        "{out}"
    );
    assert!(out.ends_with("blunders: 2 (Alice: 1, Bob: 1)\n"), "{out}");
}

fn play_session(arguments: &[&str], input: &str) -> String {
    let arguments: Vec<&str> = std::iter::once("play")
        .chain(arguments.iter().copied())
        .collect();
    let output = common::supernova_with_input(&arguments, input.as_bytes());
    assert!(output.status.success());
    text(&output)
}

#[test]
fn play_works_with_piped_input() {
    let out = play_session(
        &["--nodes", "300"],
        "help\nhomeworld r1 b3 g3\nbuild g9 Home0\nfly y1 Home0 Home1\nturns 3\nhint\neval\nbuild g1 Home0\nundo\nboard\nclaim\n",
    );
    assert!(out.contains("You play: Homeworld R1 B3 G3"), "{out}");
    assert!(out.contains("Supernova plays: Homeworld "), "{out}");
    assert!(out.contains("error: 'g9': expected a piece"), "{out}");
    assert!(out.contains("error: 'fly': expected one of"), "{out}");
    assert!(
        out.contains("Actions you can start your turn with (or 'pass'): build g1 Home0"),
        "{out}"
    );
    assert!(out.contains("distinct legal turns (3 shown)"), "{out}");
    assert!(out.contains("hint: "), "{out}");
    assert!(out.contains("static evaluation for you: value"), "{out}");
    assert!(out.contains("You play: Build G1 Home0"), "{out}");
    assert!(out.contains("Undone."), "{out}");
    assert!(
        out.contains("error: no draw by repetition can be claimed now"),
        "{out}"
    );
    assert!(
        out.trim_end()
            .ends_with("End of input: the game is left unfinished."),
        "{out}"
    );
    // After undo, the board is back to the position after the setup turns.
    let after_undo = &out[out.rfind("Undone.").unwrap()..];
    assert!(after_undo.contains("player 0: g3   "), "{after_undo}");
}

#[test]
fn play_as_second_player_lets_the_engine_start_and_ends_on_quit() {
    let out = play_session(&["--side", "1", "--player", "random"], "quit\n");
    let engine_turn = out
        .find("Supernova plays: Homeworld")
        .expect("the engine creates first");
    let prompt = out
        .find("your turn (player 1)>")
        .expect("then the person is asked");
    assert!(engine_turn < prompt, "{out}");
    assert!(out.trim_end().ends_with("You leave the game."), "{out}");
}

#[test]
fn play_asks_for_a_sacrifices_actions_and_shows_the_board_once_per_turn() {
    let out = play_session(
        &[
            "--position",
            "r1b3:g3:/y2b1::g3 0",
            "--player",
            "greedy",
            "--nodes",
            "100",
        ],
        "sacrifice g3 home0\nbuild g1 home0\n",
    );
    // A lone sacrifice is not completed with passes: its actions are asked for.
    assert!(
        out.contains("error: the sacrifice's actions are missing: it grants 3 more green actions"),
        "{out}"
    );
    assert!(!out.contains("You play: Sacrifice"), "{out}");
    assert!(out.contains("You play: Build G1 Home0\n"), "{out}");
    assert!(out.contains("Supernova plays: "), "{out}");
    // The board before the first prompt and after the engine's reply; not
    // again after the person's own turn or after the error.
    assert_eq!(out.matches("\nhwpn: ").count(), 2, "{out}");
    let after_own_turn = &out[out.find("You play: ").unwrap()..];
    let next_line = after_own_turn.lines().nth(1).unwrap_or("");
    assert!(next_line.starts_with("Supernova plays: "), "{out}");
}

#[test]
fn play_announces_the_result_once() {
    // Player 0 captures player 1's last home ship.
    let out = play_session(
        &["--position", "r1b3:g3:/y2b2:r3:g1 0", "--nodes", "100"],
        "attack g1 home1\n",
    );
    assert!(out.contains("You play: Attack G1 Home1\n"), "{out}");
    assert!(
        out.trim_end()
            .ends_with("Game over: player 0 wins by elimination (1-0)"),
        "{out}"
    );
    assert!(!out.contains("over: over"), "{out}");
    // The final board is shown once, before the result.
    assert_eq!(out.matches("\nhwpn: ").count(), 2, "{out}");
}

/// The shell lines of README.md's "Quick start" code block.
fn quick_start_commands(readme: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(readme).unwrap();
    let section = &text[text.find("## Quick start").expect("a Quick start section")..];
    let block = section.split("```").nth(1).expect("a code block");
    block
        .lines()
        .skip(1)
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn the_readme_quick_start_works() {
    let commands =
        quick_start_commands(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("README.md"));
    assert_eq!(commands.len(), 2, "{commands:?}");
    let binary = PathBuf::from(env!("CARGO_BIN_EXE_supernova"));
    let directory = binary.parent().unwrap();
    let path = format!(
        "{}:{}",
        directory.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut outputs = Vec::new();
    for command in &commands {
        let output = Command::new("sh")
            .arg("-c")
            .arg(command)
            .env("PATH", &path)
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
        outputs.push(text(&output));
    }
    let last = outputs[0].lines().last().unwrap_or("");
    assert!(last.starts_with("bestmove "), "{}", outputs[0]);
    assert!(
        outputs[1].contains("Score of mcts vs greedy: "),
        "{}",
        outputs[1]
    );
    assert!(outputs[1].contains("Elo difference: "), "{}", outputs[1]);
}

/// Runs the binary with its stdout closed before it writes anything (as
/// `| head` closes it early) and returns its exit status and stderr.
fn with_closed_output(arguments: &[&str], input: &str) -> (std::process::ExitStatus, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_supernova"))
        .args(arguments)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut stdin = child.stdin.take().unwrap();
    // The program may exit before reading it all.
    let _ = stdin.write_all(input.as_bytes());
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    (
        output.status,
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// `supernova replay ... | head -1` and `supernova bench | head -5` panicked
/// (exit 101, "failed printing to stdout"); every subcommand ends quietly
/// with success when its reader goes away.
#[test]
fn every_subcommand_ends_quietly_when_its_output_is_closed() {
    let record = golden("blunders.sdg");
    let record = record.to_str().unwrap();
    let many: Vec<&str> = std::iter::once("replay")
        .chain(std::iter::repeat_n(record, 200))
        .collect();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (many, ""),
        (vec!["show", "--game", record, "--turn", "3"], ""),
        (vec!["count"], ""),
        (vec!["bench", "--nodes", "20"], ""),
        (vec!["analyse", "--nodes", "50"], ""),
        (vec!["annotate", record, "--nodes", "20"], ""),
        (vec!["play", "--nodes", "20"], "pass\nquit\n"),
        (
            vec![
                "match",
                "--each",
                "option.Player=random",
                "--engine",
                "name=a",
                "--engine",
                "name=b",
                "--games",
                "2",
                "--nodes",
                "10",
                "--max-turns",
                "10",
            ],
            "",
        ),
        (
            vec!["engine"],
            "hwi\nisready\nposition startpos\ngo nodes 10\n",
        ),
        (vec![], "hwi\nisready\n"),
        (vec!["--help"], ""),
        (vec!["match", "--help"], ""),
        (vec!["--version"], ""),
    ];
    for (arguments, input) in cases {
        let (status, stderr) = with_closed_output(&arguments, input);
        assert!(
            status.success() && stderr.is_empty(),
            "{arguments:?}: {status}\n{stderr}"
        );
    }
}

/// Each subcommand's arguments are built only when that subcommand is
/// given (clap's `defer`, to start faster): every subcommand the top-level
/// help lists must still print its own help with its own flags, and parse
/// them.
#[test]
fn every_listed_subcommand_builds_its_own_arguments_on_demand() {
    let listing = text(&supernova(&["--help"]));
    let names: Vec<&str> = listing
        .lines()
        .skip_while(|line| !line.starts_with("Commands:"))
        .skip(1)
        .take_while(|line| line.starts_with("  "))
        .filter_map(|line| line.split_whitespace().next())
        .filter(|name| *name != "help")
        .collect();
    assert!(names.len() >= 16, "{listing}");
    // One flag of each subcommand that has any; `engine` has none.
    let flags = [
        ("match", "--engine"),
        ("analyse", "--multipv"),
        ("annotate", "--movetime"),
        ("play", "--side"),
        ("count", "--rules"),
        ("bench", "--threads"),
        ("multi-match", "--player"),
        ("multi-play", "--seat"),
        ("replay", "--rules"),
        ("show", "--turn"),
        ("accuracy", "--held-out"),
        ("gui", "--port"),
        ("openings", "--setups"),
        ("priors", "--min-visits"),
        ("train", "--learning-rate"),
    ];
    for name in &names {
        let output = supernova(&[name, "--help"]);
        let help = text(&output);
        assert!(
            output.status.success() && help.contains(&format!("Usage: supernova {name}")),
            "{name} --help: {}\n{help}",
            output.status
        );
        if let Some((_, flag)) = flags.iter().find(|(command, _)| command == name) {
            assert!(help.contains(flag), "{name} --help lacks {flag}:\n{help}");
        }
    }
    for (name, _) in &flags {
        assert!(names.contains(name), "{name} is not listed:\n{listing}");
    }
    // A deferred subcommand still parses its flags: the count of the empty
    // start under each profile, and a refused value names the flag.
    let count = supernova(&["count", "--rules", "cli", "startpos"]);
    assert!(count.status.success() && !text(&count).trim().is_empty());
    let refused = supernova(&["count", "--rules", "nope", "startpos"]);
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(
        !refused.status.success() && stderr.contains("--rules"),
        "{stderr}"
    );
}

/// `--threads 0`, `--hash 0` and `--multipv 0` were accepted silently; a
/// range error names the flag and the range, as the engine's options do.
#[test]
fn flags_out_of_range_are_refused_with_the_range() {
    use supernova::engine::{max_hash_mb, max_threads};
    let threads = format!("1..={}", max_threads());
    let hash = format!("1..={}", max_hash_mb());
    let too_many_threads = (max_threads() + 1).to_string();
    let too_much_hash = (max_hash_mb() + 1).to_string();
    let record = golden("blunders.sdg");
    let record = record.to_str().unwrap();
    let cases: Vec<(Vec<&str>, &str, &str)> = vec![
        (vec!["analyse", "--threads", "0"], "--threads", &threads),
        (
            vec!["analyse", "--threads", &too_many_threads],
            "--threads",
            &threads,
        ),
        (vec!["analyse", "--hash", "0"], "--hash", &hash),
        (vec!["analyse", "--hash", &too_much_hash], "--hash", &hash),
        (vec!["analyse", "--multipv", "0"], "--multipv", "1..=256"),
        (vec!["play", "--threads", "0"], "--threads", &threads),
        (vec!["annotate", record, "--hash", "0"], "--hash", &hash),
        (vec!["bench", "--threads", "0"], "--threads", &threads),
        (vec!["bench", "--hash", "0"], "--hash", &hash),
        (
            vec!["match", "--engine", "name=a", "--concurrency", "0"],
            "--concurrency",
            "1..=1024",
        ),
    ];
    for (arguments, flag, range) in cases {
        let output = supernova(&arguments);
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(2), "{arguments:?}: {stderr}");
        assert!(
            stderr.contains(flag) && stderr.contains(range),
            "{arguments:?}: {stderr}"
        );
        assert!(text(&output).is_empty(), "{arguments:?}");
    }
}

/// Under CI a missing `../shared` is an error, not a skip that passes.
#[test]
fn a_missing_shared_folder_fails_under_ci() {
    let root = std::env::temp_dir().join("supernova-no-such-shared-folder");
    assert_eq!(common::shared_in(&root, "sdg", "probe", false), None);
    let required = std::panic::catch_unwind(|| common::shared_in(&root, "sdg", "probe", true));
    let message = *required
        .expect_err("a missing folder must fail under CI")
        .downcast::<String>()
        .unwrap();
    assert!(message.contains("CI=true requires it"), "{message}");
    let repository = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    assert_eq!(
        common::shared_in(&repository, "tests", "probe", true),
        Some(repository.join("tests"))
    );
}

/// Every file a subcommand reads by name is refused at once when it is a
/// device, a pipe or a folder: `/dev/zero` used to grow memory without end
/// and a FIFO to block the open for good.
#[test]
fn named_files_that_never_end_or_block_are_refused_at_once() {
    let fifo = scratch_file("named-files.fifo");
    let _ = std::fs::remove_file(&fifo);
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|status| status.success()), "mkfifo");
    let fifo = fifo.to_str().unwrap().to_string();
    let folder = std::env::temp_dir().to_str().unwrap().to_string();
    for path in ["/dev/zero", fifo.as_str(), folder.as_str()] {
        let commands: [&[&str]; 5] = [
            &[
                "match",
                "--engine",
                "name=a",
                "--engine",
                "name=b",
                "--nodes",
                "10",
                "--openings",
                path,
            ],
            &["bench", "--file", path],
            &["analyse", "--nodes", "10", "--eval-file", path],
            &["replay", path],
            &["show", "--game", path, "--turn", "1"],
        ];
        for command in commands {
            let mut child = std::process::Command::new(common::binary())
                .args(command)
                .stdout(std::process::Stdio::null())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
            let status = loop {
                if let Some(status) = child.try_wait().unwrap() {
                    break Some(status);
                }
                if std::time::Instant::now() > deadline {
                    child.kill().unwrap();
                    child.wait().unwrap();
                    break None;
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
            };
            let mut stderr = String::new();
            std::io::Read::read_to_string(child.stderr.as_mut().unwrap(), &mut stderr).unwrap();
            let status = status.unwrap_or_else(|| panic!("{command:?} did not end"));
            assert!(!status.success(), "{command:?}");
            assert!(stderr.contains("regular file"), "{command:?}: {stderr}");
        }
    }
}
