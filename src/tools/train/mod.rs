//! `supernova train`: the value network learned by self-play, generation
//! after generation, reproducible from one command.
//!
//! Each generation:
//! 1. **Self-play.** The best network so far (the hand evaluation before
//!    the first accepted generation) plays itself from the match openings,
//!    one game per rayon task on every core, at a small node count per turn
//!    that varies from turn to turn. In the first turns after the setup it
//!    sometimes plays a near-best candidate instead of the best, so that
//!    games differ. Every start-of-turn position is written down with the
//!    game's result and the search's value.
//! 2. **Fitting.** A candidate network is fitted to the positions of the
//!    last `window` generations (logistic loss on a target that mixes the
//!    game's result and the search's value), starting from the best network
//!    (or, at first, from a network equal to the hand evaluation).
//! 3. **Gating.** The candidate plays the best network at a fixed node
//!    count, both colours of every opening, batch after batch (each batch at
//!    a slightly larger node count, so that the deterministic searches play
//!    new games), until an SPRT decides or the game budget runs out. It
//!    becomes the best only if the SPRT accepts that it is stronger.
//!
//! # Files
//! Everything lives in one directory, and every step writes its result
//! there before the next starts, so a run that is cut off resumes where it
//! stopped when started again with the same arguments:
//! - `gen-NNN/games-CCCC.txt`: self-play data, 64 games a file (format below);
//! - `gen-NNN/candidate.net`: the fitted network (network.rs's text format);
//! - `gen-NNN/gate.txt`: the gate's verdict and figures, one line;
//! - `best.net`: the best network so far; `ladder.txt`: one line a generation.
//!
//! # Data format
//! One line per start-of-turn position, tab-separated:
//! `GAME  HWPN  RESULT  VALUE  THREAT`, where GAME numbers the game within
//! its generation, HWPN is the position (side to move included), RESULT is
//! the game's result for the side to move (`1`, `0` or `-1`), VALUE the
//! search's value for the side to move in [-1, 1], and THREAT `1` when the
//! opponent could win at once if the side to move passed (as the tree's
//! leaves judge it). Lines starting with `#` are comments. About 60 bytes a
//! position.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;
use std::sync::Arc;
use std::time::Instant;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use super::match_runner::{parse_openings, DEFAULT_OPENINGS};
use super::selfplay::{run_match, MatchPlayer, MatchSettings};
use super::stats::{Sprt, SprtVerdict, Tally};
use crate::notation::hwpn;
use crate::record::GameRecord;
use crate::rules::{Action, GameStatus, History, Outcome, Position, Rules};
use crate::search::network::flush_tiny;
use crate::search::{
    evaluate, leaf_threat, value_features, Decision, Proof, SearchLimits, SearchOptions, Searcher,
    Solver, Tunables, ValueNetwork, VALUE_INPUTS,
};

/// Games in one self-play data file.
const GAMES_PER_FILE: usize = 64;

/// How a training run is set up (the `supernova train` flags).
#[derive(Clone, Debug, PartialEq)]
pub struct TrainConfig {
    /// The run's directory.
    pub directory: PathBuf,
    /// Generations to reach (a resumed run goes on to this number).
    pub generations: u32,
    /// Self-play games per generation.
    pub games: usize,
    /// Average nodes per self-play turn (each turn draws from half to 1.5 times it).
    pub nodes: u64,
    /// Most games of a gate match.
    pub gate_games: usize,
    /// Nodes per turn in the gate's first batch.
    pub gate_nodes: u64,
    /// Hidden units of a new network.
    pub hidden: usize,
    /// Passes over the data when fitting.
    pub epochs: usize,
    /// Generations of data a candidate is fitted to.
    pub window: u32,
    /// Weight of the game's result in the value target (the rest is the search's value).
    pub result_weight: f32,
    /// The game's result counts `discount^n` for a position `n` turns
    /// before the game's last turn: a win sooner is worth more than a win
    /// later, so that the value leads a winning side to finish (1 = no
    /// discount).
    pub discount: f32,
    /// Adam's learning rate.
    pub learning_rate: f32,
    /// Seed of everything random in the run.
    pub seed: u64,
    /// Threads (0 = every core).
    pub threads: usize,
    /// Turns after the opening before a self-play or gate game is drawn.
    pub max_turns: u32,
    /// Recorded games whose positions join every fit (value target: the
    /// game's result, and the search's value where an engine's turn comment
    /// gives it), except the held-out ones (see [`is_held_out`]).
    pub records: Vec<GameRecord>,
    /// The rules the records are replayed under (SDG records need `sdg`).
    pub record_rules: Rules,
}

