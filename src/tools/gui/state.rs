//! What the GUI is doing: the game, the mode, the engines and their latest
//! search lines, kept under one lock and versioned so that the page can
//! wait for a change (long polling).
//!
//! Engines are told what to do by [`State::drive`], called after every
//! change: from the mode and the game it works out which search each engine
//! should be running (a turn to play, or an analysis of the shown
//! position), stops a search that is no longer wanted, and starts the one
//! that is. A search's `bestmove` is applied only if that search is still
//! the wanted one, so a turn that arrives after an undo, a new game or a
//! mode change is dropped rather than played into the wrong game.

use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::engine::{EngineCommand, EngineEvent, EngineLink};
use super::game::Game;
use crate::notation::turn::Style;
use crate::notation::Board;
use crate::protocol::reply::{Info, Reply, Score};
use crate::rules::{Player, Rules};

/// How long past its limit an engine may take to answer a turn before it
/// counts as hung.
const HANG_MARGIN: Duration = Duration::from_secs(10);

/// What the page is used for. In requests and replies it is its
/// [`Mode::word`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// A person plays one side, engine 1 the other.
    Play,
    /// Engine 1 plays player 0, engine 2 player 1.
    Watch,
    /// A person moves both sides; engine 1 analyses the shown position.
    Analyse,
    /// A loaded game is stepped through; engine 1 may analyse.
    Review,
}

impl Mode {
    /// The mode's word in the page's requests and state.
    pub fn word(self) -> &'static str {
        match self {
            Mode::Play => "play",
            Mode::Watch => "watch",
            Mode::Analyse => "analyse",
            Mode::Review => "review",
        }
    }
}

/// How long an engine thinks about a turn it plays. The page asks for one
/// as `{"movetime": MS}`, `{"nodes": N}` or `{"clock": {"initial": MS,
/// "increment": MS}}`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "lowercase")]
pub enum TimeControl {
    /// Milliseconds per turn.
    Movetime(u64),
    /// Iterations per turn (fast and reproducible).
    Nodes(u64),
    /// A game clock for each player: milliseconds at the start, and added
    /// after each of their turns. The engine budgets its own clock.
    Clock {
        /// Milliseconds on each clock at the start.
        initial: u64,
        /// Milliseconds added after each turn.
        increment: u64,
    },
}

impl TimeControl {
    /// The `go` line, given the clocks' times now.
    fn go(self, clocks: [u64; 2]) -> String {
        match self {
            TimeControl::Movetime(milliseconds) => format!("go movetime {milliseconds}"),
            TimeControl::Nodes(nodes) => format!("go nodes {nodes}"),
            TimeControl::Clock { increment, .. } => format!(
                "go p0time {} p1time {} p0inc {increment} p1inc {increment}",
                clocks[0], clocks[1]
            ),
        }
    }

    /// In words, for the page.
    pub fn text(self) -> String {
        match self {
            TimeControl::Movetime(milliseconds) => format!("{milliseconds} ms a turn"),
            TimeControl::Nodes(nodes) => format!("{nodes} nodes a turn"),
            TimeControl::Clock { initial, increment } => format!(
                "a clock of {} s + {} s a turn",
                initial / 1000,
                increment as f64 / 1000.0
            ),
        }
    }
}

/// Why a search runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Purpose {
    /// To play the next turn of the game.
    Turn,
    /// To analyse the shown position until stopped.
    Analysis,
    /// To evaluate one position of the game for the evaluation graph.
    Scan,
}

/// A search an engine runs or should run: what for, in which game, from
/// which position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchTag {
    /// Why.
    pub purpose: Purpose,
    /// The game's number (changes with every new, loaded or undone game).
    pub game_id: u64,
    /// The position: the board before this turn of the game.
    pub ply: usize,
    /// The side to move there, to turn its values into player 0's.
    pub mover: Player,
    /// The candidates asked for (`MultiPV`).
    pub multipv: u32,
}

/// One candidate line of the latest search, sent to the page as it is.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Line {
    /// The rank (1 = best).
    pub rank: u64,
    /// Player 0's win probability, per mille.
    pub winprob: Option<u64>,
    /// Player 0's value times 1000.
    pub score: Option<i64>,
    /// The turns, in SDG form (as many as could be read).
    pub turns: Vec<String>,
    /// A proven result for the side to move: `win`, `loss` or `draw`.
    pub proof: Option<&'static str>,
}

