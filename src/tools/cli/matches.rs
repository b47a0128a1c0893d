//! The subcommands that play whole games: `match` (engines as child
//! processes, two of them or 3 to 6), `multi-match` and `multi-play` (the
//! in-process players of multi-player Homeworlds) and `gui`.
//!
//! `match` builds one of two configurations from the same arguments: a
//! two-engine match has openings, a sequential test and resign
//! adjudication, a match of 3 to 6 engines has a victory condition and a
//! seed. The engines, their limits and the program to run are read the same
//! way for both.

use std::io::{BufRead, Write};
use std::path::PathBuf;
use std::time::Duration;

use clap::builder::RangedU64ValueParser;
use clap::ArgAction;

use super::Failure;
use crate::rules::multi::{Victory, MAX_PLAYERS};
use crate::rules::Rules;
use crate::tools::match_runner::{
    self, EngineConfig, MatchConfig, MultiEngineMatch, Resign, TurnLimits,
};
use crate::tools::stats::Sprt;
use crate::tools::{multi_match, multi_play};

/// The most games `match` plays at once.
const MAX_CONCURRENCY: u64 = 1024;

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
#[derive(clap::Args)]
pub struct MatchArguments {
    /// An engine: KEY=VALUE words (give --engine twice: A, then B; or 3 to 6 times for a multi-player match).
    #[arg(id = "engines", long = "engine", required_unless_present = "merge", num_args = 1.., value_name = "KEY=VALUE", action = ArgAction::Append)]
    pub engine_words: Vec<String>,
    /// The words of each `--engine`, one list an engine. The derive without
    /// clap's unstable features reads a repeated flag into one flat list
    /// (`engine_words`), so [`super::Arguments::try_parse_words`] fills
    /// this from the occurrences clap keeps.
    #[arg(skip)]
    pub engines: Vec<Vec<String>>,
    /// KEY=VALUE words applied to both engines before their own.
    #[arg(long, num_args = 1.., value_name = "KEY=VALUE")]
    pub each: Vec<String>,
    /// Games to play (each opening twice, colours swapped); default: every opening twice.
    #[arg(long)]
    pub games: Option<usize>,
    /// Games played at once.
    #[arg(long, default_value_t = 1,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=MAX_CONCURRENCY))]
    pub concurrency: usize,
    /// Openings file: HWPN positions after both setup turns, one a line (default: positions/openings.txt, built in).
    #[arg(long)]
    pub openings: Option<PathBuf>,
    /// Fixed time per turn, in ms.
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Node limit per turn.
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Clock per game: SECONDS[+INCREMENT], such as 10+0.1.
    #[arg(long)]
    pub tc: Option<String>,
    /// Rule profile the referee applies: standard, sdg or cli.
    #[arg(long, default_value = "standard")]
    pub rules: Rules,
    /// Turns after the opening before a game is drawn (0 = no limit).
    #[arg(long, default_value_t = 200)]
    pub max_turns: u32,
    /// Occurrences of a position that draw the game.
    #[arg(long, default_value_t = 3)]
    pub repetitions: u32,
    /// Grace time past the limit before a silent engine loses, in ms.
    #[arg(long, default_value_t = 1000)]
    pub margin: u64,
    /// Time to wait for a turn when only a node limit is set, in ms.
    #[arg(long, default_value_t = 60_000)]
    pub timeout: u64,
    /// Directory for one SDG record per game (`supernova replay` reads them).
    #[arg(long, value_name = "DIR")]
    pub pgnout: Option<PathBuf>,
    /// Directory for one protocol log per engine and game (lines sent, received, and stderr).
    #[arg(long, value_name = "DIR")]
    pub log: Option<PathBuf>,
    /// Sequential test: elo0=0 elo1=5 alpha=0.05 beta=0.05; stops when decided.
    #[arg(long, num_args = 4, value_name = "KEY=VALUE")]
    pub sprt: Option<Vec<String>>,
    /// Resign adjudication, as cutechess-cli's: movecount=3 score=900 [twosided=true] scores a game lost for an engine that reported -900 cp (a value of -0.9) or lower on 3 of its turns in a row (twosided: while its opponent reported +900 or higher on as many).
    #[arg(long, num_args = 2..=3, value_name = "KEY=VALUE")]
    pub resign: Option<Vec<String>>,
    /// Victory condition of a match of 3 to 6 engines: last, sinister or good-evil.
    #[arg(long)]
    pub victory: Option<String>,
    /// Seed of a match of 3 to 6 engines: the Good-versus-Evil deals and each engine's Seed option.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Slices of a match played on several machines, and their merge.
    #[command(flatten)]
    pub slices: Box<SliceArguments>,
}

