//! `supernova match`: two engines against each other, like cutechess-cli.
//!
//! Each engine is a child process spoken to only through the protocol
//! (protocol.md, [`crate::protocol::client`]), so any engine that speaks it
//! can take part. The runner is the referee: it keeps its own board, plays
//! every returned turn on the rules core, and never trusts an engine. A
//! crash, a hang past the clock (with a margin), a line longer than the
//! protocol's cap, an unparsable or illegal turn, a `bestmove (none)` in an
//! ongoing game, or a `bestmove` when no `go` was waiting loses the game,
//! and the reason is logged (engine text quoted as bounded, escaped
//! excerpts). The last is found without racing the engine: before each
//! `position` and `go`, the engine is sent `isready`, and a `bestmove` that
//! comes before its `readyok` (a second answer to its previous `go`) is a
//! protocol fault, as in cutechess-cli and fastchess, rather than the
//! answer to the next `go`; the round trip is not on the engine's clock.
//! An engine that exits loses with its exit status, even when a process it
//! started still holds its output, and each engine runs in a process group
//! of its own that is ended with its game
//! ([`crate::protocol::client::EngineProcess`]). Every other ending is judged by
//! the rules layer's [`History`](crate::rules::History) under the match's
//! rules ([`MatchConfig::referee_rules`]): elimination, an automatic draw
//! when a start-of-turn position recurs `repetitions` times, and the turn
//! limit, so every game ends. The engines are told the same rules.
//!
//! Both engines are started and checked once before the first game: one
//! that cannot start or complete the handshake stops the match with an
//! error, as in cutechess-cli, rather than losing every game.
//!
//! Each opening (a position after both setup turns) is played twice with
//! the engines swapping seats, several games at a time, each game with
//! fresh engine processes so that one game's crash or hang cannot leak into
//! the next. Every game can be saved as an SDG record that
//! `supernova replay` accepts: its variants name the draw rules and a
//! `Referee:` comment states the result and its reason, forfeits included.
//!
//! A run can play a slice of a match (`--games-list`), writing a results
//! file per game (`--results`), and `--merge` reads the slices' results
//! back into the whole match's closing lines: how one match is spread over
//! machines (`results.rs`, and `benches/scripts/ray_match.py`, which does
//! it on a Ray cluster).
//!
//! The files: `config.rs` (engines, openings and settings), `game.rs` (one
//! game: engines, turns, referee, record), `results.rs` (results files,
//! merging, the closing lines), `multi.rs` (matches of three to six
//! engines) and this one (the schedule and the reports).

mod config;
mod game;
pub(crate) mod multi;
mod results;

pub use config::{
    parse_openings, parse_time_control, EngineConfig, MatchConfig, Opening, Resign, TurnLimits,
    DEFAULT_OPENINGS,
};

pub use multi::{run_multi_match, MultiEngineMatch, MultiEngineResult, MultiGameReport};
pub use results::{
    fingerprint, format_numbers, merge_results, parse_numbers, read_results, GameSummary, Summary,
};

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use super::stats::{SprtVerdict, Tally};
use super::Ending;
use crate::notation::names::DEFAULT_NAMES;
use crate::rules::{Action, Outcome};
use game::{play_game, start_engine};
use results::write_closing;

/// How long an engine may take to start and answer `hwi` and `isready`.
pub const HANDSHAKE_TIMEOUT: Duration = Duration::from_secs(10);

/// One finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameReport {
    /// 1-based game number.
    pub number: usize,
    /// Index of the opening played.
    pub opening: usize,
    /// Whether engine A sat as player 0 (moved first).
    pub a_first: bool,
    /// How it ended, by seat.
    pub ending: Ending,
    /// The ending in words, with the engines' names.
    pub reason: String,
    /// Turns played after the opening.
    pub turns: u32,
    /// Every turn of the game, to tell a game that repeats an earlier one.
    pub played: Vec<Vec<Action>>,
    /// Engine A's score: 1, 0.5 or 0.
    pub score_a: f64,
}

impl GameReport {
    /// The result by seat.
    pub fn outcome(&self) -> Outcome {
        self.ending.outcome()
    }

