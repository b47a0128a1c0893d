//! Turns that remember the names they gave to discovered systems.
//!
//! `format_turn` names every discovery by the default rule, which is what an
//! engine prints; but a turn typed by a person or sent by another engine may
//! name a discovery itself (`disc.g1.Home0.b2.Vega`), and every later turn
//! then refers to `Vega`. A referee that copies such a turn into a
//! transcript or forwards it to the other engine must keep that name, so
//! this module plays a turn from text while recording each discovery's name,
//! and writes it back (in any style) with those names.

use crate::notation::turn::{
    format_action, format_named_turn, parse_turn, resolve, Style, TurnError,
};
use crate::notation::Board;
use crate::rules::{Action, Outcome, Rules, TurnState};

/// A played turn: its actions, the name each discovery received, and the result.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedTurn {
    /// The actions, resolved (padding passes dropped).
    pub actions: Vec<Action>,
    /// For each action, the name of the system it discovered, if it is a discovery.
    pub names: Vec<Option<String>>,
    /// The game result after the turn, on the board.
    pub outcome: Outcome,
}

impl NamedTurn {
    /// A turn of resolved actions with default discovery names, as a search
    /// returns it, played on `board`.
    ///
    /// # Errors
    /// The turn does not play; the board is then unchanged.
    pub fn play_actions(
        board: &mut Board,
        rules: &Rules,
        actions: &[Action],
    ) -> Result<NamedTurn, TurnError> {
        let names = vec![None; actions.len()];
        let mut turn = NamedTurn {
            actions: actions.to_vec(),
            names,
            outcome: Outcome::Ongoing,
        };
        turn.replay(board, rules)?;
        Ok(turn)
    }

    /// Plays the turn again on another board (such as a transcript's board
    /// with other home names), giving discoveries the same names.
    /// Discoveries without a recorded name are named by default and the
    /// name is recorded.
    ///
    /// # Errors
    /// The turn does not play there; the board is then unchanged.
    pub fn replay(&mut self, board: &mut Board, rules: &Rules) -> Result<(), TurnError> {
        let mut working = board.clone();
        for (index, &action) in self.actions.iter().enumerate() {
            let name = discovery_name(&working, action, self.names[index].as_deref());
            working
                .apply(rules, action, name.as_deref())
                .map_err(|reason| TurnError::Illegal {
                    index: index + 1,
                    text: format_action(&working, action, Style::Readable),
                    reason,
                })?;
            self.names[index] = name;
        }
        self.outcome = working.end_turn(rules).map_err(TurnError::CannotEnd)?;
        *board = working;
        Ok(())
    }

    /// Writes the turn as it reads on `board` (the board before it), with
    /// the recorded discovery names. In the SDG style an unfinished
    /// sacrifice is padded with `Pass`, as SDG records require.
    pub fn format(&self, board: &Board, rules: &Rules, style: Style) -> String {
        format_named_turn(board, rules, &self.actions, &self.names, style)
    }
}

/// The name a discovery gets: the given one, or the first unused default.
fn discovery_name(board: &Board, action: Action, given: Option<&str>) -> Option<String> {
    match action {
        Action::Discover { .. } => Some(
            given
                .map(str::to_string)
                .unwrap_or_else(|| board.names.next_default(&board.position)),
        ),
        _ => None,
    }
}

/// Plays a turn given as text (a protocol token, SDG or CLI phrasing) on
/// `board`, recording discovery names.
///
/// # Errors
/// The text does not parse ([`TurnError::Parse`]) or the turn is illegal;
/// the board is then unchanged.
pub fn play_text(board: &mut Board, rules: &Rules, text: &str) -> Result<NamedTurn, TurnError> {
    let texts = parse_turn(text)?;
    let mut working = board.clone();
    let mut actions = Vec::with_capacity(texts.len());
    let mut names = Vec::with_capacity(texts.len());
    for (index, action_text) in texts.iter().enumerate() {
        let (action, name) = resolve(&working, action_text).map_err(|error| TurnError::Name {
            index: index + 1,
            error,
        })?;
        // A pass inside a sacrifice with nothing left is harmless padding.
        if action == Action::Pass && working.position.turn_state() == TurnState::Done && index > 0 {
            continue;
        }
        let name = discovery_name(&working, action, name.as_deref());
        working
            .apply(rules, action, name.as_deref())
            .map_err(|reason| TurnError::Illegal {
                index: index + 1,
                text: text
                    .split([';', ',', '\n'])
                    .map(str::trim)
                    .filter(|part| !part.is_empty())
                    .nth(index)
                    .unwrap_or(text)
                    .to_string(),
                reason,
            })?;
        actions.push(action);
        names.push(name);
    }
    let outcome = working.end_turn(rules).map_err(TurnError::CannotEnd)?;
    *board = working;
    Ok(NamedTurn {
        actions,
        names,
        outcome,
    })
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
        let turn = play_text(&mut played, &rules, "disc.g3.Home0.y2.Vega").unwrap();
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
        let mut default = board.clone();
        let turn = play_text(&mut default, &rules, "disc.g3.Home0.y2").unwrap();
        assert_eq!(turn.names[0].as_deref(), Some("Delos"));
    }

    #[test]
    fn sacrifices_are_padded_in_sdg() {
        let rules = Rules::STANDARD;
        let board = hwpn::parse("r1b3:g3y2:/y2b2::g3 0").unwrap();
        let mut played = board.clone();
        let turn = play_text(&mut played, &rules, "sac.y2.Home0,move.g3.Home0.Home1").unwrap();
        assert_eq!(
            turn.format(&board, &rules, Style::Sdg),
            "Sacrifice Y2 Home0; Move G3 Home0 Home1; Pass"
        );
    }
}
