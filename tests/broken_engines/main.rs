//! `supernova match` against broken engines: one that crashes, hangs,
//! answers an illegal turn, answers garbage, prints a line that never
//! ends, answers a `go` twice, or exits leaving a helper that holds its
//! output must lose each game with the right reason, and the match must go
//! on and print its score line.
//!
//! The broken engine is this test executable itself ([`fake_engine`]): the
//! shipped binary has no test hooks, and cargo gives integration tests no
//! helper binaries, so this file is a test without libtest's harness
//! (`harness = false` in Cargo.toml) whose `main` runs the fake engine when
//! started with `--fake-engine MODE`, and otherwise runs the tests below,
//! in parallel. Arguments: a substring filters the tests by name (`--exact`
//! for whole names); `--list` lists them; other flags are ignored.

#[path = "../common/mod.rs"]
mod common;
mod fake_engine;

use std::path::PathBuf;
use std::time::Instant;

use common::{supernova, text};
use fake_engine::{illegal_token, Mode, FAKE_ENGINE_FLAG, ORPHAN_STATUS};
use supernova::notation::hwpn;
use supernova::protocol::MAX_LINE_BYTES;
use supernova::rules::Rules;

/// The words of `--engine` for the fake engine in `mode`.
fn fake_engine_words(mode: &str) -> Vec<String> {
    let executable = std::env::current_exe().expect("the test executable has a path");
    vec![
        "name=broken".to_string(),
        format!("cmd={}", executable.display()),
        format!("arg={FAKE_ENGINE_FLAG}"),
        format!("arg={mode}"),
    ]
}

/// Plays two games of a misbehaving engine against the greedy player (which
/// answers at once and never eliminates itself) and returns the runner's
/// output, after checking that the broken engine lost both (once in each
/// seat) and that the match finished with its summary.
fn broken_match(mode: &str, limits: &[&str]) -> String {
    broken_match_of(fake_engine_words(mode), limits)
}

/// Runs `supernova match` with the first engine given by its `--engine`
/// words and the rest of the arguments as `words`.
fn match_of(engine: Vec<String>, words: &[&str]) -> std::process::Output {
    let mut arguments = vec!["match".to_string(), "--engine".to_string()];
    arguments.extend(engine);
    arguments.extend(words.iter().map(|word| word.to_string()));
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    supernova(&arguments)
}

