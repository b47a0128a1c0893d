//! The Ray driver (`benches/scripts/ray_match.py`) on a local cluster of
//! two workers that the driver starts and stops: a node-limited match
//! spread over them gives the same records and closing lines as the same
//! match played by `supernova match` alone, also when one worker is killed
//! mid-match (its unfinished games are played again, and every game counts
//! once); and a training generation made through the driver (self-play
//! on the workers, the fit here, the gate's batches as matches on the
//! workers) has the one-machine generation's files and gate games, and its
//! gate stops where the one-machine gate's SPRT decides.
//!
//! The tests need Python with `ray` (`.ci/run` installs it). Without it
//! they fail under CI=true and are skipped, with the reason printed,
//! elsewhere.

mod common;

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use common::{binary, scratch_directory, supernova, text, under_ci};

/// The longest a driver may run before the test stops it and fails.
const DRIVER_LIMIT: Duration = Duration::from_secs(240);

/// Held by the test whose local cluster runs: one cluster at a time, as
/// three at once overload a 2-core machine.
static CLUSTER: Mutex<()> = Mutex::new(());

/// Takes [`CLUSTER`] (a test that failed while holding it does not stop
/// the others).
fn one_cluster() -> MutexGuard<'static, ()> {
    CLUSTER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Whether `python3` can import ray; when it cannot, a test fails under CI
/// and is skipped (saying why) elsewhere.
fn ray_available(test: &str) -> bool {
    let imported = Command::new("python3")
        .args(["-c", "import ray"])
        .output()
        .is_ok_and(|output| output.status.success());
    if !imported {
        assert!(
            !under_ci(),
            "{test}: python3 cannot import ray, and CI=true requires it (pip install ray)"
        );
        eprintln!("SKIPPED {test}: python3 cannot import ray (pip install ray)");
    }
    imported
}

/// The driver's process. Dropping it (a failed assertion included) sends
/// it SIGTERM, on which it stops its local Ray cluster, and waits; a
/// driver that does not exit in time is killed.
struct Driver {
    child: Child,
}

impl Driver {
    /// Starts the driver with `arguments`, its standard output piped.
    fn start(arguments: &[&str]) -> Driver {
        let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/scripts/ray_match.py");
        let child = Command::new("python3")
            .arg(script)
            .args(arguments)
            .env("RAY_USAGE_STATS_ENABLED", "0")
            .stdout(Stdio::piped())
            .spawn()
            .expect("python3 starts");
        Driver { child }
    }

    /// Sends the driver `signal` (a `kill` name such as TERM).
    fn signal(&self, signal: &str) {
        let _ = Command::new("kill")
            .args([format!("-{signal}"), self.child.id().to_string()])
            .status();
    }
}

impl Drop for Driver {
    fn drop(&mut self) {
        if matches!(self.child.try_wait(), Ok(None)) {
            self.signal("TERM");
            let started = Instant::now();
            while matches!(self.child.try_wait(), Ok(None)) {
                if started.elapsed() > Duration::from_secs(30) {
                    let _ = self.child.kill();
                    break;
                }
                std::thread::sleep(Duration::from_millis(100));
            }
        }
        let _ = self.child.wait();
    }
}

