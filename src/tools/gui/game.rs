//! The GUI's game: a start board, the turns played from it, and the board
//! before each turn, refereed by the rules core. Every turn, whoever made
//! it (a person typing or clicking, an engine, a loaded record), is played
//! here through the notation layer's `play_turn_text`, so the page and the
//! engines never change the game except by a turn the rules accept, and a
//! rejected turn leaves the game as it was.

use crate::notation::error::excerpt;
use crate::notation::names::default_home_name;
use crate::notation::play::{resolve, NamedTurn};
use crate::notation::sdg::{Header, RecordTurn};
use crate::notation::turn::{format_action, format_named_turn, parse_words, Strictness, Style};
use crate::notation::{hwpn, Board};
use crate::record::{write_record, GameRecord, BRAIN_TRANSFERENCE_VARIANT};
use crate::rules::{GameResult, GameStatus, History, Outcome, Player, Position, Rules, Slot};
use crate::tools::handicaps::Handicaps;

use super::clicks::click_paths;

/// How a game ended off the board: the rules do not cover resignations
/// or clocks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resignation {
    /// Who lost.
    pub loser: Player,
    /// How, in words after the player: `resigned`, `lost on time`.
    pub reason: &'static str,
}

/// One turn of the game, in the forms the page and the engines need.
#[derive(Clone, Debug)]
pub struct PlayedTurn {
    /// The resolved actions and the names its discoveries received.
    pub named: NamedTurn,
    /// Who played it.
    pub mover: Player,
    /// The protocol token, for `position ... moves`.
    pub token: String,
    /// The SDG form, for the move list and saved records.
    pub sdg: String,
}

/// A game under way or loaded for review. See the module docs.
#[derive(Clone, Debug)]
pub struct Game {
    /// The rules the referee applies.
    pub rules: Rules,
    /// The board before `boards[i]`'s turn `i`; one more than `turns`.
    boards: Vec<Board>,
    /// The turns played.
    turns: Vec<PlayedTurn>,
    /// Repetition and turn-limit judgements for the whole game.
    history: History,
    /// A resignation or a loss on time.
    pub resignation: Option<Resignation>,
    /// A draw the engine claimed and the rules allowed (repetition claims).
    pub claimed: Option<GameResult>,
    /// The names of the two players in saved records.
    pub player_names: [String; 2],
    /// Whether the start is the empty start with default home names, so
    /// that engines are sent `position startpos moves ...`.
    from_startpos: bool,
    /// The handicaps the game is played with: the timewarp is a rule the
    /// history applies; all are named in the saved record.
    pub handicaps: Handicaps,
    /// Where Brain Transference changed sides: the number of turns played
    /// then. A saved record says so in a comment on the turn before.
    pub swaps: Vec<usize>,
}

impl Game {
    /// A game from `start`.
    ///
    /// # Errors
    /// The position is in the middle of a turn.
    pub fn new(start: Board, rules: Rules) -> Result<Game, String> {
        let history = History::new(start.position).map_err(|error| error.to_string())?;
        let from_startpos = start == Board::default();
        // SDG records name each home after its player.
        let player_names = Player::BOTH.map(|player| {
            start
                .names
                .get(player.index() as Slot)
                .map_or_else(|| default_home_name(player), str::to_string)
        });
        Ok(Game {
            rules,
            boards: vec![start],
            turns: Vec::new(),
            history,
            resignation: None,
            claimed: None,
            player_names,
            from_startpos,
            handicaps: Handicaps::default(),
            swaps: Vec::new(),
        })
    }

    /// A new game from `start` with `handicaps` (a timewarp makes the
    /// history decide who moves after setup).
    ///
    /// # Errors
    /// The position is in the middle of a turn, or after setup under a
    /// timewarp.
    pub fn with_handicaps(
        start: Board,
        rules: Rules,
        handicaps: Handicaps,
    ) -> Result<Game, String> {
        let mut game = Game::new(start, rules)?;
        game.history = handicaps.history(&game.boards[0].position)?;
        game.handicaps = handicaps;
        Ok(game)
    }