/// The latest search lines.
#[derive(Clone, Debug, Default)]
pub struct Analysis {
    /// The search they come from.
    pub tag: Option<SearchTag>,
    /// The engine (1 or 2) that sent them.
    pub engine: usize,
    /// The candidates by rank.
    pub lines: Vec<Line>,
    /// Mean depth.
    pub depth: Option<u64>,
    /// Iterations so far.
    pub nodes: Option<u64>,
    /// Iterations per second.
    pub nps: Option<u64>,
    /// How many `info` lines were read for this search (the page shows
    /// that the analysis is live).
    pub updates: u64,
}

/// One engine slot: how to start it, the process, and its search.
pub struct EngineSlot {
    /// How to start it.
    pub command: EngineCommand,
    /// The running process, if any.
    pub link: Option<EngineLink>,
    /// Its `id name`.
    pub name: String,
    /// Counts spawns, so that a dead process's reader cannot touch a new one.
    generation: u64,
    /// The search it runs.
    pub search: Option<SearchTag>,
    /// Whether `stop` was sent for that search.
    stopping: bool,
    /// The last search that ended by itself (a proven analysis): not
    /// started again, which would repeat it at once without end.
    finished: Option<SearchTag>,
    /// When the running search began, for [`State::check_hung`].
    started: Option<Instant>,
    /// The last `info string result` line, for `bestmove (none)`.
    result_line: Option<String>,
    /// The `Rules` option last sent (setting it clears the engine's tree).
    rules_sent: Option<&'static str>,
}

/// Everything the page shows. See the module docs.
pub struct State {
    /// Bumped on every change the page should see.
    pub version: u64,
    /// The mode.
    pub mode: Mode,
    /// The person's side in [`Mode::Play`].
    pub human: Player,
    /// The engines' time per turn in play and watch.
    pub time_control: TimeControl,
    /// The game.
    pub game: Game,
    /// Numbers games, for [`SearchTag::game_id`].
    pub game_id: u64,
    /// The turn shown: the board before turn `cursor` (the end in play and watch).
    pub cursor: usize,
    /// Whether engine 1 analyses the shown position.
    pub analysing: bool,
    /// Iterations per position while engine 1 evaluates every position of
    /// the game for the graph (when it is not analysing), or `None`.
    pub scan_nodes: Option<u64>,
    /// Candidates to analyse.
    pub multipv: u32,
    /// The latest search lines.
    pub analysis: Analysis,
    /// Under a clock: each player's milliseconds left when the current
    /// turn began.
    pub clocks: [u64; 2],
    /// When the current turn began (for the mover's clock).
    pub turn_started: Instant,
    /// Player 0's win probability (per mille) before each turn, as far as known.
    pub evaluations: Vec<Option<u64>>,
    /// The last message for the person (an error or a notice).
    pub message: String,
    /// Whether [`State::message`] reports an error.
    pub message_is_error: bool,
    /// Engines are not started or told anything until the person resumes
    /// (after a crash or an illegal engine turn), so a broken engine does
    /// not loop.
    pub paused: bool,
    /// The two engines.
    pub engines: [EngineSlot; 2],
}

/// The state and the condition the page's long polls wait on.
pub struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

impl Shared {
    /// Wraps a fresh state.
    pub fn new(commands: [EngineCommand; 2]) -> Arc<Shared> {
        let slot = |command| EngineSlot {
            command,
            link: None,
            name: String::new(),
            generation: 0,
            search: None,
            stopping: false,
            finished: None,
            started: None,
            result_line: None,
            rules_sent: None,
        };
        let [first, second] = commands;
        let game = match Game::new(Board::default(), Rules::STANDARD) {
            Ok(game) => game,
            Err(_) => unreachable!("the empty start is at the start of a turn"),
        };
        Arc::new(Shared {
            state: Mutex::new(State {
                version: 1,
                mode: Mode::Play,
                human: Player::First,
                time_control: TimeControl::Movetime(1000),
                game,
                game_id: 1,
                cursor: 0,
                analysing: false,
                scan_nodes: None,
                multipv: 3,
                analysis: Analysis::default(),
                clocks: [0, 0],
                turn_started: Instant::now(),
                evaluations: vec![None],
                message: String::new(),
                message_is_error: false,
                paused: false,
                engines: [slot(first), slot(second)],
            }),
            changed: Condvar::new(),
        })
    }