/// Whether a real game is kept out of training, so that
/// [`value_accuracy`] on these games measures what was not learned from:
/// every fifth game by its site number.
pub fn is_held_out(record: &GameRecord) -> bool {
    record.header.game_number % 5 == 0
}

impl Default for TrainConfig {
    fn default() -> TrainConfig {
        TrainConfig {
            directory: PathBuf::from("train"),
            generations: 1,
            games: 2048,
            nodes: 300,
            gate_games: 768,
            gate_nodes: 600,
            hidden: 32,
            epochs: 6,
            window: 3,
            result_weight: 0.5,
            discount: 1.0,
            learning_rate: 0.002,
            seed: 1,
            threads: 0,
            max_turns: 150,
            records: Vec::new(),
            record_rules: Rules::SDG,
        }
    }
}

/// One training position, parsed.
#[derive(Clone, Debug)]
struct Sample {
    game: u32,
    position: Position,
    result: f32,
    value: f32,
    threat: bool,
}

/// Runs (or resumes) a training run, reporting progress to `out`.
///
/// # Errors
/// A file that cannot be read or written, or unreadable data or network
/// files in the directory (named in the message).
pub fn train(config: &TrainConfig, out: &mut dyn Write) -> Result<(), String> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(config.threads)
        .build()
        .map_err(|error| format!("cannot start the thread pool: {error}"))?;
    fs::create_dir_all(&config.directory).map_err(|error| {
        format!(
            "cannot create {}: {error}",
            config.directory.to_string_lossy()
        )
    })?;
    let say = |out: &mut dyn Write, line: String| -> Result<(), String> {
        writeln!(out, "{line}").map_err(|error| format!("cannot write the report: {error}"))
    };
    say(
        out,
        format!(
            "train: {} in {}, {} threads",
            describe(config),
            config.directory.to_string_lossy(),
            pool.current_num_threads()
        ),
    )?;
    for generation in 1..=config.generations {
        let directory = generation_directory(config, generation);
        let gate_file = directory.join("gate.txt");
        if gate_file.exists() {
            say(out, format!("gen {generation}: done earlier"))?;
            continue;
        }
        fs::create_dir_all(&directory).map_err(|error| io_error(&directory, error))?;
        let started = Instant::now();
        let best = best_network(config)?;
        let best_name = best
            .as_ref()
            .map_or_else(|| "hand".to_string(), |network| network.name.clone());
        self_play(&pool, config, generation, best.clone(), out)?;
        let candidate_file = directory.join("candidate.net");
        let candidate = if candidate_file.exists() {
            read_network(&candidate_file)?
        } else {
            let mut samples = load_samples(config, generation)?;
            discount_results(&mut samples, config.discount);
            // Real games count twice: they are few, and made by people.
            let mut real = record_samples(config);
            discount_results(&mut real, config.discount);
            samples.extend(real.iter().cloned());
            samples.extend(real);
            let name = format!("gen-{generation}");
            let start = match &best {
                Some(network) if network.hidden() == config.hidden => {
                    let mut network = (**network).clone();
                    network.name = name;
                    network
                }
                _ => ValueNetwork::from_hand(&start_tunables(), config.hidden, config.seed, &name),
            };
            let (network, report) = pool.install(|| fit(config, start, &samples, generation));
            say(out, format!("gen {generation}: fitted {report}"))?;
            write_atomically(&candidate_file, &network.write())?;
            network
        };
        let candidate = Arc::new(candidate);
        let (tally, verdict) = pool.install(|| gate(config, generation, &candidate, best.clone()));
        let accepted = verdict == SprtVerdict::H1;
        let (elo, low, high) = tally.elo_interval();
        let line = format!(
            "gen {generation} vs {best_name}: {} {}-{}-{} elo {elo:.1} [{low:.1}, {high:.1}] in {:.0} s",
            if accepted { "accepted" } else { "rejected" },
            tally.wins,
            tally.losses,
            tally.draws,
            started.elapsed().as_secs_f64()
        );
        if accepted {
            write_atomically(&config.directory.join("best.net"), &candidate.write())?;
        }
        let mut ladder =
            fs::read_to_string(config.directory.join("ladder.txt")).unwrap_or_default();
        ladder += &line;
        ladder.push('\n');
        write_atomically(&config.directory.join("ladder.txt"), &ladder)?;
        write_atomically(&gate_file, &format!("{line}\n"))?;
        say(out, line)?;
    }
    Ok(())
}

