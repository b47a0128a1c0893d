//! Playing turns written as text on a [`Board`], keeping the names they give.
//!
//! A turn arrives as text (a protocol token, an SDG line, CLI phrasing) or as
//! resolved actions from a search. Either way it is played here, by one
//! loop: each step is resolved against the board as the turn has left it so
//! far (a discovery's name is usable by the next step), checked by the rules
//! core, and applied; then the turn ends. The result is a [`NamedTurn`]: the
//! actions, the name each discovery received, and the result on the board.
//!
//! Discovery names matter after the turn: `format_turn` names every discovery
//! by the default rule, which is what an engine prints, but a turn typed by a
//! person, sent by another engine or read from a record may name a discovery
//! itself (`disc.g1.Home0.b2.Vega`), and every later turn then refers to
//! `Vega`. [`NamedTurn::format`] writes the turn back with those names, and
//! [`NamedTurn::replay`] plays it on another board (a transcript's board with
//! other home names) giving its discoveries the same names.

use std::fmt;

use super::error::{excerpt, ParseError};

use super::names::{Board, MAX_NAME_CHARS};
use super::turn::{format_action, format_named_turn, parse_turn, ActionText, Style};
use crate::rules::{Action, IllegalReason, Outcome, Rules, TurnState};

/// Why a turn could not be played.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TurnError {
    /// The text does not parse.
    Parse(ParseError),
    /// Action number `index` (from 1) is illegal.
    Illegal {
        /// 1-based position of the action within the turn.
        index: usize,
        /// The action as written.
        text: String,
        /// Why.
        reason: IllegalReason,
    },
    /// A name does not resolve, or a discovery reuses a live name.
    Name {
        /// 1-based position of the action within the turn.
        index: usize,
        /// The problem.
        error: ParseError,
    },
    /// The actions are legal but the turn may not end here.
    CannotEnd(IllegalReason),
}

impl fmt::Display for TurnError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TurnError::Parse(error) => write!(formatter, "{error}"),
            TurnError::Illegal {
                index,
                text,
                reason,
            } => {
                let text = excerpt(text);
                write!(formatter, "action {index} '{text}' is illegal: {reason}")
            }
            TurnError::Name { index, error } => write!(formatter, "action {index}: {error}"),
            TurnError::CannotEnd(reason) => write!(formatter, "the turn cannot end here: {reason}"),
        }
    }
}

impl std::error::Error for TurnError {}

impl From<ParseError> for TurnError {
    fn from(error: ParseError) -> TurnError {
        TurnError::Parse(error)
    }
}

/// Looks up the names of an action and checks it against the rules,
/// returning the action and the name for a discovered system.
///
/// # Errors
/// An unknown name, a discovery name already in use, or an illegal action.
pub fn resolve(board: &Board, text: &ActionText) -> Result<(Action, Option<String>), ParseError> {
    resolve_with(
        text,
        |name| board.slot(name),
        |name| board.names.in_use(&board.position, name),
    )
}

/// [`resolve`] on any board: `slot` looks a live system up by name and
/// `in_use` says whether a live system has a name. The multi-player board
/// resolves its turns with it too, so both read names the same way.
///
/// # Errors
/// An unknown name, a discovery name already in use or too long.
pub fn resolve_with(
    text: &ActionText,
    slot: impl Fn(&str) -> Result<crate::rules::Slot, ParseError>,
    in_use: impl Fn(&str) -> bool,
) -> Result<(Action, Option<String>), ParseError> {
    let action = match text {
        ActionText::Homeworld {
            star,
            second_star,
            ship,
        } => Action::Homeworld {
            star: *star,
            second_star: *second_star,
            ship: *ship,
        },
        ActionText::Build { piece, system } => Action::Build {
            system: slot(system)?,
            piece: *piece,
        },
        ActionText::Trade { from, to, system } => Action::Trade {
            system: slot(system)?,
            from: *from,
            to: *to,
        },
        ActionText::Move { ship, from, to } => Action::Move {
            from: slot(from)?,
            to: slot(to)?,
            ship: *ship,
        },
        ActionText::Discover {
            ship,
            from,
            star,
            name,
        } => {
            if let Some(name) = name {
                if name.chars().count() > MAX_NAME_CHARS {
                    return Err(ParseError::new(
                        name.as_str(),
                        format!("expected a system name of at most {MAX_NAME_CHARS} characters"),
                    ));
                }
                if in_use(name) {
                    return Err(ParseError::new(
                        name.as_str(),
                        "expected a new system name: this one is in use",
                    ));
                }
            }
            return Ok((
                Action::Discover {
                    from: slot(from)?,
                    ship: *ship,
                    star: *star,
                },
                name.clone(),
            ));
        }
        ActionText::Capture { ship, system } => Action::Capture {
            system: slot(system)?,
            ship: *ship,
        },
        ActionText::Sacrifice { ship, system } => Action::Sacrifice {
            system: slot(system)?,
            ship: *ship,
        },
        ActionText::Catastrophe { system, colour } => Action::Catastrophe {
            system: slot(system)?,
            colour: *colour,
        },
        ActionText::Pass => Action::Pass,
    };
    Ok((action, None))
}