    /// Locks the state (a panic elsewhere does not make it unusable).
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `change` on the state, then drives the engines and wakes the
    /// page's waits.
    pub fn update<T>(self: &Arc<Shared>, change: impl FnOnce(&mut State) -> T) -> T {
        let mut state = self.lock();
        let result = change(&mut state);
        state.drive(self);
        state.version += 1;
        drop(state);
        self.changed.notify_all();
        result
    }

    /// Waits until the version passes `seen` or `limit` passes, and returns
    /// the locked state.
    pub fn wait_newer(&self, seen: u64, limit: std::time::Duration) -> MutexGuard<'_, State> {
        let state = self.lock();
        match self
            .changed
            .wait_timeout_while(state, limit, |state| state.version <= seen)
        {
            Ok((state, _)) => state,
            Err(poisoned) => poisoned.into_inner().0,
        }
    }

    /// Checks for hung engines once a second, for as long as the state lives.
    pub fn watch_engines(self: &Arc<Shared>) {
        let weak = Arc::downgrade(self);
        let _ = std::thread::Builder::new()
            .name("gui-watchdog".to_string())
            .spawn(move || loop {
                std::thread::sleep(Duration::from_secs(1));
                let Some(shared) = weak.upgrade() else { return };
                let changed = {
                    let mut state = shared.lock();
                    let hung = state.check_hung();
                    state.check_clock() || hung
                };
                if changed {
                    shared.update(|_| ());
                }
            });
    }

    /// Stops every engine (when the server ends).
    pub fn shut_down(&self) {
        let mut state = self.lock();
        for slot in &mut state.engines {
            slot.link = None;
        }
    }
}

impl State {
    /// Sets the message shown to the person.
    pub fn tell(&mut self, message: impl Into<String>, is_error: bool) {
        self.message = message.into();
        self.message_is_error = is_error;
    }

    /// Starts a new game from `game` in `mode`, showing its start (review)
    /// or its end (the other modes).
    pub fn start_game(&mut self, game: Game, mode: Mode) {
        self.game = game;
        self.game_id += 1;
        self.mode = mode;
        self.cursor = if mode == Mode::Review {
            0
        } else {
            self.game.turns().len()
        };
        self.evaluations = vec![None; self.game.turns().len() + 1];
        self.analysis = Analysis::default();
        self.scan_nodes = None;
        self.paused = false;
        if let TimeControl::Clock { initial, .. } = self.time_control {
            self.clocks = [initial; 2];
        }
        self.turn_started = Instant::now();
    }

    /// Whether the game's clocks run: a clock time control, in play or watch.
    fn clocks_run(&self) -> bool {
        matches!(self.time_control, TimeControl::Clock { .. })
            && matches!(self.mode, Mode::Play | Mode::Watch)
    }

    /// Each player's milliseconds left now, when the clocks run.
    pub fn clock_times(&self) -> Option<[u64; 2]> {
        if !self.clocks_run() {
            return None;
        }
        let mut times = self.clocks;
        if self.game.result().is_none() {
            let mover = self.game.board().position.side_to_move().index();
            let used = self.turn_started.elapsed().as_millis() as u64;
            times[mover] = times[mover].saturating_sub(used);
        }
        Some(times)
    }

    /// A turn was just played by `mover`: charge their clock, add the
    /// increment, and start the other's. A player out of time loses.
    pub fn charge_clock(&mut self, mover: Player) {
        let used = self.turn_started.elapsed().as_millis() as u64;
        self.turn_started = Instant::now();
        let TimeControl::Clock { increment, .. } = self.time_control else {
            return;
        };
        if !self.clocks_run() {
            return;
        }
        let clock = &mut self.clocks[mover.index()];
        if used > *clock {
            *clock = 0;
            self.flag(mover);
        } else {
            *clock = *clock - used + increment;
        }
    }