/// The `learned_scale` at which a new network starts as the hand
/// evaluation ([`ValueNetwork::from_hand`]): every network trained so far
/// started from the hand evaluation at this scale, so that in the fitted
/// logistic domain (`learned_scale` 1) the start is half as sharp as the
/// hand evaluation. Fixed here, not taken from the default tunables, so
/// that a training command makes the same network whatever the play-time
/// default is.
const START_SCALE: f32 = 2.0;

/// The tunables a new network is made from: the defaults, with
/// [`START_SCALE`].
fn start_tunables() -> Tunables {
    let mut tunables = Tunables::default();
    tunables
        .set("learned_scale", START_SCALE)
        .expect("the start scale is within learned_scale's range");
    tunables
}

/// The flags in words, for the report's first line.
fn describe(config: &TrainConfig) -> String {
    format!(
        "{} generations of {} games at {} nodes, gate {} games at {} nodes, seed {}",
        config.generations,
        config.games,
        config.nodes,
        config.gate_games,
        config.gate_nodes,
        config.seed
    )
}

fn generation_directory(config: &TrainConfig, generation: u32) -> PathBuf {
    config.directory.join(format!("gen-{generation:03}"))
}

fn io_error(path: &Path, error: io::Error) -> String {
    format!("{}: {error}", path.to_string_lossy())
}

/// Writes a file through a temporary name, so that a run cut off never
/// leaves half a file that a resumed run would trust.
fn write_atomically(path: &Path, text: &str) -> Result<(), String> {
    let temporary = path.with_extension("partial");
    fs::write(&temporary, text).map_err(|error| io_error(&temporary, error))?;
    fs::rename(&temporary, path).map_err(|error| io_error(path, error))
}

fn read_network(path: &Path) -> Result<ValueNetwork, String> {
    let text = fs::read_to_string(path).map_err(|error| io_error(path, error))?;
    ValueNetwork::parse(&text).map_err(|error| format!("{}: {error}", path.to_string_lossy()))
}

/// The best network so far, or `None` while the hand evaluation is best.
fn best_network(config: &TrainConfig) -> Result<Option<Arc<ValueNetwork>>, String> {
    let path = config.directory.join("best.net");
    if !path.exists() {
        return Ok(None);
    }
    read_network(&path).map(|network| Some(Arc::new(network)))
}

/// The search options of a training player: one thread, a small tree, and
/// the network (or the hand evaluation).
fn player_options(network: Option<Arc<ValueNetwork>>) -> SearchOptions {
    let mut options = SearchOptions {
        hash_mb: 16,
        multi_pv: 4,
        ..SearchOptions::default()
    };
    options.tunables.set_network(network);
    options
}

/// The two setup turns of every built-in opening.
fn openings() -> Vec<[Action; 2]> {
    parse_openings(DEFAULT_OPENINGS, &Rules::STANDARD)
        .map(|openings| openings.into_iter().map(|opening| opening.setup).collect())
        .unwrap_or_default()
}

/// Plays the generation's missing self-play files.
fn self_play(
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
    for file in 0..files {
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
        writeln!(
            out,
            "gen {generation}: self-play {} of {} games ({:.1} s)",
            last,
            config.games,
            started.elapsed().as_secs_f64()
        )
        .map_err(|error| format!("cannot write the report: {error}"))?;
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
        let mut turn = result.best_turn.clone();
        // Early on, sometimes a near-best candidate instead, for variety.
        if result.decision == Decision::Search
            && history.turns_after_setup() < 12
            && rng.random_bool(0.25)
        {
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
        if history.play(&rules, &turn).is_err() && history.play(&rules, &result.best_turn).is_err()
        {
            // A turn that does not play would be a bug; the game is void.
            return String::new();
        }
    };
    let mut text = String::new();
    for (position, value, threat) in positions {
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

/// Reads the data of the generations a candidate of `generation` is fitted to.
fn load_samples(config: &TrainConfig, generation: u32) -> Result<Vec<Sample>, String> {
    let first = generation.saturating_sub(config.window.max(1) - 1).max(1);
    let mut samples = Vec::new();
    for source in first..=generation {
        let directory = generation_directory(config, source);
        let Ok(entries) = fs::read_dir(&directory) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                path.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with("games-") && name.ends_with(".txt"))
            })
            .collect();
        paths.sort();
        for path in paths {
            let text = fs::read_to_string(&path).map_err(|error| io_error(&path, error))?;
            parse_samples(&text, source, &mut samples)
                .map_err(|error| format!("{}: {error}", path.to_string_lossy()))?;
        }
    }
    Ok(samples)
}

