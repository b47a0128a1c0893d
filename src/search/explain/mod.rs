//! Why the engine plays its turn, as facts it computed: a proof, a
//! refutation, the principal variation, the value change.
//!
//! A front end shows a person a short sentence for a turn ("takes the win:
//! Attack G3 Home1", "defends against ..."). Such a sentence must never be
//! invented: each is a rendering of one [`Fact`], and every fact here is
//! either read from the search's answer (its [`Decision`], proof and
//! principal variation) or decided exactly after it (the win-in-1 solver,
//! the two-turn checker, the sacrifice-shot count of `facts.rs`). This
//! module gathers the facts and never writes text: the protocol layer
//! renders them with its board's system names.
//!
//! Every turn a fact names is given as a [`Line`]: the turns from the
//! searched position up to and including it (a pass is an empty turn), so
//! that a renderer can replay the line on its own board, names and all,
//! and write the last turn as it reads there.
//!
//! # What it costs
//! A few win-in-1 solver calls, one sacrifice-shot count per side, a replay
//! of the principal variation and, only after a two-turn defence, one
//! two-turn check within [`PLAN_WORK`] work units: a millisecond or two as
//! a rule and about 20 ms at most (measured over the two-turn suite), and
//! nothing the search itself reads, so it cannot change the turn.

#[cfg(test)]
mod tests;

use super::facts::{sacrifice_shot, Facts};
use super::report::{Decision, Proof, SearchResult};
use super::solver::{passed, Solver};
use super::threats::{ThreatBudget, ThreatChecker};
use super::tunables::{Tunable, Tunables};
use crate::rules::{Action, Colour, Outcome, Position, Rules, TurnState};

/// Turns from the searched position, one after the other, the last one the
/// turn a fact is about (a pass is an empty turn).
pub type Line = Vec<Vec<Action>>;

/// The work the two-turn checker may spend to name the plan a two-turn
/// defence parries. At 200,000 units naming one took up to 200 ms after a
/// search in the two-turn suite; at this much it took 20 ms at most there,
/// and named the plan in most of them (the sentence without the plan is
/// still true). Work, not time, so that the sentence is the same on every
/// machine.
pub const PLAN_WORK: u64 = 20_000;

/// Turns of the principal variation an explanation names at most.
pub const LINE_TURNS: usize = 3;

/// What a plan of the side to move's achieves on its next turn, read off
/// the principal variation.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Goal {
    /// The opponent is eliminated.
    Win,
    /// A catastrophe of `colour`; `at_their_home` when it is at the
    /// opponent's home.
    Catastrophe {
        /// The overpopulated colour.
        colour: Colour,
        /// Whether it is at the opponent's home.
        at_their_home: bool,
    },
    /// A capture; `size` of the largest ship captured.
    Capture {
        /// 1 (small) to 3 (large).
        size: u8,
    },
}

/// One fact that explains a turn. See the module docs.
#[derive(Clone, Debug, PartialEq)]
pub enum Fact {
    /// A setup turn (the book or a random one).
    Setup,
    /// The turn eliminates the opponent at once: `win` is that turn.
    Win {
        /// The winning turn.
        win: Line,
    },
    /// Far ahead, the first turn of a forced win in two: every reply leaves
    /// a win at once. `finish` is the win after the opponent passes, when
    /// it may pass: `[turn, pass, win]`.
    WinInTwo {
        /// The turn.
        turn: Line,
        /// The win after a pass, if the opponent may pass.
        finish: Option<Line>,
    },
    /// The tree proved the turn wins by force: the expected line.
    ProvenWin {
        /// The principal variation.
        line: Line,
    },
    /// The opponent threatened to win at once (`threat`, played after a
    /// pass: `[pass, threat]`), and the turn parries it; `only` when it is
    /// the one turn that does.
    Defends {
        /// The opponent's win after a pass.
        threat: Line,
        /// Whether no other turn parries it.
        only: bool,
        /// The expected line after the turn.
        line: Line,
    },
    /// The opponent could force a win in two (`plan`, its first turn after
    /// a pass, when the checker named it in its budget), and the turn,
    /// proven to leave no such plan, parries it.
    DefendsPlan {
        /// The opponent's first turn after a pass, if named.
        plan: Option<Line>,
        /// Whether the turn was proven a defence (else no check refuted it).
        proven: bool,
        /// The expected line after the turn.
        line: Line,
    },
    /// After a pass the opponent's best red sacrifice (`shot`: `[pass,
    /// shot]`) would capture `captured` ships (by size, index 0 = small);
    /// after the turn no sacrifice of its gains as much.
    DefendsShot {
        /// The opponent's sacrifice and captures after a pass.
        shot: Line,
        /// The ships it would capture, by size.
        captured: [u8; 3],
        /// The expected line after the turn.
        line: Line,
    },
    /// Every turn but this one loses at once; it eliminates both players.
    ForcedDraw,
    /// Every turn lets the opponent win at once (or none found in time
    /// does not): `threat` is one such win after a pass, if passing is legal.
    NoSafeTurn {
        /// The opponent's win after a pass.
        threat: Option<Line>,
    },
    /// The tree proved the game lost whatever the turn: the line it expects.
    ProvenLoss {
        /// The principal variation.
        line: Line,
    },
    /// The principal variation's next turn of the mover's achieves `goal`:
    /// `line` is the principal variation up to and including it.
    BuildsTowards {
        /// What that turn achieves.
        goal: Goal,
        /// The line up to it.
        line: Line,
    },
    /// None of the above: the expected line.
    Expected {
        /// The principal variation (at most three turns).
        line: Line,
    },
}