    /// Whether a rule break or failure ended it (crash, hang, illegal turn).
    pub fn is_forfeit(&self) -> bool {
        self.ending.is_forfeit()
    }
}

/// The whole match.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchResult {
    /// The engines' names, A then B.
    pub names: [String; 2],
    /// A's wins, losses and draws.
    pub tally: Tally,
    /// Every game, in the order they finished.
    pub games: Vec<GameReport>,
    /// The SPRT verdict, when a test was requested.
    pub sprt: Option<SprtVerdict>,
    /// Games that repeated an earlier game of the match turn for turn
    /// (same opening, same seats): deterministic engines at a node limit
    /// play each opening and seating once, whatever the number of games.
    pub repeats: usize,
    /// A's score over the games that repeat no earlier one.
    pub distinct: Tally,
    /// The tally at which the SPRT reached its verdict and the match
    /// stopped starting games; the games then under way still count in
    /// `tally`, and may move the ratio back inside its bounds.
    pub sprt_decided: Option<Tally>,
}

/// A name usable in SDG records and reports: letters, digits and `_`, not
/// a default system name (records name homes after their players).
fn record_name(name: &str, fallback: &str) -> String {
    let mut clean: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' {
                c
            } else {
                '_'
            }
        })
        .collect();
    clean = clean.trim_matches('_').to_string();
    if clean.is_empty() {
        clean = fallback.to_string();
    }
    let reserved = DEFAULT_NAMES
        .iter()
        .any(|default| default.eq_ignore_ascii_case(&clean))
        || clean.to_ascii_lowercase().starts_with("system")
        || clean.eq_ignore_ascii_case("home0")
        || clean.eq_ignore_ascii_case("home1");
    if reserved {
        clean.push_str("_engine");
    }
    clean
}

/// Probes both engines once (start, handshake, options) and settles their
/// names. An engine that cannot start or complete the handshake here stops
/// the match before its first game, as in cutechess-cli: such an engine
/// would lose every game, which only hides the mistake in its command.
fn probe_engines(config: &MatchConfig, log: &mut dyn FnMut(&str)) -> Result<[String; 2], String> {
    let mut names = [String::new(), String::new()];
    for (index, engine) in config.engines.iter().enumerate() {
        let label = ["first", "second"][index];
        let log_file = config
            .logs
            .as_ref()
            .map(|directory| directory.join(format!("probe-engine{}.log", index + 1)));
        let (mut process, id_name) =
            start_engine(engine, config, log_file.as_deref()).map_err(|failure| {
                format!("the {label} engine failed its handshake: {failure}; no game was played")
            })?;
        for error in &process.errors {
            log(&format!("Warning: {label} engine: {error}"));
        }
        process.quit();
        let given = engine.name.clone().or(id_name).unwrap_or_default();
        let fallback = format!("engine{}", index + 1);
        let first_word = given.split_whitespace().next().unwrap_or("").to_string();
        names[index] = record_name(&first_word, &fallback);
    }
    if names[0].eq_ignore_ascii_case(&names[1]) {
        names[0].push_str("_1");
        names[1].push_str("_2");
    }
    Ok(names)
}