/// The positions of the real games that are not held out, in the order
/// played, with the game's result as the target.
fn record_samples(config: &TrainConfig) -> Vec<Sample> {
    let mut samples = Vec::new();
    let mut solver = Solver::default();
    for record in &config.records {
        if is_held_out(record) || record.unsupported().is_some() {
            continue;
        }
        let walk = record.walk(&config.record_rules);
        let Outcome::Win(winner) = walk.outcome else {
            continue;
        };
        if walk.illegal.is_some() {
            continue;
        }
        let rules = record
            .rules(&config.record_rules)
            .unwrap_or(config.record_rules);
        for turn in &walk.turns {
            let position = turn.board.position;
            if position.in_setup() {
                continue;
            }
            let result = if position.side_to_move() == winner {
                1.0
            } else {
                -1.0
            };
            // An engine's record (`supernova match` writes one) gives the
            // mover's search value of each turn, and the previous mover's
            // value of its turn is, negated, one for this position (an
            // engine that reports no score leaves only that); a person's
            // record gives none.
            let value_of = |number: u32| {
                record
                    .turns
                    .iter()
                    .find(|recorded| recorded.number == number)
                    .and_then(|recorded| comment_value(&recorded.comments))
            };
            let searched = value_of(turn.number)
                .or_else(|| value_of(turn.number.wrapping_sub(1)).map(|value| -value));
            samples.push(Sample {
                game: record.header.game_number as u32,
                position,
                result,
                value: searched.unwrap_or(result),
                threat: leaf_threat(&mut solver, &position, &rules),
            });
        }
    }
    samples
}

/// The mover's search value, in [-1, 1], that a turn's comment gives in
/// the form `supernova match` writes (`{+0.29/9 0.512s}`: the protocol's
/// `cp` over 100, so +0.29 is a value of 0.029; `{+M2/0 0.004s}` for a
/// proven result), or `None` when no comment has one.
fn comment_value(comments: &[String]) -> Option<f32> {
    comments.iter().find_map(|line| {
        let inside = line.trim().strip_prefix('{')?.strip_suffix('}')?;
        let (score, _) = inside.split_once('/')?;
        if let Some(turns) = score.strip_prefix("+M") {
            turns.parse::<u32>().ok().map(|_| 1.0)
        } else if let Some(turns) = score.strip_prefix("-M") {
            turns.parse::<u32>().ok().map(|_| -1.0)
        } else {
            let hundredths: f32 = score.parse().ok()?;
            Some((hundredths / 10.0).clamp(-1.0, 1.0))
        }
    })
}

/// Scales each sample's result by `discount` to the power of the turns left
/// in its game. A game's samples are consecutive and in the order played
/// (as the data files and the record walk give them).
fn discount_results(samples: &mut [Sample], discount: f32) {
    let mut factor = 1.0;
    let mut game = None;
    for sample in samples.iter_mut().rev() {
        if game != Some(sample.game) {
            game = Some(sample.game);
            factor = 1.0;
        }
        sample.result *= factor;
        factor *= discount;
    }
}

/// Parses data lines (see the module documentation).
fn parse_samples(text: &str, generation: u32, samples: &mut Vec<Sample>) -> Result<(), String> {
    for (index, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let bad = || format!("line {}: expected GAME HWPN RESULT VALUE THREAT", index + 1);
        let fields: Vec<&str> = line.split('\t').collect();
        let [game, position, result, value, threat] = fields[..] else {
            return Err(bad());
        };
        let board =
            hwpn::parse(position).map_err(|error| format!("line {}: {error}", index + 1))?;
        let game: u32 = game.parse().map_err(|_| bad())?;
        samples.push(Sample {
            // Games of different generations never share a validation fold.
            game: game.wrapping_add(generation.wrapping_mul(1_000_003)),
            position: board.position,
            result: result.parse().map_err(|_| bad())?,
            value: value.parse().map_err(|_| bad())?,
            threat: threat == "1",
        });
    }
    Ok(())
}

