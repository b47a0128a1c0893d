//! The bounded queue between the input reader and the command loop.
//!
//! The reader runs on a thread of its own and reads lines as fast as the
//! controller writes them, so that `isready` and `stop` are seen while the
//! command loop works (a search runs on its own thread, but `turns` on a
//! crowded position, a long `position` line or a large `Hash` are work on
//! the loop). What waits for the loop is bounded: at most
//! [`MAX_QUEUED_LINES`] lines and [`MAX_QUEUED_BYTES`] bytes. When the
//! queue is full, the reader first waits up to [`ROOM_WAIT`] for room,
//! which holds the controller back through the pipe (a script piped in
//! while the engine keeps taking lines loses nothing). If there is still no
//! room (the loop is stuck on one long command), the reader reads on and
//! drops ordinary lines, without waiting again until the loop takes a
//! line, and the loop answers one error line at the place
//! of the drop saying how many were dropped. Four lines are never dropped:
//! `isready`, `stop`, `ponderhit` and `quit` (exactly those commands, with
//! no arguments). Beyond the bound they are kept as counts in the drop's
//! place ([`Overflow`]), so a flood of them is bounded too, and the loop
//! replays them there: `ponderhit`, then `stop`, then one `readyok` per
//! `isready`, then `quit`. After `quit` the reader stops reading.
//!
//! `isready` keeps its UCI meaning: `readyok` comes after everything sent
//! before it has been handled, so it waits for the commands queued ahead
//! of it, which the bound keeps to a few megabytes (junk among them is
//! answered with an error in microseconds). `stop` is acted on by the
//! reader at once ([`Signals`]), so a running search stops even while the
//! loop is busy or the queue is full; the loop then handles the `stop` in
//! its place as well (a second stop does nothing), so that the order of
//! events stays what the input says. The reader acts on `stop` only when
//! every `go` it has queued has been handled: a `stop` behind a `go` the
//! loop has not reached yet must not stop the search before it, which that
//! `go` would then find stopped and wait for instead of refusing.

use std::collections::VecDeque;
use std::io::{BufReader, Read};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::command::{self, Command};
use super::lines::{read_line, skip_line, LineRead};

/// Lines that may wait for the command loop. A controller sends a few lines
/// per turn and waits for the answers; a script piped in at once runs ahead,
/// and the reader then holds it back (see the module docs).
pub const MAX_QUEUED_LINES: usize = 4096;

/// Bytes that may wait for the command loop: four lines of the longest
/// kind ([`MAX_LINE_BYTES`](super::MAX_LINE_BYTES)), far more than any
/// controller sends ahead.
pub const MAX_QUEUED_BYTES: usize = 4 << 20;

/// How long the reader waits for room in a full queue before it drops a
/// line: long enough for a loop that is taking lines, short enough that a
/// `stop` behind the line is seen at once.
pub const ROOM_WAIT: Duration = Duration::from_millis(250);

/// The lines that are never dropped.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Priority {
    IsReady,
    Stop,
    PonderHit,
    Quit,
}

/// Which of the never-dropped commands `line` is, if any: exactly the
/// command, as the parser reads it (a line with more words is junk, and
/// gets its error like any other).
fn priority(line: &str) -> Option<Priority> {
    if line.len() > 64 {
        return None;
    }
    match command::parse(line) {
        Ok(Command::IsReady) => Some(Priority::IsReady),
        Ok(Command::Stop) => Some(Priority::Stop),
        Ok(Command::PonderHit) => Some(Priority::PonderHit),
        Ok(Command::Quit) => Some(Priority::Quit),
        _ => None,
    }
}

/// Whether `line` is a `go` line, for the count that guards the reader's
/// own `stop` ([`Signals`]). The reader and the loop apply it to the same
/// lines, so the counts agree whatever it says about an odd line.
pub(crate) fn is_go(line: &str) -> bool {
    line.split_ascii_whitespace().next() == Some("go")
}

/// What was read beyond the bound, in the place of the dropped lines.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Overflow {
    /// Ordinary lines dropped (and lines over the length cap).
    pub dropped: usize,
    /// `isready` lines, each answered.
    pub ready: usize,
    /// Whether a `stop` came.
    pub stop: bool,
    /// Whether a `ponderhit` came.
    pub ponder_hit: bool,
    /// Whether `quit` came (the last line read).
    pub quit: bool,
}

impl Overflow {
    /// The error line's text for the drop.
    pub fn message(&self) -> String {
        format!(
            "input queue full: {} lines dropped (at most {MAX_QUEUED_LINES} lines and \
             {MAX_QUEUED_BYTES} bytes wait for the engine; isready, stop, ponderhit and quit \
             are kept)",
            self.dropped
        )
    }
}

