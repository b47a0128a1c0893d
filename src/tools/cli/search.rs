//! The subcommands that search one position or game, or count its turns:
//! `analyse`, `annotate`, `play`, `count` and `bench`.

use std::io::{BufRead, Write};
use std::path::PathBuf;

use super::{finish_output, option_flag, EvalArguments, Failure, SearchArguments};
use crate::notation::{parse_position, Board};
use crate::record::GameRecord;
use crate::rules::{Player, Rules, Timewarp};
use crate::search::SearchOptions;
use crate::tools::analyse::{self, Subject};
use crate::tools::bench::{self, BENCHMARK_A, BENCHMARK_B};
use crate::tools::handicaps::{Handicaps, RedAlert, MAX_TOKENS};
use crate::tools::levels::NamedLevel;
use crate::tools::play::{self, PlaySettings};

/// The seat a `--side` flag names.
fn side_flag(side: u8) -> Result<Player, String> {
    Player::from_index(side as usize).ok_or_else(|| format!("--side {side}: expected 0 or 1"))
}

/// Reads a position argument in HWPN or homeworlds-cli state text
/// ([`parse_position`]), with `side` to move for the latter.
///
/// # Errors
/// `side` is not 0 or 1, or the text is not a position.
pub fn read_position(text: &str, side: u8) -> Result<Board, String> {
    parse_position(text, side_flag(side)?).map_err(|error| format!("bad position: {error}"))
}

/// Search one position and print the best turn, its value, the principal
/// variation and the top alternatives.
#[derive(clap::Args)]
pub struct AnalyseArguments {
    /// The position: HWPN (`startpos` for the empty start) or homeworlds-cli
    /// state text. Not with --game. Defaults to benchmark position B, a
    /// middle game.
    #[arg(allow_hyphen_values = true, conflicts_with = "game")]
    pub position: Option<String>,
    /// Side to move, for homeworlds-cli state text (which has none).
    #[arg(long, default_value_t = 0)]
    pub side: u8,
    /// Analyse a position of this SDG record instead (with --turn).
    #[arg(long, requires = "turn")]
    pub game: Option<PathBuf>,
    /// The record's turn number: the position before it (one past the last is the final position).
    #[arg(long)]
    pub turn: Option<u32>,
    /// The search's settings.
    #[command(flatten)]
    pub search: SearchArguments,
    /// Candidate turns to list.
    #[arg(long, default_value_t = 1, value_parser = option_flag("MultiPV"))]
    pub multipv: usize,
}

impl AnalyseArguments {
    /// Searches the position (given, or from a record) and prints the analysis.
    ///
    /// # Errors
    /// An unreadable position, record or network, or a failed write.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        let settings = self.search.settings(self.multipv, 1000)?;
        let subject = match (self.game, self.turn) {
            (Some(game), Some(turn)) => {
                let record = GameRecord::read_file(&game)?;
                Subject::from_record(&record, &settings.options.rules, turn)
                    .map_err(|error| format!("{}: {error}", game.display()))?
            }
            _ => {
                let text = self.position.as_deref().unwrap_or(BENCHMARK_B);
                Subject::position(read_position(text, self.side)?)
            }
        };
        finish_output(analyse::analyse(&subject, &settings, out))
    }
}

/// Evaluate every turn of an SDG record: the engine's preference where it
/// differs, and exact blunders (a missed win in one, walking into a loss in one).
#[derive(clap::Args)]
pub struct AnnotateArguments {
    /// The record file.
    pub game: PathBuf,
    /// The search's settings.
    #[command(flatten)]
    pub search: SearchArguments,
}

impl AnnotateArguments {
    /// Evaluates every turn of the record and prints the annotations.
    ///
    /// # Errors
    /// An unreadable record or network, a record of other rules, or a
    /// failed write.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        let settings = self.search.settings(1, 200)?;
        let record = GameRecord::read_file(&self.game)?;
        if let Some(reason) = record.unsupported() {
            return Err(Failure::Error(format!(
                "{}: cannot annotate: {reason}",
                self.game.display()
            )));
        }
        finish_output(analyse::annotate(&record, &settings, out))
    }
}