/// Gradients (or Adam moments) of every parameter, in one flat vector:
/// output bias, linear, hidden bias, output, weights.
fn parameter_count(hidden: usize) -> usize {
    1 + VALUE_INPUTS + hidden + hidden + VALUE_INPUTS * hidden
}

/// Adds one sample's gradient of the logistic loss to `gradient`; returns
/// the loss and the predicted value.
fn accumulate(
    network: &ValueNetwork,
    inputs: &[f32; VALUE_INPUTS],
    target: f32,
    gradient: &mut [f32],
) -> (f32, f32) {
    let hidden = network.hidden;
    let mut sums = network.hidden_bias.clone();
    for (index, &input) in inputs.iter().enumerate() {
        if input != 0.0 {
            let row = &network.weights[index * hidden..(index + 1) * hidden];
            for (sum, weight) in sums.iter_mut().zip(row) {
                *sum += input * weight;
            }
        }
    }
    // The forward pass from the sums already made (`ValueNetwork::logit`
    // would make them again).
    let mut logit = network.output_bias;
    for (index, &input) in inputs.iter().enumerate() {
        logit += input * network.linear[index];
    }
    for (sum, weight) in sums.iter().zip(&network.output) {
        logit += sum.max(0.0) * weight;
    }
    let probability = 1.0 / (1.0 + (-logit).exp());
    let error = probability - target;
    let loss = -(target * probability.max(1e-7).ln()
        + (1.0 - target) * (1.0 - probability).max(1e-7).ln());
    let (bias, rest) = gradient.split_at_mut(1);
    let (linear, rest) = rest.split_at_mut(VALUE_INPUTS);
    let (hidden_bias, rest) = rest.split_at_mut(hidden);
    let (output, weights) = rest.split_at_mut(hidden);
    bias[0] += error;
    for (unit, sum) in sums.iter().enumerate() {
        output[unit] += error * sum.max(0.0);
    }
    let back: Vec<f32> = (0..hidden)
        .map(|unit| {
            if sums[unit] > 0.0 {
                error * network.output[unit]
            } else {
                0.0
            }
        })
        .collect();
    for (unit, &delta) in back.iter().enumerate() {
        hidden_bias[unit] += delta;
    }
    for (index, &input) in inputs.iter().enumerate() {
        if input != 0.0 {
            linear[index] += error * input;
            let row = &mut weights[index * hidden..(index + 1) * hidden];
            for (weight, &delta) in row.iter_mut().zip(&back) {
                *weight += delta * input;
            }
        }
    }
    (loss, 2.0 * probability - 1.0)
}

/// Applies one Adam step with `gradient` (already averaged).
fn adam_step(
    network: &mut ValueNetwork,
    gradient: &[f32],
    moments: &mut [f32],
    squares: &mut [f32],
    step: i32,
    learning_rate: f32,
) {
    const BETA1: f32 = 0.9;
    const BETA2: f32 = 0.999;
    const DECAY: f32 = 1e-5;
    let correction1 = 1.0 - BETA1.powi(step);
    let correction2 = 1.0 - BETA2.powi(step);
    let hidden = network.hidden;
    let mut parameters: Vec<&mut f32> = Vec::with_capacity(parameter_count(hidden));
    parameters.push(&mut network.output_bias);
    parameters.extend(network.linear.iter_mut());
    parameters.extend(network.hidden_bias.iter_mut());
    parameters.extend(network.output.iter_mut());
    parameters.extend(network.weights.iter_mut());
    let weights_start = 1 + VALUE_INPUTS + 2 * hidden;
    for (index, parameter) in parameters.into_iter().enumerate() {
        let mut grad = gradient[index];
        if index >= weights_start {
            grad += DECAY * *parameter;
        }
        moments[index] = BETA1 * moments[index] + (1.0 - BETA1) * grad;
        squares[index] = BETA2 * squares[index] + (1.0 - BETA2) * grad * grad;
        let moment = moments[index] / correction1;
        let square = squares[index] / correction2;
        // Decayed weights of dead units would sink to subnormal floats,
        // slow to compute with (see `flush_tiny`): they become 0.
        *parameter = flush_tiny(*parameter - learning_rate * moment / (square.sqrt() + 1e-8));
    }
}

