//! The text protocol (protocol.md): a UCI-like line protocol on any reader
//! and writer, normally stdin and stdout.
//!
//! Input is read on its own thread and handed to the command loop through a
//! channel, and searches run on the engine's thread, so `isready`, `stop`
//! and `quit` are answered at once while a search runs. Every output line is
//! written whole under a lock and flushed, because the search thread and the
//! command loop both write. A line is parsed completely ([`command::parse`])
//! before anything changes, so a bad line leaves the state as it was and
//! gets one `info string error: ...` reply.

pub mod command;
pub mod text;

use std::io::{BufRead, BufReader, Read, Write};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

use crate::engine::{option_specs, Engine, GoOutcome, OptionKind, PositionError, SearchEvent};
use crate::notation::turn::{format_turn, Style, TurnError};
use crate::notation::Board;
use crate::rules::{Action, GameResult, GameStatus, History, MidTurn, PlayError, Rules};
use crate::search::{SearchLimits, SearchOptions};
use command::Command;

/// The engine's name as `hwi` reports it.
pub const ENGINE_NAME: &str = concat!("Supernova ", env!("CARGO_PKG_VERSION"));
/// The engine's author as `hwi` reports it.
pub const ENGINE_AUTHOR: &str = "the Supernova developers";
/// Input lines longer than this are rejected unread: no command needs more
/// than a few kilobytes, and a runaway line must not grow memory without end.
pub const MAX_LINE_BYTES: usize = 1 << 20;

/// Deliberate misbehaviour, for testing the match runner's refereeing. A
/// hidden command-line flag (`supernova engine --misbehave MODE`) selects it;
/// until the first `go` the engine behaves normally.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Misbehave {
    /// Exit at once with status 101 on `go`, as a panicking program does.
    Crash,
    /// Never answer `go`, and ignore every later line except end of input.
    Hang,
    /// Answer `go` with a turn that parses but is illegal.
    Illegal,
    /// Answer `go` with lines of junk and an unparsable `bestmove`.
    Garbage,
}

impl FromStr for Misbehave {
    type Err = String;

    fn from_str(text: &str) -> Result<Misbehave, String> {
        match text {
            "crash" => Ok(Misbehave::Crash),
            "hang" => Ok(Misbehave::Hang),
            "illegal" => Ok(Misbehave::Illegal),
            "garbage" => Ok(Misbehave::Garbage),
            _ => Err(format!(
                "unknown mode '{text}': expected crash, hang, illegal or garbage"
            )),
        }
    }
}

/// Where output lines go: shared by the command loop and the search thread.
#[derive(Clone)]
pub struct Output {
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    broken: Arc<AtomicBool>,
}

impl Output {
    /// Wraps a writer.
    pub fn new(writer: impl Write + Send + 'static) -> Output {
        Output {
            writer: Arc::new(Mutex::new(Box::new(writer))),
            broken: Arc::new(AtomicBool::new(false)),
        }
    }

    /// Writes one line and flushes it. A failed write (the reader went
    /// away) marks the output broken, which ends the session.
    pub fn line(&self, text: &str) {
        let mut writer = match self.writer.lock() {
            Ok(writer) => writer,
            Err(poisoned) => poisoned.into_inner(),
        };
        if writeln!(writer, "{text}")
            .and_then(|()| writer.flush())
            .is_err()
        {
            self.broken.store(true, Ordering::Relaxed);
        }
    }

    /// Writes several lines, each whole.
    pub fn lines<S: AsRef<str>>(&self, lines: &[S]) {
        for line in lines {
            self.line(line.as_ref());
        }
    }

    /// Whether a write has failed.
    pub fn is_broken(&self) -> bool {
        self.broken.load(Ordering::Relaxed)
    }
}

/// Whether the loop goes on after a command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was received.
    Quit,
}