    /// Ends the game: `loser` ran out of time.
    fn flag(&mut self, loser: Player) {
        if self.game.result().is_some() {
            return;
        }
        self.game.resignation = Some(super::game::Resignation {
            loser,
            reason: "lost on time",
        });
        self.game_changed();
        let over = self.game.over_text().unwrap_or_default();
        self.tell(format!("game over: {over}"), false);
    }

    /// Ends the game when the mover's clock has run out; whether it did.
    pub fn check_clock(&mut self) -> bool {
        let Some(times) = self.clock_times() else {
            return false;
        };
        if self.game.result().is_some() {
            return false;
        }
        let mover = self.game.board().position.side_to_move();
        if times[mover.index()] == 0 {
            self.clocks[mover.index()] = 0;
            self.flag(mover);
            return true;
        }
        false
    }

    /// Starts evaluating every position of the game for the graph, at
    /// `nodes` iterations each; a finished game's last position takes its
    /// result.
    pub fn scan(&mut self, nodes: u64) {
        self.scan_nodes = Some(nodes);
        self.analysing = false;
        if let Some((outcome, _)) = self.game.result() {
            let value = match outcome {
                crate::rules::Outcome::Win(Player::First) => 1000,
                crate::rules::Outcome::Win(Player::Second) => 0,
                _ => 500,
            };
            if let Some(last) = self.evaluations.last_mut() {
                *last = Some(value);
            }
        }
    }

    /// The game changed (a turn played or taken back): a new game number
    /// for the searches, and the evaluations kept for the turns still there.
    pub fn game_changed(&mut self) {
        self.game_id += 1;
        let length = self.game.turns().len() + 1;
        self.evaluations.resize(length, None);
        if self.mode != Mode::Review || self.cursor > length - 1 {
            self.cursor = length - 1;
        }
    }

    /// Whether it is the person's turn to act on the game's end position.
    pub fn person_to_move(&self) -> bool {
        let at_end = self.cursor == self.game.turns().len();
        match self.mode {
            Mode::Play => at_end && self.game.board().position.side_to_move() == self.human,
            Mode::Watch => false,
            Mode::Analyse | Mode::Review => true,
        }
    }

    /// The search each engine should run now.
    fn wanted(&self) -> [Option<SearchTag>; 2] {
        let mut wanted = [None, None];
        if self.paused {
            return wanted;
        }
        let length = self.game.turns().len();
        let over = self.game.result().is_some();
        let tag = |purpose, ply: usize, multipv| SearchTag {
            purpose,
            game_id: self.game_id,
            ply,
            mover: self.game.board_at(ply).position.side_to_move(),
            multipv,
        };
        match self.mode {
            Mode::Play if !over => {
                if self.game.board().position.side_to_move() != self.human {
                    wanted[0] = Some(tag(Purpose::Turn, length, 1));
                } else if self.analysing {
                    wanted[0] = Some(tag(Purpose::Analysis, length, self.multipv));
                }
            }
            Mode::Watch if !over => {
                let mover = self.game.board().position.side_to_move();
                wanted[mover.index()] = Some(tag(Purpose::Turn, length, 1));
            }
            Mode::Analyse | Mode::Review if self.analysing => {
                let shown = self.cursor.min(length);
                let finished = shown == length && over;
                if !finished {
                    wanted[0] = Some(tag(Purpose::Analysis, shown, self.multipv));
                }
            }
            Mode::Analyse | Mode::Review if self.scan_nodes.is_some() => {
                let next = self
                    .evaluations
                    .iter()
                    .position(Option::is_none)
                    .filter(|&ply| ply < length || !over);
                if let Some(ply) = next {
                    wanted[0] = Some(tag(Purpose::Scan, ply, 1));
                }
            }
            _ => {}
        }
        wanted
    }

