//! The `supernova` binary: command-line front end. Only this layer turns
//! errors into exit codes.

use std::process::ExitCode;

use clap::{Parser, Subcommand};
use supernova::notation::{cli, hwpn, Board};
use supernova::rules::{Player, Rules};

/// Supernova, a Binary Homeworlds engine.
#[derive(Parser)]
#[command(name = "supernova", version, about)]
struct Arguments {
    #[command(subcommand)]
    command: Option<Command>,
}

#[derive(Subcommand)]
enum Command {
    /// Count the distinct legal turns from a position.
    Count {
        /// Rule profile: standard, sdg or cli.
        #[arg(long, default_value = "standard")]
        rules: Rules,
        /// Side to move, for homeworlds-cli state text (which has none).
        #[arg(long, default_value_t = 0)]
        side: u8,
        /// The position: HWPN, or homeworlds-cli state text.
        position: String,
    },
}

/// Reads a position given as HWPN or as homeworlds-cli state text.
fn read_position(text: &str, side: u8) -> Result<Board, String> {
    let side = Player::from_index(side as usize)
        .ok_or_else(|| format!("--side {side}: expected 0 or 1"))?;
    if text.contains('(') {
        cli::parse(text, side).map_err(|error| format!("bad position: {error}"))
    } else {
        hwpn::parse(text).map_err(|error| format!("bad position: {error}"))
    }
}

fn run(arguments: Arguments) -> Result<(), String> {
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
        None => Err("no command given (try --help)".to_string()),
    }
}

fn main() -> ExitCode {
    match run(Arguments::parse()) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}