/// The flags that spread one match over machines: each plays a slice of
/// the game numbers and writes results files, and `--merge` reads them all
/// back (boxed: the command-line enum keeps its variants of similar size).
#[derive(clap::Args, Default)]
pub struct SliceArguments {
    /// Play only these games of the match, such as 1-4,9 (numbers from 1 to --games): game N gets the same opening and seats as in the whole match, so slices played on several machines make up the match (see --merge).
    #[arg(long, value_name = "LIST")]
    pub games_list: Option<String>,
    /// Directory for one results file per game (game-NNNN.result: number, opening, seats, score, ending; what --merge reads).
    #[arg(long, value_name = "DIR")]
    pub results: Option<PathBuf>,
    /// The bench signature of the build playing (as `supernova bench` prints it), written into every record and results file.
    #[arg(long, value_name = "SIGNATURE")]
    pub build: Option<String>,
    /// Print the closing lines (score, Elo, SPRT with --sprt) of the match whose --results files are in these directories; a game found twice counts once, two copies that differ are an error.
    #[arg(long, num_args = 1.., value_name = "DIR",
          conflicts_with_all = ["engines", "each", "games_list", "results", "pgnout", "log", "build", "resign"])]
    pub merge: Vec<PathBuf>,
}

impl MatchArguments {
    /// Plays the match, writing its progress and summary to `out`.
    ///
    /// # Errors
    /// Settings that do not fit together or cannot be read, or an engine
    /// that cannot start (see [`match_runner::run_match`]).
    pub fn run(self, out: &mut (dyn Write + Send)) -> Result<(), Failure> {
        if !self.slices.merge.is_empty() {
            let sprt = self.sprt.as_deref().map(Sprt::parse).transpose()?;
            match_runner::merge_results(&self.slices.merge, sprt.as_ref(), out)?;
        } else if (3..=MAX_PLAYERS).contains(&self.engines.len()) {
            match_runner::run_multi_match(&self.multi_player_config()?, out)?;
        } else {
            match_runner::run_match(&self.two_player_config()?, out)?;
        }
        Ok(())
    }

    /// The configuration of a two-engine match.
    ///
    /// # Errors
    /// Not two engines, a multi-player setting, no turn limit, or a setting
    /// that cannot be read.
    pub fn two_player_config(&self) -> Result<MatchConfig, String> {
        if self.victory.is_some() {
            return Err("--victory: only for a match of 3 to 6 engines".to_string());
        }
        let count_error = || {
            format!(
                "--engine given {} times: expected exactly two engines (or 3 to 6 for a multi-player match)",
                self.engines.len()
            )
        };
        if self.engines.len() != 2 {
            return Err(count_error());
        }
        let engines: [EngineConfig; 2] = self
            .engine_configs()?
            .try_into()
            .map_err(|_| count_error())?;
        let limits = self.limits()?;
        if limits.is_empty() && engines.iter().any(|engine| engine.limits.is_empty()) {
            return Err(
                "no turn limit: give --movetime, --nodes or --tc (or movetime=/nodes=/tc= per engine)"
                    .to_string(),
            );
        }
        let openings_text = match &self.openings {
            Some(path) => crate::files::read_bounded_text(path, crate::files::MAX_LIST_BYTES)
                .map_err(|error| format!("{}: {}", path.display(), error.message("openings")))?,
            None => match_runner::DEFAULT_OPENINGS.to_string(),
        };
        let openings = match_runner::parse_openings(&openings_text, &self.rules)?;
        if self.repetitions < 2 {
            return Err("--repetitions: expected 2 or more".to_string());
        }
        let sprt = self.sprt.as_deref().map(Sprt::parse).transpose()?;
        let resign = self.resign.as_deref().map(Resign::parse).transpose()?;
        let games = self.games.unwrap_or(2 * openings.len());
        let numbers = self
            .slices
            .games_list
            .as_deref()
            .map(|list| match_runner::parse_numbers(list, 1..=games, "--games-list"))
            .transpose()?;
        if numbers.is_some() && sprt.is_some() {
            return Err("--sprt with --games-list: a slice of a match cannot decide the test; give --sprt to the --merge of all the slices' results".to_string());
        }
        if let Some(build) = &self.slices.build {
            if build.is_empty()
                || build.len() > 64
                || !build.chars().all(|c| c.is_ascii_alphanumeric())
            {
                return Err(format!(
                    "--build '{}': expected a bench signature, such as bb2eb7228962400e (letters and digits, at most 64)",
                    crate::notation::error::excerpt(build)
                ));
            }
        }
        Ok(MatchConfig {
            engines,
            limits,
            games,
            numbers,
            results: self.slices.results.clone(),
            build: self.slices.build.clone(),
            openings,
            concurrency: self.concurrency.max(1),
            rules: self.rules,
            max_turns: self.max_turns,
            repetitions: self.repetitions,
            margin: Duration::from_millis(self.margin),
            turn_timeout: Duration::from_millis(self.timeout),
            transcripts: self.pgnout.clone(),
            logs: self.log.clone(),
            sprt,
            resign,
            default_program: own_program()?,
            default_arguments: vec!["engine".to_string()],
        })
    }

