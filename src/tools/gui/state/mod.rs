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

use super::engine::{EngineCommand, EngineLink};
use super::game::Game;
use crate::notation::Board;
use crate::rules::{Player, Rules};
use crate::tools::handicaps::{red_alert_now, RedAlert};
use crate::tools::levels::{NamedLevel, DEFAULT_LEVEL};

mod engines;

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
    /// To suggest the person's turn (a Tactical Computer token).
    Hint,
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
    /// The sentence of the last `info string explain` line of the search
    /// running or last ended (protocol.md): why the engine plays its turn,
    /// shown under that turn and under a hint.
    pub explanation: Option<String>,
    /// The `Rules` option last sent (setting it clears the engine's tree).
    rules_sent: Option<&'static str>,
    /// The level last sent; `None` while the engine plays at the strength
    /// it started with (full), so that an engine is sent no strength
    /// options until a level is wanted.
    level_sent: Option<NamedLevel>,
}

/// The engine's suggestion for the person's turn (Tactical Computer).
#[derive(Clone, Debug)]
pub struct Hint {
    /// The game it is for ([`State::game_id`]).
    pub game_id: u64,
    /// The turn it is for: the board before this turn.
    pub ply: usize,
    /// The suggested turn, in SDG form.
    pub turn: String,
    /// Why the engine suggests it: its `info string explain` sentence.
    pub explanation: Option<String>,
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
    /// Each turn's explanation, where an engine played it and said why.
    pub explanations: Vec<Option<String>>,
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
    /// The engine's level in play (sent as `UCI_LimitStrength` and
    /// `UCI_Elo`); analysis, hints and watched games are at full strength.
    pub level: NamedLevel,
    /// Tactical Computer tokens left in this game, when rationed.
    pub tokens: Option<u8>,
    /// Whether Brain Transference was used in this game.
    pub swapped: bool,
    /// A hint asked for and not yet answered: the game and turn it is for.
    pub hint_wanted: Option<(u64, usize)>,
    /// The last hint given.
    pub hint: Option<Hint>,
    /// Red Alert at the person's turn, worked out once per game state:
    /// what it is for (the [`State::game_id`], the person's side, the
    /// mode) and what it says.
    pub alert: Option<(AlertKey, Option<String>)>,
    /// Review's marks and variation (`super::review`).
    pub review: super::review::ReviewState,
}

/// What a Red Alert was worked out for: the game's number, the person's
/// side and the mode.
pub type AlertKey = (u64, Player, Mode);

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
            explanation: None,
            rules_sent: None,
            level_sent: None,
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
                explanations: Vec::new(),
                message: String::new(),
                message_is_error: false,
                paused: false,
                engines: [slot(first), slot(second)],
                level: DEFAULT_LEVEL,
                tokens: None,
                swapped: false,
                hint_wanted: None,
                hint: None,
                alert: None,
                review: Default::default(),
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
        super::review::follow(&mut state, self);
        state.refresh_alert();
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
        self.explanations = vec![None; self.game.turns().len()];
        self.analysis = Analysis::default();
        self.scan_nodes = None;
        self.paused = false;
        self.tokens = self.game.handicaps.tokens;
        self.swapped = false;
        self.hint_wanted = None;
        self.hint = None;
        self.alert = None;
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
        self.explanations.resize(length - 1, None);
        if self.mode != Mode::Review || self.cursor > length - 1 {
            self.cursor = length - 1;
        }
    }

    /// Works out Red Alert for the person's turn when the game changed:
    /// the exact checkers on the position the person is to move in.
    pub fn refresh_alert(&mut self) {
        let key = (self.game_id, self.human, self.mode);
        if self.alert.as_ref().is_some_and(|(known, _)| *known == key) {
            return;
        }
        let setting = self.game.handicaps.red_alert;
        let alert = if setting != RedAlert::Off
            && self.mode == Mode::Play
            && self.game.result().is_none()
            && self.game.board().position.side_to_move() == self.human
        {
            red_alert_now(self.game.board(), &self.game.rules, setting)
        } else {
            None
        };
        self.alert = Some((key, alert));
    }

    /// Red Alert's warning for the person's turn now, if any.
    pub fn alert_text(&self) -> Option<&str> {
        match &self.alert {
            Some((key, Some(text))) if *key == (self.game_id, self.human, self.mode) => Some(text),
            _ => None,
        }
    }

    /// Whether the person may use Brain Transference now: a game of
    /// theirs with the handicap, going on, not yet swapped.
    pub fn can_swap(&self) -> bool {
        self.mode == Mode::Play
            && self.game.handicaps.brain_transference
            && !self.swapped
            && self.game.result().is_none()
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
}

#[cfg(test)]
mod tests;
