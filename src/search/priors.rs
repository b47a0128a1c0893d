//! Priors: a cheap score per action, turned into probabilities by a softmax.
//!
//! The tree selects children by PUCT and widens progressively in prior
//! order, so the priors decide which of the tens or hundreds of actions at a
//! node are tried at all. They encode the same advice as the evaluation, per
//! action: captures, especially at the enemy home; catastrophes that destroy
//! more of theirs than of ours; builds and trades into colours we lack;
//! moves towards the enemy home, never abandoning our own; sacrifices rarely;
//! passing almost never; ending a finished turn almost always.

use super::facts::{capturable, colour_mask, sacrifice_net, size_counts, Facts};
use super::tunables::{Tunable, Tunables};
use crate::rules::{Action, Colour, Outcome, Player, Position, Rules, Slot, TurnState};

/// Value of a ship by size, for catastrophe scoring (small, medium, large).
const SIZE_VALUE: [f32; 4] = [0.0, 1.0, 2.5, 5.5];

/// The logit of one action. `facts` describe `position`.
fn logit(position: &Position, facts: &Facts, action: Action, tunables: &Tunables) -> f32 {
    let base = base_logit(position, facts, action, tunables);
    // Adding the fourth piece of a colour to a system makes a catastrophe:
    // an attack if firing it destroys more of theirs than of ours (the mover
    // can fire it this turn), a gift to the opponent otherwise.
    let added = match action {
        Action::Build { system, piece } => Some((system, piece)),
        Action::Trade { system, to, .. } => Some((system, to)),
        Action::Move { to, ship, .. } => Some((to, ship)),
        _ => None,
    };
    let Some((system, piece)) = added else {
        return base;
    };
    let contents = facts.systems[system as usize];
    let colour = piece.colour();
    if contents.colour_count(colour) != 3 {
        return base;
    }
    let me = position.side_to_move().index();
    let vanishes = contents.stars.without_colour(colour).is_empty();
    let lost = |player: usize| -> f32 {
        let ships = if vanishes {
            contents.ships[player]
        } else {
            contents.ships[player].of_colour(colour)
        };
        let counts = size_counts(ships);
        counts[0] as f32 * SIZE_VALUE[1]
            + counts[1] as f32 * SIZE_VALUE[2]
            + counts[2] as f32 * SIZE_VALUE[3]
    };
    let net = lost(1 - me) - lost(me) - SIZE_VALUE[piece.size() as usize];
    if net > 0.0 {
        base + tunables[Tunable::PriorCatastrophe] * net
    } else {
        base + tunables[Tunable::PriorGiveCatastrophe]
    }
}

/// [`logit`] before the catastrophe check.
fn base_logit(position: &Position, facts: &Facts, action: Action, tunables: &Tunables) -> f32 {
    let mover = position.side_to_move();
    let me = mover.index();
    let them = 1 - me;
    let home = me as Slot;
    let target = them as Slot;
    let fleet_colours = colour_mask(facts.fleet[me]);
    match action {
        Action::Capture { system, ship } => {
            let mut score = tunables[Tunable::PriorCapture] + ship.size() as f32 * 0.5;
            if system == target {
                score += tunables[Tunable::PriorCaptureHome];
            }
            if system == home {
                score += 1.0;
            }
            score
        }
        Action::Catastrophe { system, colour } => {
            let contents = facts.systems[system as usize];
            let value = |player: usize| -> f32 {
                let ships = contents.ships[player].of_colour(colour);
                let counts = size_counts(ships);
                counts[0] as f32 * SIZE_VALUE[1]
                    + counts[1] as f32 * SIZE_VALUE[2]
                    + counts[2] as f32 * SIZE_VALUE[3]
            };
            let mut net = value(them) - value(me);
            let stars_left = contents.stars.without_colour(colour).len();
            if system == target {
                net += 3.0 + if stars_left == 0 { 20.0 } else { 0.0 };
            } else if system == home {
                net -= 3.0
                    + if stars_left < contents.stars.len() {
                        10.0
                    } else {
                        0.0
                    };
            }
            tunables[Tunable::PriorCatastrophe] * net
        }
        Action::Build { system, piece } => {
            let mut score = tunables[Tunable::PriorBuild] + (piece.size() as f32 - 1.0) * 0.3;
            let weight = tunables[Tunable::PriorExposed];
            if weight != 0.0 && exposed(facts, system, piece.size(), mover) {
                score += weight;
            }
            if fleet_colours & (1 << piece.colour().index()) == 0 {
                score += tunables[Tunable::PriorNewColour];
            }
            if facts.bank.count(piece) == 1 {
                // Taking the last one of a size hands the opponent the next size.
                score -= 0.5;
            }
            if system == home && facts.systems[system as usize].colour_count(piece.colour()) >= 2 {
                score -= 1.0;
            }
            score
        }
        Action::Trade { system, from, to } => {
            let mut score = tunables[Tunable::PriorTrade];
            if fleet_colours & (1 << to.colour().index()) == 0 {
                score += tunables[Tunable::PriorNewColour];
            }
            if facts.fleet[me].colour_count(from.colour()) == 1 {
                score -= 1.0;
            }
            if system == home && facts.systems[system as usize].colour_count(to.colour()) >= 2 {
                score -= 1.0;
            }
            score
        }
        Action::Move { from, to, ship } => {
            let mut score = tunables[Tunable::PriorMove];
            score += attack_bonus(facts, to, ship.size(), ship.colour(), target, tunables);
            score += leave_home_penalty(facts, me, from, ship.size(), tunables);
            if to == home {
                score += 0.5;
            }
            score += exposure(facts, from, to, ship.size(), mover, tunables);
            score
        }
        Action::Discover { from, ship, star } => {
            let mut score = tunables[Tunable::PriorMove] - 0.3;
            if facts.exists(target) && facts.sizes[target as usize] & (1 << star.size()) == 0 {
                score += 0.5 * attack_bonus_size(ship.size(), ship.colour(), tunables);
            }
            score += leave_home_penalty(facts, me, from, ship.size(), tunables);
            score
        }
        Action::Sacrifice { system, ship } => {
            let mut score = tunables[Tunable::PriorSacrifice] + 0.3 * ship.size() as f32;
            if ship.size() == 3 && matches!(ship.colour(), Colour::Yellow | Colour::Red) {
                score += 0.5;
            }
            if system == home && facts.systems[system as usize].ships[me].len() == 1 {
                score -= 2.0;
            }
            let weight = tunables[Tunable::PriorSacrificeShot];
            if weight != 0.0 && ship.colour() == Colour::Red {
                // A red sacrifice is worth trying first when its captures
                // take more than it gives up: a shot the tree must not miss.
                let total = capturable(facts, mover);
                let net = sacrifice_net(facts, mover, system, ship.size(), total, SIZE_VALUE);
                score += weight * net.max(0.0);
            }
            score
        }
        Action::Pass => tunables[Tunable::PriorPass],
        Action::Homeworld { .. } => 0.0,
    }
}