    /// Reads a game from an SDG record or a Board Game Arena log: every turn
    /// the rules accept (the standard rules, or SuperDuperGames' own when
    /// the record needs them).
    /// A record that stops at an illegal turn is kept up to that turn and
    /// the reason returned beside it.
    ///
    /// # Errors
    /// The text is not a record, or not a two-player game of the plain rules.
    pub fn from_record(text: &str) -> Result<(Game, Option<String>), String> {
        let record = GameRecord::parse_text(text).map_err(|error| error.to_string())?;
        if let Some(reason) = record.unsupported() {
            return Err(format!("cannot replay this record: {reason}"));
        }
        let standard = record.walk(&Rules::STANDARD);
        let (rules, walk) = if standard.illegal.is_some() {
            let sdg = record.walk(&Rules::SDG);
            if sdg.turns.len() > standard.turns.len() {
                (Rules::SDG, sdg)
            } else {
                (Rules::STANDARD, standard)
            }
        } else {
            (Rules::STANDARD, standard)
        };
        let rules = record.rules(&rules).unwrap_or(rules);
        let mut boards: Vec<Board> = walk.turns.iter().map(|turn| turn.board.clone()).collect();
        boards.push(walk.board.clone());
        let turns = walk
            .turns
            .iter()
            .map(|turn| {
                let write = |style| {
                    format_named_turn(&turn.board, &rules, &turn.actions, &turn.names, style)
                };
                PlayedTurn {
                    named: NamedTurn {
                        actions: turn.actions.clone(),
                        names: turn.names.clone(),
                        outcome: turn.outcome,
                    },
                    mover: turn.mover,
                    token: write(Style::Token),
                    sdg: write(Style::Sdg),
                }
            })
            .collect();
        let mut player_names = ["Player0".to_string(), "Player1".to_string()];
        for player in Player::BOTH {
            if let Some(name) = record.header.player_name(player) {
                player_names[player.index()] = name.to_string();
            }
        }
        let game = Game {
            rules,
            boards,
            turns,
            history: walk.history.clone(),
            resignation: None,
            claimed: None,
            player_names,
            from_startpos: false,
            handicaps: Handicaps::from_variants(&record.header.variants),
            swaps: Vec::new(),
        };
        let note = walk.illegal.map(|illegal| illegal.to_string());
        Ok((game, note))
    }

    /// Records a turn already played on `after`.
    fn push(&mut self, named: NamedTurn, mut after: Board, mover: Player) -> Result<(), String> {
        let before = self.boards.last().cloned().unwrap_or_default();
        self.history
            .play(&self.rules, &named.actions)
            .map_err(|error| error.to_string())?;
        // The history decides who moves next (a timewarp's bonus turn keeps
        // the mover); the board follows it, as a pass would hand it on.
        if after.position.side_to_move() != self.history.position().side_to_move() {
            let _ = after.position.end_turn(&self.rules);
        }
        let token = format_named_turn(
            &before,
            &self.rules,
            &named.actions,
            &named.names,
            Style::Token,
        );
        let sdg = named.format(&before, &self.rules, Style::Sdg);
        self.turns.push(PlayedTurn {
            named,
            mover,
            token,
            sdg,
        });
        self.boards.push(after);
        Ok(())
    }

    /// Plays a turn written as text (a protocol token, an SDG line or CLI
    /// phrasing) after the last turn.
    ///
    /// # Errors
    /// Why the turn cannot be played; the game is then unchanged.
    pub fn play_text(&mut self, text: &str) -> Result<(), String> {
        if let Some(over) = self.over_text() {
            return Err(format!("the game is over ({over})"));
        }
        let text = text.trim();
        if text.is_empty() {
            return Err("expected a turn, such as Build G1 Home0 or pass".to_string());
        }
        let mut board = self.board().clone();
        let mover = board.position.side_to_move();
        let named = board
            .play_turn_text(&self.rules, text)
            .map_err(|error| format!("'{}' cannot be played: {error}", excerpt(text)))?;
        self.push(named, board, mover)
    }

    /// Takes back the last `count` turns (as many as there are).
    pub fn undo(&mut self, count: usize) {
        let keep = self.turns.len().saturating_sub(count);
        self.truncate(keep);
    }