/// Runs the driver in `mode` (match or selfplay) on two workers, with its
/// folder (`--out` or `--dir`), its own `options` and the `passed`
/// arguments of supernova, to its end, handing each line of its output to
/// `on_line`; returns the output and whether it succeeded. A driver past
/// [`DRIVER_LIMIT`] is stopped.
fn run_driver(
    mode: &str,
    folder: &Path,
    options: &[&str],
    passed: &[&str],
    mut on_line: impl FnMut(&str),
) -> (String, bool) {
    let binary = binary();
    let folder_flag = if mode == "match" { "--out" } else { "--dir" };
    let mut arguments = vec![
        mode,
        "--workers",
        "2",
        "--binary",
        binary.to_str().unwrap(),
        folder_flag,
        folder.to_str().unwrap(),
    ];
    arguments.extend(options);
    arguments.push("--");
    arguments.extend(passed);
    let mut driver = Driver::start(&arguments);
    let done = Arc::new(AtomicBool::new(false));
    let pid = driver.child.id();
    let watchdog = {
        let done = Arc::clone(&done);
        std::thread::spawn(move || {
            let started = Instant::now();
            while !done.load(Ordering::Relaxed) {
                if started.elapsed() > DRIVER_LIMIT {
                    let _ = Command::new("kill")
                        .args(["-TERM", &pid.to_string()])
                        .status();
                    return;
                }
                std::thread::sleep(Duration::from_millis(200));
            }
        })
    };
    let mut output = String::new();
    let reader = BufReader::new(driver.child.stdout.take().expect("piped"));
    for line in reader.lines() {
        let line = line.expect("the driver's output is text");
        on_line(&line);
        output.push_str(&line);
        output.push('\n');
    }
    let succeeded = driver.child.wait().is_ok_and(|status| status.success());
    // The driver's report, shown with --nocapture.
    eprintln!("{output}");
    done.store(true, Ordering::Relaxed);
    let _ = watchdog.join();
    (output, succeeded)
}

/// The node-limited match both ways play.
const MATCH: &[&str] = &[
    "--engine",
    "name=mcts",
    "--engine",
    "name=greedy",
    "option.Player=greedy",
    "--games",
    "8",
    "--max-turns",
    "30",
];

/// This build's bench signature, as the driver stamps the games with it.
fn signature() -> String {
    let out = text(&supernova(&["bench"]));
    out.lines()
        .find_map(|line| line.strip_prefix("Signature: "))
        .expect("bench prints a signature")
        .to_string()
}

/// The match played by `supernova match` alone into `directory`, at
/// `nodes`; returns its closing lines.
fn direct_match(directory: &Path, nodes: &str, build: &str) -> Vec<String> {
    let place = directory.to_str().unwrap();
    let mut arguments = vec!["match"];
    arguments.extend(MATCH);
    arguments.extend(["--nodes", nodes, "--pgnout", place, "--build", build]);
    let output = supernova(&arguments);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    closing(&out, "Finished game")
}

/// The lines after the last one that starts with `marker`.
fn closing(out: &str, marker: &str) -> Vec<String> {
    let lines: Vec<&str> = out.lines().collect();
    let last = lines
        .iter()
        .rposition(|line| line.starts_with(marker))
        .unwrap_or_else(|| panic!("no '{marker}' line in {out}"));
    lines[last + 1..]
        .iter()
        .map(|line| line.to_string())
        .collect()
}

