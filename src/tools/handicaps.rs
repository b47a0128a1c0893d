//! The rulebook's four handicaps for a junior player facing a senior one
//! ("Novice vs. Expert"), as `supernova play` and the GUI's Play page
//! offer them against the engine, and how a game's record names them.
//!
//! - **Second Turn Timewarp** is a rule of the game: the rules core keeps
//!   the turn order ([`crate::rules::timewarp`]).
//! - **Red Alert** warns the person of immediate danger. The exact
//!   checkers decide, never the search's guess: [`Solver`] for a win at
//!   once, and at the stronger setting [`ThreatChecker`] for a win forced
//!   within two turns ([`red_alert_now`], [`red_alert_after`]).
//! - **Brain Transference**: once per game the person may swap sides with
//!   the engine, which then plays the other side at the same level.
//! - **Tactical Computer**: tokens, each spent on the engine's turn for the
//!   person's side.
//!
//! Each handicap in force is written into the record's header as a
//! variant ([`Handicaps::variants`]; all but the timewarp change nothing
//! on the board, `crate::record::is_handicap_variant`), so
//! a saved game says what it was played with and replays under the same
//! turn order.

use std::time::{Duration, Instant};

use crate::notation::turn::{format_turn, Style};
use crate::notation::Board;
use crate::record::{BRAIN_TRANSFERENCE_VARIANT, RED_ALERT_VARIANT, TACTICAL_COMPUTER_VARIANT};
use crate::rules::{Action, History, Outcome, Player, Position, Rules, Timewarp};
use crate::search::{Solver, ThreatBudget, ThreatChecker};

/// The most Tactical Computer tokens a game may have.
pub const MAX_TOKENS: u8 = 5;

/// The work the stronger Red Alert may spend on one two-turn check, and
/// the time: the page waits for it, so a check that runs out of either says
/// nothing rather than guess.
const TWO_TURN_WORK: u64 = 2_000_000;
/// See [`TWO_TURN_WORK`].
const TWO_TURN_TIME: Duration = Duration::from_millis(500);

/// How far ahead Red Alert looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedAlert {
    /// Off.
    Off,
    /// The opponent's wins in one turn.
    OneTurn,
    /// Also the opponent's wins forced within two turns.
    TwoTurns,
}

impl RedAlert {
    /// Reads the setting from its number: 0 off, 1 one turn, 2 two turns.
    ///
    /// # Errors
    /// Another number.
    pub fn from_level(level: u8) -> Result<RedAlert, String> {
        match level {
            0 => Ok(RedAlert::Off),
            1 => Ok(RedAlert::OneTurn),
            2 => Ok(RedAlert::TwoTurns),
            _ => Err(format!(
                "expected Red Alert 0 (off), 1 (wins in one turn) or 2 (also two-turn threats), not {level}"
            )),
        }
    }

    /// Its number, as [`RedAlert::from_level`] reads it.
    pub fn level(self) -> u8 {
        match self {
            RedAlert::Off => 0,
            RedAlert::OneTurn => 1,
            RedAlert::TwoTurns => 2,
        }
    }
}

/// The handicaps a game is played with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Handicaps {
    /// Second Turn Timewarp, for the person.
    pub timewarp: Option<Timewarp>,
    /// Red Alert.
    pub red_alert: RedAlert,
    /// Whether the person may swap sides once.
    pub brain_transference: bool,
    /// Tactical Computer tokens at the start (0 to [`MAX_TOKENS`]); `None`
    /// when hints are not rationed (no handicap).
    pub tokens: Option<u8>,
}

impl Default for Handicaps {
    fn default() -> Handicaps {
        Handicaps {
            timewarp: None,
            red_alert: RedAlert::Off,
            brain_transference: false,
            tokens: None,
        }
    }
}

impl Handicaps {
    /// The record's header variants that name these handicaps.
    pub fn variants(&self) -> Vec<String> {
        let mut variants = Vec::new();
        if let Some(timewarp) = self.timewarp {
            variants.push(timewarp.variant());
        }
        match self.red_alert {
            RedAlert::Off => {}
            RedAlert::OneTurn => variants.push(RED_ALERT_VARIANT.to_string()),
            RedAlert::TwoTurns => variants.push(format!("{RED_ALERT_VARIANT} 2")),
        }
        if self.brain_transference {
            variants.push(BRAIN_TRANSFERENCE_VARIANT.to_string());
        }
        if let Some(tokens) = self.tokens {
            variants.push(format!("{TACTICAL_COMPUTER_VARIANT} {tokens}"));
        }
        variants
    }