    /// Makes the engines run the wanted searches (see the module docs).
    pub fn drive(&mut self, shared: &Arc<Shared>) {
        let wanted = self.wanted();
        for (index, want) in wanted.into_iter().enumerate() {
            let slot = &self.engines[index];
            if slot.search == want {
                continue;
            }
            if slot.search.is_some() {
                if !slot.stopping {
                    self.engines[index].stopping = true;
                    self.send(index, "stop");
                }
                continue;
            }
            let Some(tag) = want else { continue };
            if slot.finished == Some(tag) {
                continue;
            }
            if self.engines[index].link.is_none() && !self.spawn(index, shared) {
                continue;
            }
            let position = self.game.position_line(tag.ply);
            let go = match tag.purpose {
                Purpose::Turn => self
                    .time_control
                    .go(self.clock_times().unwrap_or(self.clocks)),
                Purpose::Analysis => "go infinite".to_string(),
                Purpose::Scan => format!("go nodes {}", self.scan_nodes.unwrap_or(1000)),
            };
            let rules = self.game.rules.name;
            let mut lines = Vec::with_capacity(4);
            if self.engines[index].rules_sent != Some(rules) {
                lines.push(format!("setoption name Rules value {rules}"));
            }
            lines.push(format!("setoption name MultiPV value {}", tag.multipv));
            lines.push(position);
            lines.push(go);
            let slot = &mut self.engines[index];
            slot.rules_sent = Some(rules);
            slot.search = Some(tag);
            slot.started = Some(Instant::now());
            slot.stopping = false;
            slot.result_line = None;
            for line in lines {
                if !self.send(index, &line) {
                    break;
                }
            }
        }
    }

    /// Lets the engines run again after a pause, retrying any search that
    /// ended without effect (an illegal turn, or no turn).
    pub fn resume(&mut self) {
        self.paused = false;
        for slot in &mut self.engines {
            slot.finished = None;
        }
    }

    /// Stops an engine whose search for a turn has run far past its limit
    /// (a hung engine): it is ended and the game paused with a message.
    /// Returns whether it did anything.
    pub fn check_hung(&mut self) -> bool {
        let limit = match self.time_control {
            TimeControl::Movetime(milliseconds) => Duration::from_millis(milliseconds),
            TimeControl::Nodes(_) => Duration::from_secs(60),
            TimeControl::Clock { initial, .. } => {
                Duration::from_millis(self.clocks.iter().copied().max().unwrap_or(initial))
            }
        } + HANG_MARGIN;
        let mut changed = false;
        for index in 0..self.engines.len() {
            let slot = &self.engines[index];
            let hung = matches!(slot.search, Some(tag) if tag.purpose != Purpose::Analysis)
                && slot
                    .started
                    .is_some_and(|started| started.elapsed() > limit);
            if hung {
                let seconds = limit.as_secs();
                self.engine_gone(
                    index,
                    &format!("did not answer within {seconds} s and was stopped"),
                );
                changed = true;
            }
        }
        changed
    }

    /// Starts engine `index` (and its handshake); false when it cannot start.
    fn spawn(&mut self, index: usize, shared: &Arc<Shared>) -> bool {
        let slot = &mut self.engines[index];
        slot.generation += 1;
        let generation = slot.generation;
        let weak = Arc::downgrade(shared);
        let link = EngineLink::spawn(&slot.command, move |event| {
            if let Some(shared) = weak.upgrade() {
                shared.update(|state| state.on_engine_event(index, generation, event));
            }
        });
        match link {
            Ok(link) => {
                slot.link = Some(link);
                slot.rules_sent = None;
                slot.name = slot.command.text();
                self.send(index, "hwi")
            }
            Err(error) => {
                self.tell(format!("engine {}: {error}", index + 1), true);
                self.paused = true;
                false
            }
        }
    }

    /// Sends a line to engine `index`; false (and the engine marked gone)
    /// when it cannot be written.
    fn send(&mut self, index: usize, line: &str) -> bool {
        let Some(link) = self.engines[index].link.as_mut() else {
            return false;
        };
        match link.send(line) {
            Ok(()) => true,
            Err(error) => {
                self.engine_gone(index, &error);
                false
            }
        }
    }

    /// An engine died: keep the game, report it, and pause.
    fn engine_gone(&mut self, index: usize, reason: &str) {
        let slot = &mut self.engines[index];
        slot.link = None;
        slot.search = None;
        slot.started = None;
        slot.stopping = false;
        let command = slot.command.text();
        self.paused = true;
        self.tell(
            format!(
                "engine {} ({command}) {reason}; the game is kept. Press Resume to restart it.",
                index + 1
            ),
            true,
        );
    }