    /// The configuration of a match of 3 to 6 engines; the turn limit is
    /// checked when it starts.
    ///
    /// # Errors
    /// A two-player-only setting, or a setting that cannot be read.
    pub fn multi_player_config(&self) -> Result<MultiEngineMatch, String> {
        if self.openings.is_some()
            || self.sprt.is_some()
            || self.resign.is_some()
            || self.slices.games_list.is_some()
            || self.slices.results.is_some()
            || self.slices.build.is_some()
        {
            return Err(
                "--openings, --sprt, --resign, --games-list, --results and --build are for two-engine matches only".to_string(),
            );
        }
        let engines = self.engine_configs()?;
        let limits = self.limits()?;
        let victory = Victory::from_word(self.victory.as_deref().unwrap_or("last"))
            .map_err(|error| format!("--victory: {error}"))?;
        Ok(MultiEngineMatch {
            victory,
            limits,
            games: self.games.unwrap_or(engines.len() * 10),
            engines,
            concurrency: self.concurrency.max(1),
            rules: self.rules,
            max_turns: if self.max_turns == 0 {
                u32::MAX
            } else {
                self.max_turns
            },
            margin: Duration::from_millis(self.margin),
            turn_timeout: Duration::from_millis(self.timeout),
            transcripts: self.pgnout.clone(),
            logs: self.log.clone(),
            seed: self.seed,
            default_program: own_program()?,
            default_arguments: vec!["engine".to_string()],
        })
    }

    /// Each engine's configuration: the `--each` words, then its own.
    fn engine_configs(&self) -> Result<Vec<EngineConfig>, String> {
        self.engines
            .iter()
            .map(|words| {
                let mut config = EngineConfig::default();
                config.apply(&self.each)?;
                config.apply(words)?;
                Ok(config)
            })
            .collect()
    }

    /// The limits every engine gets (each may add its own).
    fn limits(&self) -> Result<TurnLimits, String> {
        let clock = self
            .tc
            .as_deref()
            .map(match_runner::parse_time_control)
            .transpose()?;
        Ok(TurnLimits {
            movetime: self.movetime,
            nodes: self.nodes,
            clock,
        })
    }
}

/// This program, the engine an `--engine` without `cmd=` runs.
fn own_program() -> Result<String, String> {
    std::env::current_exe()
        .map(|program| program.display().to_string())
        .map_err(|error| format!("cannot find this program to run as an engine: {error}"))
}

/// Play a match of 3 to 6 in-process players: the max-n search (mcts),
/// greedy and random (multi-player Homeworlds).
#[derive(clap::Args)]
pub struct MultiMatchArguments {
    /// A player, in seat order for game 1: mcts, mcts-paranoid, mcts-next (the safety check on the next player only), greedy or random (3 to 6 of them).
    #[arg(long = "player", required = true, num_args = 1.., action = ArgAction::Append)]
    pub players: Vec<String>,
    /// Games to play; the seats rotate from game to game.
    #[arg(long, default_value_t = 3)]
    pub games: u32,
    /// Playouts per turn of the search.
    #[arg(long, default_value_t = 1_000)]
    pub iterations: u32,
    /// Threads of each search (the playouts are shared between them).
    #[arg(long, default_value_t = 1,
          value_parser = RangedU64ValueParser::<usize>::new().range(1..=1024))]
    pub threads: usize,
    /// Victory condition: last, sinister or good-evil.
    #[arg(long, default_value = "last")]
    pub victory: String,
    /// Rule profile: standard, sdg or cli.
    #[arg(long, default_value = "standard")]
    pub rules: Rules,
    /// Turns (of all players together) before a game is stopped.
    #[arg(long, default_value_t = 150)]
    pub max_turns: u32,
    /// Seed of the random choices.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Directory for one SDG record per game.
    #[arg(long)]
    pub pgnout: Option<PathBuf>,
}

