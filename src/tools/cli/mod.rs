//! The command line of the `supernova` binary: its arguments (clap derive)
//! and what each subcommand does with them.
//!
//! The definitions live in the library rather than in `main.rs` so that the
//! binary is only the parse and the dispatch, and so that tests can parse a
//! command line and run a subcommand in memory. Each subcommand's arguments
//! are a struct whose `run` writes to the writer it is handed (and reads the
//! reader, for the games played in the terminal): only `main.rs` touches
//! stdin and stdout, and only it turns a [`Failure`] into an exit status.
//!
//! The subcommands are grouped by what they work on: [`search`] (one
//! position or game searched: analyse, annotate, play, count, bench),
//! [`records`] (game records read: replay, show, accuracy, openings,
//! priors), [`matches`](mod@matches) (whole games between engines or
//! players: match, multi-match, multi-play, gui) and [`training`] (train).

use std::ffi::OsString;
use std::ops::RangeInclusive;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use clap::builder::RangedU64ValueParser;
use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

use crate::engine::{option_specs, OptionKind};
use crate::rules::Rules;
use crate::search::{Evaluation, PlayerKind, SearchLimits, SearchOptions, Tunables, ValueNetwork};
use crate::tools::analyse::{AnalysisSettings, Notation};

pub mod matches;
pub mod records;
pub mod search;
pub mod training;

#[cfg(test)]
mod tests;

pub use matches::{GuiArguments, MatchArguments, MultiMatchArguments, MultiPlayArguments};
pub use records::{
    AccuracyArguments, OpeningsArguments, PriorsArguments, ReplayArguments, ShowArguments,
};
pub use search::{
    AnalyseArguments, AnnotateArguments, BenchArguments, CountArguments, PlayArguments,
};
pub use training::TrainArguments;

/// What a subcommand reports besides success: a failure message, a verdict
/// that only needs a distinct exit status, or a failed write to stdout.
#[derive(Debug)]
pub enum Failure {
    /// Bad usage or unreadable input: the binary prints the message and
    /// exits with its error status.
    Error(String),
    /// Some replayed games have illegal turns (already reported): the
    /// binary exits with a status of its own, so that scripts can tell rule
    /// breaks from errors.
    IllegalGames,
    /// Writing the output failed. A reader that went away early (`| head`)
    /// is not an error, as in other command-line tools: the binary stops
    /// quietly with success.
    Output(std::io::Error),
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Error(message)
    }
}

impl From<std::io::Error> for Failure {
    fn from(error: std::io::Error) -> Failure {
        Failure::Output(error)
    }
}

/// The end of a tool that writes to stdout: its result without the value.
fn finish_output<T>(result: std::io::Result<T>) -> Result<(), Failure> {
    result.map(|_| ()).map_err(Failure::Output)
}

/// The range of a whole-number engine option (`Threads`, `Hash`,
/// `MultiPV`), so that a flag and the option accept the same values.
fn option_range(name: &str) -> RangeInclusive<u64> {
    option_specs()
        .iter()
        .find_map(|spec| match spec.kind {
            OptionKind::Spin { min, max, .. } if spec.name == name => {
                Some(min.max(0) as u64..=max.max(0) as u64)
            }
            _ => None,
        })
        .unwrap_or(1..=1)
}

/// A parser for a flag that sets the engine option `name`: out-of-range
/// values are refused with the flag's name and the range.
fn option_flag(name: &str) -> RangedU64ValueParser<usize> {
    RangedU64ValueParser::<usize>::new().range(option_range(name))
}

/// Supernova, a Binary Homeworlds engine.
#[derive(Parser)]
#[command(name = "supernova", version, about)]
pub struct Arguments {
    /// The subcommand; none runs the protocol, as `engine` does.
    #[command(subcommand)]
    pub command: Option<Command>,
}

