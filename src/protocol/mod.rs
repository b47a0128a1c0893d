//! The text protocol (protocol.md): a UCI-like line protocol on any reader
//! and writer, normally stdin and stdout. Both halves live here: the
//! engine's side ([`Session`], [`run`]) and the controller's side
//! ([`client`]), and they read and write the same types: [`command::Command`]
//! for the controller's lines and [`reply::Reply`] for the engine's, over
//! one word level ([`words`]) and one capped line reader ([`lines`]).
//!
//! Input is read on its own thread and handed to the command loop through a
//! bounded queue ([`queue`]: at most a few thousand lines and megabytes
//! wait; beyond that ordinary lines are dropped with one error, and
//! `isready`, `stop`, `ponderhit` and `quit` are kept), and searches, two-
//! and multi-player, run on the engines' threads, so `isready`, `stop` and
//! `quit` are answered at once while a search runs. The reader also acts on
//! `stop` itself, so a search stops even while the loop is busy with
//! earlier lines. A `go` (or an option, or `newgame`) right after `stop`
//! waits for the stopped search's `bestmove` and then runs, in order; a
//! two-player `go` while a search runs that was not told to stop is
//! refused, and a multi-player one waits for that search's answer
//! ([`multi`]). Every output line is written whole under a lock and
//! flushed, because the search thread and the command loop both write. A line is parsed completely ([`command::parse`])
//! before anything changes, so a bad line leaves the state as it was and
//! gets one `info string error: ...` reply, which quotes the offending word
//! as a bounded, escaped excerpt. Each `bestmove` that plays a turn follows
//! `info string explain <sentence>`, why it was played ([`explain`](mod@explain)).

pub mod client;
pub mod command;
pub mod explain;
pub mod lines;
pub mod multi;
pub mod queue;
pub mod reply;
pub mod text;
pub mod words;

use std::io::{Read, Write};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use crate::engine::{
    explain, option_specs, win_probability, Engine, GoOutcome, OptionError, PositionError,
    SearchEvent, SearchInfo, SearchLimits, SearchOptions,
};
use crate::notation::error::excerpt;
use crate::notation::turn::{format_turn, Style, TurnError};
use crate::notation::Board;
use crate::rules::{Action, GameResult, GameStatus, History, MidTurn, PlayError, Rules};
use command::Command;
pub use lines::MAX_LINE_BYTES;
use reply::{IdField, OptionLine, Reply};
use text::InfoStyle;

/// The engine's name as `hwi` reports it.
pub const ENGINE_NAME: &str = concat!("Supernova ", env!("CARGO_PKG_VERSION"));
/// The engine's author as `hwi` reports it.
pub const ENGINE_AUTHOR: &str = "the Supernova developers";

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
/// turn by its 1-based index and its text (shown as a bounded, escaped
/// excerpt).
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
                let text = excerpt(text);
                write!(formatter, "turn {index} '{text}' cannot be played: {error}")
            }
            GameTextError::AfterGameOver {
                index,
                text,
                result,
            } => write!(
                formatter,
                "turn {index} '{}' comes after the end of the game ({} {})",
                excerpt(text),
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
    /// The multi-player extension (protocol.md §10), idle in two-player
    /// games.
    multi: multi::MultiSession,
}

impl Session {
    /// A session with default options writing to `output`.
    pub fn new(output: Output) -> Session {
        Session {
            engine: Engine::new(SearchOptions::default()),
            board: Board::default(),
            output,
            multi: multi::MultiSession::new(),
        }
    }

    /// The engine, for inspection by tests and tools.
    pub fn engine(&self) -> &Engine {
        &self.engine
    }

    /// The engine's position with the names of the `position` command that
    /// set it, for inspection by tests and tools.
    pub fn board(&self) -> &Board {
        &self.board
    }

    fn reply(&self, reply: Reply) {
        self.output.line(&reply.to_string());
    }

    fn error(&self, message: impl std::fmt::Display) {
        self.reply(Reply::error(message));
    }