/// Play against the engine in the terminal (works with piped input too).
#[derive(clap::Args)]
pub struct PlayArguments {
    /// Your seat: 0 creates and moves first, 1 second.
    #[arg(long, default_value_t = 0)]
    pub side: u8,
    /// Start from this HWPN position instead of the empty start.
    #[arg(long, allow_hyphen_values = true)]
    pub position: Option<String>,
    /// The engine's level, weakest first: cadet (Elo 870), ensign (Elo
    /// 1070), lieutenant (Elo 1430), commander (Elo 1680), captain (Elo
    /// 1840), admiral (Elo 2000), full (full strength). Left out, the
    /// engine plays at full strength.
    #[arg(long)]
    pub level: Option<String>,
    /// Second Turn Timewarp: you get this many bonus turns (1 to 3) in a
    /// row after both homeworlds are built.
    #[arg(long)]
    pub timewarp: Option<u8>,
    /// Red Alert: 1 warns when the engine could win next turn (and asks
    /// before you end a turn that allows it), 2 also of wins it could force
    /// within two turns and of one reply that would take material; 0 is off.
    #[arg(long, default_value_t = 0)]
    pub red_alert: u8,
    /// Brain Transference: once in the game, `swap` changes sides with the
    /// engine.
    #[arg(long)]
    pub brain_transference: bool,
    /// Tactical Computer: `hint` may be used this many times (0 to 5).
    /// Left out, hints are not rationed.
    #[arg(long)]
    pub hints: Option<u8>,
    /// The search's settings.
    #[command(flatten)]
    pub search: SearchArguments,
}

impl PlayArguments {
    /// Plays a game against the engine, reading the human's turns from `input`.
    ///
    /// # Errors
    /// A bad seat, position or network, or a failed read or write.
    pub fn run(self, input: &mut dyn BufRead, out: &mut dyn Write) -> Result<(), Failure> {
        let settings = self.search.settings(1, 1000)?;
        let human = side_flag(self.side)?;
        let start = match self.position {
            Some(text) => read_position(&text, 0)?,
            None => Board::default(),
        };
        let level = self.level.as_deref().map(NamedLevel::find).transpose()?;
        let timewarp = self
            .timewarp
            .map(|count| Timewarp::new(human, count))
            .transpose()
            .map_err(|error| format!("--timewarp: {error}"))?;
        let tokens = match self.hints {
            Some(count) if count > MAX_TOKENS => {
                return Err(format!("--hints {count}: expected 0 to {MAX_TOKENS} tokens").into())
            }
            tokens => tokens,
        };
        let handicaps = Handicaps {
            timewarp,
            red_alert: RedAlert::from_level(self.red_alert)
                .map_err(|error| format!("--red-alert: {error}"))?,
            brain_transference: self.brain_transference,
            tokens,
        };
        let settings = PlaySettings {
            human,
            start,
            options: settings.options,
            limits: settings.limits,
            level,
            handicaps,
        };
        finish_output(play::play(&settings, input, out))
    }
}

/// Count the distinct legal turns from a position.
#[derive(clap::Args)]
pub struct CountArguments {
    /// Rule profile: standard, sdg or cli.
    #[arg(long, default_value = "standard")]
    pub rules: Rules,
    /// Side to move, for homeworlds-cli state text (which has none).
    #[arg(long, default_value_t = 0)]
    pub side: u8,
    /// The position: HWPN (`startpos` for the empty start), or
    /// homeworlds-cli state text. Defaults to benchmark position A.
    #[arg(allow_hyphen_values = true, default_value = BENCHMARK_A)]
    pub position: String,
}

impl CountArguments {
    /// Prints the number of distinct legal turns.
    ///
    /// # Errors
    /// A bad position or side, or a failed write.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        let board = read_position(&self.position, self.side)?;
        writeln!(out, "{}", board.position.count_turns(&self.rules))?;
        out.flush()?;
        Ok(())
    }
}

/// Run the search benchmark: a node-limited search on each bench position;
/// prints total nodes, a signature of the chosen turns, and nodes/second.
#[derive(clap::Args)]
pub struct BenchArguments {
    /// Iterations per position.
    #[arg(long, default_value_t = 20_000)]
    pub nodes: u64,
    /// Search threads (the signature is reproducible only with 1; at most
    /// twice this machine's processors, like the `Threads` option).
    #[arg(long, default_value_t = 1, value_parser = option_flag("Threads"))]
    pub threads: usize,
    /// Tree memory per search, in megabytes (at most half this machine's
    /// memory; the default is the `Hash` option's, committed only as the
    /// tree grows).
    #[arg(long, default_value_t = crate::search::DEFAULT_HASH_MB, value_parser = option_flag("Hash"))]
    pub hash: usize,
    /// Positions file (HWPN per line, `#` comments) instead of the built-in list.
    #[arg(long)]
    pub file: Option<std::path::PathBuf>,
    /// The leaf evaluation.
    #[command(flatten)]
    pub evaluation: EvalArguments,
}

impl BenchArguments {
    /// Runs the search benchmark and prints its report.
    ///
    /// # Errors
    /// An unreadable positions file or network, or a failed write.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        let options = SearchOptions {
            threads: self.threads,
            hash_mb: self.hash,
            tunables: self.evaluation.tunables()?,
            ..crate::search::bench::default_options()
        };
        let positions = bench::read_positions(self.file.as_deref())?;
        let searched: Vec<_> = positions.iter().map(|entry| entry.position).collect();
        let report = crate::search::bench::run(&searched, self.nodes, &options);
        bench::write_report(&report, &positions, out)?;
        Ok(())
    }
}