/// Why the turns of a `position` command cannot be played; each names the
/// turn by its 1-based index and its text.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GameTextError {
    /// The start position is in the middle of a turn.
    MidTurn,
    /// A turn does not parse or cannot be played.
    Turn {
        /// 1-based index in the turn list.
        index: usize,
        /// The turn as given.
        text: String,
        /// Why it was rejected.
        error: TurnError,
    },
    /// A turn comes after the end of the game.
    AfterGameOver {
        /// 1-based index in the turn list.
        index: usize,
        /// The turn as given.
        text: String,
        /// How the game had ended.
        result: GameResult,
    },
}

impl std::fmt::Display for GameTextError {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            GameTextError::MidTurn => write!(formatter, "{MidTurn}"),
            GameTextError::Turn { index, text, error } => {
                write!(formatter, "turn {index} '{text}' cannot be played: {error}")
            }
            GameTextError::AfterGameOver {
                index,
                text,
                result,
            } => write!(
                formatter,
                "turn {index} '{text}' comes after the end of the game ({} {})",
                result.score(),
                result.reason.word()
            ),
        }
    }
}

impl std::error::Error for GameTextError {}

impl GameTextError {
    /// The error for turn `index` (from 1), written `text`, that the rules
    /// layer refused.
    pub fn from_play_error(index: usize, text: &str, error: PlayError) -> GameTextError {
        let text = text.to_string();
        match error {
            PlayError::GameOver(result) => GameTextError::AfterGameOver {
                index,
                text,
                result,
            },
            PlayError::Illegal {
                index: action,
                reason,
            } => GameTextError::Turn {
                index,
                error: TurnError::Illegal {
                    index: action,
                    text: text.clone(),
                    reason,
                },
                text,
            },
            PlayError::CannotEnd(reason) => GameTextError::Turn {
                index,
                text,
                error: TurnError::CannotEnd(reason),
            },
        }
    }
}

/// A game given as text, read against its start board: each turn is parsed
/// with the names of the board it is played on (in any form
/// [`Board::play_turn_text`] reads) and checked by the rules layer's
/// [`History`], so a turn after the end of the game is refused as the engine
/// would refuse it. Returns the board after the last turn (with every
/// discovery's name) and each turn's actions, for [`Engine::set_position`].
///
/// # Errors
/// The first turn that does not parse, cannot be played or comes after the
/// end of the game, named by index and text; or a mid-turn start.
pub fn read_game<S: AsRef<str>>(
    start: &Board,
    rules: &Rules,
    turns: &[S],
) -> Result<(Board, Vec<Vec<Action>>), GameTextError> {
    let mut history = History::new(start.position).map_err(|_| GameTextError::MidTurn)?;
    history.reserve(turns.len());
    let mut board = start.clone();
    let mut actions = Vec::with_capacity(turns.len());
    for (index, text) in turns.iter().enumerate() {
        let text = text.as_ref();
        if let GameStatus::Over(result) = history.status(rules) {
            return Err(GameTextError::AfterGameOver {
                index: index + 1,
                text: text.to_string(),
                result,
            });
        }
        let mut next = board.clone();
        let played = next
            .play_turn_text(rules, text)
            .map_err(|error| GameTextError::Turn {
                index: index + 1,
                text: text.to_string(),
                error,
            })?;
        history
            .play(rules, &played.actions)
            .map_err(|error| GameTextError::from_play_error(index + 1, text, error))?;
        board = next;
        actions.push(played.actions);
    }
    Ok((board, actions))
}

/// One protocol session: an engine, the board with the names the
/// controller uses, and where the replies go. The session owns all text:
/// it reads turns against its board, hands the engine actions, and writes
/// the engine's answers with its board's names.
pub struct Session {
    engine: Engine,
    /// The engine's current position, with the system names of the
    /// `position` command that set it.
    board: Board,
    output: Output,
    misbehave: Option<Misbehave>,
    hung: bool,
}

impl Session {
    /// A session with default options writing to `output`.
    pub fn new(output: Output, misbehave: Option<Misbehave>) -> Session {
        Session {
            engine: Engine::new(SearchOptions::default()),
            board: Board::default(),
            output,
            misbehave,
            hung: false,
        }
    }