/// Why a search's turn was played: one [`Fact`], with the value change.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// The fact.
    pub fact: Fact,
    /// The static value of the searched position for its side to move,
    /// in [-1, 1], before the turn.
    pub before: f32,
    /// The search's value of the turn for the same side, in [-1, 1].
    pub after: f32,
    /// Whether the turn was drawn among good candidates below full strength.
    pub limited: bool,
}

/// Gathers the fact that explains `result`, the search's answer for
/// `position`. Exact where the fact is a claim (a win, a threat, a shot);
/// read from the search where it is the search's (its line, its value).
pub fn explain(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    result: &SearchResult,
) -> Explanation {
    let mut solver = Solver::default();
    let before = super::static_evaluation_using(position, rules, tunables, &mut solver);
    let fact = gather(position, rules, tunables, result, &mut solver);
    Explanation {
        fact,
        before,
        after: result.value,
        limited: result.decision == Decision::LimitedStrength,
    }
}

/// The fact, tried from the strongest claim to the weakest.
fn gather(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    result: &SearchResult,
    solver: &mut Solver,
) -> Fact {
    let turn = &result.best_turn;
    let line = expected_line(result);
    match result.decision {
        Decision::Setup => return Fact::Setup,
        Decision::ForcedDraw => return Fact::ForcedDraw,
        Decision::NoSafeTurn | Decision::NoSafeTurnFound => {
            return Fact::NoSafeTurn {
                threat: threat_line(position, rules, solver),
            }
        }
        Decision::ForcedWinInTwo => {
            return Fact::WinInTwo {
                turn: vec![turn.clone()],
                finish: finish_after_pass(position, rules, turn, solver),
            }
        }
        _ => {}
    }
    if wins_at_once(position, rules, turn) {
        return Fact::Win {
            win: vec![turn.clone()],
        };
    }
    if let Some(threat) = threat_line(position, rules, solver) {
        return Fact::Defends {
            threat,
            only: result.decision == Decision::OnlySafeTurn,
            line,
        };
    }
    if matches!(
        result.decision,
        Decision::TwoTurnDefence | Decision::UnrefutedTurn
    ) {
        return Fact::DefendsPlan {
            plan: plan_line(position, rules),
            proven: result.decision == Decision::TwoTurnDefence,
            line,
        };
    }
    if let Some((shot, captured)) = parried_shot(position, rules, tunables, turn) {
        return Fact::DefendsShot {
            shot,
            captured,
            line,
        };
    }
    match result.info.proof {
        Some(Proof::Win) => return Fact::ProvenWin { line },
        Some(Proof::Loss) => return Fact::ProvenLoss { line },
        _ => {}
    }
    if let Some((goal, line)) = builds_towards(position, rules, &result.info.principal_variation) {
        return Fact::BuildsTowards { goal, line };
    }
    Fact::Expected { line }
}

/// The search's expected line, cut to [`LINE_TURNS`] turns, starting with
/// the turn played (just that turn when the line starts elsewhere).
fn expected_line(result: &SearchResult) -> Line {
    let line = &result.info.principal_variation;
    if line.first() != Some(&result.best_turn) {
        return vec![result.best_turn.clone()];
    }
    line.iter().take(LINE_TURNS).cloned().collect()
}

/// The position after `turn`, with how the game stands; `None` when the
/// turn does not play.
fn played(position: &Position, rules: &Rules, turn: &[Action]) -> Option<(Position, Outcome)> {
    let mut after = *position;
    for &action in turn {
        after.try_apply(rules, action).ok()?;
    }
    let outcome = after.end_turn(rules).ok()?;
    Some((after, outcome))
}

/// Whether `turn` eliminates the opponent of the side to move at once.
fn wins_at_once(position: &Position, rules: &Rules, turn: &[Action]) -> bool {
    played(position, rules, turn)
        .is_some_and(|(_, outcome)| outcome == Outcome::Win(position.side_to_move()))
}

/// The opponent's win at once after the side to move passes, as the line
/// `[pass, win]`; `None` when it has none (or passing is not possible).
fn threat_line(position: &Position, rules: &Rules, solver: &mut Solver) -> Option<Line> {
    let after = passed(position, rules)?;
    let win = solver.find_win(&after, rules)?;
    Some(vec![Vec::new(), win])
}

/// The mover's win at once after `turn` and the opponent's pass:
/// `[turn, pass, win]`.
fn finish_after_pass(
    position: &Position,
    rules: &Rules,
    turn: &[Action],
    solver: &mut Solver,
) -> Option<Line> {
    let (after, outcome) = played(position, rules, turn)?;
    if outcome != Outcome::Ongoing {
        return None;
    }
    let [pass, win] = <[Vec<Action>; 2]>::try_from(threat_line(&after, rules, solver)?).ok()?;
    Some(vec![turn.to_vec(), pass, win])
}

