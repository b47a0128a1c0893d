//! `supernova train`: the value network learned by self-play, generation
//! after generation, reproducible from one command.
//!
//! The leaf evaluation is either the small network of
//! [`network`](crate::search::network) or the hand-weighted sum of features
//! that it starts from; this module makes networks. One command trains one,
//! from scratch or resuming a run that was cut off:
//!
//! ```sh
//! supernova train --dir train --generations 3 --games 2048 --nodes 300 --gate-games 768 --gate-nodes 600 --seed 1
//! ```
//!
//! The same command runs unchanged on a machine with more cores
//! (`--threads 0`, the default, uses them all). Every random choice is
//! drawn from generators seeded by `--seed`, so a run is reproducible when
//! the thread count is the same (the fit adds its partial gradients in an
//! order that depends on how rayon splits the work).
//!
//! # A generation
//! 1. **Self-play** (`self_play.rs`). The best network so far (the hand
//!    evaluation before the first accepted generation) plays itself from
//!    the built-in match openings, one game per rayon task on every core.
//!    Each turn searches a node count drawn from half to 1.5 times
//!    `--nodes`, so that the deterministic one-thread searches do not play
//!    the same game twice from one opening; in the first twelve turns after
//!    the setup, a quarter of the time, it plays a candidate within 0.1 of
//!    the best value (never one proven lost) instead of the best, so that
//!    the games spread out early. Every start-of-turn position is written
//!    down with the game's result and the search's value.
//! 2. **Fitting** (`fit.rs`). A candidate network is fitted to the
//!    positions of the last `--window` generations and of the `--records`
//!    (below), starting from the best network when its hidden size is
//!    `--hidden`, otherwise from a network equal to the hand evaluation
//!    ([`ValueNetwork::from_hand`]).
//! 3. **Gating** (`gate.rs`). The candidate plays the best network at a
//!    fixed node count, both colours of every opening, batch after batch,
//!    until an SPRT (elo0 0, elo1 20, alpha and beta 0.05) decides or
//!    `--gate-games` are played. It becomes the best only if the SPRT
//!    accepts that it is stronger, not merely no weaker. The searches are
//!    deterministic at a node limit, so each batch searches an eighth of
//!    `--gate-nodes` more than the last, and plays new games. A batch is a
//!    `supernova match` of engine processes loading the two network files;
//!    its games are counted in number order and the SPRT is asked after
//!    each one, so the verdict does not depend on which games finish
//!    first (the games of a batch after the deciding one are not counted).
//!
//! # The value target
//! A position's target mixes the game's result (weight `--result-weight`)
//! with the search's value of the position (the rest), and the network is
//! fitted to it with a logistic loss, the target read as a win
//! probability. The result is what the value should predict, but one game
//! says little about any one of its positions; the search's value is a
//! less noisy judgement of the same position, as good as the search that
//! made it. `--discount` below 1 lets a result count `discount^n` for a
//! position `n` turns before the game's end: a value that is near a win
//! everywhere in a won game does not tell the search which turns make
//! progress, and a sooner win worth more does.
//!
//! # Real games
//! `--records` adds the positions of recorded games to every fit: the SDG
//! archive's games between people (replayed under the SDG rules), or the
//! records that `supernova match --pgnout` writes. A record of an engine's
//! games holds, in each turn's comment, the searching engine's value of
//! that turn, which is the position's search value (for a turn of an
//! engine that reports no score, the previous turn's value, negated); a
//! person's record holds none, and its positions' target is the result.
//! Recorded positions count twice in the fit, as they are few. Every
//! fifth game by number is held out ([`is_held_out`]), so that `supernova
//! accuracy --held-out` measures what was not learned from.
//!
//! # On several machines
//! A generation's self-play can be cut into slices of files
//! (`--self-play-files 0-3` plays `games-0000.txt` to `games-0003.txt` of
//! generation `--generations` with the directory's `best.net`, and
//! stops). Each game's seed depends only on the run's seed, the generation
//! and the game's number, so the slices' files are the one-machine
//! generation's; copied into the run's directory, they are skipped as
//! played, and the same command without the flag fits and gates there.
//! The gate's batches can be played elsewhere too: with
//! `--external-gate`, a batch whose results are missing is written down as
//! the `supernova match` arguments that play it (`gen-NNN/gate-BB.args`,
//! with `--games-list` when some of its games are in), and the run stops;
//! started again once results files are in `gen-NNN/gate-BB/` (or in
//! folders below it), it counts them and decides, or asks for the rest.
//! The statistics and the decision stay here, and a node-limited game is
//! the same wherever it is played, so the verdict is the one-machine one.
//! `benches/scripts/ray_match.py selfplay` does both on a Ray cluster.
//!
//! # Files
//! Everything lives in one directory, and every step writes its result
//! there before the next starts, so a run that is cut off resumes where it
//! stopped when started again with the same arguments:
//! - `gen-NNN/games-CCCC.txt`: self-play data, 64 games a file (format
//!   below);
//! - `gen-NNN/candidate.net`: the fitted network (the text format of
//!   [`network`](crate::search::network));
//! - `gen-NNN/gate-BB/`: the results files of the gate's batch BB (from
//!   01), one a game (`game-NNNN.result`, as `supernova match --results`
//!   writes them);
//! - `gen-NNN/gate.txt`: the gate's verdict and figures, one line;
//! - `best.net`: the best network so far; `ladder.txt`: one line a
//!   generation (verdict, score, Elo and its interval, time).
//!
//! # Data format
//! One line per start-of-turn position, tab-separated:
//! `GAME  HWPN  RESULT  VALUE  THREAT`, where GAME numbers the game within
//! its generation, HWPN is the position (side to move included), RESULT is
//! the game's result for the side to move (`1`, `0` or `-1`), VALUE the
//! search's value for the side to move in [-1, 1], and THREAT `1` when the
//! opponent could win at once if the side to move passed (as the tree's
//! leaves judge it, so that the network sees the input the search gives
//! it). Lines starting with `#` are comments. About 60 bytes a position.
//!
//! # Testing and shipping a network
//! - `supernova accuracy ../shared/sdg/*.raw --eval-file train/best.net`
//!   prints how often the hand and the learned value favour the side that
//!   went on to win real games ([`value_accuracy`]);
//! - `supernova match --engine name=learned option.Eval=learned
//!   "option.EvalFile=train/best.net" --engine name=hand option.Eval=hand
//!   --movetime 100 --concurrency 2` plays it against the hand evaluation;
//! - `supernova bench --eval learned --eval-file train/best.net` gives its
//!   speed.
//!
//! A gate passed at a few hundred nodes a turn is not enough: a network
//! can beat the hand evaluation there and lose to it at 100 ms a turn (a
//! self-play generation accepted at 600 nodes, +84 Elo, scored 9-30-1 at
//! 100 ms), because a deeper search finds the positions the network
//! misjudges. So a network is matched at the time limits it will play at
//! before it ships. To ship it, copy it to `src/search/networks/value.net`
//! and commit it with the command that made it.
//!
//! # The built-in network
//! The built-in network (`name distilled-1`, 16 hidden units) is distilled
//! from the engine's own searches rather than grown by self-play
//! generations at a few hundred nodes a turn (whose networks pass their
//! gates and can still lose at match time limits, above): its data are the positions of 5,550 games that `supernova
//! match --pgnout` wrote (at 100 ms or 3,000 nodes a turn, mostly against
//! an older build of the engine), and its target leans on the search
//! values in their comments (0.8) more than on the results (0.2). It is one
//! fit of this command:
//!
//! ```sh
//! supernova train --dir distilled --generations 1 --games 64 --hidden 16 --result-weight 0.2 --window 1 --gate-games 2 --seed 1 --records RECORDS...
//! ```
//!
//! The 64 self-play games and the two-game gate are there only because the
//! command always runs them. The records are not in the repository; any
//! `--pgnout` directory of engine games serves, and gives a network of the
//! same kind. The fit takes about 40 s on two cores; it brought the
//! validation loss from 0.6093 to 0.5735, and on the held-out fifth of
//! those games it favours the side that won 74.1% of the time, where the
//! hand evaluation does 71.4% (`supernova accuracy --held-out
//! RECORDS...`). Why it has 16 hidden units and is played at
//! `learned_scale` 1 is in [`network`](crate::search::network).

