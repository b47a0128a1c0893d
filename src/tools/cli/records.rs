//! The subcommands that read game records: `replay` (and its `--sdg`
//! conversion), `show`, `accuracy`, `openings` and `priors`. Records are
//! read with [`GameRecord::read_file`], which takes SDG records and Board
//! Game Arena logs alike.

use std::io::Write;
use std::path::PathBuf;

use clap::builder::RangedU64ValueParser;

use super::{finish_output, EvalArguments, Failure};
use crate::notation::{hwpn, multi};
use crate::record::GameRecord;
use crate::rules::Rules;
use crate::search::Evaluation;
use crate::tools::{openings, priors, replay, train};

/// Replay game records (SuperDuperGames records, Board Game Arena logs)
/// and judge every turn by the rules.
#[derive(clap::Args)]
pub struct ReplayArguments {
    /// Rule profile: standard, sdg or cli (SDG records need sdg).
    #[arg(long, default_value = "standard")]
    pub rules: Rules,
    /// Print the record as an SDG record instead (one file): converts a
    /// Board Game Arena log.
    #[arg(long)]
    pub sdg: bool,
    /// Record files: SDG records or Board Game Arena logs.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

impl ReplayArguments {
    /// Replays each file, printing one line per game and a summary line.
    ///
    /// # Errors
    /// Some files could not be read (the first is named), some games broke
    /// the rules ([`Failure::IllegalGames`]), or a write failed; with
    /// `--sdg`, more than one file or an unreadable one.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        if self.sdg {
            let [file] = self.files.as_slice() else {
                return Err(Failure::Error(format!(
                    "--sdg writes one record: expected one file, not {}",
                    self.files.len()
                )));
            };
            let record = GameRecord::read_file(file)?;
            out.write_all(record.to_sdg().as_bytes())?;
            out.flush()?;
            return Ok(());
        }
        let tally = replay::replay_files(&self.rules, &self.files, out)?;
        if let Some(first) = tally.unreadable.first() {
            return Err(Failure::Error(format!(
                "{} files could not be read; the first: {first}",
                tally.unreadable.len()
            )));
        }
        if tally.illegal > 0 {
            return Err(Failure::IllegalGames);
        }
        Ok(())
    }
}

/// Print the position before a turn of a game record (an SDG record or a
/// Board Game Arena log), in HWPN with names.
#[derive(clap::Args)]
pub struct ShowArguments {
    /// The record file.
    #[arg(long)]
    pub game: PathBuf,
    /// The site's turn number (one past the last turn shows the final position).
    #[arg(long)]
    pub turn: u32,
    /// Rule profile: standard, sdg or cli (SDG records need sdg).
    #[arg(long, default_value = "standard")]
    pub rules: Rules,
}

impl ShowArguments {
    /// Prints the position before the turn, in the notation of the
    /// record's number of players.
    ///
    /// # Errors
    /// An unreadable record, a turn it cannot reach, or a failed write.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        let record = GameRecord::read_file(&self.game)?;
        let place = |error: crate::record::ShowError| format!("{}: {error}", self.game.display());
        if record.is_multi_player() {
            let board = record
                .multi_board_before(&self.rules, self.turn)
                .map_err(place)?;
            writeln!(out, "{}", multi::write_board(&board))?;
            return Ok(());
        }
        let board = record.board_before(&self.rules, self.turn).map_err(place)?;
        writeln!(out, "{}", hwpn::write_board(&board))?;
        out.flush()?;
        Ok(())
    }
}

