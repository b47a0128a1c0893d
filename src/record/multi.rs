//! Replaying multi-player SDG records (three to six players).
//!
//! The header's seats give the turn order, N, E, S, W (then `5`, `6` for
//! records this program writes); the variants give the victory condition
//! (`Sinister` or its older name `Left man down`, `Good vs Evil` with an
//! `Evil SEATS` variant naming the Evil seats, otherwise last man
//! standing). A comment line `SYSTEM: X resigns.` removes X from the game
//! after the turn it follows. Homeworlds are named after their players, as
//! in two-player records.

use crate::notation::multi::{format_turn, seat_mark, MultiBoard, StepText};
use crate::notation::sdg::{Header, Participant, RecordTurn};
use crate::notation::turn::{Style, TurnError};
use crate::rules::multi::{
    MultiAction, MultiOutcome, MultiPosition, Seat, SeatError, Seats, Victory, MAX_PLAYERS,
};
use crate::rules::Rules;

use super::{
    GameRecord, GameReport, IllegalTurn, ReplayError, ReplayedTurn, ShowError, Verdict,
    HARMLESS_VARIANTS,
};

/// The variants that name the Sinister victory condition.
const SINISTER_VARIANTS: [&str; 2] = ["Sinister", "Left man down"];

/// The variant that names the Good-versus-Evil victory condition.
pub const GOOD_EVIL_VARIANT: &str = "Good vs Evil";

/// The variant that lists the Evil seats: `Evil N E`.
pub const EVIL_VARIANT: &str = "Evil ";

/// The seat letters in turn order.
const SEAT_ORDER: [char; MAX_PLAYERS] = ['N', 'E', 'S', 'W', '5', '6'];

/// One legal turn of a replayed multi-player game: the board before it,
/// its seat-named actions, the seat that played it and the result after it.
pub type MultiReplayedTurn = ReplayedTurn<MultiBoard>;

/// A multi-player replay as far as the rules allow.
#[derive(Clone, Debug)]
pub struct MultiWalk {
    /// Every legal turn, with the board before it.
    pub turns: Vec<MultiReplayedTurn>,
    /// The board after the last legal turn (and the resignations after it).
    pub board: MultiBoard,
    /// The first illegal turn, where the replay stopped.
    pub illegal: Option<IllegalTurn>,
    /// Turns the record gives to a later player than the turn order
    /// (SDG's faulty order after eliminations): the turn number and the
    /// player who moved; the players in between lost their turn.
    pub skipped: Vec<(u32, Seat)>,
}

impl Header {
    /// A header for a game of `names.len()` players (two to six) in turn
    /// order: seats N, E, S, W, then `5` and `6` (N and S for two).
    pub fn multi_player(game_number: u64, names: &[&str]) -> Header {
        Header {
            game_number,
            participants: names
                .iter()
                .enumerate()
                .map(|(seat, name)| Participant {
                    name: name.to_string(),
                    seat: seat_mark(seat as Seat, names.len()),
                })
                .collect(),
            ..Header::default()
        }
    }
}

/// The variant that names a victory condition, for records this program
/// writes: nothing for last man standing.
pub fn victory_variants(victory: Victory, players: usize) -> Vec<String> {
    match victory {
        Victory::LastManStanding => Vec::new(),
        Victory::Sinister => vec!["Sinister".to_string()],
        Victory::GoodVersusEvil { evil } => {
            let marks: Vec<String> = evil
                .iter()
                .map(|seat| seat_mark(seat, players).to_string())
                .collect();
            vec![
                GOOD_EVIL_VARIANT.to_string(),
                format!("{EVIL_VARIANT}{}", marks.join(" ")),
            ]
        }
    }
}

/// The comment line SDG printed for a resignation.
pub fn resignation_comment(name: &str) -> String {
    format!("\tSYSTEM: {name} resigns.")
}

