//! The rulebook's four handicaps for a junior player facing a senior one
//! ("Novice vs. Expert"), as `supernova play` and the GUI's Play page
//! offer them against the engine, and how a game's record names them.
//!
//! - **Second Turn Timewarp** is a rule of the game: the rules core keeps
//!   the turn order ([`crate::rules::timewarp`]).
//! - **Red Alert** warns the person of immediate danger. The exact
//!   checkers decide, never the search's guess: [`Solver`] for a win at
//!   once, and at the stronger setting [`ThreatChecker`] for a win forced
//!   within two turns ([`red_alert_now`], [`red_alert_after`]). The
//!   stronger setting also warns of one-turn material shots, at the start
//!   of the person's turn (the shots the opponent's last turn left against
//!   the person's ships: the opponent's replies to a pass) and before a
//!   turn ends (the shots that turn would leave): every distinct reply of
//!   the opponent is listed by the rules core and the one that takes the
//!   most (captures and catastrophes, net of what it gives up:
//!   [`crate::tools::material::worst_reply_within`]) is named when it
//!   takes at least a medium ship's worth
//!   ([`crate::tools::material::SAFE`]). The listing is bounded in work
//!   and time; one that does not finish says nothing.
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
use crate::rules::{Action, History, Outcome, Piece, Player, Position, Rules, Timewarp};
use crate::search::{Solver, ThreatBudget, ThreatChecker};
use crate::tools::material::{worst_reply_within, ELIMINATED, SAFE};

/// The most Tactical Computer tokens a game may have.
pub const MAX_TOKENS: u8 = 5;

/// The work the stronger Red Alert may spend on one two-turn check, and
/// the time: the page waits for it, so a check that runs out of either says
/// nothing rather than guess.
const TWO_TURN_WORK: u64 = 2_000_000;
/// See [`TWO_TURN_WORK`].
const TWO_TURN_TIME: Duration = Duration::from_millis(500);

/// The most replies the material-shot check lists, and the time it may
/// take: over either it says nothing.
const SHOT_WORK: usize = 500_000;
/// See [`SHOT_WORK`].
const SHOT_TIME: Duration = Duration::from_millis(500);

/// How far ahead Red Alert looks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RedAlert {
    /// Off.
    Off,
    /// The opponent's wins in one turn.
    OneTurn,
    /// Also the opponent's wins forced within two turns, and its one-turn
    /// material shots (at the start of the person's turn and before a turn
    /// ends).
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
                "expected Red Alert 0 (off), 1 (wins in one turn) or 2 (also two-turn threats and material shots), not {level}"
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
/// force within two turns, or failing both the opponent's reply to a pass
/// that takes the most material, with what it takes (when at least
/// [`SAFE`]). The pass is a null turn: the position unchanged, the
/// opponent to move, so what is named is what the person stands to lose
/// by doing nothing. `None` when there is no danger (or the setting is
/// off).
pub fn red_alert_now(board: &Board, rules: &Rules, setting: RedAlert) -> Option<String> {
    let shot_deadline = Instant::now() + SHOT_TIME;
    red_alert_now_within(board, rules, setting, page_budget(), Some(shot_deadline))
}

/// [`red_alert_now`] with the two-turn check's budget and the material
/// check's deadline given.
fn red_alert_now_within(
    board: &Board,
    rules: &Rules,
    setting: RedAlert,
    budget: ThreatBudget,
    shot_deadline: Option<Instant>,
) -> Option<String> {
    if setting == RedAlert::Off || board.position.in_setup() {
        return None;
    }
    let mut passed = board.clone();
    passed.position.end_turn(rules).ok()?;
    if let Some(threat) = threat_text(&passed, rules, setting, budget) {
        return Some(format!(
            "Red Alert: you are in danger. If you do nothing, the opponent {threat}"
        ));
    }
    if setting != RedAlert::TwoTurns {
        return None;
    }
    let shot = material_shot_text(&passed, rules, shot_deadline, SHOT_WORK)?;
    Some(format!(
        "Red Alert: your ships are in danger. If you do nothing, the opponent {shot}"
    ))
}