mod accuracy;
mod fit;
mod gate;
mod samples;
mod self_play;

use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::match_runner::{parse_openings, DEFAULT_OPENINGS};
use super::stats::SprtVerdict;
use crate::record::GameRecord;
use crate::rules::{Action, Rules};
use crate::search::{SearchOptions, Tunables, ValueNetwork};

pub use accuracy::{value_accuracy, Accuracy};
use fit::fit;
pub use fit::FitReport;
use gate::{gate, GateOutcome};
use samples::{discount_results, load_samples, record_samples};
use self_play::self_play;

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
    /// Play only these self-play files (numbered from 0, as `games-CCCC.txt`)
    /// of generation `generations`, and stop: a slice of a generation for
    /// another machine, whose files the fitting machine collects.
    pub self_play_files: Option<Vec<usize>>,
    /// Leave the gate's batches to another program (a cluster driver):
    /// a batch whose results are missing is written down as the
    /// `supernova match` arguments that play it, and the run stops until
    /// they are in (see "On several machines").
    pub external_gate: bool,
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
            self_play_files: None,
            external_gate: false,
        }
    }
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
    say(
        out,
        format!(
            "train: {} in {}, {} threads",
            describe(config),
            config.directory.to_string_lossy(),
            pool.current_num_threads()
        ),
    )?;
    if config.self_play_files.is_some() {
        let generation = config.generations.max(1);
        let directory = generation_directory(config, generation);
        fs::create_dir_all(&directory).map_err(|error| io_error(&directory, error))?;
        let best = best_network(config)?;
        return self_play(&pool, config, generation, best, out);
    }
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
            let network = fit_candidate(&pool, config, generation, best.as_deref(), out)?;
            write_atomically(&candidate_file, &network.write())?;
            network
        };
        let (tally, verdict) = match gate(config, generation, pool.current_num_threads(), out)? {
            GateOutcome::Decided(tally, verdict) => (tally, verdict),
            GateOutcome::Wanted(arguments, results) => {
                say(
                    out,
                    format!(
                        "gen {generation}: gate batch wanted: play supernova match with the arguments of {} (one a line) into {}, then run this again",
                        arguments.to_string_lossy(),
                        results.to_string_lossy()
                    ),
                )?;
                return Ok(());
            }
        };
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

