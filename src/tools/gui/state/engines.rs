//! How the state drives its engines: which search each one should run
//! (`State::wanted`), starting, stopping and restarting them
//! ([`State::drive`]), and what their lines do to the state: `info` lines
//! become the analysis shown and the evaluation graph, and a `bestmove` is
//! played only while its search is still the wanted one.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::{Analysis, Hint, Line, Mode, Purpose, SearchTag, Shared, State, TimeControl};
use crate::notation::turn::Style;
use crate::notation::Board;
use crate::protocol::reply::{IdField, Info, Reply, Score};
use crate::rules::{Player, Rules};
use crate::tools::gui::engine::{EngineEvent, EngineLink};
use crate::tools::levels::{NamedLevel, NAMED_LEVELS};

/// The level of every search but the person's opponent's.
const FULL_STRENGTH: NamedLevel = NAMED_LEVELS[NAMED_LEVELS.len() - 1];

/// How long past its limit an engine may take to answer a turn before it
/// counts as hung.
const HANG_MARGIN: Duration = Duration::from_secs(10);

impl State {
    /// The search each engine should run now.
    pub(super) fn wanted(&self) -> [Option<SearchTag>; 2] {
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
        let hint_asked = self.hint_wanted == Some((self.game_id, length));
        match self.mode {
            Mode::Play if !over => {
                if self.game.board().position.side_to_move() != self.human {
                    wanted[0] = Some(tag(Purpose::Turn, length, 1));
                } else if hint_asked {
                    wanted[0] = Some(tag(Purpose::Hint, length, 1));
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
                Purpose::Turn | Purpose::Hint => self
                    .time_control
                    .go(self.clock_times().unwrap_or(self.clocks)),
                Purpose::Analysis => "go infinite".to_string(),
                Purpose::Scan => format!("go nodes {}", self.scan_nodes.unwrap_or(1000)),
            };
            let rules = self.game.rules.name;
            let mut lines = Vec::with_capacity(6);
            if self.engines[index].rules_sent != Some(rules) {
                lines.push(format!("setoption name Rules value {rules}"));
            }
            // The person's opponent plays at the chosen level; every other
            // search (analysis, hints, watched games) at full strength,
            // which an engine never told a level already has.
            let level = (self.mode == Mode::Play && tag.purpose == Purpose::Turn)
                .then_some(self.level)
                .or(self.engines[index].level_sent.map(|_| FULL_STRENGTH));
            if let Some(level) = level {
                if self.engines[index].level_sent != Some(level) {
                    lines.extend(level.option_lines());
                    self.engines[index].level_sent = Some(level);
                }
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
            slot.explanation = None;
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
                slot.level_sent = None;
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
                if field == IdField::Name {
                    self.engines[index].name = value;
                }
            }
            EngineEvent::Reply(Reply::InfoString(text)) => {
                if text.starts_with("result") {
                    self.engines[index].result_line = Some(text);
                } else if let Some(sentence) = text.strip_prefix("explain ") {
                    self.engines[index].explanation = Some(sentence.to_string());
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
        if tag.purpose == Purpose::Hint && !stopped && still_wanted {
            let explanation = self.engines[index].explanation.clone();
            self.hint_given(tag, turn, explanation);
            return;
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
                    if let Some(last) = self.explanations.last_mut() {
                        last.clone_from(&self.engines[index].explanation);
                    }
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

impl State {
    /// A hint search ended with `turn`, which the engine explained with
    /// `explanation`: both are shown, and a rationed token is spent.
    fn hint_given(&mut self, tag: SearchTag, turn: Option<String>, explanation: Option<String>) {
        self.hint_wanted = None;
        let board = self.game.board_at(tag.ply).clone();
        let Some(text) =
            turn.and_then(|turn| readable_line(&board, &self.game.rules, &[turn]).pop())
        else {
            self.tell("the engine suggested no turn; no token was spent", true);
            return;
        };
        self.tokens = self.tokens.map(|tokens| tokens.saturating_sub(1));
        let left = self
            .tokens
            .map_or_else(String::new, |tokens| format!(" ({tokens} tokens left)"));
        self.tell(format!("Tactical Computer: {text}{left}"), false);
        self.hint = Some(Hint {
            game_id: tag.game_id,
            ply: tag.ply,
            turn: text,
            explanation,
        });
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
