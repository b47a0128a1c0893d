//! The `supernova` binary: parses the command line
//! ([`supernova::tools::cli`], where the arguments and what each subcommand
//! does live) and runs the subcommand on stdin and stdout. Only this layer
//! touches the process's streams and turns errors into exit codes.

use std::io::Write;
use std::process::ExitCode;

use supernova::protocol;
use supernova::tools::cli::{Arguments, Command, Failure};

/// Exit status when every game replayed but some broke the rules.
const EXIT_ILLEGAL: u8 = 1;
/// Exit status for bad usage, unreadable files and other errors.
const EXIT_ERROR: u8 = 2;

/// Runs the subcommand, handing it the streams it reads and writes. Each
/// arm locks stdout for itself: `engine` and `match` write from several
/// threads and take the unlocked handle.
fn run(arguments: Arguments) -> Result<(), Failure> {
    let stdout = std::io::stdout();
    match arguments.command.unwrap_or(Command::Engine) {
        Command::Engine => {
            protocol::run(std::io::stdin(), stdout);
            Ok(())
        }
        Command::Match(arguments) => arguments.run(&mut std::io::stdout()),
        Command::Analyse(arguments) => arguments.run(&mut stdout.lock()),
        Command::Annotate(arguments) => arguments.run(&mut stdout.lock()),
        Command::Play(arguments) => arguments.run(&mut std::io::stdin().lock(), &mut stdout.lock()),
        Command::Count(arguments) => arguments.run(&mut stdout.lock()),
        Command::Bench(arguments) => arguments.run(&mut stdout.lock()),
        Command::MultiMatch(arguments) => arguments.run(&mut stdout.lock()),
        Command::MultiPlay(arguments) => {
            arguments.run(&mut std::io::stdin().lock(), &mut stdout.lock())
        }
        Command::Replay(arguments) => arguments.run(&mut stdout.lock()),
        Command::Show(arguments) => arguments.run(&mut stdout.lock()),
        Command::Accuracy(arguments) => arguments.run(&mut stdout.lock()),
        Command::Gui(arguments) => arguments.run(&mut std::io::stdout()),
        Command::Openings(arguments) => arguments.run(&mut stdout.lock()),
        Command::Priors(arguments) => arguments.run(&mut stdout.lock()),
        Command::Train(arguments) => arguments.run(&mut stdout.lock()),
    }
}

fn main() -> ExitCode {
    match run(Arguments::parse_command_line()) {
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
