//! The gate: a candidate network against the best one so far, in batches
//! of every opening with both colours, decided by an SPRT (its bounds, and
//! why each batch searches more nodes, are in the parent module's
//! documentation).
//!
//! Each batch is a `supernova match` (the match runner, with engine
//! processes of this binary loading the two network files), so that a
//! batch played here and one spread over a cluster by a driver are the
//! same games: the driver plays the very arguments this module writes. A
//! batch's games leave one results file each in `gen-NNN/gate-BB/` (or in
//! folders below it, where a driver collects them), and the verdict is
//! always taken here from those files: the statistics and the decision
//! stay in one place. The games are counted in number order, batch after
//! batch, and the SPRT is asked after each one, so the deciding game is
//! the same whichever games finish first; a driver that asks after every
//! game that arrives can stop the batch's other games once it is found,
//! and a batch played here is played whole and counted up to it. A batch
//! whose results are all there is not played again, so a gate cut off
//! resumes with its missing games only.

use std::path::{Path, PathBuf};

use super::{generation_directory, io_error, say, write_atomically, TrainConfig};
use crate::tools::match_runner::{
    parse_numbers, parse_openings, read_results, run_match, EngineConfig, GameSummary, MatchConfig,
    TurnLimits, DEFAULT_OPENINGS,
};
use crate::tools::selfplay::MatchSettings;
use crate::tools::stats::{Sprt, SprtVerdict, Tally};

/// The gate's sequential test: the candidate is accepted only when it is
/// shown stronger (elo1 20), not merely no weaker.
const GATE_SPRT: Sprt = Sprt {
    elo0: 0.0,
    elo1: 20.0,
    alpha: 0.05,
    beta: 0.05,
};

/// How a gate ended, or where it waits.
pub(super) enum GateOutcome {
    /// The SPRT decided, or the budget of games is spent (`Continue`).
    Decided(Tally, SprtVerdict),
    /// `--external-gate`: a batch's games are missing; its match's
    /// arguments are in the file named, its results are wanted in the
    /// folder named.
    Wanted(PathBuf, PathBuf),
}

/// One batch of the gate: a match of the first openings, both colours.
struct Batch {
    /// The folder of its results files.
    directory: PathBuf,
    /// Its games (numbered from 1).
    games: usize,
    /// The `supernova match` arguments that play it.
    words: Vec<String>,
}

/// The candidate (`gen_G`, from its network file) against the best (the
/// directory's `best.net`, or the hand evaluation before one is accepted):
/// batches of the openings twice, until the SPRT decides (asked after each
/// game in number order) or the budget of games is spent. Batches already
/// played are read back from their files;
/// a missing one is played here with `threads` games at once, or, with
/// `--external-gate`, written down for a driver (and the gate waits).
///
/// # Errors
/// An engine that cannot start, or results files that cannot be read or
/// belong to another match.
pub(super) fn gate(
    config: &TrainConfig,
    generation: u32,
    threads: usize,
    out: &mut dyn std::io::Write,
) -> Result<GateOutcome, String> {
    let openings = parse_openings(DEFAULT_OPENINGS, &MatchSettings::default().rules)?.len();
    let mut tally = Tally::default();
    let mut index = 0u64;
    while (tally.games() as usize) < config.gate_games {
        let room = (config.gate_games - tally.games() as usize).div_ceil(2);
        let batch = batch(config, generation, index, 2 * room.min(openings));
        let mut games = batch_results(&batch)?;
        let mut counted = Tally::default();
        let mut played_here = false;
        let verdict = loop {
            // The games in number order, as far as none is missing.
            let mut verdict = SprtVerdict::Continue;
            while verdict == SprtVerdict::Continue {
                let next = counted.games() as usize;
                match games.get(next) {
                    Some(game) if game.number == next + 1 => {
                        counted.add(game.score_a);
                        tally.add(game.score_a);
                        verdict = GATE_SPRT.verdict(&tally);
                    }
                    _ => break,
                }
            }
            let done = counted.games() as usize == batch.games;
            if verdict != SprtVerdict::Continue || done {
                break verdict;
            }
            let missing: Vec<usize> = (1..=batch.games)
                .filter(|number| !games.iter().any(|game| game.number == *number))
                .collect();
            let mut words = batch.words.clone();
            if missing.len() < batch.games {
                words.extend(["--games-list".to_string(), list(&missing)]);
            }
            if config.external_gate {
                let file = batch.directory.with_extension("args");
                write_atomically(&file, &(words.join("\n") + "\n"))?;
                return Ok(GateOutcome::Wanted(file, batch.directory));
            }
            if played_here {
                return Err(format!(
                    "{}: the gate's match left games {} without results",
                    batch.directory.display(),
                    list(&missing)
                ));
            }
            play(&batch, &words, threads)?;
            played_here = true;
            games = batch_results(&batch)?;
        };
        say(
            out,
            format!(
                "gen {generation}: gate batch {} ({} of {} games at {} nodes): {}-{}-{}",
                index + 1,
                counted.games(),
                batch.games,
                batch_nodes(config, index),
                counted.wins,
                counted.losses,
                counted.draws
            ),
        )?;
        if verdict != SprtVerdict::Continue {
            return Ok(GateOutcome::Decided(tally, verdict));
        }
        index += 1;
    }
    Ok(GateOutcome::Decided(tally, SprtVerdict::Continue))
}