    /// Keeps the first `count` turns and forgets the rest.
    pub fn truncate(&mut self, count: usize) {
        if count >= self.turns.len() {
            return;
        }
        let turns: Vec<PlayedTurn> = self.turns.drain(..).take(count).collect();
        self.boards.truncate(1);
        self.resignation = None;
        self.claimed = None;
        if let Ok(history) = self.handicaps.history(&self.boards[0].position) {
            self.history = history;
        }
        for turn in turns {
            let mut board = self.board().clone();
            let mut named = turn.named.clone();
            if named.replay(&mut board, &self.rules).is_err() {
                break;
            }
            if self.push(named, board, turn.mover).is_err() {
                break;
            }
        }
    }

    /// The board after the last turn.
    pub fn board(&self) -> &Board {
        self.boards.last().unwrap_or(&self.boards[0])
    }

    /// The board before turn `ply` (0-based); `ply == turns().len()` is the
    /// board after the last turn.
    pub fn board_at(&self, ply: usize) -> &Board {
        self.boards.get(ply).unwrap_or_else(|| self.board())
    }

    /// The turns played.
    pub fn turns(&self) -> &[PlayedTurn] {
        &self.turns
    }

    /// Where the game stands under the rules (resignations aside).
    pub fn status(&self) -> GameStatus {
        self.history.status(&self.rules)
    }

    /// The result, when the game is over: on the board, by the rules' draw
    /// rules, by an allowed claim, or by resignation.
    pub fn result(&self) -> Option<(Outcome, String)> {
        if let Some(resignation) = &self.resignation {
            return Some((
                Outcome::Win(resignation.loser.opponent()),
                format!(
                    "player {} {}",
                    resignation.loser.index(),
                    resignation.reason
                ),
            ));
        }
        if let Some(result) = self.status().result().or(self.claimed) {
            return Some((result.outcome, result.reason.word().to_string()));
        }
        None
    }

    /// The result in words, when the game is over: `1-0 (elimination)`.
    pub fn over_text(&self) -> Option<String> {
        self.result().map(|(outcome, reason)| {
            let score = match outcome {
                Outcome::Win(Player::First) => "1-0",
                Outcome::Win(Player::Second) => "0-1",
                _ => "1/2-1/2",
            };
            format!("{score} {reason}")
        })
    }

    /// Accepts an engine's claim of a draw when the rules allow one now.
    pub fn claim(&mut self) -> bool {
        match self.history.claim(&self.rules) {
            Some(result) => {
                self.claimed = Some(result);
                true
            }
            None => false,
        }
    }

    /// Whether the player to move before turn `ply` also played turn
    /// `ply - 1` (a timewarp's bonus turn, or the turn right after them).
    pub fn mover_repeats(&self, ply: usize) -> bool {
        ply > 0
            && ply <= self.turns.len()
            && self.turns[ply - 1].mover == self.board_at(ply).position.side_to_move()
    }

    /// The protocol's `position` line for the board before turn `ply`: the
    /// whole game from its start when it can be written so (engines judge
    /// repetition on it), else the board itself with its names. Under a
    /// timewarp the protocol's `moves` alternate strictly, so the line
    /// starts from the board after the last turn where a player moved twice
    /// in a row (protocol.md, "Handicap games").
    pub fn position_line(&self, ply: usize) -> String {
        let ply = ply.min(self.turns.len());
        if let Some(since) = (1..=ply).rev().find(|&index| self.mover_repeats(index)) {
            let moves: Vec<&str> = self.turns[since..ply]
                .iter()
                .map(|turn| turn.token.as_str())
                .collect();
            let board = hwpn::write_board(self.board_at(since));
            return if moves.is_empty() {
                format!("position pos {board}")
            } else {
                format!("position pos {board} moves {}", moves.join(" "))
            };
        }
        let moves: Vec<&str> = self.turns[..ply]
            .iter()
            .map(|turn| turn.token.as_str())
            .collect();
        let base = if self.from_startpos {
            "startpos".to_string()
        } else {
            let start = &self.boards[0];
            let names_carry = !start.position.in_setup() || ply == 0;
            if !names_carry {
                return format!("position pos {}", hwpn::write_board(self.board_at(ply)));
            }
            format!("pos {}", hwpn::write_board(start))
        };
        if moves.is_empty() {
            format!("position {base}")
        } else {
            format!("position {base} moves {}", moves.join(" "))
        }
    }