    /// The engine, for inspection by tests and tools.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    fn error(&self, message: impl std::fmt::Display) {
        self.output.line(&format!("info string error: {message}"));
    }

    /// Handles one input line.
    pub fn handle(&mut self, line: &str) -> Flow {
        if self.hung {
            return Flow::Continue;
        }
        let command = match command::parse(line) {
            Ok(command) => command,
            Err(error) => {
                self.error(error);
                return Flow::Continue;
            }
        };
        match command {
            Command::Empty => {}
            Command::Hwi => self.hwi(),
            Command::IsReady => self.output.line("readyok"),
            Command::SetOption { name, value } => {
                if let Err(error) = self.engine.set_option(&name, &value) {
                    self.error(error);
                }
            }
            Command::NewGame => match self.engine.new_game() {
                Ok(()) => self.board = Board::default(),
                Err(error) => self.error(error),
            },
            Command::Position { base, turns } => self.position(&base, &turns),
            Command::Go(limits) => self.go(limits),
            Command::Stop => self.engine.stop(),
            Command::Quit => {
                self.engine.stop();
                self.engine.wait();
                return Flow::Quit;
            }
            Command::Display => self.display(),
            Command::Turns { limit } => self.turns(limit),
            Command::Eval => {
                let value = self.engine.evaluate();
                self.output.line(&format!(
                    "eval value {value:.4} winprob {:.4}",
                    (value + 1.0) / 2.0
                ));
            }
            Command::Count => {
                let count = self.board.position.count_turns(&self.engine.rules());
                self.output.line(&format!("count {count}"));
            }
        }
        Flow::Continue
    }

    /// End of input: an infinite search is stopped, a limited one finishes;
    /// either way its `bestmove` is written before this returns.
    pub fn finish(&mut self) {
        if self.hung {
            return;
        }
        if self.engine.is_searching_infinitely() {
            self.engine.stop();
        }
        self.engine.wait();
    }

    fn hwi(&self) {
        let mut lines = vec![
            format!("id name {ENGINE_NAME}"),
            format!("id author {ENGINE_AUTHOR}"),
        ];
        for spec in option_specs() {
            let kind = match spec.kind {
                OptionKind::Spin { default, min, max } => {
                    format!("type spin default {default} min {min} max {max}")
                }
                OptionKind::Float { default, min, max } => {
                    format!("type float default {default} min {min} max {max}")
                }
                OptionKind::Combo { default, values } => {
                    let vars: Vec<String> =
                        values.iter().map(|value| format!("var {value}")).collect();
                    format!("type combo default {default} {}", vars.join(" "))
                }
                OptionKind::Text { default } => format!("type string default {default}"),
            };
            lines.push(format!("option name {} {kind}", spec.name));
        }
        lines.push("hwiok".to_string());
        self.output.lines(&lines);
    }

    /// Sets the game from a `position` command: the turns are read against
    /// the base board, then handed to the engine as actions. On any error
    /// the board and the engine stay as they were.
    fn position(&mut self, base: &Board, turns: &[String]) {
        let rules = self.engine.rules();
        let (board, actions) = match read_game(base, &rules, turns) {
            Ok(game) => game,
            Err(error) => return self.error(error),
        };
        match self.engine.set_position(base.position, &actions) {
            Ok(()) => self.board = board,
            // The engine judges with the same rules layer, so this only
            // happens if the two disagree; name the turn all the same.
            Err(PositionError::Turn { index, error }) => {
                let text = turns.get(index.wrapping_sub(1)).map_or("", String::as_str);
                self.error(GameTextError::from_play_error(index, text, error));
            }
            Err(PositionError::MidTurn) => self.error(GameTextError::MidTurn),
        }
    }

    fn go(&mut self, limits: SearchLimits) {
        if let Some(mode) = self.misbehave {
            self.misbehave_on_go(mode);
            return;
        }
        let board = self.board.clone();
        let rules = self.engine.rules();
        let output = self.output.clone();
        let listener = Box::new(move |event: SearchEvent<'_>| match event {
            SearchEvent::Info(info) => output.lines(&text::info_lines(&board, &rules, info)),
            SearchEvent::Finished(outcome) => match outcome {
                GoOutcome::Turn { result } => {
                    let token = format_turn(&board, &rules, &result.best_turn, Style::Token);
                    output.line(&format!(
                        "info string decision {}",
                        text::decision_word(result.decision)
                    ));
                    output.line(&format!("bestmove {token}"));
                }
                GoOutcome::GameOver { result, .. } => {
                    output.line(&text::result_line(result));
                    output.line("bestmove (none)");
                }
            },
        });
        if let Err(error) = self.engine.go(limits, listener) {
            self.error(error);
        }
    }

    fn misbehave_on_go(&mut self, mode: Misbehave) {
        match mode {
            Misbehave::Crash => {
                // Exit as a panicking Rust program does (status 101), without
                // the core dump an abort could leave behind.
                self.output.line("info string misbehaving: crash");
                std::process::exit(101);
            }
            Misbehave::Hang => self.hung = true,
            Misbehave::Illegal => {
                let token = illegal_token(&self.board, &self.engine.rules());
                self.output.line("info depth 0 nodes 0 time 0");
                self.output.line(&format!("bestmove {token}"));
            }
            Misbehave::Garbage => {
                self.output.lines(&[
                    "\u{1b}[31m*** garbage ***",
                    "bestmov e",
                    "info nonsense 12 ~~",
                    "bestmove @@##!!",
                ]);
            }
        }
    }

    fn display(&self) {
        let board = &self.board;
        let rules = self.engine.rules();
        let mut lines: Vec<String> = text::board_text(board)
            .lines()
            .map(str::to_string)
            .collect();
        lines.push(format!("rules: {}", text::rules_text(&rules)));
        lines.push(format!(
            "turns played: {} since the position's base",
            self.engine.played_turns().len()
        ));
        lines.push(format!(
            "status: {}",
            text::status_text(&self.engine.status())
        ));
        self.output.lines(&lines);
    }

    fn turns(&self, limit: usize) {
        let board = &self.board;
        let rules = self.engine.rules();
        let mut tokens: Vec<String> = board
            .position
            .legal_turns(&rules)
            .iter()
            .map(|turn| format_turn(board, &rules, &turn.actions, Style::Token))
            .collect();
        tokens.sort();
        let total = tokens.len();
        let shown = total.min(limit);
        let mut lines: Vec<String> = tokens
            .into_iter()
            .take(shown)
            .map(|token| format!("turn {token}"))
            .collect();
        lines.push(format!("turns total {total} shown {shown}"));
        self.output.lines(&lines);
    }
}