    /// Handles one event from engine `index`'s reader.
    fn on_engine_event(&mut self, index: usize, generation: u64, event: EngineEvent) {
        if self.engines[index].generation != generation {
            return;
        }
        match event {
            EngineEvent::Exited => {
                let status = match self.engines[index].link.as_mut() {
                    Some(link) => link.exit_status(),
                    None => return,
                };
                self.engine_gone(index, &format!("stopped ({status})"));
            }
            EngineEvent::Garbled(text) => {
                self.tell(format!("engine {} said: {text}", index + 1), true);
            }
            EngineEvent::Reply(Reply::Id { field, value }) => {
                if field == crate::protocol::reply::IdField::Name {
                    self.engines[index].name = value;
                }
            }
            EngineEvent::Reply(Reply::InfoString(text)) => {
                if text.starts_with("result") {
                    self.engines[index].result_line = Some(text);
                } else if text.starts_with("error") {
                    self.tell(format!("engine {}: {text}", index + 1), true);
                }
            }
            EngineEvent::Reply(Reply::Info(info)) => self.on_info(index, &info),
            EngineEvent::Reply(Reply::BestMove { turn, .. }) => self.on_bestmove(index, turn),
            EngineEvent::Reply(_) => {}
        }
    }

    /// Reads a search line into the analysis shown.
    fn on_info(&mut self, index: usize, info: &Info) {
        let Some(tag) = self.engines[index].search else {
            return;
        };
        if self.engines[index].stopping || tag.game_id != self.game_id {
            return;
        }
        if self.analysis.tag != Some(tag) {
            self.analysis = Analysis {
                tag: Some(tag),
                engine: index + 1,
                ..Analysis::default()
            };
        }
        let for_first = |value: u64| match tag.mover {
            Player::First => value,
            Player::Second => 1000u64.saturating_sub(value),
        };
        let rank = info.multipv.unwrap_or(1).max(1);
        let board = self.game.board_at(tag.ply).clone();
        let turns = readable_line(&board, &self.game.rules, &info.pv);
        let line = Line {
            rank,
            winprob: info.winprob.map(for_first),
            score: info.score.map(|score| {
                // A proven result counts as a whole win or loss.
                let score = match score {
                    Score::Centipawns(score) => score,
                    Score::Mate(turns) if turns > 0 => 1000,
                    Score::Mate(_) => -1000,
                };
                match tag.mover {
                    Player::First => score,
                    Player::Second => -score,
                }
            }),
            turns,
            proof: info.score.and_then(|score| match score {
                Score::Mate(turns) if turns > 0 => Some("win"),
                Score::Mate(_) => Some("loss"),
                Score::Centipawns(_) => None,
            }),
        };
        if rank == 1 {
            if let Some(winprob) = line.winprob {
                if let Some(slot) = self.evaluations.get_mut(tag.ply) {
                    *slot = Some(winprob);
                }
            }
            self.analysis.depth = info.depth.or(self.analysis.depth);
            self.analysis.nodes = info.nodes.or(self.analysis.nodes);
            self.analysis.nps = info.nps.or(self.analysis.nps);
        }
        self.analysis.updates += 1;
        let lines = &mut self.analysis.lines;
        match lines.iter_mut().find(|known| known.rank == rank) {
            Some(known) => *known = line,
            None => {
                lines.push(line);
                lines.sort_by_key(|line| line.rank);
            }
        }
        lines.truncate(tag.multipv as usize);
    }

