//! The `supernova` binary: command-line front end. Only this layer turns
//! errors into exit codes.

use std::io::Write;
use std::ops::RangeInclusive;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use clap::builder::RangedU64ValueParser;
use clap::{ArgAction, CommandFactory, Parser, Subcommand};
use supernova::engine::{option_specs, OptionKind};
use supernova::notation::{cli, hwpn, Board};
use supernova::protocol;
use supernova::record::{GameRecord, Verdict};
use supernova::rules::{Player, Rules};
use supernova::search::{
    Evaluation, PlayerKind, SearchLimits, SearchOptions, Tunables, ValueNetwork,
};
use supernova::tools::analyse::{self, AnalysisSettings, Notation, Subject};
use supernova::tools::match_runner::{self, EngineConfig, MatchConfig, TurnLimits};
use supernova::tools::play::{self, PlaySettings};
use supernova::tools::stats::Sprt;

/// Exit status when every game replayed but some broke the rules.
const EXIT_ILLEGAL: u8 = 1;
/// Exit status for bad usage, unreadable files and other errors.
const EXIT_ERROR: u8 = 2;

/// What `run` reports besides success: a failure message, a verdict that
/// only needs a distinct exit status, or a failed write to stdout.
enum Failure {
    /// Bad usage or unreadable input: print the message, exit with EXIT_ERROR.
    Error(String),
    /// Some replayed games have illegal turns (already reported).
    IllegalGames,
    /// Writing the output failed. A reader that went away early (`| head`)
    /// is not an error, as in other command-line tools: the program stops
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

/// The most games `match` plays at once.
const MAX_CONCURRENCY: u64 = 1024;

/// Supernova, a Binary Homeworlds engine.
#[derive(Parser)]
#[command(name = "supernova", version, about)]
struct Arguments {
    #[command(subcommand)]
    command: Option<Command>,
}

/// The subcommands. `defer` builds a subcommand's arguments only when it is
/// the one given (or when help lists them in full): building every
/// subcommand's parser took about a fifth of a millisecond and 40 page
/// faults at each start, a tenth of a `count` of position A.
#[derive(Subcommand)]
#[command(defer = true)]
enum Command {
    /// Run the text protocol (protocol.md) on stdin and stdout; the default.
    Engine,
    /// Play two engines against each other (like cutechess-cli).
    ///
    /// Each --engine takes KEY=VALUE words: cmd=PROGRAM, arg=ARG (repeatable),
    /// name=NAME, option.NAME=VALUE, movetime=MS, nodes=N, tc=SECONDS+INC.
    /// Without cmd= the engine is this program's `engine` subcommand.
    ///
    /// Both engines are started and checked (hwi, options, isready) before
    /// the first game: one that cannot start or fails this handshake stops
    /// the match with an error. An engine that crashes, hangs past its limit
    /// and the margin, or plays an unparsable or illegal turn during a game
    /// loses that game, and the match goes on.
    #[command(name = "match")]
    Match {
        /// An engine: KEY=VALUE words (give --engine twice: A, then B; or 3 to 6 times for a multi-player match).
        #[arg(long = "engine", required = true, num_args = 1.., value_name = "KEY=VALUE", action = ArgAction::Append)]
        engines: Vec<String>,
        /// KEY=VALUE words applied to both engines before their own.
        #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
        each: Vec<String>,
        /// Games to play (each opening twice, colours swapped); default: every opening twice.
        #[arg(long)]
        games: Option<usize>,
        /// Games played at once.
        #[arg(long, default_value_t = 1,
              value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_CONCURRENCY))]
        concurrency: usize,
        /// Openings file: HWPN positions after both setup turns, one a line (default: positions/openings.txt, built in).
        #[arg(long)]
        openings: Option<PathBuf>,
        /// Fixed time per turn, in ms.
        #[arg(long)]
        movetime: Option<u64>,
        /// Node limit per turn.
        #[arg(long)]
        nodes: Option<u64>,
        /// Clock per game: SECONDS[+INCREMENT], such as 10+0.1.
        #[arg(long)]
        tc: Option<String>,
        /// Rule profile the referee applies: standard, sdg or cli.
        #[arg(long, default_value = "standard")]
        rules: Rules,
        /// Turns after the opening before a game is drawn (0 = no limit).
        #[arg(long, default_value_t = 200)]
        max_turns: u32,
        /// Occurrences of a position that draw the game.
        #[arg(long, default_value_t = 3)]
        repetitions: u32,
        /// Grace time past the limit before a silent engine loses, in ms.
        #[arg(long, default_value_t = 1000)]
        margin: u64,
        /// Time to wait for a turn when only a node limit is set, in ms.
        #[arg(long, default_value_t = 60_000)]
        timeout: u64,
        /// Directory for one SDG record per game (`supernova replay` reads them).
        #[arg(long, value_name = "DIR")]
        pgnout: Option<PathBuf>,
        /// Directory for one protocol log per engine and game (lines sent, received, and stderr).
        #[arg(long, value_name = "DIR")]
        log: Option<PathBuf>,
        /// Sequential test: elo0=0 elo1=5 alpha=0.05 beta=0.05; stops when decided.
        #[arg(long, num_args = 4, value_name = "KEY=VALUE")]
        sprt: Option<Vec<String>>,
        /// Resign adjudication, as cutechess-cli's: movecount=3 score=900 [twosided=true] scores a game lost for an engine that reported -900 cp (a value of -0.9) or lower on 3 of its turns in a row (twosided: while its opponent reported +900 or higher on as many).
        #[arg(long, num_args = 2..=3, value_name = "KEY=VALUE")]
        resign: Option<Vec<String>>,
        /// Victory condition of a match of 3 to 6 engines: last, sinister or good-evil.
        #[arg(long)]
        victory: Option<String>,
        /// Seed of a match of 3 to 6 engines: the Good-versus-Evil deals and each engine's Seed option.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Search one position and print the best turn, its value, the principal
    /// variation and the top alternatives.
    Analyse {
        /// The position: HWPN (`startpos` for the empty start) or homeworlds-cli
        /// state text. Not with --game. Defaults to benchmark position B, a
        /// middle game.
        #[arg(allow_hyphen_values = true, conflicts_with = "game")]
        position: Option<String>,
        /// Side to move, for homeworlds-cli state text (which has none).
        #[arg(long, default_value_t = 0)]
        side: u8,
        /// Analyse a position of this SDG record instead (with --turn).
        #[arg(long, requires = "turn")]
        game: Option<PathBuf>,
        /// The record's turn number: the position before it (one past the last is the final position).
        #[arg(long)]
        turn: Option<u32>,
        #[command(flatten)]
        search: SearchArguments,
        /// Candidate turns to list.
        #[arg(long, default_value_t = 1, value_parser = option_flag("MultiPV"))]
        multipv: usize,
    },
    /// Evaluate every turn of an SDG record: the engine's preference where it
    /// differs, and exact blunders (a missed win in one, walking into a loss in one).
    Annotate {
        /// The record file.
        game: PathBuf,
        #[command(flatten)]
        search: SearchArguments,
    },
    /// Play against the engine in the terminal (works with piped input too).
    Play {
        /// Your seat: 0 creates and moves first, 1 second.
        #[arg(long, default_value_t = 0)]
        side: u8,
        /// Start from this HWPN position instead of the empty start.
        #[arg(long, allow_hyphen_values = true)]
        position: Option<String>,
        #[command(flatten)]
        search: SearchArguments,
    },
    /// Count the distinct legal turns from a position.
    Count {
        /// Rule profile: standard, sdg or cli.
        #[arg(long, default_value = "standard")]
        rules: Rules,
        /// Side to move, for homeworlds-cli state text (which has none).
        #[arg(long, default_value_t = 0)]
        side: u8,
        /// The position: HWPN (`startpos` for the empty start), or
        /// homeworlds-cli state text. Defaults to benchmark position A.
        #[arg(allow_hyphen_values = true, default_value = BENCHMARK_A)]
        position: String,
    },
    /// Run the search benchmark: a node-limited search on each bench position;
    /// prints total nodes, a signature of the chosen turns, and nodes/second.
    Bench {
        /// Iterations per position.
        #[arg(long, default_value_t = 20_000)]
        nodes: u64,
        /// Search threads (the signature is reproducible only with 1; at most
        /// twice this machine's processors, like the `Threads` option).
        #[arg(long, default_value_t = 1, value_parser = option_flag("Threads"))]
        threads: usize,
        /// Tree memory per search, in megabytes (at most half this machine's
        /// memory; the default is the `Hash` option's, committed only as the
        /// tree grows).
        #[arg(long, default_value_t = supernova::search::DEFAULT_HASH_MB, value_parser = option_flag("Hash"))]
        hash: usize,
        /// Positions file (HWPN per line, `#` comments) instead of the built-in list.
        #[arg(long)]
        file: Option<std::path::PathBuf>,
        #[command(flatten)]
        evaluation: EvalArguments,
    },
    /// Play a match of 3 to 6 in-process players: the max-n search (mcts),
    /// greedy and random (multi-player Homeworlds, issue 10).
    MultiMatch {
        /// A player, in seat order for game 1: mcts, mcts-paranoid, greedy or random (3 to 6 of them).
        #[arg(long = "player", required = true, num_args = 1.., action = ArgAction::Append)]
        players: Vec<String>,
        /// Games to play; the seats rotate from game to game.
        #[arg(long, default_value_t = 3)]
        games: u32,
        /// Playouts per turn of the search.
        #[arg(long, default_value_t = 1_000)]
        iterations: u32,
        /// Victory condition: last, sinister or good-evil.
        #[arg(long, default_value = "last")]
        victory: String,
        /// Rule profile: standard, sdg or cli.
        #[arg(long, default_value = "standard")]
        rules: Rules,
        /// Turns (of all players together) before a game is stopped.
        #[arg(long, default_value_t = 150)]
        max_turns: u32,
        /// Seed of the random choices.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Directory for one SDG record per game.
        #[arg(long)]
        pgnout: Option<PathBuf>,
    },
    /// Play a game of 3 to 6 players in the terminal: `human` seats type
    /// their turns, `mcts`, `greedy` and `random` seats are played by the program.
    MultiPlay {
        /// A seat in turn order: human, mcts, greedy or random (3 to 6 of them).
        #[arg(long = "seat", required = true, num_args = 1.., action = ArgAction::Append)]
        seats: Vec<String>,
        /// Playouts per turn of the search.
        #[arg(long, default_value_t = 1_000)]
        iterations: u32,
        /// Victory condition: last or sinister.
        #[arg(long, default_value = "last")]
        victory: String,
        /// Rule profile: standard, sdg or cli.
        #[arg(long, default_value = "standard")]
        rules: Rules,
        /// Seed of the computer players.
        #[arg(long, default_value_t = 1)]
        seed: u64,
    },
    /// Replay SuperDuperGames records and judge every turn by the rules.
    Replay {
        /// Rule profile: standard, sdg or cli (SDG records need sdg).
        #[arg(long, default_value = "standard")]
        rules: Rules,
        /// Record files in the SDG archive format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Print the position before a turn of a SuperDuperGames record, in HWPN with names.
    Show {
        /// The record file.
        #[arg(long)]
        game: PathBuf,
        /// The site's turn number (one past the last turn shows the final position).
        #[arg(long)]
        turn: u32,
        /// Rule profile: standard, sdg or cli (SDG records need sdg).
        #[arg(long, default_value = "standard")]
        rules: Rules,
    },
    /// How often an evaluation's favoured side went on to win, over the
    /// positions of real games decided on the board: the hand evaluation
    /// and the learned one side by side.
    Accuracy {
        /// Rule profile: standard, sdg or cli (SDG records need sdg).
        #[arg(long, default_value = "sdg")]
        rules: Rules,
        /// A value network file (default: the built-in one).
        #[arg(long)]
        eval_file: Option<PathBuf>,
        /// Only the games `train --records` holds out (every fifth by number).
        #[arg(long)]
        held_out: bool,
        /// Record files in the SDG archive format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Serve the web GUI on a local address and print it: play against an
    /// engine, watch two engines, analyse a position, review an SDG record.
    /// Engines run as child processes driven through the protocol.
    Gui {
        /// The TCP port (0: any free port).
        #[arg(long, default_value_t = 8711)]
        port: u16,
        /// The address to listen on (loopback by default: the page controls engines).
        #[arg(long, default_value = "127.0.0.1")]
        bind: String,
        /// An engine command line, such as "supernova engine" (give it twice
        /// for two engines; default: this program's `engine` subcommand).
        #[arg(long = "engine", value_name = "CMD", action = ArgAction::Append)]
        engines: Vec<String>,
    },
    /// Print the openings file of `match` (positions/openings.txt): the
    /// pairs of homeworld setups people played most in SuperDuperGames
    /// records, leaving out homes without yellow and blue.
    Openings {
        /// How many openings to keep, the most frequent first.
        #[arg(long, default_value_t = 64,
              value_parser = RangedU64ValueParser::<usize>::new().range(1..=100_000))]
        count: usize,
        /// Print the setup book's table (src/search/played_setups.rs) instead.
        #[arg(long)]
        setups: bool,
        /// Record files in the SDG archive format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Fit the action priors' weights to the turns people played (maximum
    /// likelihood, held-out games reported) and print them as `name value`;
    /// with --search, to the visit counts of the engine's own searches from
    /// the records' positions instead.
    Priors {
        /// Rule profile: standard, sdg or cli (SDG records need sdg).
        #[arg(long, default_value = "sdg")]
        rules: Rules,
        /// At most this many decisions (a seeded sample) are used.
        #[arg(long, default_value_t = 40_000)]
        max_steps: usize,
        /// Fit to what a search of this many iterations prefers (one thread,
        /// the bare tree), at every node it visited --min-visits times; 0:
        /// fit to the turns people played.
        #[arg(long, default_value_t = 0)]
        search: u64,
        /// With --search: the start-of-turn positions searched (a seeded
        /// sample of the records').
        #[arg(long, default_value_t = 2000)]
        positions: usize,
        /// With --search: the visits a node needs to give a target.
        #[arg(long, default_value_t = 100)]
        min_visits: u32,
        /// Seed of the sample.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Record files in the SDG archive format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Train the value network by self-play (see the README): generations of
    /// self-play games, fitting, and an SPRT gate against the best so far.
    /// Resumes from DIR when started again with the same arguments.
    Train {
        /// The run's directory (data, networks, ladder.txt, best.net).
        #[arg(long, default_value = "train")]
        dir: PathBuf,
        /// Generations to reach.
        #[arg(long, default_value_t = 1)]
        generations: u32,
        /// Self-play games per generation.
        #[arg(long, default_value_t = 2048)]
        games: usize,
        /// Average nodes per self-play turn.
        #[arg(long, default_value_t = 300)]
        nodes: u64,
        /// Most games of each gate match.
        #[arg(long, default_value_t = 768)]
        gate_games: usize,
        /// Nodes per turn in the gate's first batch.
        #[arg(long, default_value_t = 600)]
        gate_nodes: u64,
        /// Hidden units of a new network.
        #[arg(long, default_value_t = 32)]
        hidden: usize,
        /// Passes over the data when fitting.
        #[arg(long, default_value_t = 6)]
        epochs: usize,
        /// Generations of data each candidate is fitted to.
        #[arg(long, default_value_t = 3)]
        window: u32,
        /// Weight of the game's result in the value target, from 0 to 1 (the
        /// rest is the search's value).
        #[arg(long, default_value_t = 0.5)]
        result_weight: f32,
        /// Discount of the game's result per turn left to its end, in (0, 1]
        /// (1 = none): a sooner win is worth more.
        #[arg(long, default_value_t = 1.0)]
        discount: f32,
        /// Adam's learning rate at the start (it falls to a tenth).
        #[arg(long, default_value_t = 0.002)]
        learning_rate: f32,
        /// Seed of everything random in the run.
        #[arg(long, default_value_t = 1)]
        seed: u64,
        /// Threads (0 = every core).
        #[arg(long, default_value_t = 0)]
        threads: usize,
        /// Recorded games (SDG records, replayed under sdg rules, or the
        /// records `match --pgnout` writes) whose positions join every fit,
        /// except every fifth game by number (held out for `accuracy
        /// --held-out`); an engine's per-turn score in them is the search
        /// value of the position.
        #[arg(long, num_args = 1..)]
        records: Vec<PathBuf>,
    },
}

/// The leaf evaluation, for the subcommands that search.
#[derive(clap::Args)]
struct EvalArguments {
    /// Leaf evaluation: hand (the hand-weighted features) or learned (the
    /// value network); default: the engine's default.
    #[arg(long)]
    eval: Option<Evaluation>,
    /// A value network file for --eval learned (default: the built-in one).
    #[arg(long)]
    eval_file: Option<PathBuf>,
}

impl EvalArguments {
    /// Default tunables with the chosen evaluation.
    fn tunables(&self) -> Result<Tunables, String> {
        let mut tunables = Tunables::default();
        let network = match &self.eval_file {
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .map_err(|error| format!("{}: {error}", path.display()))?;
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
struct SearchArguments {
    /// Time per search, in ms (when --nodes is not given: 1000, or 200 per turn for annotate).
    #[arg(long)]
    movetime: Option<u64>,
    /// Iterations per search (reproducible with one thread).
    #[arg(long)]
    nodes: Option<u64>,
    /// Search threads (at most twice this machine's processors, like the
    /// `Threads` option).
    #[arg(long, default_value_t = 1, value_parser = option_flag("Threads"))]
    threads: usize,
    /// Tree memory, in megabytes (at most half this machine's memory; the
    /// default is the `Hash` option's, committed only as the tree grows).
    #[arg(long, default_value_t = supernova::search::DEFAULT_HASH_MB, value_parser = option_flag("Hash"))]
    hash: usize,
    /// Random seed.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Which player: mcts, greedy or random.
    #[arg(long, default_value = "mcts")]
    player: PlayerKind,
    /// Rule profile: standard, sdg or cli (SDG archive records need sdg).
    #[arg(long, default_value = "standard")]
    rules: Rules,
    /// How turns are printed: sdg (`Build G1 Home0; Pass`), token or readable.
    #[arg(long, default_value = "sdg")]
    notation: Notation,
    #[command(flatten)]
    evaluation: EvalArguments,
}

impl SearchArguments {
    /// The search options and limits these arguments describe.
    fn settings(&self, multi_pv: usize, default_movetime: u64) -> Result<AnalysisSettings, String> {
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

/// Reads and parses every record file, stopping at the first that fails.
fn read_records(paths: &[PathBuf]) -> Result<Vec<GameRecord>, String> {
    paths.iter().map(|path| read_record(path)).collect()
}

/// Reads and parses one record file.
fn read_record(path: &Path) -> Result<GameRecord, String> {
    let text = std::fs::File::open(path)
        .and_then(supernova::notation::sdg::read_record_text)
        .map_err(|error| format!("{}: cannot read: {error}", path.display()))?;
    GameRecord::parse_sdg(&text).map_err(|error| format!("{}: {error}", path.display()))
}

/// Replays each file, printing one line per game and a summary line.
fn replay(rules: &Rules, files: &[PathBuf], out: &mut dyn Write) -> Result<(), Failure> {
    let (mut legal, mut illegal, mut skipped) = (0usize, 0usize, 0usize);
    let mut errors = Vec::new();
    for path in files {
        let record = match read_record(path) {
            Ok(record) => record,
            Err(message) => {
                writeln!(out, "{message}")?;
                errors.push(message);
                continue;
            }
        };
        let report = record.replay(rules);
        writeln!(out, "{}: {report}", path.display())?;
        match report.verdict {
            Verdict::Illegal(_) => illegal += 1,
            Verdict::Skipped(_) => skipped += 1,
            _ => legal += 1,
        }
    }
    if skipped > 0 {
        writeln!(out, "skipped {skipped} games")?;
    }
    writeln!(
        out,
        "replayed {} games: {legal} legal, {illegal} illegal",
        legal + illegal
    )?;
    out.flush()?;
    if let Some(first) = errors.first() {
        return Err(Failure::Error(format!(
            "{} files could not be read; the first: {first}",
            errors.len()
        )));
    }
    if illegal > 0 {
        return Err(Failure::IllegalGames);
    }
    Ok(())
}

/// Plays a multi-player match (src/tools/multi_match.rs).
#[allow(clippy::too_many_arguments)]
fn multi_match(
    players: &[String],
    games: u32,
    iterations: u32,
    victory: &str,
    rules: Rules,
    max_turns: u32,
    seed: u64,
    record_dir: Option<PathBuf>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    use supernova::tools::multi_match::{self, MultiMatchConfig};
    let config = MultiMatchConfig {
        players: multi_match::parse_players(players, iterations, seed)?,
        games,
        rules,
        victory: victory.parse()?,
        max_turns,
        seed,
        record_dir,
    };
    multi_match::run(&config, out)?;
    Ok(())
}

/// Plays a multi-player game in the terminal (src/tools/multi_play.rs).
fn multi_play(
    seats: &[String],
    iterations: u32,
    victory: &str,
    rules: Rules,
    seed: u64,
) -> Result<(), Failure> {
    use supernova::tools::multi_play::{self, MultiPlaySettings};
    let settings = MultiPlaySettings {
        seats: multi_play::parse_seats(seats, iterations, seed)?,
        rules,
        victory: multi_play::parse_victory(victory)?,
        seed,
    };
    multi_play::run(
        &settings,
        &mut std::io::stdin().lock(),
        &mut std::io::stdout().lock(),
    )?;
    Ok(())
}

/// Prints the position before a turn of a record.
fn show(rules: &Rules, game: &Path, turn: u32, out: &mut dyn Write) -> Result<(), Failure> {
    let record = read_record(game)?;
    if record.is_multi_player() {
        let board = record
            .multi_board_before(rules, turn)
            .map_err(|error| format!("{}: {error}", game.display()))?;
        writeln!(out, "{}", supernova::notation::multi::write_board(&board))?;
        return Ok(());
    }
    let board = record
        .board_before(rules, turn)
        .map_err(|error| format!("{}: {error}", game.display()))?;
    writeln!(out, "{}", hwpn::write_board(&board))?;
    out.flush()?;
    Ok(())
}

/// Runs the search benchmark and prints its report.
fn bench(
    nodes: u64,
    options: SearchOptions,
    file: Option<&Path>,
    out: &mut dyn Write,
) -> Result<(), Failure> {
    use supernova::search::bench;
    use supernova::tools::bench::{parse_positions, BENCH_POSITIONS};
    let text = match file {
        Some(path) => {
            std::fs::read_to_string(path).map_err(|error| format!("{}: {error}", path.display()))?
        }
        None => BENCH_POSITIONS.to_string(),
    };
    let positions = parse_positions(&text).map_err(|error| {
        let name = file.map_or("bench positions".to_string(), |path| {
            path.display().to_string()
        });
        format!("{name}: {error}")
    })?;
    let searched: Vec<_> = positions.iter().map(|entry| entry.position).collect();
    let report = bench::run(&searched, nodes, &options);
    for (index, (entry, position)) in report.entries.iter().zip(&positions).enumerate() {
        writeln!(
            out,
            "position {:>2}: {:>8} nodes {:>9.0} nps  {}",
            index + 1,
            entry.nodes,
            entry.nodes as f64 / entry.elapsed.as_secs_f64().max(1e-9),
            position.source
        )?;
    }
    let tree_nodes: u64 = report.entries.iter().map(|entry| entry.tree_nodes).sum();
    let tree_bytes: u64 = report.entries.iter().map(|entry| entry.tree_bytes).sum();
    writeln!(out, "Positions: {}", positions.len())?;
    writeln!(out, "Nodes: {}", report.nodes)?;
    writeln!(out, "Signature: {:016x}", report.signature)?;
    writeln!(out, "Nodes/second: {:.0}", report.nodes_per_second())?;
    writeln!(
        out,
        "Bytes/node: {:.0}",
        tree_bytes as f64 / tree_nodes.max(1) as f64
    )?;
    let mut phases = supernova::search::PhaseTimes::default();
    for entry in &report.entries {
        phases.add(&entry.phases);
    }
    if phases.iterations > 0 {
        // Built with the `phase-timing` feature: ticks per iteration, summed
        // over the threads.
        let per = |ticks: u64| ticks as f64 / phases.iterations as f64;
        writeln!(
            out,
            "Ticks/iteration: select {:.0} expand {:.0} advance {:.0} create {:.0} backup {:.0} total {:.0}",
            per(phases.select),
            per(phases.expand),
            per(phases.advance),
            per(phases.create),
            per(phases.backup),
            per(phases.total)
        )?;
    }
    out.flush()?;
    Ok(())
}

/// Benchmark position A of the reference engine (27,635 turns under `cli`).
const BENCHMARK_A: &str =
    "Player1=y1b3:r1:/Player2=b3:y2y3g1b3:r2g2/Beta=b1:g1:/Alpha=b1:r1:/Delta=b2:g1:/Gamma=b2:r1: 0";

/// Benchmark position B of the reference engine: a middle game with 33,332
/// turns under `cli`, the default subject of `analyse`.
const BENCHMARK_B: &str = "Sam=y1b3:r1g3:/Dave=r2y1::g1b3/Fritz=b2:y3g1:/Delos=b3:r1:/Lebling=g2:r1y1b2:/Minsky=g2:r2:/Licklider=g2:r2:/Kotok=g3:r3:/Shrdlu=r3::b1/Frotz=r3::g1b1 0";

/// Reads a position given as HWPN or as homeworlds-cli state text.
fn read_position(text: &str, side: u8) -> Result<Board, String> {
    let side = Player::from_index(side as usize)
        .ok_or_else(|| format!("--side {side}: expected 0 or 1"))?;
    if text.trim() == "startpos" {
        Ok(Board::default())
    } else if text.contains('(') {
        cli::parse(text, side).map_err(|error| format!("bad position: {error}"))
    } else {
        hwpn::parse(text).map_err(|error| format!("bad position: {error}"))
    }
}

/// The arguments of `supernova match`, gathered for [`start_match`].
struct MatchArguments {
    engines: Vec<Vec<String>>,
    each: Vec<String>,
    games: Option<usize>,
    concurrency: usize,
    openings: Option<PathBuf>,
    limits: TurnLimits,
    tc: Option<String>,
    rules: Rules,
    max_turns: u32,
    repetitions: u32,
    margin: u64,
    timeout: u64,
    pgnout: Option<PathBuf>,
    log: Option<PathBuf>,
    sprt: Option<Vec<String>>,
    resign: Option<Vec<String>>,
    victory: Option<String>,
    seed: u64,
}

/// The words of each `--engine` occurrence, grouped: the derived field
/// flattens them, so they are read again from the command line's matches.
fn engine_groups() -> Vec<Vec<String>> {
    let matches = Arguments::command().get_matches();
    matches
        .subcommand_matches("match")
        .and_then(|matches| matches.get_occurrences::<String>("engines"))
        .map(|groups| groups.map(|group| group.cloned().collect()).collect())
        .unwrap_or_default()
}

/// Builds the match configuration and runs it on stdout.
fn start_match(arguments: MatchArguments) -> Result<(), Failure> {
    if (3..=6).contains(&arguments.engines.len()) {
        return start_multi_match(arguments);
    }
    if arguments.victory.is_some() {
        return Err(Failure::Error(
            "--victory: only for a match of 3 to 6 engines".to_string(),
        ));
    }
    if arguments.engines.len() != 2 {
        return Err(Failure::Error(format!(
            "--engine given {} times: expected exactly two engines (or 3 to 6 for a multi-player match)",
            arguments.engines.len()
        )));
    }
    let mut engines = [EngineConfig::default(), EngineConfig::default()];
    for (config, words) in engines.iter_mut().zip(&arguments.engines) {
        config.apply(&arguments.each)?;
        config.apply(words)?;
    }
    let mut limits = arguments.limits;
    if let Some(tc) = &arguments.tc {
        limits.clock = Some(match_runner::parse_time_control(tc)?);
    }
    let no_limits = limits.is_empty() && engines.iter().any(|engine| engine.limits.is_empty());
    if no_limits {
        return Err(Failure::Error(
            "no turn limit: give --movetime, --nodes or --tc (or movetime=/nodes=/tc= per engine)"
                .to_string(),
        ));
    }
    let openings_text = match &arguments.openings {
        Some(path) => std::fs::read_to_string(path)
            .map_err(|error| format!("{}: cannot read: {error}", path.display()))?,
        None => match_runner::DEFAULT_OPENINGS.to_string(),
    };
    let openings = match_runner::parse_openings(&openings_text, &arguments.rules)?;
    if arguments.repetitions < 2 {
        return Err(Failure::Error(
            "--repetitions: expected 2 or more".to_string(),
        ));
    }
    let sprt = arguments.sprt.as_deref().map(Sprt::parse).transpose()?;
    let resign = arguments
        .resign
        .as_deref()
        .map(match_runner::Resign::parse)
        .transpose()?;
    let program = std::env::current_exe()
        .map_err(|error| format!("cannot find this program to run as an engine: {error}"))?;
    let config = MatchConfig {
        engines,
        limits,
        games: arguments.games.unwrap_or(2 * openings.len()),
        openings,
        concurrency: arguments.concurrency.max(1),
        rules: arguments.rules,
        max_turns: arguments.max_turns,
        repetitions: arguments.repetitions,
        margin: std::time::Duration::from_millis(arguments.margin),
        turn_timeout: std::time::Duration::from_millis(arguments.timeout),
        transcripts: arguments.pgnout,
        logs: arguments.log,
        sprt,
        resign,
        default_program: program.display().to_string(),
        default_arguments: vec!["engine".to_string()],
    };
    match_runner::run_match(&config, &mut std::io::stdout())?;
    Ok(())
}

/// Builds a match of 3 to 6 engines (src/tools/match_runner/multi.rs) and
/// runs it on stdout; the two-player-only settings are refused.
fn start_multi_match(arguments: MatchArguments) -> Result<(), Failure> {
    if arguments.openings.is_some() || arguments.sprt.is_some() || arguments.resign.is_some() {
        return Err(Failure::Error(
            "--openings, --sprt and --resign are for two-engine matches only".to_string(),
        ));
    }
    let mut engines = vec![EngineConfig::default(); arguments.engines.len()];
    for (config, words) in engines.iter_mut().zip(&arguments.engines) {
        config.apply(&arguments.each)?;
        config.apply(words)?;
    }
    let mut limits = arguments.limits;
    if let Some(tc) = &arguments.tc {
        limits.clock = Some(match_runner::parse_time_control(tc)?);
    }
    let program = std::env::current_exe()
        .map_err(|error| format!("cannot find this program to run as an engine: {error}"))?;
    let config = match_runner::MultiEngineMatch {
        engines,
        victory: arguments.victory.unwrap_or_else(|| "last".to_string()),
        limits,
        games: arguments.games.unwrap_or(arguments.engines.len() * 10),
        concurrency: arguments.concurrency.max(1),
        rules: arguments.rules,
        max_turns: if arguments.max_turns == 0 {
            u32::MAX
        } else {
            arguments.max_turns
        },
        margin: std::time::Duration::from_millis(arguments.margin),
        turn_timeout: std::time::Duration::from_millis(arguments.timeout),
        transcripts: arguments.pgnout,
        logs: arguments.log,
        seed: arguments.seed,
        default_program: program.display().to_string(),
        default_arguments: vec!["engine".to_string()],
    };
    match_runner::run_multi_match(&config, &mut std::io::stdout())?;
    Ok(())
}

/// The end of a tool that writes to stdout.
fn finish_output<T>(result: std::io::Result<T>) -> Result<(), Failure> {
    result.map(|_| ()).map_err(Failure::Output)
}

fn run(arguments: Arguments) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    match arguments.command {
        Some(Command::Analyse {
            position,
            side,
            game,
            turn,
            search,
            multipv,
        }) => {
            let settings = search.settings(multipv, 1000)?;
            let subject = match (game, turn) {
                (Some(game), Some(turn)) => {
                    let record = read_record(&game)?;
                    Subject::from_record(&record, &settings.options.rules, turn)
                        .map_err(|error| format!("{}: {error}", game.display()))?
                }
                _ => {
                    let text = position.as_deref().unwrap_or(BENCHMARK_B);
                    Subject::position(read_position(text, side)?)
                }
            };
            finish_output(analyse::analyse(&subject, &settings, &mut stdout.lock()))
        }
        Some(Command::Annotate { game, search }) => {
            let settings = search.settings(1, 200)?;
            let record = read_record(&game)?;
            if let Some(reason) = record.unsupported() {
                return Err(Failure::Error(format!(
                    "{}: cannot annotate: {reason}",
                    game.display()
                )));
            }
            finish_output(analyse::annotate(&record, &settings, &mut stdout.lock()))
        }
        Some(Command::Play {
            side,
            position,
            search,
        }) => {
            let settings = search.settings(1, 1000)?;
            let human = Player::from_index(side as usize)
                .ok_or_else(|| format!("--side {side}: expected 0 or 1"))?;
            let start = match position {
                Some(text) => read_position(&text, 0)?,
                None => Board::default(),
            };
            let settings = PlaySettings {
                human,
                start,
                options: settings.options,
                limits: settings.limits,
            };
            let stdin = std::io::stdin();
            finish_output(play::play(&settings, &mut stdin.lock(), &mut stdout.lock()))
        }
        Some(Command::Match {
            engines: _,
            each,
            games,
            concurrency,
            openings,
            movetime,
            nodes,
            tc,
            rules,
            max_turns,
            repetitions,
            margin,
            timeout,
            pgnout,
            log,
            sprt,
            resign,
            victory,
            seed,
        }) => start_match(MatchArguments {
            engines: engine_groups(),
            each,
            games,
            concurrency,
            openings,
            limits: TurnLimits {
                movetime,
                nodes,
                clock: None,
            },
            tc,
            rules,
            max_turns,
            repetitions,
            margin,
            timeout,
            pgnout,
            log,
            sprt,
            resign,
            victory,
            seed,
        }),
        Some(Command::Count {
            rules,
            side,
            position,
        }) => {
            let board = read_position(&position, side)?;
            let mut out = stdout.lock();
            writeln!(out, "{}", board.position.count_turns(&rules))?;
            out.flush()?;
            Ok(())
        }
        Some(Command::Bench {
            nodes,
            threads,
            hash,
            file,
            evaluation,
        }) => {
            let options = SearchOptions {
                threads,
                hash_mb: hash,
                tunables: evaluation.tunables()?,
                ..supernova::search::bench::default_options()
            };
            bench(nodes, options, file.as_deref(), &mut stdout.lock())
        }
        Some(Command::MultiMatch {
            players,
            games,
            iterations,
            victory,
            rules,
            max_turns,
            seed,
            pgnout,
        }) => multi_match(
            &players,
            games,
            iterations,
            &victory,
            rules,
            max_turns,
            seed,
            pgnout,
            &mut stdout.lock(),
        ),
        Some(Command::MultiPlay {
            seats,
            iterations,
            victory,
            rules,
            seed,
        }) => multi_play(&seats, iterations, &victory, rules, seed),
        Some(Command::Replay { rules, files }) => replay(&rules, &files, &mut stdout.lock()),
        Some(Command::Show { game, turn, rules }) => show(&rules, &game, turn, &mut stdout.lock()),
        Some(Command::Train {
            dir,
            generations,
            games,
            nodes,
            gate_games,
            gate_nodes,
            hidden,
            epochs,
            window,
            result_weight,
            discount,
            learning_rate,
            seed,
            threads,
            records,
        }) => {
            if !(0.0..=1.0).contains(&result_weight) {
                return Err(Failure::Error(format!(
                    "--result-weight {result_weight}: expected a number from 0 to 1"
                )));
            }
            if !(discount > 0.0 && discount <= 1.0) {
                return Err(Failure::Error(format!(
                    "--discount {discount}: expected a number above 0, at most 1"
                )));
            }
            if !(learning_rate > 0.0 && learning_rate <= 1.0) {
                return Err(Failure::Error(format!(
                    "--learning-rate {learning_rate}: expected a number above 0, at most 1"
                )));
            }
            let real_games = read_records(&records)?;
            let config = supernova::tools::train::TrainConfig {
                directory: dir,
                generations,
                games: games.max(1),
                nodes: nodes.max(2),
                gate_games,
                gate_nodes: gate_nodes.max(1),
                hidden: hidden.clamp(1, supernova::search::network::MAX_HIDDEN),
                epochs,
                window: window.max(1),
                result_weight,
                discount,
                learning_rate,
                seed,
                threads,
                records: real_games,
                ..Default::default()
            };
            supernova::tools::train::train(&config, &mut stdout.lock()).map_err(Failure::from)
        }
        Some(Command::Accuracy {
            rules,
            eval_file,
            held_out,
            files,
        }) => {
            let records = read_records(&files)?;
            let records: Vec<&GameRecord> = records
                .iter()
                .filter(|record| !held_out || supernova::tools::train::is_held_out(record))
                .collect();
            let hand = EvalArguments {
                eval: Some(Evaluation::Hand),
                eval_file: None,
            };
            let learned = EvalArguments {
                eval: Some(Evaluation::Learned),
                eval_file,
            };
            let evaluations = [hand.tunables()?, learned.tunables()?];
            let (accuracies, games) =
                supernova::tools::train::value_accuracy(&records, &rules, &evaluations);
            let mut out = stdout.lock();
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
        Some(Command::Priors {
            rules,
            max_steps,
            search,
            positions,
            min_visits,
            seed,
            files,
        }) => {
            let records = read_records(&files)?;
            let fit = if search > 0 {
                supernova::tools::priors::fit_priors_to_search(
                    &records, &rules, positions, search, min_visits, seed,
                )
            } else {
                supernova::tools::priors::fit_priors(&records, &rules, max_steps, seed)
            };
            let mut out = stdout.lock();
            writeln!(
                out,
                "# {} decisions fitted, {} held out: log-likelihood {:.4} -> {:.4}, top-1 {:.1}% -> {:.1}%",
                fit.steps.0,
                fit.steps.1,
                fit.log_likelihood.0,
                fit.log_likelihood.1,
                100.0 * fit.top_one.0,
                100.0 * fit.top_one.1
            )?;
            for (name, value) in supernova::tools::priors::FITTED.iter().zip(&fit.values) {
                writeln!(out, "{name} {value:.2}")?;
            }
            out.flush()?;
            Ok(())
        }
        Some(Command::Gui {
            port,
            bind,
            engines,
        }) => Ok(supernova::tools::gui::serve(&bind, port, &engines)?),
        Some(Command::Engine) | None => {
            protocol::run(std::io::stdin(), std::io::stdout());
            Ok(())
        }
        Some(Command::Openings {
            count,
            setups,
            files,
        }) => {
            use supernova::tools::openings;
            let gathered = openings::gather(&openings::read_records(&files)?);
            if gathered.openings.is_empty() {
                return Err(Failure::Error(
                    "no game in these records has two usable setups".to_string(),
                ));
            }
            let described = openings::describe_files(&files);
            let mut out = stdout.lock();
            finish_output(if setups {
                openings::write_setups(&gathered, &described, &mut out)
            } else {
                openings::write_openings(&gathered, count, &described, &mut out)
            })
        }
    }
}

fn main() -> ExitCode {
    match run(Arguments::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Error(message)) => {
            // Nothing more can be done if stderr is closed too.
            let _ = writeln!(std::io::stderr(), "error: {message}");
            ExitCode::from(EXIT_ERROR)
        }
        Err(Failure::IllegalGames) => ExitCode::from(EXIT_ILLEGAL),
        Err(Failure::Output(error)) if error.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(Failure::Output(error)) => {
            let _ = writeln!(std::io::stderr(), "error: cannot write the output: {error}");
            ExitCode::from(EXIT_ERROR)
        }
    }
}