/// A turn that parses and names live systems but breaks the rules here: a
/// build of some piece in some system that the rules reject.
pub fn illegal_token(board: &Board, rules: &Rules) -> String {
    for slot in board.position.occupied_slots() {
        for piece in crate::rules::Piece::ALL {
            let token = format!("build.{piece}.{}", board.name(slot));
            if board.clone().play_turn_text(rules, &token).is_err() {
                return token;
            }
        }
    }
    "capture.g3.Nowhere".to_string()
}

/// Reads lines (bytes up to `\n`, invalid UTF-8 replaced) on a thread of
/// its own and sends them down a channel; the channel closes at end of input.
fn spawn_reader(input: impl Read + Send + 'static) -> mpsc::Receiver<Result<String, String>> {
    let (sender, receiver) = mpsc::channel();
    std::thread::Builder::new()
        .name("input".to_string())
        .spawn(move || {
            let mut reader = BufReader::new(input);
            let mut buffer = Vec::new();
            loop {
                buffer.clear();
                match reader
                    .by_ref()
                    .take(MAX_LINE_BYTES as u64 + 1)
                    .read_until(b'\n', &mut buffer)
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                let message = if buffer.len() > MAX_LINE_BYTES && buffer.last() != Some(&b'\n') {
                    // Skip the rest of the oversized line.
                    let mut rest = Vec::new();
                    let _ = reader.read_until(b'\n', &mut rest);
                    Err(format!(
                        "line too long: expected at most {MAX_LINE_BYTES} bytes"
                    ))
                } else {
                    let text = String::from_utf8_lossy(&buffer);
                    Ok(text.trim_end_matches(['\n', '\r']).to_string())
                };
                if sender.send(message).is_err() {
                    break;
                }
            }
        })
        .ok();
    receiver
}