/// The nodes a turn of batch `index` (from 0) searches: an eighth of
/// `--gate-nodes` more each batch, so that the deterministic searches play
/// new games.
fn batch_nodes(config: &TrainConfig, index: u64) -> u64 {
    config.gate_nodes + index * config.gate_nodes / 8
}

/// The engine words of one side: a small tree, one line a turn, and the
/// network file (or the hand evaluation).
fn engine_words(name: &str, network: Option<&Path>) -> Vec<String> {
    let mut words = vec![
        format!("name={name}"),
        "option.Hash=16".to_string(),
        "option.MultiPV=1".to_string(),
    ];
    match network {
        Some(path) => words.extend([
            "option.Eval=learned".to_string(),
            format!("option.EvalFile={}", path.display()),
        ]),
        None => words.push("option.Eval=hand".to_string()),
    }
    words
}

/// Batch `index` (from 0) of generation `generation`'s gate, of `games`
/// games: where its results go and the match that plays it.
fn batch(config: &TrainConfig, generation: u32, index: u64, games: usize) -> Batch {
    let generation_folder = generation_directory(config, generation);
    let best = config.directory.join("best.net");
    let candidate = generation_folder.join("candidate.net");
    let mut words = vec!["--engine".to_string()];
    words.extend(engine_words(&format!("gen_{generation}"), Some(&candidate)));
    words.push("--engine".to_string());
    words.extend(engine_words(
        "best",
        best.exists().then_some(best.as_path()),
    ));
    words.extend([
        "--nodes".to_string(),
        batch_nodes(config, index).to_string(),
        "--games".to_string(),
        games.to_string(),
        "--max-turns".to_string(),
        config.max_turns.to_string(),
    ]);
    Batch {
        directory: generation_folder.join(format!("gate-{:02}", index + 1)),
        games,
        words,
    }
}

/// Game numbers as a `--games-list`.
fn list(numbers: &[usize]) -> String {
    crate::tools::match_runner::format_numbers(numbers)
}