/// Whether a ship of `size` of `owner`'s in `system` could be captured by
/// the opponent's next basic action: an enemy ship as large or larger is
/// there, and the enemy has red there (a star or a ship of its own). `facts`
/// are from before the action, which changes neither.
fn exposed(facts: &Facts, system: Slot, size: u8, owner: Player) -> bool {
    let contents = facts.systems[system as usize];
    let enemy = owner.opponent();
    let theirs = contents.ships[enemy.index()];
    !theirs.is_empty()
        && theirs.largest_size() >= size
        && contents.access(enemy) & (1 << Colour::Red.index()) != 0
}

/// The exposure priors of moving a ship of `size` from `from` to `to`:
/// `prior_exposed` into capture range, `prior_escape` out of it. Both are 0
/// by default, and then nothing is looked at.
fn exposure(
    facts: &Facts,
    from: Slot,
    to: Slot,
    size: u8,
    owner: Player,
    tunables: &Tunables,
) -> f32 {
    let (into, out) = (
        tunables[Tunable::PriorExposed],
        tunables[Tunable::PriorEscape],
    );
    if into == 0.0 && out == 0.0 {
        0.0
    } else if exposed(facts, to, size, owner) {
        into
    } else if exposed(facts, from, size, owner) {
        out
    } else {
        0.0
    }
}

fn attack_bonus_size(size: u8, colour: Colour, tunables: &Tunables) -> f32 {
    let red = if colour == Colour::Red { 0.3 } else { 0.0 };
    tunables[Tunable::PriorAttackMove] * (size as f32 / 3.0 + red)
}

fn attack_bonus(
    facts: &Facts,
    to: Slot,
    size: u8,
    colour: Colour,
    target: Slot,
    tunables: &Tunables,
) -> f32 {
    if to == target {
        1.5 * attack_bonus_size(size, colour, tunables)
    } else if facts.connected(to, target) {
        attack_bonus_size(size, colour, tunables)
    } else {
        0.0
    }
}

fn leave_home_penalty(facts: &Facts, me: usize, from: Slot, size: u8, tunables: &Tunables) -> f32 {
    if from as usize != me {
        return 0.0;
    }
    let own = facts.systems[me].ships[me];
    if own.len() == 1 {
        2.0 * tunables[Tunable::PriorLeaveHome]
    } else if size == 3 && size_counts(own)[2] == 1 {
        tunables[Tunable::PriorLeaveHome]
    } else {
        0.0
    }
}

/// The logit of ending the turn now, or `None` when it is illegal or only
/// eliminates the mover (always worse than passing, rules.md R11.3).
fn end_logit(position: &Position, rules: &Rules, tunables: &Tunables) -> Option<f32> {
    let mut ended = *position;
    match ended.end_turn(rules) {
        Err(_) => None,
        Ok(Outcome::Win(winner)) if winner != position.side_to_move() => None,
        Ok(_) => Some(match position.turn_state() {
            TurnState::Start => tunables[Tunable::PriorPass],
            TurnState::Sacrifice { .. } => tunables[Tunable::PriorEndSacrifice],
            TurnState::Done => tunables[Tunable::PriorEndDone],
        }),
    }
}