/// Runs the protocol until `quit`, end of input or a broken output.
pub fn run(
    input: impl Read + Send + 'static,
    output: impl Write + Send + 'static,
    misbehave: Option<Misbehave>,
) {
    let output = Output::new(output);
    let mut session = Session::new(output.clone(), misbehave);
    let lines = spawn_reader(input);
    for line in lines.iter() {
        if output.is_broken() {
            session.engine.stop();
            break;
        }
        match line {
            Ok(line) => {
                if session.handle(&line) == Flow::Quit {
                    return;
                }
            }
            Err(message) => session.error(message),
        }
    }
    session.finish();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer that keeps what it is given.
    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<Vec<u8>>>);

    impl Write for Capture {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(bytes);
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn transcript(input: &str) -> String {
        let capture = Capture::default();
        run(
            std::io::Cursor::new(input.as_bytes().to_vec()),
            capture.clone(),
            None,
        );
        let bytes = capture.0.lock().unwrap().clone();
        String::from_utf8(bytes).unwrap()
    }

    #[test]
    fn handshake_and_errors() {
        let out = transcript("hwi\nisready\nbogus\nposition startpos moves build.g1.Home0\n");
        assert!(out.starts_with("id name Supernova"));
        assert!(out.contains("option name Threads type spin default 1"));
        assert!(out.contains("option name cpuct type float"));
        assert!(out.contains("hwiok\nreadyok\n"));
        assert!(out.contains("info string error: 'bogus': unknown command"));
        assert!(
            out.contains("info string error: turn 1 'build.g1.Home0'"),
            "{out}"
        );
    }

    #[test]
    fn one_bestmove_per_go_at_end_of_input() {
        let out = transcript(
            "setoption name Player value greedy\nposition pos r1b3:g3:/y2b1::g3 0\ngo nodes 50\n",
        );
        assert_eq!(out.matches("bestmove ").count(), 1, "{out}");
        let last_info = out
            .lines()
            .rev()
            .find(|line| line.starts_with("info depth"));
        assert!(last_info.is_some(), "{out}");
    }

    #[test]
    fn game_over_is_reported() {
        let out = transcript("position pos r1b3:g3:/x 1\ngo nodes 10\n");
        assert!(
            out.contains("info string result 1-0 elimination\nbestmove (none)\n"),
            "{out}"
        );
    }

    #[test]
    fn games_are_read_against_their_own_names() {
        let rules = Rules::STANDARD;
        let start = crate::notation::hwpn::parse("Sam=r1y3:g1g3:/Dave=y2b1::g3 0").unwrap();
        let (board, actions) = read_game(
            &start,
            &rules,
            &["disc.g3.Sam.y2.Vega", "pass", "move.g3.Vega.Sam"],
        )
        .unwrap();
        assert_eq!(actions.len(), 3);
        assert!(board.slot("Sam").is_ok());
        assert!(board.slot("Vega").is_err(), "Vega faded when its ship left");
        let error = read_game(&start, &rules, &["pass", "build.g1.Vega"]).unwrap_err();
        assert_eq!(
            error.to_string(),
            "turn 2 'build.g1.Vega' cannot be played: action 1: 'Vega': expected a system name, one of: Sam, Dave"
        );
        let automatic = Rules {
            repetition: crate::rules::Repetition::Automatic(2),
            ..rules
        };
        let error = read_game(&start, &automatic, &["pass", "pass", "bogus"]).unwrap_err();
        assert!(
            matches!(error, GameTextError::AfterGameOver { index: 3, .. }),
            "{error}"
        );
    }

    #[test]
    fn illegal_token_is_illegal() {
        let board = crate::notation::hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap();
        let token = illegal_token(&board, &Rules::STANDARD);
        assert!(board
            .clone()
            .play_turn_text(&Rules::STANDARD, &token)
            .is_err());
        assert!(crate::notation::turn::parse_turn(&token).is_ok());
    }
}