/// The first turn of the opponent's forced win in two after the side to
/// move passes, as `[pass, plan]`, if the checker names it within
/// [`PLAN_WORK`].
fn plan_line(position: &Position, rules: &Rules) -> Option<Line> {
    let after = passed(position, rules)?;
    let budget = ThreatBudget::work(PLAN_WORK);
    let plan = ThreatChecker::default().winning_plan(&after, rules, budget)?;
    Some(vec![Vec::new(), plan])
}

/// The opponent's red sacrifice shot after a pass that `turn` parries:
/// after the pass it takes at least the `sacrifice_shot` tunable's net
/// (2 by default, as the leaves count it), after the turn no sacrifice of
/// the opponent's takes that much. Returns the shot as `[pass, shot]` and
/// what it captures by size.
fn parried_shot(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    turn: &[Action],
) -> Option<(Line, [u8; 3])> {
    let least = tunables[Tunable::SacrificeShot].max(f32::MIN_POSITIVE);
    let worth = [
        0.0,
        tunables[Tunable::MaterialSmall],
        tunables[Tunable::MaterialMedium],
        tunables[Tunable::MaterialLarge],
    ];
    let threatened = passed(position, rules)?;
    let opponent = threatened.side_to_move();
    let shot = sacrifice_shot(&Facts::new(&threatened), opponent, worth)?;
    if shot.net < least {
        return None;
    }
    let (after, outcome) = played(position, rules, turn)?;
    if outcome != Outcome::Ongoing {
        return None;
    }
    let remaining = sacrifice_shot(&Facts::new(&after), opponent, worth);
    if remaining.is_some_and(|left| left.net >= least) {
        return None;
    }
    let (actions, captured) = shot_actions(&threatened, rules, shot.slot, shot.size)?;
    Some((vec![Vec::new(), actions], captured))
}

/// The sacrifice of the side to move's red ship of `size` at `slot` and
/// its captures, as the leaves play them
/// ([`super::quiescence::play_shot`]), with the captured ships by size.
fn shot_actions(
    position: &Position,
    rules: &Rules,
    slot: crate::rules::Slot,
    size: u8,
) -> Option<(Vec<Action>, [u8; 3])> {
    if position.turn_state() != TurnState::Start {
        return None;
    }
    let facts = Facts::new(position);
    let mut actions = Vec::new();
    let mut captured = [0u8; 3];
    super::quiescence::play_shot(position, rules, &facts, slot, size, |action| {
        if let Action::Capture { ship, .. } = action {
            captured[ship.size() as usize - 1] += 1;
        }
        actions.push(action);
    })?;
    Some((actions, captured))
}

/// What the mover's next turn in the principal variation (its third
/// turn) achieves, with the line up to it, when it plays and achieves
/// something: a win, a catastrophe that destroys opponent pieces, a
/// capture.
fn builds_towards(
    position: &Position,
    rules: &Rules,
    line: &[Vec<Action>],
) -> Option<(Goal, Line)> {
    let [first, reply, next, ..] = line else {
        return None;
    };
    let mover = position.side_to_move();
    let (after_first, outcome) = played(position, rules, first)?;
    if outcome != Outcome::Ongoing {
        return None;
    }
    let (before_next, outcome) = played(&after_first, rules, reply)?;
    if outcome != Outcome::Ongoing {
        return None;
    }
    let (_, outcome) = played(&before_next, rules, next)?;
    let goal = if outcome == Outcome::Win(mover) {
        Some(Goal::Win)
    } else {
        goal_of(&before_next, next)
    }?;
    Some((goal, vec![first.clone(), reply.clone(), next.clone()]))
}

/// The best thing a turn's actions do to the opponent: a catastrophe that
/// destroys some of its pieces (at its home first), else its largest
/// capture.
fn goal_of(position: &Position, turn: &[Action]) -> Option<Goal> {
    let mover = position.side_to_move();
    let enemy = mover.opponent().index();
    let mut catastrophe: Option<(Colour, bool)> = None;
    let mut capture = 0;
    for &action in turn {
        match action {
            Action::Catastrophe { system, colour } => {
                let pieces = position.system(system);
                let hurts = pieces.ships[enemy].has_colour(colour)
                    || (system as usize == enemy && pieces.stars.has_colour(colour));
                let at_their_home = system as usize == enemy;
                if hurts && catastrophe.is_none_or(|(_, home)| at_their_home && !home) {
                    catastrophe = Some((colour, at_their_home));
                }
            }
            Action::Capture { ship, .. } => capture = capture.max(ship.size()),
            _ => {}
        }
    }
    match (catastrophe, capture) {
        (Some((colour, at_their_home)), _) => Some(Goal::Catastrophe {
            colour,
            at_their_home,
        }),
        (None, 0) => None,
        (None, size) => Some(Goal::Capture { size }),
    }
}