    /// The game as an SDG record.
    ///
    /// # Errors
    /// The game did not start from the empty board: a record cannot say so.
    pub fn to_record(&self) -> Result<String, String> {
        if self.boards[0].position != Position::start() {
            return Err(
                "a game set up from a position cannot be saved as an SDG record (records start from the empty board); copy its HWPN instead"
                    .to_string(),
            );
        }
        let mut header = Header::two_player(0, &self.player_names[0], &self.player_names[1]);
        header.variants = self.handicaps.variants();
        header.winner = self.result().and_then(|(outcome, _)| match outcome {
            Outcome::Win(player) => Some(self.player_names[player.index()].clone()),
            _ => None,
        });
        let mut turns = Vec::with_capacity(self.turns.len());
        for (index, turn) in self.turns.iter().enumerate() {
            let name = &self.player_names[turn.mover.index()];
            match RecordTurn::from_text(index as u32 + 1, name, &turn.sdg) {
                Ok(mut record_turn) => {
                    if self.swaps.contains(&(index + 1)) {
                        record_turn.comments.push(format!(
                            "\t{BRAIN_TRANSFERENCE_VARIANT}: the players change sides after this turn"
                        ));
                    }
                    turns.push(record_turn)
                }
                Err(_) => break,
            }
        }
        Ok(write_record(&header, &turns))
    }
}

/// The state of a turn being built action by action on the page.
pub struct PartialTurn {
    /// The board after the actions so far (the turn not ended).
    pub board: Board,
    /// Every legal next action: its token, readable text and click keys.
    pub actions: Vec<ActionChoice>,
    /// Why the turn cannot end here, or `None` when it can.
    pub cannot_end: Option<String>,
}

/// One legal next action, as the page offers it (and as it is sent).
#[derive(Debug, serde::Serialize)]
pub struct ActionChoice {
    /// The protocol token, sent back when chosen.
    pub token: String,
    /// The SDG form, for buttons and messages.
    pub text: String,
    /// The click sequences that choose it (see
    /// `super::clicks::click_paths`).
    pub paths: Vec<Vec<String>>,
}

