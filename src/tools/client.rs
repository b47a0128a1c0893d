//! The controller's side of the protocol: an engine running as a child
//! process, spoken to only through protocol lines.
//!
//! The match runner never trusts an engine, so every wait has a deadline and
//! every way an engine can fail is told apart: it exited (a crash, with its
//! exit status), it stopped answering (a hang, after which it is killed), or
//! the pipe broke. Lines are read on a thread per engine and handed over a
//! channel, so that waiting with a deadline is a `recv_timeout`.

use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How an engine failed while the controller waited for it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineFailure {
    /// The process could not be started.
    Spawn(String),
    /// The process ended (closed its output); the exit status as text.
    Exited(String),
    /// No expected reply within the deadline.
    Timeout(Duration),
}

impl fmt::Display for EngineFailure {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineFailure::Spawn(reason) => write!(formatter, "could not start: {reason}"),
            EngineFailure::Exited(status) => write!(formatter, "crashed ({status})"),
            EngineFailure::Timeout(limit) => {
                write!(formatter, "no answer within {} ms", limit.as_millis())
            }
        }
    }
}

/// An engine process and its line channel.
pub struct EngineProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Lines the engine sent that begin `info string error`, for warnings.
    pub errors: Vec<String>,
}

impl EngineProcess {
    /// Starts `program` with `arguments`, its stdin and stdout piped and its
    /// stderr discarded.
    ///
    /// # Errors
    /// [`EngineFailure::Spawn`] when the program cannot be started.
    pub fn spawn(program: &str, arguments: &[String]) -> Result<EngineProcess, EngineFailure> {
        let mut child = Command::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| EngineFailure::Spawn(format!("{program}: {error}")))?;
        let stdout = child
            .stdout
            .take()
            .ok_or_else(|| EngineFailure::Spawn("no stdout pipe".to_string()))?;
        let stdin = child.stdin.take();
        let (sender, lines) = mpsc::channel();
        std::thread::Builder::new()
            .name("engine-output".to_string())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buffer = Vec::new();
                loop {
                    buffer.clear();
                    match reader.read_until(b'\n', &mut buffer) {
                        Ok(0) | Err(_) => break,
                        Ok(_) => {}
                    }
                    let line = String::from_utf8_lossy(&buffer)
                        .trim_end_matches(['\n', '\r'])
                        .to_string();
                    if sender.send(line).is_err() {
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

    /// Sends one line. A broken pipe means the engine is gone.
    ///
    /// # Errors
    /// [`EngineFailure::Exited`] when the engine no longer reads its input.
    pub fn send(&mut self, line: &str) -> Result<(), EngineFailure> {
        let Some(stdin) = self.stdin.as_mut() else {
            return Err(self.exit_failure());
        };
        if writeln!(stdin, "{line}")
            .and_then(|()| stdin.flush())
            .is_err()
        {
            return Err(self.exit_failure());
        }
        Ok(())
    }

    /// Waits for a line for which `accept` returns true, discarding others
    /// (but remembering error reports), until `deadline` has passed.
    ///
    /// # Errors
    /// The engine exited or the deadline passed.
    pub fn wait_for(
        &mut self,
        limit: Duration,
        mut accept: impl FnMut(&str) -> bool,
    ) -> Result<String, EngineFailure> {
        let deadline = Instant::now() + limit;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    if line.starts_with("info string error") {
                        self.errors.push(line.clone());
                    }
                    if accept(&line) {
                        return Ok(line);
                    }
                }
                Err(RecvTimeoutError::Timeout) => return Err(EngineFailure::Timeout(limit)),
                Err(RecvTimeoutError::Disconnected) => return Err(self.exit_failure()),
            }
        }
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
        let _ = self.send("quit");
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