/// Red Alert for a turn the person is about to end: after `actions` from
/// `board`, whether the opponent would have a win (in SDG form, as
/// [`red_alert_now`]), or at [`RedAlert::TwoTurns`] a reply that takes
/// material (named with what it takes). `None` when the turn is safe, wins, or is not
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
    let threat = threat_text(&after, rules, setting, page_budget()).or_else(|| {
        if setting == RedAlert::TwoTurns {
            material_shot_text(&after, rules, Some(Instant::now() + SHOT_TIME), SHOT_WORK)
        } else {
            None
        }
    })?;
    Some(format!(
        "Red Alert: after this turn the opponent {threat}. End the turn anyway?"
    ))
}

/// The reply of the side to move in `board` that takes the most material
/// from the other side, when it takes at least [`SAFE`] net: `can take
/// material: Sacrifice R2 Shrdlu; Attack R3 Home1; Attack B3 Home1 would
/// capture your R3 and B3`. `None` when no reply takes that much or the
/// listing of the replies ran past `deadline` or `most_turns`.
fn material_shot_text(
    board: &Board,
    rules: &Rules,
    deadline: Option<Instant>,
    most_turns: usize,
) -> Option<String> {
    let worst = worst_reply_within(&board.position, rules, deadline, most_turns)?;
    let (swing, reply) = (worst.swing, worst.reply);
    if swing < SAFE {
        return None;
    }
    let turn = format_turn(board, rules, &reply, Style::Sdg);
    if swing >= ELIMINATED {
        return Some(format!("wins at once with {turn}"));
    }
    let mover = board.position.side_to_move().opponent();
    let mut result = board.position;
    for &action in &reply {
        result.try_apply(rules, action).ok()?;
    }
    let captured: Vec<Piece> = reply
        .iter()
        .filter_map(|action| match *action {
            Action::Capture { ship, .. } => Some(ship),
            _ => None,
        })
        .collect();
    let mut destroyed = ships_of(&board.position, mover);
    for ship in ships_of(&result, mover)
        .into_iter()
        .chain(captured.iter().copied())
    {
        if let Some(at) = destroyed.iter().position(|&lost| lost == ship) {
            destroyed.remove(at);
        }
    }
    let mut takes = Vec::new();
    if !captured.is_empty() {
        takes.push(format!("capture your {}", ship_list(captured)));
    }
    if !destroyed.is_empty() {
        takes.push(format!("destroy your {}", ship_list(destroyed)));
    }
    Some(format!(
        "can take material: {turn} would {}",
        takes.join(" and ")
    ))
}

/// Every ship of `player` on the board, one entry per piece.
fn ships_of(position: &Position, player: Player) -> Vec<Piece> {
    position
        .occupied_slots()
        .flat_map(|slot| position.system(slot).ships[player.index()].copies())
        .collect()
}

