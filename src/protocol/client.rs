//! The controller's side of the protocol: an engine running as a child
//! process, spoken to only through protocol lines. Commands are written
//! from [`Command`] values and replies read into [`Reply`] values, the same
//! types the engine's side reads and writes.
//!
//! A controller (the match runner) never trusts an engine, so every wait
//! has a deadline and every way an engine can fail is told apart: it exited
//! (a crash, with its exit status), it stopped answering (a hang, after
//! which it is killed), or it sent a line longer than [`MAX_LINE_BYTES`]
//! (it is then read no further, so its output cannot grow the controller's
//! memory). Lines are read on a thread per engine and handed over a bounded
//! channel, so that waiting with a deadline is a `recv_timeout` and an
//! engine that chatters while nobody listens waits on its own pipe.

use std::fmt;
use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::command::Command;
use super::lines::{read_line, LineRead, MAX_LINE_BYTES};
use super::reply::{self, IdField, OptionLine, Reply, ReplyError};
use crate::notation::error::excerpt;

/// Lines read ahead of the controller, at most: with the line cap, this
/// bounds the memory one engine's output can take.
const READ_AHEAD_LINES: usize = 16;

/// How an engine failed while the controller waited for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFailure {
    /// The process could not be started.
    Spawn(String),
    /// The process ended (closed its output); the exit status as text.
    Exited(String),
    /// No expected reply within the deadline.
    Timeout(Duration),
    /// It sent a line longer than [`MAX_LINE_BYTES`]; nothing after it is read.
    LineTooLong,
}

impl fmt::Display for EngineFailure {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineFailure::Spawn(reason) => write!(formatter, "could not start: {reason}"),
            EngineFailure::Exited(status) => write!(formatter, "crashed ({status})"),
            EngineFailure::Timeout(limit) => {
                write!(formatter, "no answer within {} ms", limit.as_millis())
            }
            EngineFailure::LineTooLong => write!(
                formatter,
                "sent a line longer than {MAX_LINE_BYTES} bytes (the protocol's limit)"
            ),
        }
    }
}

/// What an engine said about itself in answer to `hwi`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Identity {
    /// Its `id name`, if it gave one.
    pub name: Option<String>,
    /// Its `id author`, if it gave one.
    pub author: Option<String>,
    /// Its `option` lines that read (others are skipped).
    pub options: Vec<OptionLine>,
}

/// One line from the engine's reader thread.
enum Incoming {
    Line(String),
    TooLong,
}

/// An engine process and its line channel.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Incoming>,
    /// The engine's `info string error...` lines since they were last
    /// cleared, as excerpts (bounded and escaped), for warnings.
    pub errors: Vec<String>,
}

