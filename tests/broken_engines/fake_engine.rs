//! A test-only engine that speaks the protocol normally (it is the real
//! [`Session`]) until its first `go`, and then misbehaves in one of the
//! ways a match runner must referee. It lives in the tests, not in the
//! shipped binary: the test executable runs it when started with
//! [`FAKE_ENGINE_FLAG`] and a mode.

use std::io::{BufRead, Write};

use supernova::notation::Board;
use supernova::protocol::command::{self, Command};
use supernova::protocol::{Flow, Output, Session};
use supernova::rules::{Piece, Rules};

/// The first argument that makes the test executable a fake engine.
pub const FAKE_ENGINE_FLAG: &str = "--fake-engine";

/// How the fake engine misbehaves on its first `go`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    /// Exit at once with status 101, as a panicking program does.
    Crash,
    /// Never answer, and ignore every later line until end of input.
    Hang,
    /// Answer with a turn that parses but is illegal.
    Illegal,
    /// Answer with junk lines and an unparsable `bestmove`.
    Garbage,
    /// Answer with a `bestmove` line that never ends.
    Endless,
}

impl Mode {
    /// Every mode, with its name on the command line.
    pub const ALL: [(&'static str, Mode); 5] = [
        ("crash", Mode::Crash),
        ("hang", Mode::Hang),
        ("illegal", Mode::Illegal),
        ("garbage", Mode::Garbage),
        ("endless", Mode::Endless),
    ];

    /// The mode named `name`.
    pub fn named(name: &str) -> Option<Mode> {
        Mode::ALL
            .iter()
            .find(|(known, _)| *known == name)
            .map(|(_, mode)| *mode)
    }
}

/// A turn that parses and names live systems but breaks the rules here: a
/// build of some piece in some system that the rules reject.
pub fn illegal_token(board: &Board, rules: &Rules) -> String {
    for slot in board.position.occupied_slots() {
        for piece in Piece::ALL {
            let token = format!("build.{piece}.{}", board.name(slot));
            if board.clone().play_turn_text(rules, &token).is_err() {
                return token;
            }
        }
    }
    "capture.g3.Nowhere".to_string()
}

/// Runs the fake engine on stdin and stdout until end of input or `quit`.
pub fn run(mode: Mode) {
    let output = Output::new(std::io::stdout());
    let mut session = Session::new(output.clone());
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    for line in lines.by_ref() {
        let Ok(line) = line else { break };
        if matches!(command::parse(&line), Ok(Command::Go(_))) {
            misbehave(mode, &session, &output);
            break;
        }
        if session.handle(&line) == Flow::Quit {
            return;
        }
    }
    // After misbehaving, read (and ignore) whatever comes until the end.
    for _ in lines {}
}

fn misbehave(mode: Mode, session: &Session, output: &Output) {
    match mode {
        Mode::Crash => {
            output.line("info string misbehaving: crash");
            std::process::exit(101);
        }
        Mode::Hang => {}
        Mode::Illegal => {
            let token = illegal_token(session.board(), &session.engine().rules());
            output.line("info depth 0 nodes 0 time 0");
            output.line(&format!("bestmove {token}"));
        }
        Mode::Garbage => output.lines(&[
            "\u{1b}[31m*** garbage ***",
            "bestmov e",
            "info nonsense 12 ~~",
            "bestmove @@##!!",
        ]),
        Mode::Endless => {
            let mut stdout = std::io::stdout().lock();
            let chunk = vec![b'x'; 1 << 16];
            if stdout.write_all(b"bestmove ").is_ok() {
                // Until the reader goes away (the referee kills this process).
                while stdout.write_all(&chunk).is_ok() {}
            }
            std::process::exit(0);
        }
    }
}