/// Ships in words, largest first: `R3, B3 and G1`.
fn ship_list(mut ships: Vec<Piece>) -> String {
    ships.sort_by_key(|ship| std::cmp::Reverse(ship.size()));
    let names: Vec<String> = ships
        .iter()
        .map(|ship| ship.to_string().to_uppercase())
        .collect();
    match names.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} and {last}", rest.join(", ")),
        _ => names.concat(),
    }
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
            red_alert_now_within(&board, &rules, RedAlert::OneTurn, exhaustive, None),
            None
        );
        let alert = red_alert_now_within(&board, &rules, RedAlert::TwoTurns, exhaustive, None);
        assert!(
            alert.as_deref().is_some_and(
                |text| text.contains("can force a win within two turns, starting with")
            ),
            "{alert:?}"
        );
    }

    /// From the one-turn-shots suite (positions/tactics/one_turn_shots.txt,
    /// game-0005): player 0 has built a third yellow at Delos, and player
    /// 1's sacrifice of a yellow moves two yellows in for a catastrophe
    /// there. Player 0 to move: a pass leaves the shot.
    const SHOT_LEFT: &str =
        "mcts=y1b2:r1r2r3g3:/shots=r1b3::y1y1y2g1g1g3/Delos=g3:r1r3r3y2y2y3:/Lebling=r2:r2: 0";

    #[test]
    fn the_stronger_red_alert_names_a_material_shot_from_every_reply() {
        let board = hwpn::parse(SHOT_LEFT).unwrap();
        let rules = Rules::STANDARD;
        let mut passed = board.clone();
        passed.position.end_turn(&rules).unwrap();
        let shot = material_shot_text(&passed, &rules, None, usize::MAX);
        assert_eq!(
            shot.as_deref(),
            Some("can take material: Sacrifice Y2 shots; Move Y1 shots Lebling; Move Y1 Lebling Delos; Catastrophe Delos Yellow would destroy your Y3, Y2 and Y2")
        );
        // Over its work the listing says nothing rather than guess.
        assert_eq!(material_shot_text(&passed, &rules, None, 10), None);
        // Only the stronger setting speaks of material.
        assert_eq!(
            red_alert_after(&board, &rules, &[], RedAlert::OneTurn, true),
            None
        );
        let alert = red_alert_after(&board, &rules, &[], RedAlert::TwoTurns, true);
        assert!(
            alert
                .as_deref()
                .is_some_and(|text| text.starts_with("Red Alert: after this turn the opponent")),
            "{alert:?}"
        );
        // Where no reply takes a medium ship's worth, nothing is said.
        let mut quiet = hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap();
        quiet.position.end_turn(&rules).unwrap();
        assert_eq!(material_shot_text(&quiet, &rules, None, usize::MAX), None);
    }

    #[test]
    fn the_stronger_red_alert_names_a_shot_left_against_the_person() {
        // Player 0 is to move with three yellows at Delos, so doing
        // nothing leaves player 1 the catastrophe there.
        let board = hwpn::parse(SHOT_LEFT).unwrap();
        let rules = Rules::STANDARD;
        let exhaustive = ThreatBudget::work(u64::MAX);
        let alert = red_alert_now_within(&board, &rules, RedAlert::TwoTurns, exhaustive, None);
        assert_eq!(
            alert.as_deref(),
            Some("Red Alert: your ships are in danger. If you do nothing, the opponent can take material: Sacrifice Y2 shots; Move Y1 shots Lebling; Move Y1 Lebling Delos; Catastrophe Delos Yellow would destroy your Y3, Y2 and Y2")
        );
        // The weaker setting speaks of wins only.
        assert_eq!(
            red_alert_now_within(&board, &rules, RedAlert::OneTurn, exhaustive, None),
            None
        );
        // With two yellows at Delos a single yellow brought in makes three,
        // no catastrophe: nothing of the person's is in reach.
        let before = hwpn::parse(
            "mcts=y1b2:r1r2r3g3:/shots=r1b3::y1y1y2g1g1g3/Delos=g3:r1r3r3y2y2:/Lebling=r2:r2: 0",
        )
        .unwrap();
        assert_eq!(
            red_alert_now_within(&before, &rules, RedAlert::TwoTurns, exhaustive, None),
            None
        );
        // A capture is named as one: player 1's large red ship at a colony
        // takes player 0's medium yellow there.
        let capture = hwpn::parse("r1b3:g3y1:/y2b1::g3/Colony=b2:y2:r3 0").unwrap();
        let alert = red_alert_now_within(&capture, &rules, RedAlert::TwoTurns, exhaustive, None);
        assert!(
            alert
                .as_deref()
                .is_some_and(|text| text.ends_with("would capture your Y2")),
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