/// What fitting achieved, for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FitReport {
    /// Training positions.
    pub samples: usize,
    /// Validation loss before and after.
    pub loss_before: f32,
    /// Validation loss after fitting.
    pub loss_after: f32,
    /// How often the validation value's sign matched a decided game's
    /// result, before fitting.
    pub accuracy_before: f32,
    /// The same after fitting.
    pub accuracy_after: f32,
}

impl std::fmt::Display for FitReport {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "{} positions, validation loss {:.4} -> {:.4}, accuracy {:.1}% -> {:.1}%",
            self.samples,
            self.loss_before,
            self.loss_after,
            100.0 * self.accuracy_before,
            100.0 * self.accuracy_after
        )
    }
}

/// Fits `network` to the samples; one game in twenty is held out to report
/// the validation loss and accuracy.
fn fit(
    config: &TrainConfig,
    mut network: ValueNetwork,
    samples: &[Sample],
    generation: u32,
) -> (ValueNetwork, FitReport) {
    let tunables = Tunables::default();
    let prepared: Vec<([f32; VALUE_INPUTS], f32, f32, bool)> = samples
        .par_iter()
        .map(|sample| {
            let mut inputs = [0.0; VALUE_INPUTS];
            value_features(&sample.position, &tunables, sample.threat, &mut inputs);
            let mixed =
                config.result_weight * sample.result + (1.0 - config.result_weight) * sample.value;
            let validation = sample.game % 20 == 7;
            (
                inputs,
                (mixed + 1.0) / 2.0,
                sample.result.signum(),
                validation,
            )
        })
        .collect();
    let (validation, training): (Vec<_>, Vec<_>) =
        prepared.into_iter().partition(|sample| sample.3);
    let measure = |network: &ValueNetwork| -> (f32, f32) {
        let mut scratch = vec![0.0; parameter_count(network.hidden)];
        let mut loss = 0.0;
        let (mut right, mut decided) = (0, 0);
        for (inputs, target, result, _) in &validation {
            let (sample_loss, value) = accumulate(network, inputs, *target, &mut scratch);
            loss += sample_loss;
            if *result != 0.0 {
                decided += 1;
                if value * result > 0.0 {
                    right += 1;
                }
            }
        }
        (
            loss / validation.len().max(1) as f32,
            right as f32 / decided.max(1) as f32,
        )
    };
    let (loss_before, accuracy_before) = measure(&network);
    let count = parameter_count(network.hidden);
    let mut moments = vec![0.0; count];
    let mut squares = vec![0.0; count];
    let mut order: Vec<usize> = (0..training.len()).collect();
    let mut rng = SmallRng::seed_from_u64(config.seed ^ generation as u64);
    let batch = 512;
    let mut step = 0;
    for epoch in 0..config.epochs {
        shuffle(&mut order, &mut rng);
        // The learning rate falls linearly to a tenth over the run.
        let progress = epoch as f32 / config.epochs.max(1) as f32;
        let learning_rate = config.learning_rate * (1.0 - 0.9 * progress);
        for chunk in order.chunks(batch) {
            let gradient = chunk
                .par_chunks(64)
                .map(|part| {
                    let mut gradient = vec![0.0; count];
                    for &index in part {
                        let (inputs, target, _, _) = &training[index];
                        accumulate(&network, inputs, *target, &mut gradient);
                    }
                    gradient
                })
                .reduce(
                    || vec![0.0; count],
                    |mut total, part| {
                        for (sum, value) in total.iter_mut().zip(part) {
                            *sum += value;
                        }
                        total
                    },
                );
            let scale = 1.0 / chunk.len() as f32;
            let gradient: Vec<f32> = gradient.iter().map(|value| value * scale).collect();
            step += 1;
            adam_step(
                &mut network,
                &gradient,
                &mut moments,
                &mut squares,
                step,
                learning_rate,
            );
        }
    }
    let (loss_after, accuracy_after) = measure(&network);
    let report = FitReport {
        samples: training.len() + validation.len(),
        loss_before,
        loss_after,
        accuracy_before,
        accuracy_after,
    };
    (network, report)
}

/// A seeded Fisher-Yates shuffle.
fn shuffle(order: &mut [usize], rng: &mut SmallRng) {
    for index in (1..order.len()).rev() {
        let other = rng.random_range(0..=index);
        order.swap(index, other);
    }
}