/// One thing for the command loop.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Message {
    /// A line, without its newline.
    Line(String),
    /// A line over the length cap, skipped unread.
    TooLong,
    /// Lines read while the queue was full.
    Overflow(Overflow),
}

/// The reader's side of the shared state: what it may do on its own.
#[derive(Clone)]
pub struct Signals {
    /// `go` lines queued by the reader.
    gos_queued: Arc<AtomicU64>,
    /// `go` lines the loop has handled.
    gos_handled: Arc<AtomicU64>,
    /// Stops the running search (of either engine).
    stop: Arc<dyn Fn() + Send + Sync>,
}

impl Signals {
    /// Signals that stop searches with `stop`.
    pub fn new(stop: Arc<dyn Fn() + Send + Sync>) -> Signals {
        Signals {
            gos_queued: Arc::new(AtomicU64::new(0)),
            gos_handled: Arc::new(AtomicU64::new(0)),
            stop,
        }
    }

    /// The loop has handled a line; counts it if it is a `go`.
    pub fn handled(&self, line: &str) {
        if is_go(line) {
            self.gos_handled.fetch_add(1, Ordering::AcqRel);
        }
    }

    /// The reader's `stop`: at once, when no queued `go` is waiting for the
    /// loop (the running search, if any, is then the one the input's last
    /// `go` started).
    fn early_stop(&self) {
        if self.gos_queued.load(Ordering::Acquire) == self.gos_handled.load(Ordering::Acquire) {
            (self.stop)();
        }
    }
}

/// The queue's state under its lock.
#[derive(Default)]
struct State {
    messages: VecDeque<Message>,
    /// Lines waiting, over-long ones included (an [`Overflow`] does not
    /// count).
    lines: usize,
    /// Their bytes.
    bytes: usize,
    /// The reader is done: end of input, a read error or `quit`.
    ended: bool,
}

impl State {
    fn has_room(&self, bytes: usize) -> bool {
        self.lines < MAX_QUEUED_LINES && self.bytes + bytes <= MAX_QUEUED_BYTES
    }

    /// The overflow at the back of the queue, started if need be.
    fn overflow(&mut self) -> &mut Overflow {
        if !matches!(self.messages.back(), Some(Message::Overflow(_))) {
            self.messages
                .push_back(Message::Overflow(Overflow::default()));
        }
        match self.messages.back_mut() {
            Some(Message::Overflow(overflow)) => overflow,
            _ => unreachable!("an overflow was just pushed"),
        }
    }
}

/// The queue itself, shared by the reader and the loop.
#[derive(Default)]
struct Shared {
    state: Mutex<State>,
    /// The loop took a message: there may be room.
    taken: Condvar,
    /// The reader put a message, or ended.
    put: Condvar,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Queues what the reader read (see the module docs for a full queue).
    fn push(&self, message: Message, priority: Option<Priority>, signals: &Signals) {
        let bytes = match &message {
            Message::Line(line) => line.len(),
            _ => 0,
        };
        let mut state = self.lock();
        // Wait only at the start of a drop: while one goes on, lines are
        // dropped at once, so that a `stop` behind them is read soon.
        let dropping = matches!(state.messages.back(), Some(Message::Overflow(_)));
        let deadline = Instant::now() + if dropping { Duration::ZERO } else { ROOM_WAIT };
        while !state.has_room(bytes) {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            state = match self.taken.wait_timeout(state, left) {
                Ok((state, _)) => state,
                Err(poisoned) => poisoned.into_inner().0,
            };
        }
        if state.has_room(bytes) {
            if let Message::Line(line) = &message {
                if is_go(line) {
                    signals.gos_queued.fetch_add(1, Ordering::AcqRel);
                }
            }
            state.lines += 1;
            state.bytes += bytes;
            state.messages.push_back(message);
        } else {
            let overflow = state.overflow();
            match priority {
                Some(Priority::IsReady) => overflow.ready += 1,
                Some(Priority::Stop) => overflow.stop = true,
                Some(Priority::PonderHit) => overflow.ponder_hit = true,
                Some(Priority::Quit) => overflow.quit = true,
                None => overflow.dropped += 1,
            }
        }
        self.put.notify_all();
    }

    fn end(&self) {
        self.lock().ended = true;
        self.put.notify_all();
    }
}

/// The loop's end of the queue.
pub struct Receiver {
    shared: Arc<Shared>,
}