/// The batch's results found so far: its folder's files and those of the
/// folders below it (a driver's copies), each game once; none when the
/// folder does not exist yet.
///
/// # Errors
/// Unreadable files, copies of a game that differ, or games of another
/// match or beyond the batch.
fn batch_results(batch: &Batch) -> Result<Vec<GameSummary>, String> {
    let mut folders = Vec::new();
    collect_folders(&batch.directory, 3, &mut folders)?;
    let holding: Vec<PathBuf> = folders
        .into_iter()
        .filter(|folder| {
            std::fs::read_dir(folder).is_ok_and(|mut entries| {
                entries.any(|entry| {
                    entry.is_ok_and(|entry| {
                        let name = entry.file_name();
                        let name = name.to_string_lossy();
                        name.ends_with(".result") && !name.starts_with('.')
                    })
                })
            })
        })
        .collect();
    if holding.is_empty() {
        return Ok(Vec::new());
    }
    let games = read_results(&holding)?;
    let engines = |words: &[String]| {
        words
            .iter()
            .filter_map(|word| word.strip_prefix("name="))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    let names = engines(&batch.words);
    if let Some(stranger) = games
        .iter()
        .find(|game| game.names[..] != names[..] || game.number > batch.games)
    {
        return Err(format!(
            "{}: game {} of {} vs {} is not one of this gate batch's {} games of {} vs {}",
            batch.directory.display(),
            stranger.number,
            stranger.names[0],
            stranger.names[1],
            batch.games,
            names[0],
            names[1]
        ));
    }
    Ok(games)
}

/// `directory` and the folders below it, `depth` levels down; nothing when
/// it does not exist.
fn collect_folders(directory: &Path, depth: u32, found: &mut Vec<PathBuf>) -> Result<(), String> {
    if !directory.is_dir() {
        return Ok(());
    }
    found.push(directory.to_path_buf());
    if depth == 0 {
        return Ok(());
    }
    let entries = std::fs::read_dir(directory).map_err(|error| io_error(directory, error))?;
    let mut below: Vec<PathBuf> = entries
        .filter_map(|entry| entry.ok().map(|entry| entry.path()))
        .filter(|path| path.is_dir())
        .collect();
    below.sort();
    for folder in below {
        collect_folders(&folder, depth - 1, found)?;
    }
    Ok(())
}

/// Plays the batch's games named in `words` here, `threads` at once, into
/// its folder.
///
/// # Errors
/// An engine that cannot start (this binary, as `supernova engine`).
fn play(batch: &Batch, words: &[String], threads: usize) -> Result<(), String> {
    let value = |flag: &str| {
        words
            .iter()
            .position(|word| word == flag)
            .and_then(|at| words.get(at + 1))
            .cloned()
    };
    let number = |flag: &str| {
        value(flag)
            .and_then(|text| text.parse::<u64>().ok())
            .ok_or_else(|| format!("the gate's match has no {flag}"))
    };
    let mut engines = words.split(|word| word == "--engine").skip(1).map(|words| {
        let own: Vec<&String> = words
            .iter()
            .take_while(|word| !word.starts_with("--"))
            .collect();
        EngineConfig::parse(&own)
    });
    let (Some(first), Some(second)) = (engines.next(), engines.next()) else {
        return Err("the gate's match names fewer than two engines".to_string());
    };
    let settings = MatchSettings::default();
    let games = number("--games")? as usize;
    let numbers = value("--games-list")
        .map(|list| parse_numbers(&list, 1..=games, "--games-list"))
        .transpose()?;
    let program = std::env::current_exe()
        .map_err(|error| format!("cannot find this program to run as an engine: {error}"))?;
    let match_config = MatchConfig {
        engines: [first?, second?],
        limits: TurnLimits {
            nodes: Some(number("--nodes")?),
            ..TurnLimits::default()
        },
        openings: parse_openings(DEFAULT_OPENINGS, &settings.rules)?,
        games,
        concurrency: threads.max(1),
        rules: settings.rules,
        max_turns: number("--max-turns")? as u32,
        repetitions: settings.repetitions,
        margin: std::time::Duration::from_millis(1000),
        turn_timeout: std::time::Duration::from_secs(60),
        transcripts: None,
        logs: None,
        numbers,
        results: Some(batch.directory.clone()),
        build: None,
        sprt: None,
        resign: None,
        default_program: program.display().to_string(),
        default_arguments: vec!["engine".to_string()],
    };
    std::fs::create_dir_all(&batch.directory).map_err(|error| io_error(&batch.directory, error))?;
    run_match(&match_config, &mut std::io::sink()).map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A result of gate batch 1's game `number`, between `names`.
    fn result(number: usize, score_a: f64, names: [&str; 2]) -> GameSummary {
        GameSummary {
            number,
            opening: (number - 1) / 2,
            a_first: number % 2 == 1,
            score_a,
            ending: "result".to_string(),
            turns: 10,
            fingerprint: number as u64,
            names: names.map(str::to_string),
            build: None,
        }
    }

    #[test]
    fn an_external_gate_asks_for_its_missing_games_and_decides_from_the_results() {
        let directory =
            std::env::temp_dir().join(format!("supernova-gate-external-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&directory);
        let config = TrainConfig {
            directory: directory.clone(),
            gate_games: 4,
            gate_nodes: 8,
            external_gate: true,
            ..TrainConfig::default()
        };
        let batch_folder = directory.join("gen-001").join("gate-01");
        std::fs::create_dir_all(directory.join("gen-001")).unwrap();
        let wanted = |expected_list: Option<&str>| {
            let mut out = Vec::new();
            match gate(&config, 1, 1, &mut out) {
                Ok(GateOutcome::Wanted(arguments, results)) => {
                    assert_eq!(results, batch_folder);
                    let words = std::fs::read_to_string(arguments).unwrap();
                    let words: Vec<&str> = words.lines().collect();
                    assert!(words.windows(2).any(|pair| pair == ["--games", "4"]));
                    assert!(words.windows(2).any(|pair| pair == ["--nodes", "8"]));
                    assert!(words.contains(&"name=gen_1") && words.contains(&"name=best"));
                    let list = words
                        .iter()
                        .position(|word| *word == "--games-list")
                        .map(|at| words[at + 1]);
                    assert_eq!(list, expected_list);
                }
                Ok(GateOutcome::Decided(..)) => panic!("expected a batch to be wanted"),
                Err(error) => panic!("{error}"),
            }
        };
        wanted(None);
        std::fs::create_dir_all(batch_folder.join("driver-01")).unwrap();
        result(1, 1.0, ["gen_1", "best"])
            .write(&batch_folder)
            .unwrap();
        result(3, 0.5, ["gen_1", "best"])
            .write(&batch_folder.join("driver-01"))
            .unwrap();
        wanted(Some("2,4"));
        for (number, score) in [(2, 0.0), (4, 1.0)] {
            result(number, score, ["gen_1", "best"])
                .write(&batch_folder.join("driver-01"))
                .unwrap();
        }
        let mut out = Vec::new();
        match gate(&config, 1, 1, &mut out) {
            Ok(GateOutcome::Decided(tally, verdict)) => {
                assert_eq!((tally.wins, tally.losses, tally.draws), (2, 1, 1));
                assert_eq!(verdict, SprtVerdict::Continue);
            }
            _ => panic!("expected the spent budget to end the gate"),
        }
        result(4, 1.0, ["other", "best"])
            .write(&batch_folder)
            .unwrap();
        let error = match gate(&config, 1, 1, &mut out) {
            Err(error) => error,
            Ok(_) => panic!("another match's results were taken"),
        };
        assert!(error.contains("game 4"), "{error}");
        let _ = std::fs::remove_dir_all(&directory);
    }
}