    /// The handicaps a record's header names ([`Handicaps::variants`]);
    /// what is not understood is left out (the record's own checks refuse
    /// a bad timewarp).
    pub fn from_variants(variants: &[String]) -> Handicaps {
        let mut handicaps = Handicaps::default();
        for variant in variants {
            if let Some(Ok(timewarp)) = Timewarp::parse_variant(variant) {
                handicaps.timewarp = Some(timewarp);
            } else if variant == RED_ALERT_VARIANT {
                handicaps.red_alert = RedAlert::OneTurn;
            } else if variant == &format!("{RED_ALERT_VARIANT} 2") {
                handicaps.red_alert = RedAlert::TwoTurns;
            } else if variant == BRAIN_TRANSFERENCE_VARIANT {
                handicaps.brain_transference = true;
            } else if let Some(count) = variant.strip_prefix(TACTICAL_COMPUTER_VARIANT) {
                handicaps.tokens = count
                    .trim()
                    .parse()
                    .ok()
                    .filter(|&count| count <= MAX_TOKENS);
            }
        }
        handicaps
    }

    /// The referee's history for a game from `start` under these handicaps:
    /// with a timewarp, the rules core decides who moves after setup.
    ///
    /// # Errors
    /// `start` is mid-turn, or after setup under a timewarp.
    pub fn history(&self, start: &Position) -> Result<History, String> {
        match self.timewarp {
            Some(timewarp) => History::with_timewarp(*start, timewarp),
            None => History::new(*start).map_err(|error| error.to_string()),
        }
    }

    /// The handicaps in words, for the person: `Red Alert, 3 Tactical
    /// Computer tokens`; empty when there are none.
    pub fn text(&self) -> String {
        self.variants().join(", ")
    }
}

/// Red Alert at the start of the person's turn on `board` (the person to
/// move): the opponent's winning turn if the person passed, in SDG form,
/// or at [`RedAlert::TwoTurns`] the first turn of a win the opponent could
/// force within two turns. `None` when there is no danger (or the setting
/// is off).
pub fn red_alert_now(board: &Board, rules: &Rules, setting: RedAlert) -> Option<String> {
    red_alert_now_within(board, rules, setting, page_budget())
}

/// [`red_alert_now`] with the two-turn check's budget given.
fn red_alert_now_within(
    board: &Board,
    rules: &Rules,
    setting: RedAlert,
    budget: ThreatBudget,
) -> Option<String> {
    if setting == RedAlert::Off || board.position.in_setup() {
        return None;
    }
    let mut passed = board.clone();
    passed.position.end_turn(rules).ok()?;
    threat_text(&passed, rules, setting, budget).map(|threat| {
        format!("Red Alert: you are in danger. If you do nothing, the opponent {threat}")
    })
}

/// Red Alert for a turn the person is about to end: after `actions` from
/// `board`, whether the opponent would have a win (in SDG form, as
/// [`red_alert_now`]). `None` when the turn is safe, wins, or is not
/// legal, or when the opponent does not move next (a timewarp's bonus
/// turn: `opponent_moves_next` false).
pub fn red_alert_after(
    board: &Board,
    rules: &Rules,
    actions: &[Action],
    setting: RedAlert,
    opponent_moves_next: bool,
) -> Option<String> {
    if setting == RedAlert::Off || board.position.in_setup() || !opponent_moves_next {
        return None;
    }
    let mut after = board.clone();
    for &action in actions {
        after.apply(rules, action, None).ok()?;
    }
    match after.position.end_turn(rules).ok()? {
        Outcome::Ongoing => {}
        _ => return None,
    }
    threat_text(&after, rules, setting, page_budget()).map(|threat| {
        format!("Red Alert: after this turn the opponent {threat}. End the turn anyway?")
    })
}

/// The two-turn check's budget while a person waits for it.
fn page_budget() -> ThreatBudget {
    ThreatBudget {
        deadline: Some(Instant::now() + TWO_TURN_TIME),
        ..ThreatBudget::work(TWO_TURN_WORK)
    }
}