/// A played turn: its actions, the name each discovery received, and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedTurn {
    /// The actions, resolved (a text's padding passes dropped).
    pub actions: Vec<Action>,
    /// For each action, the name of the system it discovered, if it is a
    /// discovery: the name the turn gave, or the default name it received.
    pub names: Vec<Option<String>>,
    /// The game result after the turn, on the board.
    pub outcome: Outcome,
}

impl NamedTurn {
    /// A turn of resolved actions not played yet, with default discovery
    /// names to be given when it is played ([`NamedTurn::replay`]).
    pub fn new(actions: &[Action]) -> NamedTurn {
        NamedTurn {
            actions: actions.to_vec(),
            names: vec![None; actions.len()],
            outcome: Outcome::Ongoing,
        }
    }

    /// Plays the turn on `board` (such as a transcript's board with other
    /// home names), giving discoveries the recorded names. A discovery
    /// without a recorded name is named by default and the name recorded;
    /// the outcome is updated.
    ///
    /// # Errors
    /// The turn does not play there; the board and the turn are then unchanged.
    pub fn replay(&mut self, board: &mut Board, rules: &Rules) -> Result<(), TurnError> {
        let played = board.play_steps(
            rules,
            self.actions.len(),
            false,
            |_, index| {
                Ok((
                    self.actions[index],
                    self.names.get(index).cloned().flatten(),
                ))
            },
            |working, _, action| format_action(working, action, Style::Readable),
        )?;
        *self = played;
        Ok(())
    }

    /// Writes the turn as it reads on `board` (the board before it), with
    /// the recorded discovery names. In the SDG style an unfinished
    /// sacrifice is padded with `Pass`, as SDG records require.
    pub fn format(&self, board: &Board, rules: &Rules, style: Style) -> String {
        format_named_turn(board, rules, &self.actions, &self.names, style)
    }
}

impl Board {
    /// Plays a whole turn given as text (a protocol token, SDG or CLI
    /// phrasing), recording the name of each discovery. On error the board
    /// is unchanged.
    ///
    /// ```
    /// use supernova::notation::{hwpn, turn::Style};
    /// use supernova::rules::{Outcome, Rules};
    ///
    /// let mut board = hwpn::parse("r1y3:y1g3:/y2b1::g3 0").unwrap();
    /// let before = board.clone();
    /// let turn = board.play_turn_text(&Rules::STANDARD, "disc.g3.Home0.y2.Vega").unwrap();
    /// assert_eq!(turn.outcome, Outcome::Ongoing);
    /// assert_eq!(turn.names[0].as_deref(), Some("Vega"));
    /// assert!(board.slot("Vega").is_ok());
    /// assert_eq!(turn.format(&before, &Rules::STANDARD, Style::Sdg), "Discover G3 Home0 Y2 Vega");
    ///
    /// // An illegal turn is an error and leaves the board as it was.
    /// assert!(board.play_turn_text(&Rules::STANDARD, "build g2 Vega").is_err());
    /// ```
    ///
    /// # Errors
    /// The text does not parse ([`TurnError::Parse`]), names an unknown
    /// system, or the turn is illegal.
    pub fn play_turn_text(&mut self, rules: &Rules, text: &str) -> Result<NamedTurn, TurnError> {
        let actions = parse_turn(text)?;
        self.play_action_texts(rules, &actions, |index| {
            text.split([';', ',', '\n'])
                .map(str::trim)
                .filter(|part| !part.is_empty())
                .nth(index)
                .unwrap_or(text)
                .to_string()
        })
    }

    /// Plays parsed actions as one turn. `describe` gives the text of action
    /// `index` (from 0) for error messages. A `Pass` after the turn's actions
    /// are used up is padding (SDG writes one per unused sacrifice action)
    /// and is dropped. On error the board is unchanged.
    ///
    /// # Errors
    /// Which action failed and why, or why the turn cannot end.
    pub fn play_action_texts(
        &mut self,
        rules: &Rules,
        texts: &[ActionText],
        describe: impl Fn(usize) -> String,
    ) -> Result<NamedTurn, TurnError> {
        self.play_steps(
            rules,
            texts.len(),
            true,
            |working, index| {
                resolve(working, &texts[index]).map_err(|error| TurnError::Name {
                    index: index + 1,
                    error,
                })
            },
            |_, index, _| describe(index),
        )
    }