impl EngineProcess {
    /// Starts `program` with `arguments`, its stdin and stdout piped and its
    /// stderr discarded.
    ///
    /// # Errors
    /// [`EngineFailure::Spawn`] when the program cannot be started.
    pub fn spawn(program: &str, arguments: &[String]) -> Result<EngineProcess, EngineFailure> {
        let mut child = Process::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| EngineFailure::Spawn(format!("{}: {error}", excerpt(program))))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| EngineFailure::Spawn("no stdout pipe".to_string()))?;
        let stdin = child.stdin.take();
        let (sender, lines) = mpsc::sync_channel(READ_AHEAD_LINES);
        std::thread::Builder::new()
            .name("engine-output".to_string())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buffer = Vec::new();
                loop {
                    let incoming = match read_line(&mut reader, &mut buffer) {
                        LineRead::Line(line) => Incoming::Line(line),
                        LineRead::TooLong => {
                            // Read no further: the engine loses, and what
                            // follows the cap is not the controller's to keep.
                            let _ = sender.send(Incoming::TooLong);
                            break;
                        }
                        LineRead::End => break,
                    };
                    if sender.send(incoming).is_err() {
                        break;
                    }
                }
            })
            .map_err(|error| EngineFailure::Spawn(error.to_string()))?;
        Ok(EngineProcess {
            child,
            stdin,
            lines,
            errors: Vec::new(),
        })
    }

    /// Sends one command. A broken pipe means the engine is gone.
    ///
    /// # Errors
    /// [`EngineFailure::Exited`] when the engine no longer reads its input.
    pub fn send(&mut self, command: &Command) -> Result<(), EngineFailure> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.exit_failure());
        };
        if writeln!(stdin, "{command}")
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return Err(self.exit_failure());
        }
        Ok(())
    }

    /// Reads replies until `pick` returns a value for one, within `limit`.
    /// `pick` sees every line, read as a [`Reply`] or a [`ReplyError`] (a
    /// controller ignores chatter it does not need, but a malformed
    /// `bestmove` is an answer); `info string error...` lines are kept in
    /// [`EngineProcess::errors`] as well.
    ///
    /// # Errors
    /// The engine exited, sent a line over the cap, or the deadline passed.
    pub fn wait_for<T>(
        &mut self,
        limit: Duration,
        mut pick: impl FnMut(Result<Reply, ReplyError>) -> Option<T>,
    ) -> Result<T, EngineFailure> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left) {
                Ok(Incoming::Line(line)) => line,
                Ok(Incoming::TooLong) => return Err(EngineFailure::LineTooLong),
                Err(RecvTimeoutError::Timeout) => return Err(EngineFailure::Timeout(limit)),
                Err(RecvTimeoutError::Disconnected) => return Err(self.exit_failure()),
            };
            let reply = reply::parse(&line);
            if let Ok(Reply::InfoString(text)) = &reply {
                if text.starts_with("error") {
                    self.errors.push(excerpt(&format!("info string {text}")));
                }
            }
            if let Some(value) = pick(reply) {
                return Ok(value);
            }
        }
    }

    /// The handshake: `hwi`, then the `id` and `option` lines up to `hwiok`.
    ///
    /// # Errors
    /// The engine failed or did not finish within `limit`.
    pub fn identify(&mut self, limit: Duration) -> Result<Identity, EngineFailure> {
        self.send(&Command::Hwi)?;
        let mut identity = Identity::default();
        self.wait_for(limit, |reply| match reply {
            Ok(Reply::Id { field, value }) => {
                match field {
                    IdField::Name => identity.name = Some(value),
                    IdField::Author => identity.author = Some(value),
                }
                None
            }
            Ok(Reply::Option(option)) => {
                identity.options.push(option);
                None
            }
            Ok(Reply::HwiOk) => Some(()),
            _ => None,
        })?;
        Ok(identity)
    }

    /// Synchronises: `isready`, then waits for `readyok`.
    ///
    /// # Errors
    /// The engine failed or did not answer within `limit`.
    pub fn synchronise(&mut self, limit: Duration) -> Result<(), EngineFailure> {
        self.send(&Command::IsReady)?;
        self.wait_for(limit, |reply| {
            matches!(reply, Ok(Reply::ReadyOk)).then_some(())
        })
    }

    /// The failure for an engine whose output closed: its exit status, once
    /// it has exited (waiting briefly), else "closed its output".
    fn exit_failure(&mut self) -> EngineFailure {
        let deadline = Instant::now() + Duration::from_secs(2);
        loop {
            match self.child.try_wait() {
                Ok(Some(status)) => return EngineFailure::Exited(status.to_string()),
                Ok(None) if Instant::now() < deadline => {
                    std::thread::sleep(Duration::from_millis(5));
                }
                _ => return EngineFailure::Exited("closed its output".to_string()),
            }
        }
    }

    /// Kills the process at once and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// Asks the engine to quit, gives it a moment, then kills it.
    pub fn quit(&mut self) {
        let _ = self.send(&Command::Quit);
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_millis(500);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        self.kill();
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}
