//! Self-play: the best network plays itself from the built-in openings, and
//! every start-of-turn position is written down as a data line (the format
//! is in `samples.rs`).
//!
//! A game is one rayon task and searches on one thread with a small tree,
//! so that the games of a file fill every core. Each game has a seed of its
//! own, made from the run's seed, the generation and the game's number, so
//! a game does not depend on which thread plays it or on the games before
//! it; what the seed varies (each turn's node count, and early on a
//! near-best turn instead of the best) is in the parent module's
//! documentation.

use std::fmt::Write as _;
use std::io::Write;
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use super::{generation_directory, openings, player_options, say, write_atomically, TrainConfig};
use crate::notation::hwpn;
use crate::rules::{Action, GameStatus, History, Outcome, Position, Rules};
use crate::search::{
    leaf_threat, Decision, Proof, SearchLimits, SearchOptions, SearchResult, Searcher, Solver,
    ValueNetwork,
};
use crate::tools::selfplay::MatchSettings;

/// Games in one self-play data file.
const GAMES_PER_FILE: usize = 64;

/// Plays the generation's missing self-play files (those of
/// `config.self_play_files` only, when it names some).
pub(super) fn self_play(
    pool: &rayon::ThreadPool,
    config: &TrainConfig,
    generation: u32,
    network: Option<Arc<ValueNetwork>>,
    out: &mut dyn Write,
) -> Result<(), String> {
    let directory = generation_directory(config, generation);
    let openings = openings();
    if openings.is_empty() {
        return Err("no openings to start self-play from".to_string());
    }
    let files = config.games.div_ceil(GAMES_PER_FILE);
    let chosen: Vec<usize> = match &config.self_play_files {
        Some(chosen) => {
            if let Some(beyond) = chosen.iter().find(|&&file| file >= files) {
                return Err(format!(
                    "--self-play-files: file {beyond} is beyond the generation's {files} files of {GAMES_PER_FILE} games (numbered from 0)"
                ));
            }
            chosen.clone()
        }
        None => (0..files).collect(),
    };
    for file in chosen {
        let path = directory.join(format!("games-{file:04}.txt"));
        if path.exists() {
            continue;
        }
        let started = Instant::now();
        let first = file * GAMES_PER_FILE;
        let last = (first + GAMES_PER_FILE).min(config.games);
        let games: Vec<String> = pool.install(|| {
            (first..last)
                .into_par_iter()
                .map(|game| {
                    let seed = config.seed ^ ((generation as u64) << 32) ^ (game as u64 * 0x9E37);
                    let opening = &openings[game % openings.len()];
                    play_training_game(config, network.clone(), opening, game as u32, seed)
                })
                .collect()
        });
        let mut text = format!(
            "# supernova self-play, generation {generation}, games {first} to {}: GAME HWPN RESULT VALUE THREAT\n",
            last - 1
        );
        for game in games {
            text += &game;
        }
        write_atomically(&path, &text)?;
        say(
            out,
            format!(
                "gen {generation}: self-play {} of {} games ({:.1} s)",
                last,
                config.games,
                started.elapsed().as_secs_f64()
            ),
        )?;
    }
    Ok(())
}

/// One self-play game, as data lines.
fn play_training_game(
    config: &TrainConfig,
    network: Option<Arc<ValueNetwork>>,
    opening: &[Action; 2],
    game: u32,
    seed: u64,
) -> String {
    let rules = Rules {
        max_turns: Some(config.max_turns),
        ..MatchSettings::default().referee_rules()
    };
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut history = match History::new(Position::start()) {
        Ok(history) => history,
        Err(_) => unreachable!("the start position is at the start of a turn"),
    };
    for &setup in opening {
        if history.play(&rules, &[setup]).is_err() {
            return String::new();
        }
    }
    let mut searcher = Searcher::new(SearchOptions {
        rules,
        ..player_options(network)
    });
    let mut solver = Solver::default();
    let stop = AtomicBool::new(false);
    let mut positions: Vec<(Position, f32, bool)> = Vec::new();
    let result = loop {
        if let GameStatus::Over(result) = history.status(&rules) {
            break result.outcome;
        }
        let position = *history.position();
        let nodes = rng
            .random_range(config.nodes / 2..=config.nodes * 3 / 2)
            .max(1);
        let result = searcher.search(
            &position,
            history.earlier_hashes(),
            &SearchLimits::nodes(nodes),
            &stop,
            |_| {},
        );
        positions.push((
            position,
            result.value,
            leaf_threat(&mut solver, &position, &rules),
        ));
        let turn = varied_turn(&result, history.turns_after_setup(), &mut rng);
        if history.play(&rules, &turn).is_err() && history.play(&rules, &result.best_turn).is_err()
        {
            // A turn that does not play would be a bug; the game is void.
            return String::new();
        }
    };
    data_lines(game, &positions, result)
}

/// The turn to play: the search's best, but early on sometimes a near-best
/// candidate instead, for variety (within 0.1 of the best value and not
/// proven lost).
fn varied_turn(result: &SearchResult, turns_after_setup: u32, rng: &mut SmallRng) -> Vec<Action> {
    let mut turn = result.best_turn.clone();
    if result.decision == Decision::Search && turns_after_setup < 12 && rng.random_bool(0.25) {
        let near: Vec<&Vec<Action>> = result
            .info
            .candidates
            .iter()
            .filter(|candidate| {
                candidate.value >= result.value - 0.1 && candidate.proof != Some(Proof::Loss)
            })
            .map(|candidate| &candidate.turn)
            .collect();
        if !near.is_empty() {
            turn = near[rng.random_range(0..near.len())].clone();
        }
    }
    turn
}

/// A game's positions as data lines, each with the game's result for its
/// side to move.
fn data_lines(game: u32, positions: &[(Position, f32, bool)], result: Outcome) -> String {
    let mut text = String::new();
    for &(position, value, threat) in positions {
        let mover = position.side_to_move();
        let result = match result {
            Outcome::Win(winner) if winner == mover => 1,
            Outcome::Win(_) => -1,
            _ => 0,
        };
        let _ = writeln!(
            text,
            "{game}\t{}\t{result}\t{value:.3}\t{}",
            hwpn::write(&position, None),
            u8::from(threat)
        );
    }
    text
}