    /// Handles one input line.
    pub fn handle(&mut self, line: &str) -> Flow {
        let rules = self.engine.rules();
        let searching = self.engine.is_searching();
        if let Some(flow) = self.multi.handle(line, &rules, searching, &self.output) {
            return flow;
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
            Command::IsReady => self.reply(Reply::ReadyOk),
            Command::SetOption { name, value } => {
                if let Err(error) = self.engine.set_option(&name, &value) {
                    self.error(quoted(error));
                }
            }
            Command::NewGame => match self.engine.new_game() {
                Ok(()) => self.board = Board::default(),
                Err(error) => self.error(error),
            },
            Command::Position { base, turns } => self.position(&base, &turns),
            Command::Go(limits) => self.go(limits),
            Command::Stop => self.engine.stop(),
            // As `stop` with no search, a `ponderhit` with no ponder search
            // running (it was stopped, or already hit) is ignored.
            Command::PonderHit => {
                self.engine.ponder_hit();
            }
            Command::Quit => {
                self.stop();
                self.engine.wait();
                self.multi.wait();
                return Flow::Quit;
            }
            Command::Display => self.display(),
            Command::Turns { limit } => self.turns(limit),
            Command::Eval => {
                // The units of `info`: cp is the value times 1000, winprob
                // is per mille.
                let value = self.engine.evaluate();
                self.output.line(&format!(
                    "eval cp {} winprob {}",
                    text::centipawns(value),
                    text::per_mille(win_probability(value))
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
        if self.engine.is_searching_infinitely() {
            self.engine.stop();
        }
        self.engine.wait();
        self.multi.wait();
    }

    /// Asks the running search, two-player or multi-player, to stop.
    pub fn stop(&self) {
        self.engine.stop();
        self.multi.stop();
    }

    /// What stops the session's running search from another thread (the
    /// input reader's `stop`), whichever engine runs it.
    pub fn stopper(&self) -> Arc<dyn Fn() + Send + Sync> {
        let two = self.engine.stop_handle();
        let multi = self.multi.engine().stop_handle();
        Arc::new(move || {
            two.stop();
            multi.stop();
        })
    }

    /// The lines read while the input queue was full: one error for the
    /// dropped ones, then the kept commands in their order
    /// ([`queue::Overflow`]).
    fn overflow(&mut self, overflow: &queue::Overflow) -> Flow {
        self.error(overflow.message());
        if overflow.ponder_hit {
            self.handle("ponderhit");
        }
        if overflow.stop {
            self.handle("stop");
        }
        for _ in 0..overflow.ready {
            self.reply(Reply::ReadyOk);
        }
        if overflow.quit {
            return self.handle("quit");
        }
        Flow::Continue
    }

    fn hwi(&self) {
        let mut replies = vec![
            Reply::Id {
                field: IdField::Name,
                value: ENGINE_NAME.to_string(),
            },
            Reply::Id {
                field: IdField::Author,
                value: ENGINE_AUTHOR.to_string(),
            },
        ];
        replies.extend(
            option_specs()
                .iter()
                .map(|spec| Reply::Option(OptionLine::from(spec))),
        );
        replies.push(Reply::HwiOk);
        let lines: Vec<String> = replies.iter().map(Reply::to_string).collect();
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
        let board = self.board.clone();
        let rules = self.engine.rules();
        let output = self.output.clone();
        let settings = self.engine.settings();
        let tunables = self.engine.options().tunables.clone();
        let style = InfoStyle {
            show_wdl: settings.show_wdl,
        };
        let listener = Box::new(move |event: SearchEvent<'_>| match event {
            SearchEvent::Info(info) => {
                let lines: Vec<String> = text::search_infos(&board, &rules, info, style)
                    .into_iter()
                    .map(|info| Reply::Info(info).to_string())
                    .collect();
                output.lines(&lines);
            }
            SearchEvent::Finished(outcome) => {
                let mut replies = Vec::with_capacity(3);
                match outcome {
                    GoOutcome::Turn { result } => {
                        replies.push(Reply::InfoString(format!(
                            "decision {}",
                            text::decision_word(result.decision)
                        )));
                        if settings.explain {
                            let explanation = explain(&board.position, &rules, &tunables, result);
                            replies.push(Reply::InfoString(format!(
                                "explain {}",
                                explain::sentence(&board, &rules, &explanation)
                            )));
                        }
                        replies.push(Reply::BestMove {
                            turn: Some(format_turn(
                                &board,
                                &rules,
                                &result.best_turn,
                                Style::Token,
                            )),
                            ponder: if settings.ponder {
                                expected_reply(&board, &rules, &result.info)
                            } else {
                                None
                            },
                        });
                    }
                    GoOutcome::GameOver { result, .. } => {
                        replies.push(Reply::InfoString(text::result_string(result)));
                        replies.push(Reply::best_move(None));
                    }
                }
                let lines: Vec<String> = replies.iter().map(Reply::to_string).collect();
                output.lines(&lines);
            }
        });
        if let Err(error) = self.engine.go(limits, listener) {
            self.error(error);
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

/// The reply the search expects to its best turn, written on the board
/// that turn leaves: the second turn of its principal variation, when it
/// has one and the game goes on.
fn expected_reply(board: &Board, rules: &Rules, info: &SearchInfo) -> Option<String> {
    let line = info.principal_variation.get(..2)?;
    if line[0] != info.best_turn {
        return None;
    }
    text::format_line(board, rules, line, Style::Token)
        .into_iter()
        .nth(1)
}

/// The option error with its name and value as bounded, escaped excerpts.
fn quoted(error: OptionError) -> OptionError {
    match error {
        OptionError::UnknownName(name) => OptionError::UnknownName(excerpt(&name)),
        OptionError::BadValue {
            name,
            value,
            expected,
        } => OptionError::BadValue {
            name: excerpt(&name),
            value: excerpt(&value),
            expected,
        },
        OptionError::Busy => OptionError::Busy,
    }
}

/// Runs the protocol until `quit`, end of input or a broken output. Input
/// is read on a thread of its own into a bounded queue ([`queue`]).
pub fn run(input: impl Read + Send + 'static, output: impl Write + Send + 'static) {
    let output = Output::new(output);
    let mut session = Session::new(output.clone());
    let signals = queue::Signals::new(session.stopper());
    let messages = queue::spawn_reader(input, signals.clone());
    while let Some(message) = messages.next() {
        if output.is_broken() {
            session.stop();
            break;
        }
        let flow = match message {
            queue::Message::Line(line) => {
                let flow = session.handle(&line);
                signals.handled(&line);
                flow
            }
            queue::Message::TooLong => {
                session.error(format!(
                    "line too long: expected at most {MAX_LINE_BYTES} bytes"
                ));
                Flow::Continue
            }
            queue::Message::Overflow(overflow) => session.overflow(&overflow),
        };
        if flow == Flow::Quit {
            return;
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
}