/// [`broken_match`] for the broken engine given by its `--engine` words.
fn broken_match_of(engine: Vec<String>, limits: &[&str]) -> String {
    let mut words = vec![
        "--engine",
        "name=good",
        "option.Player=greedy",
        "--games",
        "2",
        "--margin",
        "300",
    ];
    words.extend(limits);
    let output = match_of(engine, &words);
    let out = text(&output);
    assert!(
        output.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(out.contains("Score of broken vs good: 0 - 2 - 0"), "{out}");
    assert!(out.contains("Forfeits: 2 games"), "{out}");
    // A clean sweep has no finite estimate: cutechess-cli's words for it.
    assert!(
        out.contains("\nElo difference: -inf +/- nan, LOS: "),
        "{out}"
    );
    assert!(out.trim_end().ends_with("Finished match"), "{out}");
    let finished: Vec<&str> = out
        .lines()
        .filter(|line| line.starts_with("Finished game"))
        .collect();
    assert_eq!(finished.len(), 2, "{out}");
    assert!(
        finished
            .iter()
            .any(|line| line.contains("(broken vs good): 0-1 {broken ")),
        "{out}"
    );
    assert!(
        finished
            .iter()
            .any(|line| line.contains("(good vs broken): 1-0 {broken ")),
        "{out}"
    );
    out
}

fn a_crashing_engine_loses() {
    let out = broken_match("crash", &["--movetime", "50"]);
    assert_eq!(out.matches("{broken crashed (").count(), 2, "{out}");
}

fn a_hanging_engine_loses() {
    let out = broken_match("hang", &["--movetime", "50"]);
    assert_eq!(
        out.matches("{broken hung: no bestmove within 350 ms}")
            .count(),
        2,
        "{out}"
    );
}

fn a_hanging_engine_on_a_clock_loses_on_time() {
    let out = broken_match("hang", &["--tc", "0.2+0.01"]);
    assert_eq!(
        out.matches("{broken lost on time: no bestmove within")
            .count(),
        2,
        "{out}"
    );
}

fn an_illegal_turn_loses() {
    let out = broken_match("illegal", &["--nodes", "100"]);
    assert_eq!(
        out.matches("{broken played an illegal turn 'build.")
            .count(),
        2,
        "{out}"
    );
}

fn a_garbage_answer_loses() {
    let out = broken_match("garbage", &["--nodes", "100"]);
    assert_eq!(
        out.matches("{broken sent an unparsable turn '@@##!!'")
            .count(),
        2,
        "{out}"
    );
    // The engine's escape sequence never reaches the terminal.
    assert!(!out.contains('\u{1b}'), "{out}");
}

/// An engine that answers `go` with a line that never ends loses at the
/// protocol's line cap, at once, instead of growing the runner's memory
/// until the turn's deadline (before the cap, a runner reached 4.3 GB).
fn an_endless_line_loses_and_the_match_goes_on() {
    let started = Instant::now();
    let out = broken_match("endless", &["--movetime", "50", "--timeout", "600000"]);
    let expected = format!("{{broken sent a line longer than {MAX_LINE_BYTES} bytes");
    assert_eq!(out.matches(&expected).count(), 2, "{out}");
    // Not the deadline (50 ms + the margin) but the cap ended each game:
    // this only guards against waiting for a timeout that never comes.
    assert!(!out.contains("hung"), "{out}");
    eprintln!("endless-line match: {:?}", started.elapsed());
}

/// A fresh scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let directory = std::env::temp_dir().join(format!(
        "supernova-broken-test-{}-{name}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&directory);
    std::fs::create_dir_all(&directory).unwrap();
    directory
}