/// Gives the turn to `seat` when the record has it move out of the turn
/// order (SDG's faulty order after eliminations): the players in between
/// lose their turn. Players who never move again after turn `index` (their
/// last turns are `last_turn`, by seat) have left the game, unless that
/// would decide it: an unprinted departure is inferred to keep the turn
/// order, never to name a winner. Returns whether the turn was moved.
fn skip_to_recorded(
    position: &mut MultiPosition,
    seat: Seat,
    last_turn: &[usize],
    index: usize,
) -> bool {
    let mut leaving = Seats(
        (0..last_turn.len())
            .filter(|&other| last_turn[other] < index)
            .fold(0, |bits, other| bits | 1 << other),
    );
    if position.in_game().without(leaving).len() < 2 {
        leaving = Seats::EMPTY;
    }
    seat != position.side_to_move() && position.skip_to(seat, leaving).is_ok()
}

/// Removes the players that a turn's comment lines say resigned
/// (`SYSTEM: X resigns.`) from the game.
///
/// # Errors
/// A resignation names no participant.
fn apply_resignations(
    position: &mut MultiPosition,
    names: &[String],
    comments: &[String],
) -> Result<(), ReplayError> {
    for line in comments {
        let Some(name) = resigned_name(line) else {
            continue;
        };
        let Some(seat) = names.iter().position(|own| own.eq_ignore_ascii_case(name)) else {
            return Err(ReplayError::Turn(TurnError::Parse(
                crate::notation::ParseError::new(
                    name,
                    "expected a participant's name in the resignation",
                ),
            )));
        };
        match position.resign(seat as Seat) {
            // An eliminated player's or a decided game's resignation
            // changes nothing.
            Ok(_) | Err(SeatError::AlreadyOut | SeatError::GameOver) => {}
            Err(error @ (SeatError::NoSuchSeat | SeatError::MidTurn)) => {
                unreachable!("a participant resigns between turns: {error}")
            }
        }
    }
    Ok(())
}

/// The player a comment line says resigned, if it is a resignation line.
fn resigned_name(line: &str) -> Option<&str> {
    line.trim()
        .strip_prefix("SYSTEM: ")?
        .strip_suffix(" resigns.")
        .map(str::trim)
}

/// A turn of a multi-player game in record form: its SDG text on the board
/// before it.
pub fn record_turn(
    number: u32,
    player: &str,
    board: &MultiBoard,
    rules: &Rules,
    actions: &[MultiAction],
    names: &[Option<String>],
) -> Result<RecordTurn, crate::notation::ParseError> {
    let text = format_turn(board, rules, actions, names, Style::Sdg);
    RecordTurn::from_text(number, player, &text)
}

impl GameRecord {
    /// Whether the record has more than two players.
    pub fn is_multi_player(&self) -> bool {
        self.header.participants.len() > 2
    }

    /// The players' names in turn order (seat 0 first).
    ///
    /// # Errors
    /// Seats that are not N, E, S, W, 5, 6 in some mix, or too many players.
    pub fn seat_names(&self) -> Result<Vec<String>, String> {
        let participants = &self.header.participants;
        if participants.len() > MAX_PLAYERS {
            return Err(format!(
                "{} participants: at most {MAX_PLAYERS} can play",
                participants.len()
            ));
        }
        let mut ordered: Vec<&Participant> = participants.iter().collect();
        ordered.sort_by_key(|participant| {
            SEAT_ORDER
                .iter()
                .position(|&seat| seat == participant.seat)
                .unwrap_or(MAX_PLAYERS)
        });
        Ok(ordered
            .into_iter()
            .map(|participant| participant.name.clone())
            .collect())
    }