/// Writes one line of the report.
fn say(out: &mut dyn Write, line: String) -> Result<(), String> {
    writeln!(out, "{line}").map_err(|error| format!("cannot write the report: {error}"))
}

/// Fits the generation's candidate to its window of self-play data and to
/// the records, starting from the best network when it has the hidden size
/// asked for (or else from the hand evaluation), and reports the fit.
fn fit_candidate(
    pool: &rayon::ThreadPool,
    config: &TrainConfig,
    generation: u32,
    best: Option<&ValueNetwork>,
    out: &mut dyn Write,
) -> Result<ValueNetwork, String> {
    let mut samples = load_samples(config, generation)?;
    discount_results(&mut samples, config.discount);
    // Real games count twice: they are few, and made by people.
    let mut real = record_samples(config);
    discount_results(&mut real, config.discount);
    samples.extend(real.iter().cloned());
    samples.extend(real);
    let name = format!("gen-{generation}");
    let start = match best {
        Some(network) if network.hidden() == config.hidden => {
            let mut network = network.clone();
            network.name = name;
            network
        }
        _ => ValueNetwork::from_hand(&start_tunables(), config.hidden, config.seed, &name),
    };
    let (network, report) = pool.install(|| fit(config, start, &samples, generation));
    say(out, format!("gen {generation}: fitted {report}"))?;
    Ok(network)
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

/// The directory of one generation's data, candidate and verdict.
fn generation_directory(config: &TrainConfig, generation: u32) -> PathBuf {
    config.directory.join(format!("gen-{generation:03}"))
}

/// A file error in words, naming the file.
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

/// Reads a network file, naming the file in any error.
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