/// A forfeit is not a result on the board: replay says so and reports the
/// record's result and its reason.
fn records_carry_forfeits_to_replay() {
    let directory = scratch("forfeits");
    let output = match_of(
        fake_engine_words("illegal"),
        &[
            "--engine",
            "name=good",
            "option.Player=greedy",
            "--games",
            "1",
            "--nodes",
            "10",
            "--pgnout",
            directory.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{}", text(&output));
    let record = directory.join("game-0001.sdg");
    let replay = supernova(&["replay", record.to_str().unwrap()]);
    let replayed = text(&replay);
    assert!(replay.status.success(), "{replayed}");
    assert!(
        replayed.contains(
            "game-0001.sdg: unfinished (record: Winner good, result 0-1 forfeit: broken played an illegal turn 'build."
        ),
        "{replayed}"
    );
    let _ = std::fs::remove_dir_all(&directory);
}

/// An engine that follows its real `bestmove` with `bestmove pass` had the
/// stale pass played as its next turn; the runner now finds the second
/// answer before the next `go` and the engine forfeits, the line named.
fn a_second_bestmove_pass_is_a_fault() {
    let out = broken_match("double-pass", &["--nodes", "100"]);
    assert_eq!(
        out.matches("{broken sent 'bestmove pass' when no go was waiting")
            .count(),
        2,
        "{out}"
    );
}

/// The same with a real turn sent twice: the copy would otherwise be read
/// as the answer to the next `go`, for another position.
fn a_repeated_bestmove_is_a_fault() {
    let out = broken_match("double", &["--nodes", "100"]);
    let faults = out
        .lines()
        .filter(|line| {
            line.contains("{broken sent 'bestmove ") && line.contains("when no go was waiting")
        })
        .count();
    assert_eq!(faults, 2, "{out}");
}

/// In a multi-player match too, the engine that answers twice forfeits,
/// and the others play on.
fn a_second_bestmove_is_a_fault_in_multi_player_matches() {
    let output = match_of(
        fake_engine_words("double-pass"),
        &[
            "--engine",
            "name=alpha",
            "--engine",
            "name=beta",
            "--nodes",
            "100",
            "--games",
            "1",
            "--max-turns",
            "30",
        ],
    );
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(
        out.contains(
            "Forfeit in game 1: broken (seat p0) sent 'bestmove pass' when no go was waiting"
        ),
        "{out}"
    );
    assert!(out.trim_end().ends_with("Finished match"), "{out}");
}

/// Whether process `id` has ended (gone, or a zombie waiting for its
/// parent), waiting up to 5 s for it.
fn process_ends(id: &str) -> bool {
    let stat = PathBuf::from("/proc").join(id).join("stat");
    let deadline = Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let ended = match std::fs::read_to_string(&stat) {
            // The state follows the command name in parentheses.
            Ok(text) => text
                .rsplit_once(") ")
                .is_some_and(|(_, rest)| rest.starts_with('Z') || rest.starts_with('X')),
            Err(_) => true,
        };
        if ended || Instant::now() > deadline {
            return ended;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
}

/// An engine that exits but leaves a helper holding its output open was
/// reported as hung, and the helper outlived the match; now the runner
/// sees the engine exit (with its status), and ends its process group.
fn an_exited_engine_loses_as_exited_and_its_helper_ends() {
    let folder = scratch("orphan");
    let mut engine = fake_engine_words("orphan");
    engine.push(format!("arg={}", folder.display()));
    let out = broken_match_of(engine, &["--movetime", "1000"]);
    let expected = format!("{{broken crashed (exit status: {ORPHAN_STATUS})");
    assert_eq!(out.matches(&expected).count(), 2, "{out}");
    assert!(!out.contains("hung"), "{out}");
    let sleepers: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter_map(|name| name.strip_prefix("sleeper-").map(str::to_string))
        .collect();
    assert_eq!(sleepers.len(), 2, "{sleepers:?}");
    for id in &sleepers {
        assert!(process_ends(id), "the helper {id} outlived the match");
    }
    let _ = std::fs::remove_dir_all(&folder);
}

/// A runner stopped mid-game by a signal ends its engines' process groups
/// first: in groups of their own, they no longer get the terminal's
/// signal, and a helper an engine started would outlive the runner. The
/// test sends `SIGTERM`, which the runner handles as it does Ctrl-C's
/// `SIGINT`: a shell without job control starts background commands with
/// `SIGINT` ignored, and so would be the runner under such a test run.
fn an_interrupted_match_ends_its_engines_helpers() {
    let folder = scratch("interrupted");
    let mut engine = fake_engine_words("helper-hang");
    engine.push(format!("arg={}", folder.display()));
    let mut arguments = vec!["match".to_string(), "--engine".to_string()];
    arguments.extend(engine);
    for word in ["--engine", "name=good", "option.Player=greedy"] {
        arguments.push(word.to_string());
    }
    for word in ["--games", "1", "--movetime", "60000"] {
        arguments.push(word.to_string());
    }
    let mut runner = std::process::Command::new(common::binary())
        .args(&arguments)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .expect("the binary starts");
    let deadline = Instant::now() + std::time::Duration::from_secs(20);
    let sleeper = loop {
        let found = std::fs::read_dir(&folder).unwrap().find_map(|entry| {
            let name = entry.unwrap().file_name().to_string_lossy().into_owned();
            name.strip_prefix("sleeper-").map(str::to_string)
        });
        if let Some(id) = found {
            break id;
        }
        assert!(Instant::now() < deadline, "the engine started no helper");
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let interrupted = std::process::Command::new("kill")
        .args(["-TERM", &runner.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(interrupted.success());
    let status = runner.wait().expect("the runner ends");
    assert!(!status.success(), "{status}");
    assert!(
        process_ends(&sleeper),
        "the helper {sleeper} outlived the runner"
    );
    let _ = std::fs::remove_dir_all(&folder);
}

fn the_illegal_token_is_illegal() {
    let board = hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap();
    let token = illegal_token(&board, &Rules::STANDARD);
    assert!(board
        .clone()
        .play_turn_text(&Rules::STANDARD, &token)
        .is_err());
    assert!(supernova::notation::turn::parse_turn(&token).is_ok());
}

/// Every test, by name.
const TESTS: [(&str, fn()); 13] = [
    ("a_crashing_engine_loses", a_crashing_engine_loses),
    ("a_hanging_engine_loses", a_hanging_engine_loses),
    (
        "a_hanging_engine_on_a_clock_loses_on_time",
        a_hanging_engine_on_a_clock_loses_on_time,
    ),
    ("an_illegal_turn_loses", an_illegal_turn_loses),
    ("a_garbage_answer_loses", a_garbage_answer_loses),
    (
        "an_endless_line_loses_and_the_match_goes_on",
        an_endless_line_loses_and_the_match_goes_on,
    ),
    (
        "records_carry_forfeits_to_replay",
        records_carry_forfeits_to_replay,
    ),
    (
        "a_second_bestmove_pass_is_a_fault",
        a_second_bestmove_pass_is_a_fault,
    ),
    (
        "a_repeated_bestmove_is_a_fault",
        a_repeated_bestmove_is_a_fault,
    ),
    (
        "a_second_bestmove_is_a_fault_in_multi_player_matches",
        a_second_bestmove_is_a_fault_in_multi_player_matches,
    ),
    (
        "an_exited_engine_loses_as_exited_and_its_helper_ends",
        an_exited_engine_loses_as_exited_and_its_helper_ends,
    ),
    (
        "an_interrupted_match_ends_its_engines_helpers",
        an_interrupted_match_ends_its_engines_helpers,
    ),
    ("the_illegal_token_is_illegal", the_illegal_token_is_illegal),
];

fn main() {
    let arguments: Vec<String> = std::env::args().skip(1).collect();
    if arguments.first().map(String::as_str) == Some(FAKE_ENGINE_FLAG) {
        let name = arguments.get(1).map_or("", String::as_str);
        let Some(mode) = Mode::named(name) else {
            eprintln!("unknown fake engine mode '{name}'");
            std::process::exit(2);
        };
        fake_engine::run(mode, arguments.get(2).map(std::path::Path::new));
        return;
    }
    let exact = arguments.iter().any(|argument| argument == "--exact");
    let filters: Vec<&String> = arguments
        .iter()
        .filter(|argument| !argument.starts_with('-'))
        .collect();
    let selected: Vec<(&str, fn())> = TESTS
        .iter()
        .copied()
        .filter(|(name, _)| {
            filters.is_empty()
                || filters.iter().any(|filter| {
                    if exact {
                        name == filter
                    } else {
                        name.contains(filter.as_str())
                    }
                })
        })
        .collect();
    if arguments.iter().any(|argument| argument == "--list") {
        for (name, _) in &selected {
            println!("{name}: test");
        }
        return;
    }
    println!("\nrunning {} tests", selected.len());
    let results: Vec<(&str, bool)> = std::thread::scope(|scope| {
        let handles: Vec<_> = selected
            .iter()
            .map(|&(name, test)| (name, scope.spawn(test)))
            .collect();
        handles
            .into_iter()
            .map(|(name, handle)| (name, handle.join().is_ok()))
            .collect()
    });
    let mut failed = 0;
    for (name, passed) in &results {
        println!("test {name} ... {}", if *passed { "ok" } else { "FAILED" });
        failed += usize::from(!passed);
    }
    println!(
        "\ntest result: {}. {} passed; {failed} failed\n",
        if failed == 0 { "ok" } else { "FAILED" },
        results.len() - failed
    );
    if failed > 0 {
        std::process::exit(101);
    }
}