    /// A search ended: play its turn if it is still wanted.
    fn on_bestmove(&mut self, index: usize, turn: Option<String>) {
        let slot = &mut self.engines[index];
        let Some(tag) = slot.search.take() else {
            return;
        };
        let stopped = std::mem::take(&mut slot.stopping);
        slot.started = None;
        if !stopped {
            slot.finished = Some(tag);
        }
        let result_line = slot.result_line.take();
        let still_wanted = self.wanted()[index] == Some(tag);
        if tag.purpose == Purpose::Scan && !stopped && tag.game_id == self.game_id {
            // A position the engine gave no value for counts as even, so
            // that the scan goes on.
            if let Some(slot @ None) = self.evaluations.get_mut(tag.ply) {
                *slot = Some(500);
            }
        }
        if tag.purpose != Purpose::Turn || stopped || !still_wanted {
            return;
        }
        let name = format!("engine {} ({})", index + 1, self.engines[index].name);
        match turn {
            Some(turn) => match self.game.play_text(&turn) {
                Ok(()) => {
                    self.charge_clock(tag.mover);
                    self.game_changed();
                    if let Some(over) = self.game.over_text() {
                        self.tell(format!("game over: {over}"), false);
                    }
                }
                Err(error) => {
                    self.paused = true;
                    self.tell(
                        format!("{name} played an illegal turn: {error}; the game is kept"),
                        true,
                    );
                }
            },
            None => {
                if self.game.claim() {
                    self.tell(format!("{name} claimed a draw by repetition"), false);
                } else {
                    self.paused = true;
                    let said = result_line.unwrap_or_else(|| "no reason".to_string());
                    self.tell(
                        format!("{name} played no turn ({said}), but the game goes on"),
                        true,
                    );
                }
            }
        }
    }
}

/// A search line in SDG form, as far as its turns play on `board`.
fn readable_line(board: &Board, rules: &Rules, tokens: &[String]) -> Vec<String> {
    let mut board = board.clone();
    let mut turns = Vec::new();
    for token in tokens.iter().take(8) {
        let before = board.clone();
        match board.play_turn_text(rules, token) {
            Ok(named) => turns.push(named.format(&before, rules, Style::Sdg)),
            Err(_) => break,
        }
    }
    turns
}

#[cfg(test)]
mod tests {
    use super::*;

    fn state() -> Arc<Shared> {
        let command = EngineCommand::parse("engine-that-is-never-started").unwrap();
        Shared::new([command.clone(), command])
    }

    #[test]
    fn each_mode_asks_the_engines_for_the_right_search() {
        let shared = state();
        let mut state = shared.lock();
        // Play, the person to move: nothing; then the engine's turn.
        assert_eq!(state.wanted(), [None, None]);
        state.game.play_text("home.r1.b3.g3").unwrap();
        state.game_changed();
        let [first, second] = state.wanted();
        let first = first.unwrap();
        assert_eq!(
            (first.purpose, first.ply, first.mover),
            (Purpose::Turn, 1, Player::Second)
        );
        assert_eq!(second, None);
        // A paused game asks for nothing.
        state.paused = true;
        assert_eq!(state.wanted(), [None, None]);
        state.resume();
        // Watch: the engine of the side to move.
        state.mode = Mode::Watch;
        assert_eq!(state.wanted()[0], None);
        assert_eq!(state.wanted()[1].unwrap().purpose, Purpose::Turn);
        // Review with analysis: the shown position, until stopped.
        state.mode = Mode::Review;
        state.cursor = 0;
        state.analysing = true;
        let analysis = state.wanted()[0].unwrap();
        assert_eq!((analysis.purpose, analysis.ply), (Purpose::Analysis, 0));
        // A game over asks for no turn.
        state.mode = Mode::Play;
        state.game.resignation = Some(crate::tools::gui::game::Resignation {
            loser: Player::First,
            reason: "resigned",
        });
        assert_eq!(state.wanted(), [None, None]);
    }

    #[test]
    fn a_clock_that_runs_out_loses_the_game() {
        let shared = state();
        let mut state = shared.lock();
        state.time_control = TimeControl::Clock {
            initial: 1000,
            increment: 0,
        };
        let game = Game::new(Board::default(), Rules::STANDARD).unwrap();
        state.start_game(game, Mode::Play);
        let times = state.clock_times().unwrap();
        assert!(times[0] <= 1000 && times[1] == 1000, "{times:?}");
        assert!(!state.check_clock());
        state.turn_started = Instant::now() - Duration::from_millis(1500);
        assert!(state.check_clock());
        assert_eq!(
            state.game.over_text().as_deref(),
            Some("0-1 player 0 lost on time")
        );
    }
}