/// How often an evaluation's favoured side went on to win, over the
/// positions of real games decided on the board: the hand evaluation
/// and the learned one side by side.
#[derive(clap::Args)]
pub struct AccuracyArguments {
    /// Rule profile: standard, sdg or cli (SDG records need sdg).
    #[arg(long, default_value = "sdg")]
    pub rules: Rules,
    /// A value network file (default: the built-in one).
    #[arg(long)]
    pub eval_file: Option<PathBuf>,
    /// Only the games `train --records` holds out (every fifth by number).
    #[arg(long)]
    pub held_out: bool,
    /// Record files in the SDG archive format.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

impl AccuracyArguments {
    /// Prints, for the hand and the learned evaluation, how often the side
    /// each favoured went on to win, and the log loss.
    ///
    /// # Errors
    /// An unreadable record or network, or a failed write.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        let records = GameRecord::read_files(&self.files)?;
        let records: Vec<&GameRecord> = records
            .iter()
            .filter(|record| !self.held_out || train::is_held_out(record))
            .collect();
        let hand = EvalArguments {
            eval: Some(Evaluation::Hand),
            eval_file: None,
        };
        let learned = EvalArguments {
            eval: Some(Evaluation::Learned),
            eval_file: self.eval_file,
        };
        let evaluations = [hand.tunables()?, learned.tunables()?];
        let (accuracies, games) = train::value_accuracy(&records, &self.rules, &evaluations);
        for (name, accuracy) in ["hand", "learned"].iter().zip(&accuracies) {
            writeln!(
                out,
                "{name:<8} {:.1}% right, log loss {:.4}, {} positions of {games} games",
                100.0 * accuracy.rate(),
                accuracy.mean_loss(),
                accuracy.positions
            )?;
        }
        out.flush()?;
        Ok(())
    }
}

/// Print the openings file of `match` (positions/openings.txt): the
/// pairs of homeworld setups people played most in SuperDuperGames
/// records, leaving out homes without yellow and blue.
#[derive(clap::Args)]
pub struct OpeningsArguments {
    /// How many openings to keep, the most frequent first.
    #[arg(long, default_value_t = 64,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=100_000))]
    pub count: usize,
    /// Print the setup book's table (src/search/played_setups.rs) instead.
    #[arg(long)]
    pub setups: bool,
    /// Record files in the SDG archive format.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

impl OpeningsArguments {
    /// Prints the openings file (or the setup book's table) gathered from
    /// the records.
    ///
    /// # Errors
    /// An unreadable record, records without two usable setups, or a
    /// failed write.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        let gathered = openings::gather(&GameRecord::read_files(&self.files)?);
        if gathered.openings.is_empty() {
            return Err(Failure::Error(
                "no game in these records has two usable setups".to_string(),
            ));
        }
        let described = openings::describe_files(&self.files);
        finish_output(if self.setups {
            openings::write_setups(&gathered, &described, out)
        } else {
            openings::write_openings(&gathered, self.count, &described, out)
        })
    }
}

/// Fit the action priors' weights to the turns people played (maximum
/// likelihood, held-out games reported) and print them as `name value`;
/// with --search, to the visit counts of the engine's own searches from
/// the records' positions instead.
#[derive(clap::Args)]
pub struct PriorsArguments {
    /// Rule profile: standard, sdg or cli (SDG records need sdg).
    #[arg(long, default_value = "sdg")]
    pub rules: Rules,
    /// At most this many decisions (a seeded sample) are used.
    #[arg(long, default_value_t = 40_000)]
    pub max_steps: usize,
    /// Fit to what a search of this many iterations prefers (one thread,
    /// the bare tree), at every node it visited --min-visits times; 0:
    /// fit to the turns people played.
    #[arg(long, default_value_t = 0)]
    pub search: u64,
    /// With --search: the start-of-turn positions searched (a seeded
    /// sample of the records').
    #[arg(long, default_value_t = 2000)]
    pub positions: usize,
    /// With --search: the visits a node needs to give a target.
    #[arg(long, default_value_t = 100)]
    pub min_visits: u32,
    /// Seed of the sample.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Record files in the SDG archive format.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
}

impl PriorsArguments {
    /// Fits the priors' weights and prints them.
    ///
    /// # Errors
    /// An unreadable record, or a failed write.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        let records = GameRecord::read_files(&self.files)?;
        let fit = if self.search > 0 {
            priors::fit_priors_to_search(
                &records,
                &self.rules,
                self.positions,
                self.search,
                self.min_visits,
                self.seed,
            )
        } else {
            priors::fit_priors(&records, &self.rules, self.max_steps, self.seed)
        };
        fit.write(out)?;
        Ok(())
    }
}
