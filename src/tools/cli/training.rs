//! `supernova train`: the arguments of a training run, checked and handed
//! to [`crate::tools::train`].

use std::io::Write;
use std::path::PathBuf;

use super::Failure;
use crate::record::GameRecord;
use crate::tools::train::{self, TrainConfig};

/// Train the value network by self-play (see the README): generations of
/// self-play games, fitting, and an SPRT gate against the best so far.
/// Resumes from DIR when started again with the same arguments.
#[derive(clap::Args)]
pub struct TrainArguments {
    /// The run's directory (data, networks, ladder.txt, best.net).
    #[arg(long, default_value = "train")]
    pub dir: PathBuf,
    /// Generations to reach.
    #[arg(long, default_value_t = 1)]
    pub generations: u32,
    /// Self-play games per generation.
    #[arg(long, default_value_t = 2048)]
    pub games: usize,
    /// Average nodes per self-play turn.
    #[arg(long, default_value_t = 300)]
    pub nodes: u64,
    /// Most games of each gate match.
    #[arg(long, default_value_t = 768)]
    pub gate_games: usize,
    /// Nodes per turn in the gate's first batch.
    #[arg(long, default_value_t = 600)]
    pub gate_nodes: u64,
    /// Hidden units of a new network.
    #[arg(long, default_value_t = 32)]
    pub hidden: usize,
    /// Passes over the data when fitting.
    #[arg(long, default_value_t = 6)]
    pub epochs: usize,
    /// Generations of data each candidate is fitted to.
    #[arg(long, default_value_t = 3)]
    pub window: u32,
    /// Weight of the game's result in the value target, from 0 to 1 (the
    /// rest is the search's value).
    #[arg(long, default_value_t = 0.5)]
    pub result_weight: f32,
    /// Discount of the game's result per turn left to its end, in (0, 1]
    /// (1 = none): a sooner win is worth more.
    #[arg(long, default_value_t = 1.0)]
    pub discount: f32,
    /// Adam's learning rate at the start (it falls to a tenth).
    #[arg(long, default_value_t = 0.002)]
    pub learning_rate: f32,
    /// Seed of everything random in the run.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Threads (0 = every core).
    #[arg(long, default_value_t = 0)]
    pub threads: usize,
    /// Recorded games (SDG records, replayed under sdg rules, or the
    /// records `match --pgnout` writes) whose positions join every fit,
    /// except every fifth game by number (held out for `accuracy
    /// --held-out`); an engine's per-turn score in them is the search
    /// value of the position.
    #[arg(long, num_args = 1..)]
    pub records: Vec<PathBuf>,
    /// Play only these self-play files of generation --generations, such
    /// as 0-3 (games-0000.txt to games-0003.txt, 64 games each), with the
    /// directory's best.net, and stop without fitting: a slice of a
    /// generation for another machine.
    #[arg(long, value_name = "LIST")]
    pub self_play_files: Option<String>,
    /// Do not play the gate's batches here: write the next missing batch's
    /// `supernova match` arguments to gen-NNN/gate-BB.args (one a line) and
    /// stop; run again once its results files are in gen-NNN/gate-BB/ (or
    /// folders below it), and the gate goes on from them (how
    /// benches/scripts/ray_match.py plays the gate on a cluster).
    #[arg(long)]
    pub external_gate: bool,
}

impl TrainArguments {
    /// The run's configuration: fractions out of range are refused, counts
    /// too small to train with are raised to the least that works.
    ///
    /// # Errors
    /// A fraction out of range, or an unreadable record.
    pub fn config(self) -> Result<TrainConfig, String> {
        let result_weight = self.result_weight;
        if !(0.0..=1.0).contains(&result_weight) {
            return Err(format!(
                "--result-weight {result_weight}: expected a number from 0 to 1"
            ));
        }
        let discount = self.discount;
        if !(discount > 0.0 && discount <= 1.0) {
            return Err(format!(
                "--discount {discount}: expected a number above 0, at most 1"
            ));
        }
        let learning_rate = self.learning_rate;
        if !(learning_rate > 0.0 && learning_rate <= 1.0) {
            return Err(format!(
                "--learning-rate {learning_rate}: expected a number above 0, at most 1"
            ));
        }
        let self_play_files = self
            .self_play_files
            .as_deref()
            .map(|list| {
                crate::tools::match_runner::parse_numbers(list, 0..=9999, "--self-play-files")
            })
            .transpose()?;
        Ok(TrainConfig {
            directory: self.dir,
            generations: self.generations,
            games: self.games.max(1),
            nodes: self.nodes.max(2),
            gate_games: self.gate_games,
            gate_nodes: self.gate_nodes.max(1),
            hidden: self.hidden.clamp(1, crate::search::network::MAX_HIDDEN),
            epochs: self.epochs,
            window: self.window.max(1),
            result_weight,
            discount,
            learning_rate,
            seed: self.seed,
            threads: self.threads,
            records: GameRecord::read_files(&self.records)?,
            self_play_files,
            external_gate: self.external_gate,
            ..Default::default()
        })
    }

    /// Runs the training, writing its progress to `out`.
    ///
    /// # Errors
    /// Bad arguments (see [`TrainArguments::config`]) or a failed run.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        train::train(&self.config()?, out).map_err(Failure::from)
    }
}