/// A record without its turn times.
fn untimed(text: &str) -> String {
    text.lines()
        .map(|line| match line.rfind(' ') {
            Some(space) if line.ends_with("s}") => format!("{}}}", &line[..space]),
            _ => line.to_string(),
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every copy the driver collected of game `number`'s record.
fn copies(out: &Path, number: usize) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(out).unwrap() {
        let path = entry.unwrap().path().join(format!("game-{number:04}.sdg"));
        if let Ok(record) = std::fs::read_to_string(path) {
            found.push(record);
        }
    }
    found
}

/// Plays the match through the driver (games of `batch`, at `nodes`), with
/// `on_line` watching its output, and checks it against the direct match:
/// the same closing lines, and every game's record once and the same.
fn check_against_direct(name: &str, nodes: &str, batch: &str, on_line: impl FnMut(&str)) -> String {
    let root = scratch_directory("ray", name);
    let build = signature();
    let expected = direct_match(&root.join("direct"), nodes, &build);
    let out = root.join("cluster");
    let mut arguments = MATCH.to_vec();
    arguments.extend(["--nodes", nodes]);
    let (output, succeeded) = run_driver("match", &out, &["--batch", batch], &arguments, on_line);
    assert!(succeeded, "{output}");
    assert!(
        output.contains("Merged 8 games of mcts vs greedy (games 1-8, build "),
        "{output}"
    );
    assert_eq!(closing(&output, "Merged "), expected, "{output}");
    for number in 1..=8 {
        let found = copies(&out, number);
        assert_eq!(
            found.len(),
            1,
            "game {number} was collected {} times: {output}",
            found.len()
        );
        let direct =
            std::fs::read_to_string(root.join("direct").join(format!("game-{number:04}.sdg")))
                .unwrap();
        assert!(direct.contains(&format!("Build: bench signature {build}")));
        assert_eq!(untimed(&found[0]), untimed(&direct), "game {number}");
    }
    output
}

#[test]
fn a_match_on_a_local_cluster_equals_the_match_played_alone() {
    if !ray_available("a_match_on_a_local_cluster_equals_the_match_played_alone") {
        return;
    }
    let _cluster = one_cluster();
    let output = check_against_direct("match", "50", "2", |_| {});
    assert_eq!(output.matches("started, worker pid").count(), 4, "{output}");
}

#[test]
fn a_worker_killed_mid_match_loses_only_its_unfinished_games() {
    if !ray_available("a_worker_killed_mid_match_loses_only_its_unfinished_games") {
        return;
    }
    let _cluster = one_cluster();
    // Two batches of four games, both under way at once; when the first
    // game arrives, the worker of the batch it is not from is killed.
    let mut workers: Vec<(String, u32)> = Vec::new();
    let mut killed = None;
    let output = check_against_direct("kill", "4000", "4", |line| {
        if let Some(rest) = line.strip_prefix("ray_match: batch ") {
            if let Some((batch, pid)) = rest.split_once(" started, worker pid ") {
                workers.push((batch.to_string(), pid.trim().parse().unwrap()));
            }
        }
        let arrived = line
            .strip_prefix("ray_match: game ")
            .and_then(|rest| rest.split_once(' '))
            .map(|(number, _)| number.to_string());
        if let (Some(number), None) = (arrived, killed) {
            let other = workers.iter().find(|(batch, _)| {
                !batch
                    .trim_matches(|c| c == '[' || c == ']')
                    .split(", ")
                    .any(|member| member == number)
            });
            if let Some((_, pid)) = other {
                let _ = Command::new("kill")
                    .args(["-KILL", &pid.to_string()])
                    .status();
                killed = Some(*pid);
            }
        }
    });
    assert!(killed.is_some(), "no worker was killed: {output}");
    assert!(output.contains("scheduled again"), "{output}");
}

/// The tiny training run both ways make: one generation of 66 self-play
/// games at 2 nodes, a short fit, and a gate of `gate_games` at 2 nodes.
fn training_settings(gate_games: &'static str) -> Vec<&'static str> {
    vec![
        "--games",
        "66",
        "--nodes",
        "2",
        "--gate-games",
        gate_games,
        "--gate-nodes",
        "2",
        "--epochs",
        "1",
        "--seed",
        "5",
        "--threads",
        "1",
    ]
}

/// `supernova train` alone in `directory`, with `settings`.
fn train_alone(directory: &Path, settings: &[&str]) {
    let mut arguments = vec!["train", "--dir", directory.to_str().unwrap()];
    arguments.extend(settings);
    let output = supernova(&arguments);
    assert!(output.status.success(), "{}", text(&output));
}

/// Every gate game's results line of generation 1 in the run `run` (in
/// the batch folders and the folders a driver made below them), without
/// the build that played it, by batch and game number.
fn gate_games(run: &Path) -> std::collections::BTreeMap<(String, usize), String> {
    fn walk(
        folder: &Path,
        batch: &str,
        found: &mut std::collections::BTreeMap<(String, usize), String>,
    ) {
        for entry in std::fs::read_dir(folder).unwrap() {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().to_string();
            if path.is_dir() {
                walk(&path, batch, found);
            } else if let Some(number) = name
                .strip_prefix("game-")
                .and_then(|rest| rest.strip_suffix(".result"))
            {
                let line = std::fs::read_to_string(&path).unwrap();
                let fields: Vec<&str> = line
                    .trim_end()
                    .split('\t')
                    .filter(|field| !field.starts_with("build="))
                    .collect();
                let number: usize = number.parse().unwrap();
                let known = found.insert((batch.to_string(), number), fields.join("\t"));
                assert!(
                    known.is_none() || known.as_deref() == Some(&fields.join("\t")),
                    "{name} twice, and the copies differ"
                );
            }
        }
    }
    let mut found = std::collections::BTreeMap::new();
    for entry in std::fs::read_dir(run.join("gen-001")).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_string_lossy().to_string();
        if path.is_dir() && name.starts_with("gate-") {
            walk(&path, &name, &mut found);
        }
    }
    found
}

/// Generation 1's gate verdict and score in the run `run`, without its time.
fn gate_verdict(run: &Path) -> String {
    let line = std::fs::read_to_string(run.join("gen-001").join("gate.txt")).unwrap();
    line.split(" in ").next().unwrap_or("").to_string()
}

#[test]
fn a_training_generation_through_the_driver_equals_the_one_machine_generation() {
    if !ray_available("a_training_generation_through_the_driver_equals_the_one_machine_generation")
    {
        return;
    }
    let _cluster = one_cluster();
    let root = scratch_directory("ray", "selfplay");
    let settings = training_settings("8");
    let alone = root.join("alone");
    train_alone(&alone, &settings);
    let cluster = root.join("cluster");
    let (output, succeeded) = run_driver("selfplay", &cluster, &[], &settings, |_| {});
    assert!(succeeded, "{output}");
    assert_eq!(output.matches("collected").count(), 2, "{output}");
    // The gate's batch is a match over the workers, merged, and decided
    // by supernova train from its results.
    assert!(output.contains("gate batch"), "{output}");
    assert!(
        output.contains("Merged 8 games of gen_1 vs best (games 1-8, build "),
        "{output}"
    );
    for name in ["games-0000.txt", "games-0001.txt", "candidate.net"] {
        let read = |run: &Path| std::fs::read_to_string(run.join("gen-001").join(name)).unwrap();
        assert_eq!(read(&cluster), read(&alone), "{name}");
    }
    let games = gate_games(&alone);
    assert_eq!(games.len(), 8);
    assert_eq!(gate_games(&cluster), games);
    assert_eq!(gate_verdict(&cluster), gate_verdict(&alone));
    assert!(
        gate_verdict(&alone).starts_with("gen 1 vs hand: "),
        "{}",
        gate_verdict(&alone)
    );
}

#[test]
fn the_gate_through_the_driver_stops_where_its_sprt_decides_as_alone() {
    if !ray_available("the_gate_through_the_driver_stops_where_its_sprt_decides_as_alone") {
        return;
    }
    let _cluster = one_cluster();
    let root = scratch_directory("ray", "gate");
    // One self-play game, and a candidate that prefers what the hand
    // evaluation avoids (the fitted one with its linear weights negated
    // and sharpened): the SPRT rejects it within one batch of 64 games.
    let mut settings = training_settings("64");
    settings[1] = "1";
    let fitted = root.join("fitted");
    let mut arguments = vec!["train", "--dir", fitted.to_str().unwrap()];
    arguments.extend(&settings);
    arguments.push("--external-gate");
    let output = supernova(&arguments);
    assert!(output.status.success(), "{}", text(&output));
    assert!(
        text(&output).contains("gate batch wanted"),
        "{}",
        text(&output)
    );
    let network = std::fs::read_to_string(fitted.join("gen-001/candidate.net")).unwrap();
    let worse: String = network
        .lines()
        .map(|line| match line.strip_prefix("linear ") {
            Some(weights) => {
                let negated: Vec<String> = weights
                    .split_whitespace()
                    .map(|weight| (-5.0 * weight.parse::<f32>().unwrap()).to_string())
                    .collect();
                format!("linear {}\n", negated.join(" "))
            }
            None => format!("{line}\n"),
        })
        .collect();
    let (alone, cluster) = (root.join("alone"), root.join("cluster"));
    for run in [&alone, &cluster] {
        std::fs::create_dir_all(run.join("gen-001")).unwrap();
        std::fs::write(run.join("gen-001/candidate.net"), &worse).unwrap();
    }
    train_alone(&alone, &settings);
    let (output, succeeded) =
        run_driver("selfplay", &cluster, &["--batch", "4"], &settings, |_| {});
    assert!(succeeded, "{output}");
    let verdict = gate_verdict(&alone);
    assert!(verdict.contains(" rejected "), "{verdict}");
    assert_eq!(gate_verdict(&cluster), verdict);
    assert!(
        output.contains("the SPRT decided; cancelling every task"),
        "{output}"
    );
    // The games counted are the same; alone plays the whole batch, the
    // driver stops soon after the deciding game.
    let counted = |verdict: &str| -> u32 {
        let score = verdict.split_whitespace().nth(5).unwrap();
        score
            .split('-')
            .map(|part| part.parse::<u32>().unwrap())
            .sum()
    };
    let decided_at = counted(&verdict) as usize;
    assert!(decided_at < 64, "{verdict}");
    let (alone_games, cluster_games) = (gate_games(&alone), gate_games(&cluster));
    assert_eq!(alone_games.len(), 64);
    assert!(cluster_games.len() < 64, "{output}");
    for ((batch, number), line) in &cluster_games {
        assert_eq!(alone_games.get(&(batch.clone(), *number)), Some(line));
    }
}

#[test]
fn the_driver_cancels_every_task_when_the_sprt_decides() {
    if !ray_available("the_driver_cancels_every_task_when_the_sprt_decides") {
        return;
    }
    let _cluster = one_cluster();
    let out = scratch_directory("ray", "sprt").join("cluster");
    let binary = binary();
    let mut arguments = MATCH.to_vec();
    // 64 games, decided within a few: the search is far stronger than greedy.
    let games = arguments.iter().position(|word| *word == "8").unwrap();
    arguments[games] = "64";
    arguments.extend([
        "--nodes",
        "400",
        "--sprt",
        "elo0=-200",
        "elo1=-100",
        "alpha=0.2",
        "beta=0.2",
    ]);
    let (output, succeeded) = run_driver("match", &out, &[], &arguments, |_| {});
    assert!(succeeded, "{output}");
    assert!(
        output.contains("the SPRT decided; cancelling every task"),
        "{output}"
    );
    assert!(output.contains("was accepted"), "{output}");
    let merged = output
        .lines()
        .find_map(|line| line.strip_prefix("Merged "))
        .and_then(|rest| rest.split(' ').next())
        .and_then(|count| count.parse::<usize>().ok())
        .unwrap_or_else(|| panic!("no merge line: {output}"));
    assert!(merged < 64, "{output}");
    // The cancelled tasks' matches end with their workers (the other
    // tests of this file, which could start such processes, wait for
    // CLUSTER).
    let binary_text = binary.to_str().unwrap().to_string();
    let running = || {
        std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|entry| std::fs::read(entry.ok()?.path().join("cmdline")).ok())
            .map(|words| String::from_utf8_lossy(&words).replace('\0', " "))
            .filter(|words| words.starts_with(&binary_text) && words.contains(" --games-list "))
            .count()
    };
    let started = Instant::now();
    let mut left = running();
    while left > 0 && started.elapsed() < Duration::from_secs(10) {
        std::thread::sleep(Duration::from_millis(200));
        left = running();
    }
    assert_eq!(
        left, 0,
        "supernova processes of the cancelled tasks are still running"
    );
}