impl Receiver {
    /// The next message, waiting for one; `None` once the reader is done
    /// and everything it queued was taken.
    pub fn next(&self) -> Option<Message> {
        let mut state = self.shared.lock();
        loop {
            if let Some(message) = state.messages.pop_front() {
                match &message {
                    Message::Line(line) => {
                        state.lines -= 1;
                        state.bytes -= line.len();
                    }
                    Message::TooLong => state.lines -= 1,
                    Message::Overflow(_) => {}
                }
                self.shared.taken.notify_all();
                return Some(message);
            }
            if state.ended {
                return None;
            }
            state = match self.shared.put.wait(state) {
                Ok(state) => state,
                Err(poisoned) => poisoned.into_inner(),
            };
        }
    }
}

/// Reads lines (at most [`MAX_LINE_BYTES`](super::MAX_LINE_BYTES) each,
/// invalid UTF-8 replaced) on a thread of its own into the bounded queue,
/// acting on `stop` at once through `signals`. A longer line is skipped
/// without being kept, and reported as an error in its place.
pub fn spawn_reader(input: impl Read + Send + 'static, signals: Signals) -> Receiver {
    let shared = Arc::new(Shared::default());
    let reader_shared = Arc::clone(&shared);
    let spawned = std::thread::Builder::new()
        .name("input".to_string())
        .spawn(move || {
            let mut reader = BufReader::new(input);
            let mut buffer = Vec::new();
            loop {
                let (message, priority) = match read_line(&mut reader, &mut buffer) {
                    LineRead::Line(line) => {
                        let priority = priority(&line);
                        (Message::Line(line), priority)
                    }
                    LineRead::TooLong => {
                        skip_line(&mut reader);
                        (Message::TooLong, None)
                    }
                    LineRead::End => break,
                };
                if priority == Some(Priority::Stop) {
                    signals.early_stop();
                }
                reader_shared.push(message, priority, &signals);
                if priority == Some(Priority::Quit) {
                    break;
                }
            }
            reader_shared.end();
        });
    if spawned.is_err() {
        // No thread, no input: the session ends as at the end of input.
        shared.end();
    }
    Receiver { shared }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Signals whose `stop` counts its calls.
    fn counting() -> (Signals, Arc<AtomicU64>) {
        let stops = Arc::new(AtomicU64::new(0));
        let counted = Arc::clone(&stops);
        let signals = Signals::new(Arc::new(move || {
            counted.fetch_add(1, Ordering::SeqCst);
        }));
        (signals, stops)
    }

    #[test]
    fn a_full_queue_drops_ordinary_lines_and_keeps_the_four() {
        let (signals, stops) = counting();
        let shared = Shared::default();
        let long = "x".repeat(MAX_QUEUED_BYTES / 4);
        for _ in 0..4 {
            shared.push(Message::Line(long.clone()), None, &signals);
        }
        let started = Instant::now();
        for line in ["junk", "isready", "go nodes 5", "isready", "stop", "quit"] {
            shared.push(Message::Line(line.into()), priority(line), &signals);
        }
        assert!(started.elapsed() >= ROOM_WAIT, "the reader waited for room");
        assert_eq!(signals.gos_queued.load(Ordering::SeqCst), 0, "go dropped");
        let state = shared.lock();
        assert_eq!(state.messages.len(), 5);
        assert_eq!(
            state.messages.back(),
            Some(&Message::Overflow(Overflow {
                dropped: 2,
                ready: 2,
                stop: true,
                ponder_hit: false,
                quit: true,
            }))
        );
        assert_eq!(state.bytes, MAX_QUEUED_BYTES);
        drop(state);
        assert_eq!(stops.load(Ordering::SeqCst), 0, "push never stops");
        assert!(Overflow::default().message().contains("0 lines dropped"));
    }

    #[test]
    fn the_reader_stops_at_once_only_when_every_go_was_handled() {
        let (signals, stops) = counting();
        let input = b"go nodes 5\nstop\nisready now\nquit\nisready\n".to_vec();
        let receiver = spawn_reader(std::io::Cursor::new(input), signals.clone());
        let mut lines = Vec::new();
        while let Some(message) = receiver.next() {
            lines.push(message);
        }
        // The go was not handled when the stop was read (nothing took it).
        assert_eq!(stops.load(Ordering::SeqCst), 0);
        assert_eq!(lines.len(), 4, "nothing after quit: {lines:?}");
        signals.handled("go nodes 5");
        signals.early_stop();
        assert_eq!(stops.load(Ordering::SeqCst), 1);
        assert_eq!(priority("isready now"), None);
        assert_eq!(priority("stop"), Some(Priority::Stop));
    }
}