impl Arguments {
    /// Parses a command line (the program's name first) as
    /// [`Parser::try_parse_from`] does, and groups the words of each
    /// `match --engine` occurrence into [`MatchArguments::engines`], which
    /// the derive cannot do by itself.
    ///
    /// # Errors
    /// Clap's error for a bad command line, or its help or version text.
    pub fn try_parse_words<I, T>(words: I) -> Result<Arguments, clap::Error>
    where
        I: IntoIterator<Item = T>,
        T: Into<OsString> + Clone,
    {
        let mut command = Arguments::command();
        let matches = command.try_get_matches_from_mut(words)?;
        let mut arguments =
            Arguments::from_arg_matches(&matches).map_err(|error| error.format(&mut command))?;
        if let (Some(Command::Match(arguments)), Some(matches)) =
            (&mut arguments.command, matches.subcommand_matches("match"))
        {
            arguments.engines = matches
                .get_occurrences::<String>("engines")
                .map(|groups| groups.map(|group| group.cloned().collect()).collect())
                .unwrap_or_default();
        }
        Ok(arguments)
    }

    /// The process's command line, parsed; on a bad one (or `--help`,
    /// `--version`) clap prints its text and exits, as [`Parser::parse`] does.
    pub fn parse_command_line() -> Arguments {
        Arguments::try_parse_words(std::env::args_os()).unwrap_or_else(|error| error.exit())
    }
}

/// The subcommands. `defer` builds a subcommand's arguments only when it is
/// the one given (or when help lists them in full): building every
/// subcommand's parser took about a fifth of a millisecond and 40 page
/// faults at each start, a tenth of a `count` of position A.
///
/// A variant's doc is the line `supernova --help` lists for it; the doc of
/// its arguments struct, applied when the arguments are built, is the
/// subcommand's own `--help`. So the two open with the same words, and a
/// subcommand's longer text (`match`) is on its struct alone.
#[derive(Subcommand)]
#[command(defer = true)]
pub enum Command {
    /// Run the text protocol (protocol.md) on stdin and stdout; the default.
    Engine,
    /// Play two engines against each other (like cutechess-cli).
    #[command(name = "match")]
    Match(MatchArguments),
    /// Search one position and print the best turn, its value, the principal
    /// variation and the top alternatives.
    Analyse(AnalyseArguments),
    /// Evaluate every turn of an SDG record: the engine's preference where it
    /// differs, and exact blunders (a missed win in one, walking into a loss in one).
    Annotate(AnnotateArguments),
    /// Play against the engine in the terminal (works with piped input too).
    Play(PlayArguments),
    /// Count the distinct legal turns from a position.
    Count(CountArguments),
    /// Run the search benchmark: a node-limited search on each bench position;
    /// prints total nodes, a signature of the chosen turns, and nodes/second.
    Bench(BenchArguments),
    /// Play a match of 3 to 6 in-process players: the max-n search (mcts),
    /// greedy and random (multi-player Homeworlds).
    MultiMatch(MultiMatchArguments),
    /// Play a game of 3 to 6 players in the terminal: `human` seats type
    /// their turns, `mcts`, `greedy` and `random` seats are played by the program.
    MultiPlay(MultiPlayArguments),
    /// Replay SuperDuperGames records or Board Game Arena logs and judge every
    /// turn by the rules; `--sdg` writes the record out as SDG.
    Replay(ReplayArguments),
    /// Print the position before a turn of a SuperDuperGames record or a Board
    /// Game Arena log, in HWPN with names.
    Show(ShowArguments),
    /// How often an evaluation's favoured side went on to win, over the
    /// positions of real games decided on the board: the hand evaluation
    /// and the learned one side by side.
    Accuracy(AccuracyArguments),
    /// Serve the web GUI on a local address and print it: play against an
    /// engine, watch two engines, analyse a position, review an SDG record.
    /// Engines run as child processes driven through the protocol.
    Gui(GuiArguments),
    /// Print the openings file of `match` (positions/openings.txt): the
    /// pairs of homeworld setups people played most in SuperDuperGames
    /// records, leaving out homes without yellow and blue.
    Openings(OpeningsArguments),
    /// Fit the action priors' weights to the turns people played (maximum
    /// likelihood, held-out games reported) and print them as `name value`;
    /// with --search, to the visit counts of the engine's own searches from
    /// the records' positions instead.
    Priors(PriorsArguments),
    /// Train the value network by self-play (see the README): generations of
    /// self-play games, fitting, and an SPRT gate against the best so far.
    /// Resumes from DIR when started again with the same arguments.
    Train(TrainArguments),
}