    /// The victory condition the variants name.
    ///
    /// # Errors
    /// A variant that changes the rules in a way not understood, or Good
    /// versus Evil without its Evil seats.
    pub fn victory(&self) -> Result<Victory, String> {
        let players = self.header.participants.len();
        let mut victory = Victory::LastManStanding;
        let mut evil = None;
        for variant in &self.header.variants {
            let is = |names: &[&str]| names.iter().any(|name| name.eq_ignore_ascii_case(variant));
            if is(&SINISTER_VARIANTS) {
                victory = Victory::Sinister;
            } else if is(&[GOOD_EVIL_VARIANT]) {
                victory = Victory::GoodVersusEvil { evil: Seats::EMPTY };
            } else if let Some(marks) = variant.strip_prefix(EVIL_VARIANT) {
                let mut seats = Seats::EMPTY;
                for mark in marks.split_whitespace() {
                    let seat = mark
                        .chars()
                        .next()
                        .filter(|_| mark.chars().count() == 1)
                        .and_then(|c| crate::notation::multi::seat_of_mark(c, players))
                        .ok_or_else(|| {
                            format!("variant \"{variant}\": expected seat letters such as N E")
                        })?;
                    seats.insert(seat);
                }
                evil = Some(seats);
            } else if !is(&HARMLESS_VARIANTS) {
                return Err(format!(
                    "variant \"{}\" changes the rules",
                    crate::notation::error::excerpt(variant)
                ));
            }
        }
        if let Victory::GoodVersusEvil { .. } = victory {
            let evil = evil.ok_or_else(|| {
                format!("a Good vs Evil record needs a variant \"{EVIL_VARIANT}SEATS\"")
            })?;
            return Ok(Victory::GoodVersusEvil { evil });
        }
        Ok(victory)
    }

    /// Why a multi-player record is not replayed, if it is not.
    pub fn multi_unsupported(&self) -> Option<String> {
        self.seat_names().err().or_else(|| self.victory().err())
    }

    /// Plays a multi-player record's turns in order until the end or the
    /// first illegal turn, applying the resignations its comments report.
    /// The caller checks [`GameRecord::multi_unsupported`] first.
    pub fn walk_multi(&self, rules: &Rules) -> MultiWalk {
        let names = self.seat_names().unwrap_or_default();
        let victory = self.victory().unwrap_or(Victory::LastManStanding);
        let start = MultiPosition::start(names.len().max(2), victory)
            .or_else(|_| MultiPosition::start(2, Victory::LastManStanding))
            .expect("two players always make a game");
        let mut board = MultiBoard::new(start);
        for (seat, name) in names.iter().enumerate() {
            board.set_name(seat as u8, name.as_str());
        }
        let mut turns = Vec::with_capacity(self.turns.len());
        let mut illegal = None;
        let mut skipped = Vec::new();
        let last_turn: Vec<usize> = names
            .iter()
            .map(|name| {
                self.turns
                    .iter()
                    .rposition(|turn| turn.player.eq_ignore_ascii_case(name))
                    .unwrap_or(0)
            })
            .collect();
        for (index, turn) in self.turns.iter().enumerate() {
            let stop = |reason| {
                Some(IllegalTurn {
                    number: turn.number,
                    text: turn.text(),
                    reason,
                    sdg_accepts: false,
                })
            };
            if let MultiOutcome::Win(_) | MultiOutcome::Draw = board.position.outcome() {
                illegal = stop(ReplayError::Decided(describe_outcome(
                    &board.position,
                    &names,
                )));
                break;
            }
            let recorded = names
                .iter()
                .position(|name| name.eq_ignore_ascii_case(&turn.player));
            if let Some(seat) = recorded {
                let seat = seat as Seat;
                if skip_to_recorded(&mut board.position, seat, &last_turn, index) {
                    skipped.push((turn.number, seat));
                }
            }
            if board.position.outcome() != MultiOutcome::Ongoing {
                illegal = stop(ReplayError::Decided(describe_outcome(
                    &board.position,
                    &names,
                )));
                break;
            }
            let mover = board.position.side_to_move();
            let expected = names.get(mover as usize).map_or("?", String::as_str);
            if !expected.eq_ignore_ascii_case(&turn.player) {
                illegal = stop(ReplayError::WrongMover {
                    expected: expected.to_string(),
                    found: turn.player.clone(),
                });
                break;
            }
            if turn.steps.is_empty() {
                illegal = stop(ReplayError::NoActions);
                break;
            }
            let steps: Vec<StepText> = turn
                .steps
                .iter()
                .map(|step| StepText {
                    action: step.action.clone(),
                    owner: crate::notation::multi::owner_mark(&step.text),
                })
                .collect();
            let mut next = board.clone();
            let played = match next.play_steps(rules, &steps, |index| {
                turn.steps
                    .get(index)
                    .map_or_else(String::new, |step| step.text.clone())
            }) {
                Ok(played) => played,
                Err(error) => {
                    illegal = stop(ReplayError::Turn(error));
                    break;
                }
            };
            turns.push(MultiReplayedTurn {
                board: std::mem::replace(&mut board, next),
                actions: played.actions,
                names: played.names,
                number: turn.number,
                mover,
                outcome: played.outcome,
            });
            if let Err(reason) = apply_resignations(&mut board.position, &names, &turn.comments) {
                illegal = stop(reason);
                break;
            }
        }
        MultiWalk {
            turns,
            board,
            illegal,
            skipped,
        }
    }

