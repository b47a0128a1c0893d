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

use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command as Process, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
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

/// The last lines of an engine's stderr kept for a failure message: enough
/// for a usage error or a panic, bounded whatever the engine writes.
const STDERR_TAIL_LINES: usize = 8;

/// How long a failure message waits for the stderr of an engine that
/// exited, so that its last words are not lost to the race with its reader.
const STDERR_GRACE: Duration = Duration::from_millis(500);

/// A protocol log: every line sent (`>`), received (`<`) and written to
/// stderr (`!`), each after the milliseconds since the engine started, so
/// that a failed game can be read afterwards.
#[derive(Clone)]
struct ProtocolLog {
    file: Arc<Mutex<File>>,
    start: Instant,
}

impl ProtocolLog {
    fn write(&self, marker: char, line: &str) {
        let millis = self.start.elapsed().as_millis();
        let mut file = self.file.lock().unwrap_or_else(PoisonError::into_inner);
        // A log that cannot be written must not end the game.
        let _ = writeln!(file, "{millis:>7} {marker} {line}");
    }
}

/// Writes `line` to `log`, if there is one.
fn log_line(log: &Option<ProtocolLog>, marker: char, line: &str) {
    if let Some(log) = log {
        log.write(marker, line);
    }
}

/// What an engine wrote to stderr: its last lines, and whether the stream
/// has ended (the engine closed it or exited).
#[derive(Default)]
struct StderrTail {
    lines: Mutex<VecDeque<String>>,
    ended: AtomicBool,
}

/// An engine process and its line channel.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<Incoming>,
    /// The engine's `info string error...` lines since they were last
    /// cleared, as excerpts (bounded and escaped), for warnings.
    pub errors: Vec<String>,
    stderr: Arc<StderrTail>,
    log: Option<ProtocolLog>,
}

impl EngineProcess {
    /// Starts `program` with `arguments`, its stdin and stdout piped; the
    /// last lines of its stderr are kept for [`EngineProcess::stderr_tail`].
    ///
    /// # Errors
    /// [`EngineFailure::Spawn`] when the program cannot be started.
    pub fn spawn(program: &str, arguments: &[String]) -> Result<EngineProcess, EngineFailure> {
        EngineProcess::spawn_logged(program, arguments, None)
    }

    /// [`EngineProcess::spawn`], also writing every line sent, received and
    /// written to stderr to the file `log` (created or truncated), when
    /// given: a protocol log to inspect after the game.
    ///
    /// # Errors
    /// [`EngineFailure::Spawn`] when the log cannot be created or the
    /// program cannot be started.
    pub fn spawn_logged(
        program: &str,
        arguments: &[String],
        log: Option<&Path>,
    ) -> Result<EngineProcess, EngineFailure> {
        let log = match log {
            Some(path) => Some(ProtocolLog {
                file: Arc::new(Mutex::new(File::create(path).map_err(|error| {
                    EngineFailure::Spawn(format!("log {}: {error}", path.display()))
                })?)),
                start: Instant::now(),
            }),
            None => None,
        };
        let mut command_line = vec![program.to_string()];
        command_line.extend(arguments.iter().cloned());
        log_line(&log, '#', &command_line.join(" "));
        let mut child = Process::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .map_err(|error| EngineFailure::Spawn(format!("{}: {error}", excerpt(program))))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| EngineFailure::Spawn("no stdout pipe".to_string()))?;
        let stdin = child.stdin.take();
        let stderr = Arc::new(StderrTail::default());
        if let Some(pipe) = child.stderr.take() {
            spawn_stderr_reader(pipe, Arc::clone(&stderr), log.clone())?;
        } else {
            stderr.ended.store(true, Ordering::Release);
        }
        let (sender, lines) = mpsc::sync_channel(READ_AHEAD_LINES);
        let output_log = log.clone();
        std::thread::Builder::new()
            .name("engine-output".to_string())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buffer = Vec::new();
                loop {
                    let incoming = match read_line(&mut reader, &mut buffer) {
                        LineRead::Line(line) => {
                            log_line(&output_log, '<', &line);
                            Incoming::Line(line)
                        }
                        LineRead::TooLong => {
                            // Read no further: the engine loses, and what
                            // follows the cap is not the controller's to keep.
                            log_line(&output_log, '<', "(a line over the protocol's cap)");
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
            stderr,
            log,
        })
    }

    /// The last lines the engine wrote to stderr (at most 8, each a
    /// bounded, escaped excerpt), oldest first. When the engine has exited,
    /// waits briefly for the rest of its stderr, so that the message of a
    /// crash or a refused argument is not lost.
    pub fn stderr_tail(&mut self) -> Vec<String> {
        if let Ok(Some(_)) = self.child.try_wait() {
            let deadline = Instant::now() + STDERR_GRACE;
            while !self.stderr.ended.load(Ordering::Acquire) && Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let lines = self
            .stderr
            .lines
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        lines.iter().map(|line| excerpt(line)).collect()
    }

    /// `failure` in words, with the engine's last stderr lines when it wrote
    /// any: what a person needs to see why an engine failed.
    pub fn describe(&mut self, failure: &EngineFailure) -> String {
        let tail = self.stderr_tail();
        if tail.is_empty() {
            failure.to_string()
        } else {
            format!("{failure}; its stderr ends: {}", tail.join(" | "))
        }
    }

    /// Sends one command. A broken pipe means the engine is gone.
    ///
    /// # Errors
    /// [`EngineFailure::Exited`] when the engine no longer reads its input.
    pub fn send(&mut self, command: &Command) -> Result<(), EngineFailure> {
        self.send_line(&command.to_string())
    }

    /// Sends one line as written: for commands [`Command`] does not model,
    /// such as the multi-player extension's `position` (protocol.md §10).
    ///
    /// # Errors
    /// [`EngineFailure::Exited`] when the engine no longer reads its input.
    pub fn send_line(&mut self, line: &str) -> Result<(), EngineFailure> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.exit_failure());
        };
        log_line(&self.log, '>', line);
        if writeln!(stdin, "{line}")
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

/// Reads an engine's stderr on a thread of its own (so that a chatty
/// engine never blocks on a full pipe), keeping its last lines and logging
/// each; marks the tail ended when the stream closes.
fn spawn_stderr_reader(
    pipe: impl Read + Send + 'static,
    tail: Arc<StderrTail>,
    log: Option<ProtocolLog>,
) -> Result<(), EngineFailure> {
    std::thread::Builder::new()
        .name("engine-stderr".to_string())
        .spawn(move || {
            let mut reader = BufReader::new(pipe);
            let mut buffer = Vec::new();
            loop {
                let line = match read_line(&mut reader, &mut buffer) {
                    LineRead::Line(line) => line,
                    LineRead::TooLong => {
                        super::lines::skip_line(&mut reader);
                        "(a line over the protocol's cap)".to_string()
                    }
                    LineRead::End => break,
                };
                log_line(&log, '!', &line);
                if line.trim().is_empty() {
                    continue;
                }
                let mut lines = tail.lines.lock().unwrap_or_else(PoisonError::into_inner);
                if lines.len() == STDERR_TAIL_LINES {
                    lines.pop_front();
                }
                lines.push_back(line);
            }
            tail.ended.store(true, Ordering::Release);
        })
        .map(|_| ())
        .map_err(|error| EngineFailure::Spawn(error.to_string()))
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            self.kill();
        }
    }
}