/// The leaf evaluation, for the subcommands that search.
#[derive(clap::Args)]
pub struct EvalArguments {
    /// Leaf evaluation: hand (the hand-weighted features) or learned (the
    /// value network); default: the engine's default.
    #[arg(long)]
    pub eval: Option<Evaluation>,
    /// A value network file for --eval learned (default: the built-in one).
    #[arg(long)]
    pub eval_file: Option<PathBuf>,
}

impl EvalArguments {
    /// Default tunables with the chosen evaluation: a network file alone
    /// means the learned evaluation, as nobody names a network to leave it
    /// unused.
    ///
    /// # Errors
    /// The network file cannot be read or parsed.
    pub fn tunables(&self) -> Result<Tunables, String> {
        let mut tunables = Tunables::default();
        let network = match &self.eval_file {
            Some(path) => {
                let limit = crate::engine::options::MAX_NETWORK_FILE_BYTES;
                let text = crate::files::read_bounded_text(path, limit).map_err(|error| {
                    format!("{}: {}", path.display(), error.message("a network file"))
                })?;
                Arc::new(
                    ValueNetwork::parse(&text)
                        .map_err(|error| format!("{}: {error}", path.display()))?,
                )
            }
            None => ValueNetwork::embedded(),
        };
        let evaluation = self.eval.unwrap_or(if self.eval_file.is_some() {
            Evaluation::Learned
        } else {
            tunables.evaluation()
        });
        tunables.set_network(match evaluation {
            Evaluation::Hand => None,
            Evaluation::Learned => Some(network),
        });
        Ok(tunables)
    }
}

/// Search settings shared by analyse, annotate and play.
#[derive(clap::Args)]
pub struct SearchArguments {
    /// Time per search, in ms (when --nodes is not given: 1000, or 200 per turn for annotate).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Iterations per search (reproducible with one thread).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Search threads (at most twice this machine's processors, like the
    /// `Threads` option).
    #[arg(long, default_value_t = 1, value_parser = option_flag("Threads"))]
    pub threads: usize,
    /// Tree memory, in megabytes (at most half this machine's memory; the
    /// default is the `Hash` option's, committed only as the tree grows).
    #[arg(long, default_value_t = crate::search::DEFAULT_HASH_MB, value_parser = option_flag("Hash"))]
    pub hash: usize,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Which player: mcts, greedy, random or shots (the one-turn shot player).
    #[arg(long, default_value = "mcts")]
    pub player: PlayerKind,
    /// Rule profile: standard, sdg or cli (SDG archive records need sdg).
    #[arg(long, default_value = "standard")]
    pub rules: Rules,
    /// How turns are printed: sdg (`Build G1 Home0; Pass`), token or readable.
    #[arg(long, default_value = "sdg")]
    pub notation: Notation,
    /// The leaf evaluation.
    #[command(flatten)]
    pub evaluation: EvalArguments,
}

impl SearchArguments {
    /// The search options and limits these arguments describe, with
    /// `multi_pv` candidates and `default_movetime` milliseconds a search
    /// when neither a time nor a node limit is given.
    ///
    /// # Errors
    /// The network file cannot be read or parsed.
    pub fn settings(
        &self,
        multi_pv: usize,
        default_movetime: u64,
    ) -> Result<AnalysisSettings, String> {
        let mut limits = SearchLimits {
            nodes: self.nodes,
            movetime: self.movetime.map(Duration::from_millis),
            ..SearchLimits::default()
        };
        if limits.nodes.is_none() && limits.movetime.is_none() {
            limits.movetime = Some(Duration::from_millis(default_movetime));
        }
        Ok(AnalysisSettings {
            options: SearchOptions {
                threads: self.threads,
                hash_mb: self.hash,
                seed: self.seed,
                multi_pv,
                player: self.player,
                rules: self.rules,
                tunables: self.evaluation.tunables()?,
                ..SearchOptions::default()
            },
            limits,
            notation: self.notation,
        })
    }
}