impl MultiMatchArguments {
    /// Plays the match, writing a line per game and the totals to `out`.
    ///
    /// # Errors
    /// An unknown player or victory condition, or a failed write.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        let config = multi_match::MultiMatchConfig {
            players: multi_match::parse_players_on(
                &self.players,
                self.iterations,
                self.seed,
                self.threads,
            )?,
            games: self.games,
            rules: self.rules,
            victory: Victory::from_word(&self.victory)?,
            max_turns: self.max_turns,
            seed: self.seed,
            record_dir: self.pgnout,
        };
        multi_match::run(&config, out)?;
        Ok(())
    }
}

/// Play a game of 3 to 6 players in the terminal: `human` seats type
/// their turns, `mcts`, `greedy` and `random` seats are played by the program.
#[derive(clap::Args)]
pub struct MultiPlayArguments {
    /// A seat in turn order: human, mcts, greedy or random (3 to 6 of them).
    #[arg(long = "seat", required = true, num_args = 1.., action = ArgAction::Append)]
    pub seats: Vec<String>,
    /// Playouts per turn of the search.
    #[arg(long, default_value_t = 1_000)]
    pub iterations: u32,
    /// Victory condition: last or sinister.
    #[arg(long, default_value = "last")]
    pub victory: String,
    /// Rule profile: standard, sdg or cli.
    #[arg(long, default_value = "standard")]
    pub rules: Rules,
    /// Seed of the computer players.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
}

impl MultiPlayArguments {
    /// Plays the game, reading the human seats' turns from `input`.
    ///
    /// # Errors
    /// An unknown seat or victory condition, or a failed read or write.
    pub fn run(self, input: &mut dyn BufRead, out: &mut dyn Write) -> Result<(), Failure> {
        let settings = multi_play::MultiPlaySettings {
            seats: multi_play::parse_seats(&self.seats, self.iterations, self.seed)?,
            rules: self.rules,
            victory: multi_play::parse_victory(&self.victory)?,
            seed: self.seed,
        };
        multi_play::run(&settings, input, out)?;
        Ok(())
    }
}

/// Serve the web GUI on a local address and print it: play against an
/// engine, watch two engines, analyse a position, review an SDG record.
/// Engines run as child processes driven through the protocol.
#[derive(clap::Args)]
pub struct GuiArguments {
    /// The TCP port (0: any free port).
    #[arg(long, default_value_t = 8711)]
    pub port: u16,
    /// The address to listen on (loopback by default: the page controls engines).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: String,
    /// An engine command line, such as "supernova engine" (give it twice
    /// for two engines; default: this program's `engine` subcommand).
    #[arg(long = "engine", value_name = "CMD", action = ArgAction::Append)]
    pub engines: Vec<String>,
    /// Another host name (or address) the page may be opened under, such
    /// as localhost, or the machine's name with --bind 0.0.0.0; give it
    /// once per name. Requests that name any other host are refused, so
    /// that another site's page cannot reach the GUI under its own name
    /// (DNS rebinding).
    #[arg(long = "allow-host", value_name = "NAME", action = ArgAction::Append)]
    pub allowed_hosts: Vec<String>,
}

impl GuiArguments {
    /// Binds, writes `Supernova GUI: http://host:port/` to `out` (the line a
    /// person opens and the GUI test reads) and serves the GUI until the
    /// program is stopped.
    ///
    /// # Errors
    /// A bad engine command, the address cannot be listened on, or `out`
    /// cannot be written.
    pub fn run(self, out: &mut dyn Write) -> Result<(), Failure> {
        let gui = crate::tools::gui::Gui::bind(
            &self.bind,
            self.port,
            &self.engines,
            &self.allowed_hosts,
        )?;
        writeln!(out, "Supernova GUI: {}", gui.url())?;
        out.flush()?;
        gui.run();
        Ok(())
    }
}
