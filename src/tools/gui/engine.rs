//! An engine as a child process, for the GUI: commands written as protocol
//! lines, and every line it prints handed to a callback from a reader
//! thread, read with the protocol's line cap. Unlike the match runner's
//! [`crate::protocol::client`], which waits for one answer at a time, a
//! GUI must show `info` lines while a person clicks, so the lines are
//! pushed to the page's state as they come rather than pulled.
//!
//! Lines are read with [`crate::protocol::reply::parse`]. `info` lines with
//! fields this version does not know (an engine may add `wdl` or mate
//! scores) are read by [`tolerant_info`], which keeps the fields it knows.

use std::io::{BufReader, Write};
use std::process::{Child, ChildStdin, Command as Process, Stdio};

use crate::notation::error::excerpt;
use crate::protocol::lines::{read_line, LineRead};
use crate::protocol::reply::{self, Info, Reply, Score};

/// How to start an engine: a program and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineCommand {
    /// The program.
    pub program: String,
    /// Its arguments.
    pub arguments: Vec<String>,
}

impl EngineCommand {
    /// Reads a command line split at white space: `"supernova engine"`.
    ///
    /// # Errors
    /// The line is empty.
    pub fn parse(line: &str) -> Result<EngineCommand, String> {
        let mut words = line.split_whitespace().map(str::to_string);
        let program = words.next().ok_or_else(|| {
            "--engine: expected a command, such as 'supernova engine'".to_string()
        })?;
        Ok(EngineCommand {
            program,
            arguments: words.collect(),
        })
    }

    /// The command as one line, for the page.
    pub fn text(&self) -> String {
        std::iter::once(self.program.as_str())
            .chain(self.arguments.iter().map(String::as_str))
            .collect::<Vec<_>>()
            .join(" ")
    }
}

/// What the reader thread saw.
pub enum EngineEvent {
    /// A line, read as a reply (or why it is not one).
    Reply(Reply),
    /// A line that is not a reply the GUI understands; shown as a warning.
    Garbled(String),
    /// The engine closed its output: it exited or crashed.
    Exited,
}

/// A running engine: its input, and the process to reap.
pub struct EngineLink {
    child: Child,
    stdin: ChildStdin,
}

impl EngineLink {
    /// Starts the engine and a thread that hands each of its lines to
    /// `on_event`, then [`EngineEvent::Exited`] once at the end.
    ///
    /// # Errors
    /// The program cannot be started.
    pub fn spawn(
        command: &EngineCommand,
        mut on_event: impl FnMut(EngineEvent) + Send + 'static,
    ) -> Result<EngineLink, String> {
        let mut child = Process::new(&command.program)
            .args(&command.arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|error| format!("cannot start '{}': {error}", excerpt(&command.text())))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            let _ = child.kill();
            return Err("the engine has no pipes".to_string());
        };
        let reader = std::thread::Builder::new()
            .name("gui-engine".to_string())
            .spawn(move || {
                let mut reader = BufReader::new(stdout);
                let mut buffer = Vec::new();
                loop {
                    match read_line(&mut reader, &mut buffer) {
                        LineRead::Line(line) => on_event(read_reply(&line)),
                        LineRead::TooLong => {
                            on_event(EngineEvent::Garbled(
                                "the engine sent a line longer than the protocol allows"
                                    .to_string(),
                            ));
                            break;
                        }
                        LineRead::End => break,
                    }
                }
                on_event(EngineEvent::Exited);
            });
        if let Err(error) = reader {
            let _ = child.kill();
            return Err(format!("cannot start a reader thread: {error}"));
        }
        Ok(EngineLink { child, stdin })
    }

    /// Writes one command line.
    ///
    /// # Errors
    /// The engine no longer reads its input.
    pub fn send(&mut self, line: &str) -> Result<(), String> {
        writeln!(self.stdin, "{line}")
            .and_then(|()| self.stdin.flush())
            .map_err(|error| format!("the engine does not read its input: {error}"))
    }

    /// The exit status, once the process has ended.
    pub fn exit_status(&mut self) -> String {
        for _ in 0..50 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return status.to_string();
            }
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        "closed its output".to_string()
    }
}

impl Drop for EngineLink {
    fn drop(&mut self) {
        let _ = writeln!(self.stdin, "quit");
        let _ = self.stdin.flush();
        if let Ok(None) = self.child.try_wait() {
            std::thread::sleep(std::time::Duration::from_millis(50));
            if let Ok(None) = self.child.try_wait() {
                let _ = self.child.kill();
            }
        }
        let _ = self.child.wait();
    }
}

/// Reads one engine line.
fn read_reply(line: &str) -> EngineEvent {
    match reply::parse(line) {
        Ok(reply) => EngineEvent::Reply(reply),
        Err(error) => match tolerant_info(line) {
            Some(info) => EngineEvent::Reply(Reply::Info(info)),
            None => EngineEvent::Garbled(format!("{}: {error}", excerpt(line))),
        },
    }
}

/// Reads a search `info` line that the protocol's reader refuses because it
/// has fields unknown to this version, keeping the known ones: a later
/// engine's extra fields (`wdl W D L`, `score mate N`) must not hide its
/// evaluation. A mate score counts as a whole win or loss.
pub fn tolerant_info(line: &str) -> Option<Info> {
    let mut words = line.split_whitespace().peekable();
    if words.next() != Some("info") || words.peek() == Some(&"string") {
        return None;
    }
    let mut info = Info::default();
    let mut known = false;
    while let Some(word) = words.next() {
        let mut number = || words.peek().and_then(|value| value.parse::<u64>().ok());
        let value = number();
        match word {
            "depth" => info.depth = value,
            "seldepth" => info.seldepth = value,
            "multipv" => info.multipv = value,
            "winprob" => info.winprob = value,
            "nodes" => info.nodes = value,
            "nps" => info.nps = value,
            "hashfull" => info.hashfull = value,
            "time" => info.time = value,
            "score" => {
                let unit = words.next();
                let amount = words.peek().and_then(|value| value.parse::<i64>().ok());
                info.score = match (unit, amount) {
                    (Some("cp"), Some(amount)) => Some(Score::Centipawns(amount)),
                    (Some("mate"), Some(amount)) => Some(Score::Mate(amount)),
                    _ => info.score,
                };
                known = true;
                continue;
            }
            "pv" => {
                info.pv = words.by_ref().map(str::to_string).collect();
                known = true;
                break;
            }
            _ => continue,
        }
        known = true;
    }
    known.then_some(info)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unknown_info_fields_are_skipped() {
        let info = tolerant_info(
            "info depth 4 multipv 1 score mate 3 tbhits 9 winprob 950 nodes 77 pv build.g1.Home0 pass",
        )
        .unwrap();
        assert_eq!(info.depth, Some(4));
        assert_eq!(info.score, Some(Score::Mate(3)));
        assert_eq!(info.winprob, Some(950));
        assert_eq!(info.nodes, Some(77));
        assert_eq!(info.pv, vec!["build.g1.Home0", "pass"]);
        assert!(tolerant_info("info string hello").is_none());
        assert!(tolerant_info("bestmove pass").is_none());
    }
}