/// The candidate against the best: batches of every opening twice, until
/// the SPRT (elo0 0, elo1 20, alpha and beta 0.05) decides or the budget
/// of games is spent.
fn gate(
    config: &TrainConfig,
    generation: u32,
    candidate: &Arc<ValueNetwork>,
    best: Option<Arc<ValueNetwork>>,
) -> (Tally, SprtVerdict) {
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 20.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let openings: Vec<Vec<Vec<Action>>> = openings()
        .into_iter()
        .map(|setup| setup.iter().map(|&action| vec![action]).collect())
        .collect();
    let settings = MatchSettings {
        max_turns: config.max_turns,
        parallel_games: rayon::current_num_threads(),
        ..MatchSettings::default()
    };
    let mut tally = Tally::default();
    let mut batch = 0u64;
    while (tally.games() as usize) < config.gate_games {
        let nodes = config.gate_nodes + batch * config.gate_nodes / 8;
        let player = |network: Option<Arc<ValueNetwork>>, name: &str| MatchPlayer {
            name: name.to_string(),
            options: SearchOptions {
                multi_pv: 1,
                ..player_options(network)
            },
            limits: SearchLimits::nodes(nodes),
        };
        let room = (config.gate_games - tally.games() as usize).div_ceil(2);
        let used = &openings[..room.min(openings.len())];
        let summary = run_match(
            &player(Some(candidate.clone()), &format!("gen-{generation}")),
            &player(best.clone(), "best"),
            used,
            &settings,
            |_| {},
        );
        for game in &summary.games {
            tally.add(game.score_a);
        }
        let verdict = sprt.verdict(&tally);
        if verdict != SprtVerdict::Continue {
            return (tally, verdict);
        }
        batch += 1;
    }
    (tally, SprtVerdict::Continue)
}

/// How well an evaluation predicts real games: of the start-of-turn
/// positions (after the setup) of games decided on the board, the share
/// where the side the value favours went on to win, and the mean logistic
/// loss of the win probability against the result.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Accuracy {
    /// Positions judged.
    pub positions: usize,
    /// Positions where the favoured side won (a value of exactly 0 counts half).
    pub right: f64,
    /// Sum of the logistic losses.
    pub loss: f64,
}

impl Accuracy {
    /// The share of positions predicted right.
    pub fn rate(&self) -> f64 {
        self.right / self.positions.max(1) as f64
    }

    /// The mean logistic loss.
    pub fn mean_loss(&self) -> f64 {
        self.loss / self.positions.max(1) as f64
    }

    fn add(&mut self, value: f32, won: bool) {
        self.positions += 1;
        let signed = if won { value } else { -value };
        self.right += if signed > 0.0 {
            1.0
        } else if signed == 0.0 {
            0.5
        } else {
            0.0
        };
        let probability = f64::from((signed + 1.0) / 2.0).clamp(1e-6, 1.0 - 1e-6);
        self.loss -= probability.ln();
    }
}

