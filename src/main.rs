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
    /// Run the search benchmark: a node-limited search on each bench position;
    /// prints total nodes, a signature of the chosen turns, and nodes/second.
    Bench {
        /// Iterations per position.
        #[arg(long, default_value_t = 20_000)]
        nodes: u64,
        /// Search threads (the signature is reproducible only with 1).
        #[arg(long, default_value_t = 1)]
        threads: usize,
        /// Tree memory per search, in megabytes.
        #[arg(long, default_value_t = 64)]
        hash: usize,
        /// Positions file (HWPN per line, `#` comments) instead of the built-in list.
        #[arg(long)]
        file: Option<std::path::PathBuf>,
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
        Some(Command::Bench {
            nodes,
            threads,
            hash,
            file,
        }) => {
            use supernova::search::bench;
            let text = match &file {
                Some(path) => std::fs::read_to_string(path)
                    .map_err(|error| format!("{}: {error}", path.display()))?,
                None => bench::BENCH_POSITIONS.to_string(),
            };
            let positions = bench::parse_positions(&text).map_err(|error| {
                let name = file.as_ref().map_or("bench positions".to_string(), |path| {
                    path.display().to_string()
                });
                format!("{name}: {error}")
            })?;
            let options = supernova::search::SearchOptions {
                threads: threads.max(1),
                hash_mb: hash.max(1),
                ..bench::default_options()
            };
            let report = bench::run(&positions, nodes, &options);
            for (index, (entry, position)) in report.entries.iter().zip(&positions).enumerate() {
                println!(
                    "position {:>2}: {:>8} nodes {:>9.0} nps  {}",
                    index + 1,
                    entry.nodes,
                    entry.nodes as f64 / entry.elapsed.as_secs_f64().max(1e-9),
                    position.source
                );
            }
            let tree_nodes: u64 = report.entries.iter().map(|entry| entry.tree_nodes).sum();
            let tree_bytes: u64 = report.entries.iter().map(|entry| entry.tree_bytes).sum();
            println!("Positions: {}", positions.len());
            println!("Nodes: {}", report.nodes);
            println!("Signature: {:016x}", report.signature);
            println!("Nodes/second: {:.0}", report.nodes_per_second());
            println!(
                "Bytes/node: {:.0}",
                tree_bytes as f64 / tree_nodes.max(1) as f64
            );
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