/// Runs the match, writing progress lines (one per finished game) and the
/// final summary to `output`.
///
/// # Errors
/// An engine that cannot start or complete the handshake at all, or an
/// unwritable transcript directory. Engines that fail during games lose
/// those games instead.
pub fn run_match(
    config: &MatchConfig,
    output: &mut (dyn Write + Send),
) -> Result<MatchResult, String> {
    for directory in [&config.transcripts, &config.logs, &config.results]
        .into_iter()
        .flatten()
    {
        std::fs::create_dir_all(directory)
            .map_err(|error| format!("{}: cannot create: {error}", directory.display()))?;
    }
    let mut probe_log = Vec::new();
    let names = probe_engines(config, &mut |line| probe_log.push(line.to_string()))?;
    let shared = Mutex::new((
        output,
        MatchResult {
            names: names.clone(),
            ..MatchResult::default()
        },
    ));
    {
        let mut guard = shared
            .lock()
            .map_err(|_| "output lock poisoned".to_string())?;
        for line in &probe_log {
            let _ = writeln!(guard.0, "{line}");
        }
        let _ = writeln!(
            guard.0,
            "Started match of {} games: {} vs {} ({} openings, concurrency {}){}",
            config.games,
            names[0],
            names[1],
            config.openings.len(),
            config.concurrency.max(1),
            match &config.numbers {
                Some(numbers) => format!("; this run plays games {}", format_numbers(numbers)),
                None => String::new(),
            }
        );
        let _ = guard.0.flush();
    }
    let next = AtomicUsize::new(0);
    let halted = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for _ in 0..config
            .concurrency
            .max(1)
            .min(config.scheduled_games().max(1))
        {
            scope.spawn(|| loop {
                if halted.load(Ordering::Relaxed) {
                    break;
                }
                let Some(number) = config.scheduled(next.fetch_add(1, Ordering::Relaxed)) else {
                    break;
                };
                if let Ok(mut guard) = shared.lock() {
                    // As cutechess-cli: the seats of game n alternate.
                    let seats = if number % 2 == 1 { [0, 1] } else { [1, 0] };
                    let started = writeln!(
                        guard.0,
                        "Started game {number} of {} ({} vs {})",
                        config.games, names[seats[0]], names[seats[1]]
                    )
                    .and_then(|()| guard.0.flush());
                    if started.is_err() {
                        halted.store(true, Ordering::Relaxed);
                    }
                }
                let (report, mut warning) = play_game(config, &names, number);
                if let Some(directory) = &config.results {
                    let summary =
                        GameSummary::from_report(&report, &names, config.build.as_deref());
                    if let Err(error) = summary.write(directory) {
                        warning = Some(
                            warning.map_or(error.clone(), |earlier| format!("{earlier}; {error}")),
                        );
                    }
                }
                let Ok(mut guard) = shared.lock() else {
                    break;
                };
                let (writer, result) = &mut *guard;
                let mut written = Ok(());
                if let Some(warning) = warning {
                    written = writeln!(writer, "Warning: {warning}");
                }
                result.tally.add(report.score_a);
                let seats = if report.a_first { [0, 1] } else { [1, 0] };
                let written = written
                    .and_then(|()| {
                        writeln!(
                            writer,
                            "Finished game {} ({} vs {}): {} {{{}}} | {}",
                            report.number,
                            names[seats[0]],
                            names[seats[1]],
                            report.ending.score(),
                            report.reason,
                            result.tally.score_line(&names[0], &names[1])
                        )
                    })
                    .and_then(|()| writer.flush());
                if written.is_err() {
                    // Nobody reads the report any more (`| head`): stop
                    // after the games under way rather than play on unseen.
                    halted.store(true, Ordering::Relaxed);
                }
                result.games.push(report);
                if let Some(sprt) = &config.sprt {
                    if result.sprt_decided.is_none()
                        && sprt.verdict(&result.tally) != SprtVerdict::Continue
                    {
                        result.sprt_decided = Some(result.tally);
                        halted.store(true, Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let (writer, mut result) = shared
        .into_inner()
        .map_err(|_| "output lock poisoned".to_string())?;
    write_summary(writer, config, &names, &mut result);
    Ok(result)
}

/// Writes the match's closing lines ([`write_closing`]) and keeps the
/// sequential test's verdict and the repeats in `result`.
fn write_summary(
    writer: &mut (dyn Write + Send),
    config: &MatchConfig,
    names: &[String; 2],
    result: &mut MatchResult,
) {
    let games: Vec<GameSummary> = result
        .games
        .iter()
        .map(|game| GameSummary::from_report(game, names, config.build.as_deref()))
        .collect();
    let summary = write_closing(
        writer,
        names,
        config.sprt.as_ref(),
        &result.tally,
        result.sprt_decided,
        &games,
    );
    result.sprt = summary.sprt;
    result.repeats = summary.repeats;
    result.distinct = summary.distinct;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_suit_records() {
        assert_eq!(record_name("Supernova 0.1", "x"), "Supernova_0_1");
        assert_eq!(record_name("Delos", "x"), "Delos_engine");
        assert_eq!(record_name("()", "engine2"), "engine2");
    }
}
