//! The `supernova` binary: command-line front end. Only this layer turns
//! errors into exit codes.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use supernova::notation::{cli, hwpn, Board};
use supernova::protocol::{self, Misbehave};
use supernova::record::{GameRecord, Verdict};
use supernova::rules::{Player, Rules};

/// Exit status when every game replayed but some broke the rules.
const EXIT_ILLEGAL: u8 = 1;
/// Exit status for bad usage, unreadable files and other errors.
const EXIT_ERROR: u8 = 2;

/// What `run` reports besides success: a failure message, or a verdict that
/// only needs a distinct exit status.
enum Failure {
    /// Bad usage or unreadable input: print the message, exit with EXIT_ERROR.
    Error(String),
    /// Some replayed games have illegal turns (already reported).
    IllegalGames,
}

impl From<String> for Failure {
    fn from(message: String) -> Failure {
        Failure::Error(message)
    }
}

/// Supernova, a Binary Homeworlds engine.
#[derive(Parser)]
#[command(name = "supernova", version, about)]
struct Arguments {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Run the text protocol (protocol.md) on stdin and stdout; the default.
    Engine {
        /// Misbehave on `go`, for testing match runners: crash, hang, illegal or garbage.
        #[arg(long, hide = true)]
        misbehave: Option<Misbehave>,
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
}

/// Reads and parses one record file.
fn read_record(path: &Path) -> Result<GameRecord, String> {
    let bytes =
        std::fs::read(path).map_err(|error| format!("{}: cannot read: {error}", path.display()))?;
    let text = String::from_utf8_lossy(&bytes);
    GameRecord::parse_sdg(&text).map_err(|error| format!("{}: {error}", path.display()))
}

/// Replays each file, printing one line per game and a summary line.
fn replay(rules: &Rules, files: &[PathBuf]) -> Result<(), Failure> {
    let (mut legal, mut illegal, mut skipped) = (0usize, 0usize, 0usize);
    let mut errors = Vec::new();
    for path in files {
        let record = match read_record(path) {
            Ok(record) => record,
            Err(message) => {
                println!("{message}");
                errors.push(message);
                continue;
            }
        };
        let report = record.replay(rules);
        println!("{}: {report}", path.display());
        match report.verdict {
            Verdict::Illegal(_) => illegal += 1,
            Verdict::Skipped(_) => skipped += 1,
            _ => legal += 1,
        }
    }
    if skipped > 0 {
        println!("skipped {skipped} games");
    }
    println!(
        "replayed {} games: {legal} legal, {illegal} illegal",
        legal + illegal
    );
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

/// Prints the position before a turn of a record.
fn show(rules: &Rules, game: &Path, turn: u32) -> Result<(), Failure> {
    let record = read_record(game)?;
    let board = record
        .board_before(rules, turn)
        .map_err(|error| format!("{}: {error}", game.display()))?;
    println!("{}", hwpn::write_board(&board));
    Ok(())
}

/// Benchmark position A of the reference engine (27,635 turns under `cli`).
const BENCHMARK_A: &str =
    "Player1=y1b3:r1:/Player2=b3:y2y3g1b3:r2g2/Beta=b1:g1:/Alpha=b1:r1:/Delta=b2:g1:/Gamma=b2:r1: 0";

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

fn run(arguments: Arguments) -> Result<(), Failure> {
    match arguments.command {
        Some(Command::Count {
            rules,
            side,
            position,
        }) => {
            let board = read_position(&position, side)?;
            println!("{}", board.position.count_turns(&rules));
            Ok(())
        }
        Some(Command::Replay { rules, files }) => replay(&rules, &files),
        Some(Command::Show { game, turn, rules }) => show(&rules, &game, turn),
        Some(Command::Engine { misbehave }) => {
            protocol::run(std::io::stdin(), std::io::stdout(), misbehave);
            Ok(())
        }
        None => {
            protocol::run(std::io::stdin(), std::io::stdout(), None);
            Ok(())
        }
    }
}

fn main() -> ExitCode {
    match run(Arguments::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Error(message)) => {
            eprintln!("error: {message}");
            ExitCode::from(EXIT_ERROR)
        }
        Err(Failure::IllegalGames) => ExitCode::from(EXIT_ILLEGAL),
    }
}