    /// Plays resolved actions as one turn, naming discoveries by default.
    /// On error the board is unchanged.
    ///
    /// # Errors
    /// Which action failed and why, or why the turn cannot end.
    pub fn play_actions(
        &mut self,
        rules: &Rules,
        actions: &[Action],
    ) -> Result<Outcome, TurnError> {
        let mut turn = NamedTurn::new(actions);
        turn.replay(self, rules)?;
        Ok(turn.outcome)
    }

    /// The one loop that plays a turn: `next` gives step `index` on the
    /// board as the turn has left it (the action and the name the turn gives
    /// a discovery), `describe` writes a rejected step for the error.
    fn play_steps(
        &mut self,
        rules: &Rules,
        count: usize,
        drop_padding: bool,
        mut next: impl FnMut(&Board, usize) -> Result<(Action, Option<String>), TurnError>,
        describe: impl Fn(&Board, usize, Action) -> String,
    ) -> Result<NamedTurn, TurnError> {
        let mut working = self.clone();
        let mut actions = Vec::with_capacity(count);
        let mut names = Vec::with_capacity(count);
        for index in 0..count {
            let (action, given) = next(&working, index)?;
            // A pass inside a sacrifice with nothing left is harmless padding.
            if drop_padding
                && action == Action::Pass
                && working.position.turn_state() == TurnState::Done
                && index > 0
            {
                continue;
            }
            let name = match action {
                Action::Discover { .. } => {
                    Some(given.unwrap_or_else(|| working.names.next_default(&working.position)))
                }
                _ => None,
            };
            working
                .apply(rules, action, name.as_deref())
                .map_err(|reason| TurnError::Illegal {
                    index: index + 1,
                    text: describe(&working, index, action),
                    reason,
                })?;
            actions.push(action);
            names.push(name);
        }
        let outcome = working.end_turn(rules).map_err(TurnError::CannotEnd)?;
        *self = working;
        Ok(NamedTurn {
            actions,
            names,
            outcome,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::hwpn;

    #[test]
    fn custom_discovery_names_survive_formatting() {
        let rules = Rules::STANDARD;
        let board = hwpn::parse("r1y3:g3:/y2b1::g3 0").unwrap();
        let mut played = board.clone();
        let turn = played
            .play_turn_text(&rules, "disc.g3.Home0.y2.Vega")
            .unwrap();
        assert!(played.slot("Vega").is_ok());
        assert_eq!(
            turn.format(&board, &rules, Style::Token),
            "disc.g3.Home0.y2.Vega"
        );
        assert_eq!(
            turn.format(&board, &rules, Style::Sdg),
            "Discover G3 Home0 Y2 Vega"
        );
        let mut other = hwpn::parse("Sam=r1y3:g3:/Dave=y2b1::g3 0").unwrap();
        let mut again = turn.clone();
        again.replay(&mut other, &rules).unwrap();
        assert!(other.slot("Vega").is_ok());
        assert_eq!(again, turn);
        let mut default = board.clone();
        let turn = default.play_turn_text(&rules, "disc.g3.Home0.y2").unwrap();
        assert_eq!(turn.names[0].as_deref(), Some("Delos"));
        // Resolved actions get default names, recorded when played.
        let mut unnamed = NamedTurn::new(&turn.actions);
        let mut fresh = board.clone();
        unnamed.replay(&mut fresh, &rules).unwrap();
        assert_eq!(unnamed, turn);
        assert_eq!(fresh, default);
    }

    #[test]
    fn sacrifices_are_padded_in_sdg() {
        let rules = Rules::STANDARD;
        let board = hwpn::parse("r1b3:g3y2:/y2b2::g3 0").unwrap();
        let mut played = board.clone();
        let turn = played
            .play_turn_text(&rules, "sac.y2.Home0,move.g3.Home0.Home1")
            .unwrap();
        assert_eq!(
            turn.format(&board, &rules, Style::Sdg),
            "Sacrifice Y2 Home0; Move G3 Home0 Home1; Pass"
        );
        // The written turn reads back, and a surplus pass is padding, dropped.
        let mut again = board.clone();
        let text = "Sacrifice Y2 Home0; Move G3 Home0 Home1; Pass; Pass";
        let padded = again.play_turn_text(&rules, text).unwrap();
        assert_eq!(padded.actions.len(), 3, "{:?}", padded.actions);
        assert_eq!(padded.actions[..2], turn.actions);
        assert_eq!(again, played);
    }

    #[test]
    fn failed_turns_leave_board_and_turn_unchanged() {
        let rules = Rules::STANDARD;
        let board = hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap();
        let mut named = NamedTurn::new(&[Action::Pass, Action::Pass]);
        let before = named.clone();
        let mut target = board.clone();
        let error = named.replay(&mut target, &rules).unwrap_err();
        assert!(
            matches!(error, TurnError::Illegal { index: 2, .. }),
            "{error}"
        );
        assert_eq!(named, before);
        assert_eq!(target, board);
    }
}
