//! A test-only engine that speaks the protocol normally (it is the real
//! [`Session`]) until its first `go`, and then misbehaves in one of the
//! ways a match runner must referee; or, in the modes that answer twice,
//! plays every turn with the real search but follows each `bestmove` with
//! a second one nobody asked for. It lives in the tests, not in the
//! shipped binary: the test executable runs it when started with
//! [`FAKE_ENGINE_FLAG`] and a mode.

use std::io::{BufRead, Write};
use std::path::Path;
use std::time::Duration;

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
    /// Answer every `go` with the real search's `bestmove`, then
    /// `bestmove pass`.
    DoublePass,
    /// Answer every `go` with the real search's `bestmove` twice.
    Double,
    /// Start a [`Mode::Sleeper`] that keeps this engine's output open, then
    /// exit with status 3. The argument after the mode is the folder where
    /// the sleeper notes its process id.
    Orphan,
    /// Start a [`Mode::Sleeper`] as [`Mode::Orphan`] does, then hang as
    /// [`Mode::Hang`] does.
    HelperHang,
    /// Not an engine: note this process's id as a file in the folder given
    /// after the mode, then sleep for 30 s (a helper left behind).
    Sleeper,
}

/// The exit status of [`Mode::Orphan`].
pub const ORPHAN_STATUS: i32 = 3;

impl Mode {
    /// Every mode, with its name on the command line.
    pub const ALL: [(&'static str, Mode); 10] = [
        ("crash", Mode::Crash),
        ("hang", Mode::Hang),
        ("illegal", Mode::Illegal),
        ("garbage", Mode::Garbage),
        ("endless", Mode::Endless),
        ("double-pass", Mode::DoublePass),
        ("double", Mode::Double),
        ("orphan", Mode::Orphan),
        ("helper-hang", Mode::HelperHang),
        ("sleeper", Mode::Sleeper),
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

/// Runs the fake engine on stdin and stdout until end of input or `quit`;
/// `folder` is the argument after the mode, if any.
pub fn run(mode: Mode, folder: Option<&Path>) {
    match mode {
        Mode::Sleeper => return sleep_noted(folder),
        Mode::DoublePass => return answer_twice(Some("bestmove pass")),
        Mode::Double => return answer_twice(None),
        _ => {}
    }
    let output = Output::new(std::io::stdout());
    let mut session = Session::new(output.clone());
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    for line in lines.by_ref() {
        let Ok(line) = line else { break };
        if matches!(command::parse(&line), Ok(Command::Go(_))) {
            misbehave(mode, &session, &output, folder);
            break;
        }
        if session.handle(&line) == Flow::Quit {
            return;
        }
    }
    // After misbehaving, read (and ignore) whatever comes until the end.
    for _ in lines {}
}

/// The real engine, each of whose `bestmove` lines is followed by `extra`
/// (the same line again when `None`).
fn answer_twice(extra: Option<&'static str>) {
    let output = Output::new(Doubling {
        extra,
        pending: Vec::new(),
    });
    let mut session = Session::new(output);
    for line in std::io::stdin().lock().lines() {
        let Ok(line) = line else { break };
        if session.handle(&line) == Flow::Quit {
            return;
        }
    }
    session.finish();
}

/// Standard output that writes a second line after each `bestmove` line.
struct Doubling {
    extra: Option<&'static str>,
    pending: Vec<u8>,
}

impl Write for Doubling {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        let mut stdout = std::io::stdout().lock();
        for &byte in bytes {
            self.pending.push(byte);
            if byte != b'\n' {
                continue;
            }
            let line = std::mem::take(&mut self.pending);
            stdout.write_all(&line)?;
            if line.starts_with(b"bestmove ") {
                match self.extra {
                    Some(extra) => writeln!(stdout, "{extra}")?,
                    None => stdout.write_all(&line)?,
                }
            }
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stdout().flush()
    }
}

/// [`Mode::Sleeper`]: notes its process id in `folder`, then sleeps.
fn sleep_noted(folder: Option<&Path>) {
    if let Some(folder) = folder {
        let id = std::process::id();
        let _ = std::fs::write(folder.join(format!("sleeper-{id}")), id.to_string());
    }
    std::thread::sleep(Duration::from_secs(30));
}

fn misbehave(mode: Mode, session: &Session, output: &Output, folder: Option<&Path>) {
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
        Mode::Orphan | Mode::HelperHang => {
            // The sleeper inherits standard output (and error): the pipes
            // stay open after this process exits.
            let executable = std::env::current_exe().expect("the test executable has a path");
            let mut sleeper = std::process::Command::new(executable);
            sleeper
                .arg(FAKE_ENGINE_FLAG)
                .arg("sleeper")
                .stdin(std::process::Stdio::null());
            if let Some(folder) = folder {
                sleeper.arg(folder);
            }
            let _ = sleeper.spawn();
            if mode == Mode::Orphan {
                std::process::exit(ORPHAN_STATUS);
            }
        }
        Mode::DoublePass | Mode::Double | Mode::Sleeper => {}
    }
}
