//! The engine as a child process that a test talks to line by line, for
//! the protocol tests (tests/protocol.rs, tests/protocol_limits.rs).

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::Duration;

/// How long any single reply may take before the test fails: generous,
/// because this is a functional check, not a timing benchmark.
pub const REPLY_LIMIT: Duration = Duration::from_secs(20);

/// The engine as a child process with a line channel.
pub struct Engine {
    child: Child,
    input: Option<ChildStdin>,
    lines: Receiver<String>,
}

impl Engine {
    /// Starts `supernova engine`, its output read into a channel.
    pub fn start() -> Engine {
        let mut child = Command::new(env!("CARGO_BIN_EXE_supernova"))
            .arg("engine")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("the binary starts");
        let stdout = child.stdout.take().unwrap();
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        Engine {
            input: child.stdin.take(),
            child,
            lines,
        }
    }

    /// Writes one line.
    pub fn send(&mut self, line: &str) {
        let input = self.input.as_mut().expect("input open");
        writeln!(input, "{line}").unwrap();
        input.flush().unwrap();
    }

    /// Writes raw bytes.
    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let input = self.input.as_mut().expect("input open");
        input.write_all(bytes).unwrap();
        input.flush().unwrap();
    }

    /// The next output line, failing after [`REPLY_LIMIT`].
    pub fn next_line(&self) -> String {
        self.lines
            .recv_timeout(REPLY_LIMIT)
            .expect("the engine answers in time")
    }

    /// Lines up to and including the first that satisfies `last`.
    pub fn read_until(&self, mut last: impl FnMut(&str) -> bool) -> Vec<String> {
        let mut lines = Vec::new();
        loop {
            let line = self.next_line();
            let done = last(&line);
            lines.push(line);
            if done {
                return lines;
            }
        }
    }

    /// Everything until the engine closes its output.
    pub fn read_to_end(&self) -> Vec<String> {
        let mut lines = Vec::new();
        while let Ok(line) = self.lines.recv_timeout(REPLY_LIMIT) {
            lines.push(line);
        }
        lines
    }

    /// Closes the engine's input (its end of input).
    pub fn close_input(&mut self) {
        self.input = None;
    }

    /// Waits for the engine to exit.
    pub fn wait(&mut self) -> std::process::ExitStatus {
        self.child.wait().unwrap()
    }

    /// The process id, to read its memory from `/proc`.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// The peak resident memory so far in bytes (Linux's `VmHWM`), if
    /// `/proc` tells it.
    pub fn peak_memory(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.id())).ok()?;
        let line = status.lines().find(|line| line.starts_with("VmHWM:"))?;
        let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kilobytes * 1024)
    }

    /// Sends `quit` and checks that the engine then exits cleanly.
    pub fn quit(&mut self) {
        self.send("quit");
        assert!(self.wait().success());
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Sends `isready` and returns what came before `readyok`.
pub fn synchronise(engine: &mut Engine) -> Vec<String> {
    engine.send("isready");
    let mut lines = engine.read_until(|line| line == "readyok");
    lines.pop();
    lines
}
