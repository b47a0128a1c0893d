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
//!
//! An engine runs in a process group of its own, and the whole group is
//! ended with it ([`EngineProcess::kill`], [`EngineProcess::quit`], or
//! dropping the process): a helper the engine started cannot outlive the
//! game, and one that keeps the engine's output open cannot make an engine
//! that exited look hung, because the wait watches the process itself as
//! well as its output. The group is ended before the engine is reaped, so
//! its id cannot have been given to another process meanwhile. When the
//! runner itself is stopped by `SIGINT`, `SIGTERM` or `SIGHUP` (Ctrl-C),
//! the groups of the engines still running are ended first: in groups of
//! their own they no longer get the terminal's signal.
//!
//! A controller can also check that an engine is idle before a new `go`
//! ([`EngineProcess::synchronise_idle`]): a `bestmove` that arrives when
//! no `go` is waiting (a second answer to an earlier one) is then a
//! protocol fault of the engine, [`EngineFailure::Unrequested`], instead
//! of being taken as the answer to the next question.

use std::collections::VecDeque;
use std::fmt;
use std::fs::File;
use std::io::{BufReader, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, ChildStdin, Command as Process, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
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
    /// It sent this `bestmove` line (an excerpt) when no `go` was waiting
    /// for one: a second answer to an earlier `go`, which must not be taken
    /// for the answer to the next.
    Unrequested(String),
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
            EngineFailure::Unrequested(line) => write!(
                formatter,
                "sent '{line}' when no go was waiting (a second answer to an earlier go: a protocol fault)"
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

/// How often a wait for a reply looks whether the engine process itself
/// has ended: its output may stay open in a helper it started.
const EXIT_POLL: Duration = Duration::from_millis(50);

/// How long a wait goes on reading an engine that has exited, for the
/// lines it wrote before it ended.
const EXIT_GRACE: Duration = Duration::from_millis(200);

/// An engine process and its line channel.
pub struct EngineProcess {
    child: Child,
    /// The exit status, once the process is reaped (after its group was
    /// ended): nothing of it may be signalled after that.
    status: Option<ExitStatus>,
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
        install_interrupt_handler();
        let mut child = Process::new(program)
            .args(arguments)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            // A group of its own, led by the engine: ended as one.
            .process_group(0)
            .spawn()
            .map_err(|error| EngineFailure::Spawn(format!("{}: {error}", excerpt(program))))?;
        register_group(child.id());
        let stdout = child.stdout.take();
        let stderr_pipe = child.stderr.take();
        let (sender, lines) = mpsc::sync_channel(READ_AHEAD_LINES);
        let process = EngineProcess {
            stdin: child.stdin.take(),
            child,
            status: None,
            lines,
            errors: Vec::new(),
            stderr: Arc::new(StderrTail::default()),
            log: log.clone(),
        };
        // From here on, a failure drops `process`, which ends its group.
        let stdout = stdout.ok_or_else(|| EngineFailure::Spawn("no stdout pipe".to_string()))?;
        if let Some(pipe) = stderr_pipe {
            spawn_stderr_reader(pipe, Arc::clone(&process.stderr), log.clone())?;
        } else {
            process.stderr.ended.store(true, Ordering::Release);
        }
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
        Ok(process)
    }

    /// The last lines the engine wrote to stderr (at most 8, each a
    /// bounded, escaped excerpt), oldest first. When the engine has exited,
    /// waits briefly for the rest of its stderr, so that the message of a
    /// crash or a refused argument is not lost.
    pub fn stderr_tail(&mut self) -> Vec<String> {
        if self.has_exited() {
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
    /// The engine exited (even if a process it started still holds its
    /// output), sent a line over the cap, or the deadline passed.
    pub fn wait_for<T>(
        &mut self,
        limit: Duration,
        mut pick: impl FnMut(Result<Reply, ReplyError>) -> Option<T>,
    ) -> Result<T, EngineFailure> {
        self.wait_for_lines(limit, |_, reply| pick(reply).map(Ok))?
    }

    /// [`EngineProcess::wait_for`], with each line's text given to `pick`
    /// beside its reading.
    fn wait_for_lines<T>(
        &mut self,
        limit: Duration,
        mut pick: impl FnMut(&str, Result<Reply, ReplyError>) -> Option<T>,
    ) -> Result<T, EngineFailure> {
        let mut deadline = Instant::now() + limit;
        let mut exited = false;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            let line = match self.lines.recv_timeout(left.min(EXIT_POLL)) {
                Ok(Incoming::Line(line)) => line,
                Ok(Incoming::TooLong) => return Err(EngineFailure::LineTooLong),
                Err(RecvTimeoutError::Timeout) => {
                    let now = Instant::now();
                    if exited && now >= deadline {
                        return Err(self.exit_failure());
                    }
                    if now >= deadline {
                        return Err(EngineFailure::Timeout(limit));
                    }
                    if !exited && self.has_exited() {
                        // Read what it wrote before it ended, briefly:
                        // a process it left behind may hold the pipe open.
                        exited = true;
                        deadline = deadline.min(now + EXIT_GRACE);
                    }
                    continue;
                }
                Err(RecvTimeoutError::Disconnected) => return Err(self.exit_failure()),
            };
            let reply = reply::parse(&line);
            if let Ok(Reply::InfoString(text)) = &reply {
                if text.starts_with("error") {
                    self.errors.push(excerpt(&format!("info string {text}")));
                }
            }
            if let Some(value) = pick(&line, reply) {
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

    /// Checks that the engine is idle before a new `go`: sends `isready`
    /// and waits for `readyok` within `limit`. The engine answers in order,
    /// so a `bestmove` it wrote after its answer to the previous `go` comes
    /// before the `readyok`, and is found here rather than taken as the
    /// answer to the next `go`; `info` lines are fine.
    ///
    /// # Errors
    /// [`EngineFailure::Unrequested`] for such a `bestmove` line, well
    /// formed or not; otherwise as [`EngineProcess::synchronise`].
    pub fn synchronise_idle(&mut self, limit: Duration) -> Result<(), EngineFailure> {
        self.send(&Command::IsReady)?;
        self.wait_for_lines(limit, |line, reply| match reply {
            Ok(Reply::ReadyOk) => Some(Ok(())),
            Ok(Reply::BestMove { .. }) => Some(Err(EngineFailure::Unrequested(excerpt(line)))),
            Err(error) if error.keyword == "bestmove" => {
                Some(Err(EngineFailure::Unrequested(excerpt(line))))
            }
            _ => None,
        })?
    }

    /// The failure for an engine that ended or closed its output: its exit
    /// status, once it has exited (waiting briefly), else "closed its
    /// output".
    fn exit_failure(&mut self) -> EngineFailure {
        let deadline = Instant::now() + Duration::from_secs(2);
        while !self.has_exited() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        if self.has_exited() {
            self.end_group();
        }
        match self.status {
            Some(status) => EngineFailure::Exited(status.to_string()),
            None => EngineFailure::Exited("closed its output".to_string()),
        }
    }

    /// Whether the engine process has ended. It is not reaped here: while
    /// it is a zombie its id stays its own, and so does its group's.
    fn has_exited(&self) -> bool {
        self.status.is_some() || leader_exited(self.child.id())
    }

    /// Ends the engine's whole process group at once (the engine and every
    /// process it started that stayed in the group), then reaps the engine.
    fn end_group(&mut self) {
        if self.status.is_some() {
            return;
        }
        let id = self.child.id();
        kill_group(id);
        // Reaped only after the group was signalled: its id cannot have
        // been reused by then.
        unregister_group(id);
        self.status = self.child.wait().ok();
    }

    /// Kills the engine and every process of its group at once, and reaps it.
    pub fn kill(&mut self) {
        self.end_group();
    }

    /// Asks the engine to quit, gives it a moment, then ends its group:
    /// the engine if it is still running, and whatever it left behind.
    pub fn quit(&mut self) {
        let _ = self.send(&Command::Quit);
        self.stdin = None;
        let deadline = Instant::now() + Duration::from_millis(500);
        while !self.has_exited() && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(5));
        }
        self.end_group();
    }
}

/// Whether the process `id` (a child not yet reaped) has ended, asked
/// without reaping it (`WNOWAIT`).
fn leader_exited(id: u32) -> bool {
    // SAFETY: `waitid` writes only the `siginfo_t` it is given, which is
    // zeroed first so that "no change yet" (WNOHANG) reads as pid 0.
    unsafe {
        let mut info: libc::siginfo_t = std::mem::zeroed();
        let done = libc::waitid(
            libc::P_PID,
            id as libc::id_t,
            &mut info,
            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
        );
        done == 0 && info.si_pid() != 0
    }
}

/// Sends `SIGKILL` to the process group led by `id`. std has no call for a
/// group (a negative pid), hence libc.
fn kill_group(id: u32) {
    // SAFETY: kill(2) only sends a signal; a group that is gone is an
    // error (ESRCH), ignored.
    unsafe {
        libc::kill(-(id as libc::pid_t), libc::SIGKILL);
    }
}

/// The process groups of the engines not yet reaped, for the interrupt
/// handler (0 = a free slot). Fixed slots of atomics, because a signal
/// handler may neither lock nor allocate; an engine beyond them is still
/// ended with its game, only not by the handler.
static LIVE_GROUPS: [AtomicI32; 256] = [const { AtomicI32::new(0) }; 256];

/// Notes the group led by `id` for the interrupt handler.
fn register_group(id: u32) {
    for slot in &LIVE_GROUPS {
        if slot
            .compare_exchange(0, id as i32, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
    }
}

/// Forgets the group led by `id`, before its leader is reaped.
fn unregister_group(id: u32) {
    for slot in &LIVE_GROUPS {
        if slot
            .compare_exchange(id as i32, 0, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
        {
            return;
        }
    }
}

/// Ends every live engine group, then dies of `signal` as it would have
/// without the handler. Only async-signal-safe calls: atomic loads,
/// kill(2), signal(2), raise(3).
extern "C" fn end_groups_and_die(signal: libc::c_int) {
    for slot in &LIVE_GROUPS {
        let id = slot.load(Ordering::Acquire);
        if id > 0 {
            // SAFETY: the group's leader is not reaped yet (slots are
            // cleared first), so the id is still the engine's group.
            unsafe {
                libc::kill(-id, libc::SIGKILL);
            }
        }
    }
    // SAFETY: restores the default action and raises the signal again, so
    // that the runner ends with the status its caller expects.
    unsafe {
        libc::signal(signal, libc::SIG_DFL);
        libc::raise(signal);
    }
}

/// Installs [`end_groups_and_die`] for `SIGINT`, `SIGTERM` and `SIGHUP`,
/// once, where the signal still has its default action.
fn install_interrupt_handler() {
    static INSTALLED: std::sync::Once = std::sync::Once::new();
    INSTALLED.call_once(|| {
        for signal in [libc::SIGINT, libc::SIGTERM, libc::SIGHUP] {
            // SAFETY: the handler makes only async-signal-safe calls; the
            // previous action is read first, and a signal that is ignored
            // (`nohup`) or handled by someone else is left so.
            unsafe {
                let mut previous: libc::sigaction = std::mem::zeroed();
                if libc::sigaction(signal, std::ptr::null(), &mut previous) != 0
                    || previous.sa_sigaction != libc::SIG_DFL
                {
                    continue;
                }
                let mut action: libc::sigaction = std::mem::zeroed();
                action.sa_sigaction = end_groups_and_die as extern "C" fn(libc::c_int) as usize;
                libc::sigemptyset(&mut action.sa_mask);
                libc::sigaction(signal, &action, std::ptr::null_mut());
            }
        }
    });
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
        self.end_group();
    }
}