/// What the side to move in `board` threatens: `wins at once with ...` or
/// `can force a win within two turns, starting with ...` (at
/// [`RedAlert::TwoTurns`], within `budget`).
fn threat_text(
    board: &Board,
    rules: &Rules,
    setting: RedAlert,
    budget: ThreatBudget,
) -> Option<String> {
    let mut solver = Solver::default();
    if let Some(win) = solver.find_win(&board.position, rules) {
        return Some(format!(
            "wins at once with {}",
            format_turn(board, rules, &win, Style::Sdg)
        ));
    }
    if setting != RedAlert::TwoTurns {
        return None;
    }
    let mut checker = ThreatChecker::default();
    let plan = checker.winning_plan(&board.position, rules, budget)?;
    Some(format!(
        "can force a win within two turns, starting with {}",
        format_turn(board, rules, &plan, Style::Sdg)
    ))
}

/// Whether `position` (at the start of a turn) is one where `person` is to
/// move and Red Alert may speak: after setup.
pub fn alert_applies(position: &Position, person: Player) -> bool {
    !position.in_setup() && position.side_to_move() == person
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::hwpn;
    use crate::record::is_handicap_variant;

    /// Player 0 to move; player 1 has a large red ship at player 0's home,
    /// whose only defender is a small green ship: passing loses it all.
    const IN_DANGER: &str = "r1b3:g1:r3/y2b1::g3 0";

    #[test]
    fn red_alert_speaks_only_of_real_danger() {
        let board = hwpn::parse(IN_DANGER).unwrap();
        let rules = Rules::STANDARD;
        let now = red_alert_now(&board, &rules, RedAlert::OneTurn);
        assert!(
            now.as_deref()
                .is_some_and(|text| text.contains("wins at once")),
            "{now:?}"
        );
        assert_eq!(red_alert_now(&board, &rules, RedAlert::Off), None);
        // Passing allows the win; the check after the turn says so, unless
        // the person moves again next.
        assert!(red_alert_after(&board, &rules, &[], RedAlert::OneTurn, true).is_some());
        assert_eq!(
            red_alert_after(&board, &rules, &[], RedAlert::OneTurn, false),
            None
        );
        // From the start of a quiet game there is nothing to say.
        let quiet = hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap();
        assert_eq!(red_alert_now(&quiet, &rules, RedAlert::TwoTurns), None);
    }

    #[test]
    fn the_stronger_red_alert_sees_two_turn_threats() {
        // From the two-turn suite (positions/tactics/two_turn.txt, SDG game
        // 1100): a pass lets the opponent force a win within two turns,
        // but not at once.
        let board = hwpn::parse("tendrecube=g3b1:r1:/andylooney=g2b1:r2y1:r2y2g3/Atomium=b2:g1g1:/Oasis=g2::r1y1y3/Garden=g3::y1y2/Plugh=y2::g1g2 0").unwrap();
        let rules = Rules::STANDARD;
        let exhaustive = ThreatBudget::work(u64::MAX);
        assert_eq!(
            red_alert_now_within(&board, &rules, RedAlert::OneTurn, exhaustive),
            None
        );
        let alert = red_alert_now_within(&board, &rules, RedAlert::TwoTurns, exhaustive);
        assert!(
            alert.as_deref().is_some_and(
                |text| text.contains("can force a win within two turns, starting with")
            ),
            "{alert:?}"
        );
    }

    #[test]
    fn handicaps_are_named_in_the_record() {
        let handicaps = Handicaps {
            timewarp: Some(Timewarp::new(Player::Second, 2).unwrap()),
            red_alert: RedAlert::TwoTurns,
            brain_transference: true,
            tokens: Some(3),
        };
        assert_eq!(
            handicaps.variants(),
            [
                "Timewarp 2 for player 1",
                "Red Alert 2",
                "Brain Transference",
                "Tactical Computer 3"
            ]
        );
        assert!(handicaps.variants()[1..]
            .iter()
            .all(|variant| is_handicap_variant(variant)));
        assert!(!is_handicap_variant("Red Alerts"));
        assert_eq!(Handicaps::from_variants(&handicaps.variants()), handicaps);
        assert!(RedAlert::from_level(3).is_err());
    }
}