/// Scores each evaluation (a `Tunables` with or without a network) on the
/// positions of `records` that were decided on the board under `rules`.
/// Returns the accuracy of each, in order, and the games used.
pub fn value_accuracy(
    records: &[&GameRecord],
    rules: &Rules,
    evaluations: &[Tunables],
) -> (Vec<Accuracy>, usize) {
    let mut totals = vec![Accuracy::default(); evaluations.len()];
    let mut games = 0;
    let mut solver = Solver::default();
    for record in records {
        if record.unsupported().is_some() {
            continue;
        }
        let walk = record.walk(rules);
        let Outcome::Win(winner) = walk.outcome else {
            continue;
        };
        if walk.illegal.is_some() {
            continue;
        }
        games += 1;
        let rules = record.rules(rules).unwrap_or(*rules);
        for turn in &walk.turns {
            let position = &turn.board.position;
            if position.in_setup() {
                continue;
            }
            let threat = leaf_threat(&mut solver, position, &rules);
            let won = position.side_to_move() == winner;
            for (total, tunables) in totals.iter_mut().zip(evaluations) {
                total.add(evaluate(position, tunables, threat), won);
            }
        }
    }
    (totals, games)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_lines_parse_and_bad_lines_are_named() {
        let mut samples = Vec::new();
        let text = "# comment\n3\tr1b3:g3:/y2b1::g3 0\t1\t0.250\t0\n";
        parse_samples(text, 1, &mut samples).unwrap();
        assert_eq!(samples.len(), 1);
        assert_eq!(samples[0].result, 1.0);
        assert_eq!(samples[0].value, 0.25);
        assert!(!samples[0].threat);
        let error = parse_samples("1\tr1b3:g3:/y2b1::g3 0\t1\n", 1, &mut samples).unwrap_err();
        assert!(error.contains("line 1"), "{error}");
        let error = parse_samples("1\tnonsense\t1\t0\t0\n", 1, &mut samples).unwrap_err();
        assert!(error.contains("line 1"), "{error}");
    }

    #[test]
    fn engine_records_give_the_search_value_of_each_turn() {
        let lines = |text: &[&str]| text.iter().map(|line| line.to_string()).collect::<Vec<_>>();
        assert_eq!(comment_value(&lines(&["\t{+0.29/9 0.512s}"])), Some(0.029));
        assert_eq!(comment_value(&lines(&["\t{-3.50/12 0.100s}"])), Some(-0.35));
        assert_eq!(comment_value(&lines(&["\t{+M2/0 0.004s}"])), Some(1.0));
        assert_eq!(comment_value(&lines(&["\t{-M1/0 0.004s}"])), Some(-1.0));
        assert_eq!(comment_value(&lines(&["\t{+10.00/0 0.000s}"])), Some(1.0));
        // No score (an engine that sent no `info`), a person's comment, none.
        assert_eq!(comment_value(&lines(&["\t{0.039s}"])), None);
        assert_eq!(comment_value(&lines(&["\tgood move/bad"])), None);
        assert_eq!(comment_value(&[]), None);
    }

    #[test]
    fn results_are_discounted_by_the_turns_left_in_each_game() {
        let position = hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap().position;
        let sample = |game, result| Sample {
            game,
            position,
            result,
            value: 0.0,
            threat: false,
        };
        let mut samples = vec![
            sample(1, 1.0),
            sample(1, -1.0),
            sample(1, 1.0),
            sample(2, -1.0),
        ];
        discount_results(&mut samples, 0.5);
        let results: Vec<f32> = samples.iter().map(|sample| sample.result).collect();
        assert_eq!(results, [0.25, -0.5, 1.0, -1.0]);
    }

    #[test]
    fn the_gradient_matches_finite_differences() {
        let tunables = Tunables::default();
        let mut network = ValueNetwork::from_hand(&tunables, 4, 3, "test");
        network.output = vec![0.3, -0.2, 0.5, 0.1];
        let board = hwpn::parse("r1b2:g3y1:/y1b3::g3/g2:r1:b1 1").unwrap();
        let mut inputs = [0.0; VALUE_INPUTS];
        value_features(&board.position, &tunables, false, &mut inputs);
        let target = 0.8;
        let mut gradient = vec![0.0; parameter_count(4)];
        let (_, predicted) = accumulate(&network, &inputs, target, &mut gradient);
        // The training forward pass is the engine's.
        let expected = 2.0 / (1.0 + (-network.logit(&inputs)).exp()) - 1.0;
        assert!(
            (predicted - expected).abs() < 1e-5,
            "{predicted} {expected}"
        );
        let loss = |network: &ValueNetwork| {
            let mut scratch = vec![0.0; parameter_count(4)];
            accumulate(network, &inputs, target, &mut scratch).0
        };
        let epsilon = 1e-3;
        // The output bias, a linear weight, a hidden bias and a weight.
        let hidden_weight = inputs.iter().position(|&input| input != 0.0).unwrap() * 4 + 2;
        type Accessor = fn(&mut ValueNetwork, usize) -> &mut f32;
        let checks: [(usize, Accessor, usize); 3] = [
            (0, |network, _| &mut network.output_bias, 0),
            (
                1 + VALUE_INPUTS + 8 + hidden_weight,
                |network, index| &mut network.weights[index],
                hidden_weight,
            ),
            (
                1 + VALUE_INPUTS + 4 + 2,
                |network, index| &mut network.output[index],
                2,
            ),
        ];
        for (flat, parameter, index) in checks {
            let mut plus = network.clone();
            *parameter(&mut plus, index) += epsilon;
            let mut minus = network.clone();
            *parameter(&mut minus, index) -= epsilon;
            let numeric = (loss(&plus) - loss(&minus)) / (2.0 * epsilon);
            assert!(
                (numeric - gradient[flat]).abs() < 2e-2 * numeric.abs().max(0.05),
                "parameter {flat}: numeric {numeric}, analytic {}",
                gradient[flat]
            );
        }
    }
}