/// Every child of `position` as (logit, packed action), before the softmax,
/// the end of the turn (packed as 0) included when it is allowed: what the
/// prior fitting of `supernova priors` differentiates.
pub(crate) fn child_logits(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    out: &mut Vec<(f32, u32)>,
) {
    out.clear();
    let facts = Facts::new(position);
    position.for_each_action(rules, |action| {
        out.push((logit(position, &facts, action, tunables), action.pack()));
    });
    if let Some(end) = end_logit(position, rules, tunables) {
        out.push((end, super::tree::END_TURN));
    }
}

/// Every child of `position` as (prior, packed action), the first `sorted`
/// of them sorted by prior (highest first, ties by packed action so the
/// order is deterministic) and the rest after them in no particular order.
/// The end of the turn is packed as 0. `keep` filters children by the hash
/// of the position they lead to (after the action, or after ending the turn).
pub(crate) fn scored_children(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    keep: Option<&dyn Fn(u64) -> bool>,
    sorted: usize,
    out: &mut Vec<(f32, u32)>,
) {
    out.clear();
    let facts = Facts::new(position);
    position.for_each_action(rules, |action| {
        if let Some(keep) = keep {
            let mut child = *position;
            child.apply_unchecked(rules, action);
            if !keep(child.hash()) {
                return;
            }
        }
        out.push((logit(position, &facts, action, tunables), action.pack()));
    });
    if let Some(end) = end_logit(position, rules, tunables) {
        let allowed = match keep {
            Some(keep) => {
                let mut ended = *position;
                ended.end_turn(rules).is_ok() && keep(ended.hash())
            }
            None => true,
        };
        if allowed {
            out.push((end, super::tree::END_TURN));
        }
    }
    if out.is_empty() {
        return;
    }
    let temperature = tunables[Tunable::PriorTemperature];
    let highest = out
        .iter()
        .map(|&(score, _)| score)
        .fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for (score, _) in out.iter_mut() {
        *score = ((*score - highest) / temperature).exp();
        total += *score;
    }
    for (score, _) in out.iter_mut() {
        *score /= total;
    }
    let order = |a: &(f32, u32), b: &(f32, u32)| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1));
    if sorted < out.len() {
        out.select_nth_unstable_by(sorted, order);
        out[..sorted].sort_unstable_by(order);
    } else {
        out.sort_unstable_by(order);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testing::position;

    /// The logit of the first child whose action matches `wanted`.
    fn logit_of(position: &Position, tunables: &Tunables, wanted: impl Fn(Action) -> bool) -> f32 {
        let facts = Facts::new(position);
        let mut found = None;
        position.for_each_action(&Rules::STANDARD, |action| {
            if found.is_none() && wanted(action) {
                found = Some(logit(position, &facts, action, tunables));
            }
        });
        found.expect("the action is legal")
    }

    #[test]
    fn a_move_into_capture_range_and_an_escape_get_their_own_priors() {
        // Player 0's g2 at the third system can be captured there (player 1
        // has an r3 beside it); the fourth system holds an enemy g3 and no
        // red, the fifth a bare enemy r1, the sixth an enemy g3 and r1.
        let start = position(
            &[
                ("y1b2", "g3y1", ""),
                ("r2b3", "", "y3"),
                ("b1", "g2y1", "r3"),
                ("y3", "", "g3"),
                ("y2", "", "r1"),
                ("b2", "", "g3r1"),
            ],
            0,
        );
        let moving_to = |slot: Slot| move |action: Action| matches!(action, Action::Move { from: 2, to, ship } if to == slot && ship.size() == 2);
        let mut tunables = Tunables::default();
        let plain: Vec<f32> = [3, 4, 5]
            .iter()
            .map(|&slot| logit_of(&start, &tunables, moving_to(slot)))
            .collect();
        tunables.set("prior_exposed", -2.0).unwrap();
        tunables.set("prior_escape", 0.5).unwrap();
        // To the g3 without red: out of reach, an escape.
        let safe = logit_of(&start, &tunables, moving_to(3));
        assert!((safe - (plain[0] + 0.5)).abs() < 1e-6, "{safe} {plain:?}");
        // Beside an enemy r1 (red, but smaller than the g2): safe too.
        let smaller = logit_of(&start, &tunables, moving_to(4));
        assert!((smaller - (plain[1] + 0.5)).abs() < 1e-6);
        // Beside an enemy g3 with an r1 of theirs: in reach again.
        let exposed = logit_of(&start, &tunables, moving_to(5));
        assert!((exposed - (plain[2] - 2.0)).abs() < 1e-6);
        // Building a g1 at the third system puts it in reach of the r3.
        let build = |action: Action| matches!(action, Action::Build { system: 2, .. });
        let before = logit_of(&start, &Tunables::default(), build);
        let after = logit_of(&start, &tunables, build);
        assert!((after - (before - 2.0)).abs() < 1e-6);
    }
}