/// Plays the actions `prefix` (tokens) on `board` without ending the turn
/// and lists the legal next actions, for building a turn by clicking.
///
/// # Errors
/// Names the action that does not parse or is illegal.
pub fn partial_turn(board: &Board, rules: &Rules, prefix: &[&str]) -> Result<PartialTurn, String> {
    let mut working = board.clone();
    let mover = working.position.side_to_move();
    for (index, token) in prefix.iter().enumerate() {
        let describe =
            |error: String| format!("action {} '{}': {error}", index + 1, excerpt(token));
        let words: Vec<&str> = token.split('.').collect();
        let text = parse_words(&words, Strictness::Strict).map_err(|e| describe(e.to_string()))?;
        let (action, name) = resolve(&working, &text).map_err(|e| describe(e.to_string()))?;
        working
            .apply(rules, action, name.as_deref())
            .map_err(|e| describe(e.to_string()))?;
    }
    let mut actions = Vec::new();
    working.position.for_each_action(rules, |action| {
        actions.push(ActionChoice {
            token: format_action(&working, action, Style::Token),
            text: format_action(&working, action, Style::Sdg),
            paths: click_paths(action, mover.index(), mover.opponent().index(), |slot| {
                working.name(slot).to_string()
            }),
        });
    });
    let mut ended: Position = working.position;
    let cannot_end = if prefix.is_empty() && !working.position.in_setup() {
        // Ending at once is a pass: legal, but offered as its own button.
        None
    } else {
        ended.end_turn(rules).err().map(|reason| reason.to_string())
    };
    Ok(PartialTurn {
        board: working,
        actions,
        cannot_end,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rejected_turn_leaves_the_game_as_it_was() {
        let mut game = Game::new(Board::default(), Rules::STANDARD).unwrap();
        game.play_text("home.r1.b3.g3").unwrap();
        game.play_text("Homeworld Y2 B1 G3").unwrap();
        let before = game.position_line(2);
        assert!(game.play_text("build.r3.Home0").is_err());
        assert!(game.play_text("").is_err());
        assert_eq!(game.position_line(2), before);
        assert_eq!(
            before,
            "position startpos moves home.r1.b3.g3 home.y2.b1.g3"
        );
        game.play_text("Build G1 Home0").unwrap();
        assert_eq!(game.turns()[2].token, "build.g1.Home0");
        game.undo(1);
        assert_eq!(game.turns().len(), 2);
        let record = game.to_record().unwrap();
        assert!(record.contains("2) Home1: Homeworld Y2 B1 G3"), "{record}");
        let (replayed, note) = Game::from_record(&record).unwrap();
        assert_eq!(note, None);
        assert_eq!(replayed.turns().len(), 2);
        let set_up = Game::new(hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap(), Rules::STANDARD);
        assert!(set_up.unwrap().to_record().is_err());
    }

    #[test]
    fn a_timewarp_game_tells_engines_and_records_its_turn_order() {
        use crate::rules::Timewarp;
        let handicaps = Handicaps {
            timewarp: Some(Timewarp::new(Player::Second, 1).unwrap()),
            ..Handicaps::default()
        };
        let mut game = Game::with_handicaps(Board::default(), Rules::STANDARD, handicaps).unwrap();
        game.play_text("home.r1.b3.g3").unwrap();
        game.play_text("Homeworld Y2 B1 G3").unwrap();
        // Player 1's bonus turn: player 1 moves again, then player 0.
        assert_eq!(game.board().position.side_to_move(), Player::Second);
        game.play_text("build.g1.Home1").unwrap();
        assert_eq!(game.board().position.side_to_move(), Player::First);
        assert_eq!(game.turns()[2].mover, Player::Second);
        // The engine is told the game from the board before the bonus turn,
        // player 1 to move, so that its `moves` alternate.
        let base = hwpn::write_board(game.board_at(2));
        assert!(base.ends_with(" 1"), "{base}");
        assert_eq!(
            game.position_line(3),
            format!("position pos {base} moves build.g1.Home1")
        );
        assert_eq!(
            game.position_line(1),
            "position startpos moves home.r1.b3.g3"
        );
        let record = game.to_record().unwrap();
        assert!(
            record.contains("Variants: \"Timewarp 1 for player 1\""),
            "{record}"
        );
        assert!(record.contains("3) Home1: Build G1 Home1"), "{record}");
        let (replayed, note) = Game::from_record(&record).unwrap();
        assert_eq!(note, None);
        assert_eq!(replayed.turns().len(), 3);
        assert_eq!(replayed.handicaps, handicaps);
        assert_eq!(replayed.board().position.side_to_move(), Player::First);
        // Undo and replay keep the turn order.
        game.undo(1);
        assert_eq!(game.board().position.side_to_move(), Player::Second);
        // Without the handicap the same bonus turn is not player 1's.
        let mut plain = Game::new(Board::default(), Rules::STANDARD).unwrap();
        plain.play_text("home.r1.b3.g3").unwrap();
        plain.play_text("Homeworld Y2 B1 G3").unwrap();
        assert!(plain.play_text("build.g1.Home1").is_err());
    }

    #[test]
    fn clicks_choose_each_legal_action() {
        let board = hwpn::parse("r1b3:g3y1:/y2b2::g3 0").unwrap();
        let partial = partial_turn(&board, &Rules::STANDARD, &[]).unwrap();
        let build = partial
            .actions
            .iter()
            .find(|choice| choice.token == "build.g1.Home0")
            .unwrap();
        assert_eq!(build.paths, vec![vec!["bank:g1", "sys:Home0"]]);
        let sacrifice = partial
            .actions
            .iter()
            .find(|choice| choice.token == "sac.y1.Home0")
            .unwrap();
        assert_eq!(sacrifice.paths, vec![vec!["ship:Home0:0:y1", "bankzone"]]);
        let after = partial_turn(&board, &Rules::STANDARD, &["sac.y1.Home0"]).unwrap();
        assert!(after.cannot_end.is_none());
        assert!(after
            .actions
            .iter()
            .all(|choice| choice.token.starts_with("move") || choice.token.starts_with("disc")));
        assert!(partial_turn(&board, &Rules::STANDARD, &["build.r3.Home0"]).is_err());
    }
}