    /// Replays a multi-player record and says what happened.
    pub(super) fn replay_multi(&self, rules: &Rules) -> GameReport {
        let verdict = match self.multi_unsupported() {
            Some(reason) => Verdict::Skipped(reason),
            None => {
                let walk = self.walk_multi(rules);
                let names = self.seat_names().unwrap_or_default();
                let position = &walk.board.position;
                match (walk.illegal, position.outcome()) {
                    (Some(turn), _) => Verdict::Illegal(turn),
                    (None, _) if position.decided_by_resignation() => Verdict::Unfinished,
                    (None, MultiOutcome::Ongoing) => Verdict::Unfinished,
                    (None, MultiOutcome::Draw) => {
                        Verdict::Draw(crate::rules::EndReason::MutualElimination)
                    }
                    (None, MultiOutcome::Win(seats)) => Verdict::MultiWin {
                        seats: seats.iter().collect(),
                        names: seats
                            .iter()
                            .map(|seat| names.get(seat as usize).cloned().unwrap_or_default())
                            .collect(),
                    },
                }
            }
        };
        GameReport {
            game_number: self.header.game_number,
            verdict,
            record_winner: self.header.winner.clone(),
            record_result: None,
        }
    }
}

/// Who had won, in words, for a turn played after the end.
fn describe_outcome(position: &MultiPosition, names: &[String]) -> String {
    match position.outcome() {
        MultiOutcome::Win(seats) => {
            let winners: Vec<&str> = seats
                .iter()
                .map(|seat| names.get(seat as usize).map_or("?", String::as_str))
                .collect();
            let how = if position.decided_by_resignation() {
                "by resignation"
            } else {
                "on the board"
            };
            format!("{} had won {how}", winners.join(" and "))
        }
        MultiOutcome::Draw => "it was a draw on the board".to_string(),
        MultiOutcome::Ongoing => "it was not".to_string(),
    }
}

impl GameRecord {
    /// The multi-player board before the site's turn `number`; one past the
    /// last turn gives the final position (after the last resignations).
    ///
    /// # Errors
    /// The turn is out of range, the game is not replayable, or an earlier
    /// turn is illegal.
    pub fn multi_board_before(&self, rules: &Rules, number: u32) -> Result<MultiBoard, ShowError> {
        if let Some(reason) = self.multi_unsupported() {
            return Err(ShowError::Skipped(reason));
        }
        let last = self.turns.len() as u32 + 1;
        if number == 0 || number > last {
            return Err(ShowError::OutOfRange { number, last });
        }
        let walk = self.walk_multi(rules);
        if let Some(turn) = walk.turns.iter().find(|turn| turn.number == number) {
            return Ok(turn.board.clone());
        }
        match walk.illegal {
            Some(illegal) if illegal.number < number => Err(ShowError::Illegal(illegal)),
            _ => Ok(walk.board),
        }
    }
}
