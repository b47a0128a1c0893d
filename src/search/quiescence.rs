//! A one-step quiescence at the leaves: the side to move's best shot.
//!
//! The tree's leaf value is static, and a static value is badly wrong
//! where the side to move can take material at once with a turn the tree
//! has not looked at. Two large ships moved into the enemy home look strong
//! (invaders, a large beside their large) until the enemy sacrifices a red
//! ship at another system and captures both with the large ship at home; a
//! third piece of a colour built where the enemy has a ship of that colour
//! one jump away loses every ship of the colour there to the move that
//! brings the fourth. The evaluation's capture-now term counts a capture as
//! a tempo, not as the material it takes, and in a short search the tree
//! seldom reaches those replies: they are one of hundreds of first
//! actions, and a sacrifice's captures come two actions later.
//!
//! So where the side to move has a shot that takes at least `leaf_shot` of
//! material net (in the evaluation's material weights), the leaf plays the
//! best such shot out and is worth the better of its own value and the
//! value after it: the side to move may also decline it. The shots, found
//! from the position's facts, played by the rules core:
//! - a capture with a basic action (red there, a ship as large);
//! - a red sacrifice's captures ([`sacrifice_shot`]);
//! - a catastrophe: one already on the board, or one completed by a fourth
//!   piece built, traded or moved in by one basic action.
//!
//! Only leaves with such a shot pay for more than the arithmetic that finds
//! it, and they are few.

use super::eval;
use super::facts::{reachable, sacrifice_shot, size_counts, Facts};
use super::tunables::{Tunable, Tunables};
use crate::rules::{Action, Colour, Outcome, Piece, PieceSet, Player, Position, Rules, TurnState};

/// `value`, the static value of `position` for its side to move, raised to
/// the value after the side to move's best shot where that shot takes at
/// least `leaf_shot` net (see the module documentation).
#[inline]
pub(crate) fn with_shot(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    value: f32,
) -> f32 {
    let least = tunables[Tunable::LeafShot];
    if least <= 0.0 || position.turn_state() != TurnState::Start {
        return value;
    }
    match shot_value(position, rules, tunables, least) {
        Some(after) => value.max(after),
        None => value,
    }
}

/// The value for the side to move after playing its best shot, if one
/// takes at least `least` net.
fn shot_value(position: &Position, rules: &Rules, tunables: &Tunables, least: f32) -> Option<f32> {
    let facts = Facts::new(position);
    let worth = [
        0.0,
        tunables[Tunable::MaterialSmall],
        tunables[Tunable::MaterialMedium],
        tunables[Tunable::MaterialLarge],
    ];
    let actions = best_shot(position, rules, &facts, worth, least)?;
    let attacker = position.side_to_move();
    let mut after = *position;
    for action in actions {
        after.try_apply(rules, action).ok()?;
    }
    match after.end_turn(rules).ok()? {
        Outcome::Ongoing => Some(-eval::value(&after, tunables, false)),
        Outcome::Win(winner) if winner == attacker => Some(1.0),
        Outcome::Win(_) => Some(-1.0),
        Outcome::Draw => Some(0.0),
    }
}

/// The actions of the side to move's best shot by its net worth, if one
/// takes at least `least`.
fn best_shot(
    position: &Position,
    rules: &Rules,
    facts: &Facts,
    worth: [f32; 4],
    least: f32,
) -> Option<Vec<Action>> {
    let attacker = position.side_to_move();
    let mut best: Option<(f32, Vec<Action>)> = None;
    let mut offer = |net: f32, actions: Vec<Action>| {
        if net >= least && best.as_ref().is_none_or(|(current, _)| net > *current) {
            best = Some((net, actions));
        }
    };
    if let Some((net, capture)) = basic_capture(facts, attacker, worth) {
        offer(net, vec![capture]);
    }
    if let Some(shot) = sacrifice_shot(facts, attacker, worth) {
        if shot.net >= least {
            offer(
                shot.net,
                sacrifice_actions(position, rules, facts, shot.slot, shot.size)?,
            );
        }
    }
    if let Some((net, actions)) = catastrophe(position, rules, facts, attacker, worth, least) {
        offer(net, actions);
    }
    best.map(|(_, actions)| actions)
}

/// The best enemy ship `attacker` can capture with a basic action (red
/// there, a ship at least as large): its worth and the capture.
fn basic_capture(facts: &Facts, attacker: Player, worth: [f32; 4]) -> Option<(f32, Action)> {
    let own = attacker.index();
    let mut best: Option<(f32, Action)> = None;
    for &slot in facts.slots() {
        let system = facts.systems[slot as usize];
        if system.ships[own].is_empty() || system.access(attacker) & (1 << Colour::Red.index()) == 0
        {
            continue;
        }
        let counts = reachable(system.ships[own], system.ships[1 - own]);
        let Some(size) = (1..=3u8).rev().find(|&size| counts[size as usize - 1] > 0) else {
            continue;
        };
        let value = worth[size as usize];
        if best.is_none_or(|(current, _)| value > current) {
            let ship = system.ships[1 - own]
                .types()
                .find(|ship| ship.size() == size)?;
            best = Some((value, Action::Capture { system: slot, ship }));
        }
    }
    best
}

/// The sacrifice of the red ship of `size` at `slot` and its captures,
/// largest targets first, each where the attacker still reaches it: what
/// [`sacrifice_shot`] counted.
fn sacrifice_actions(
    position: &Position,
    rules: &Rules,
    facts: &Facts,
    slot: u8,
    size: u8,
) -> Option<Vec<Action>> {
    let own = position.side_to_move().index();
    let mut after = *position;
    let red = Piece::new(Colour::Red, size)?;
    let mut actions = vec![Action::Sacrifice {
        system: slot,
        ship: red,
    }];
    after.try_apply(rules, actions[0]).ok()?;
    let mut captures = size;
    for target in (1..=3u8).rev() {
        for &at in facts.slots() {
            while captures > 0 {
                let system = after.system(at);
                if reachable(system.ships[own], system.ships[1 - own])[target as usize - 1] == 0 {
                    break;
                }
                let Some(ship) = system.ships[1 - own]
                    .types()
                    .find(|ship| ship.size() == target)
                else {
                    break;
                };
                let capture = Action::Capture { system: at, ship };
                after.try_apply(rules, capture).ok()?;
                actions.push(capture);
                captures -= 1;
            }
        }
    }
    Some(actions)
}

/// The best catastrophe `attacker` can fire this turn, net of its own
/// losses, with at most one basic action to complete it: its worth and
/// actions. An overpopulation already on the board is fired as it is; a
/// colour one piece short gets its fourth from the first basic action the
/// rules core lists that adds it (a build, a trade or a move in), whose
/// piece is counted among the attacker's losses.
fn catastrophe(
    position: &Position,
    rules: &Rules,
    facts: &Facts,
    attacker: Player,
    worth: [f32; 4],
    least: f32,
) -> Option<(f32, Vec<Action>)> {
    let own = attacker.index();
    let value = |ships: PieceSet| -> f32 {
        let counts = size_counts(ships);
        (0..3)
            .map(|size| counts[size] as f32 * worth[size + 1])
            .sum()
    };
    let mut best: Option<(f32, Vec<Action>)> = None;
    for &slot in facts.slots() {
        let system = facts.systems[slot as usize];
        if system.ships[1 - own].is_empty() {
            continue;
        }
        for colour in Colour::ALL {
            let count = system.colour_count(colour);
            if count < 3 {
                continue;
            }
            let vanishes = system.stars.without_colour(colour).is_empty();
            let lost = |ships: PieceSet| {
                if vanishes {
                    value(ships)
                } else {
                    value(ships.of_colour(colour))
                }
            };
            let catastrophe = Action::Catastrophe {
                system: slot,
                colour,
            };
            let gross = lost(system.ships[1 - own]) - lost(system.ships[own]);
            let (net, actions) = if count >= 4 {
                (gross, vec![catastrophe])
            } else {
                // The fourth piece is lost with the rest.
                let net = gross - worth[1];
                if net < least || best.as_ref().is_some_and(|(current, _)| net <= *current) {
                    continue;
                }
                let Some(completion) = completion(position, rules, slot, colour) else {
                    continue;
                };
                let added = match completion {
                    Action::Build { piece, .. } => piece.size(),
                    Action::Trade { to, .. } => to.size(),
                    Action::Move { ship, .. } => ship.size(),
                    _ => 1,
                };
                (gross - worth[added as usize], vec![completion, catastrophe])
            };
            if net >= least && best.as_ref().is_none_or(|(current, _)| net > *current) {
                best = Some((net, actions));
            }
        }
    }
    best
}

/// The first basic action the rules core lists that adds a piece of
/// `colour` to `slot`.
fn completion(position: &Position, rules: &Rules, slot: u8, colour: Colour) -> Option<Action> {
    let mut found = None;
    position.for_each_action(rules, |action| {
        if found.is_some() {
            return;
        }
        let adds = match action {
            Action::Build { system, piece } => system == slot && piece.colour() == colour,
            Action::Trade { system, to, .. } => system == slot && to.colour() == colour,
            Action::Move { to, ship, .. } => to == slot && ship.colour() == colour,
            _ => false,
        };
        if adds {
            found = Some(action);
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::hwpn;

    fn position(text: &str) -> Position {
        hwpn::parse(text).expect("a valid position").position
    }

    #[test]
    fn a_leaf_after_two_large_ships_walk_into_a_red_sacrifice_is_valued_after_it() {
        // Player 0 has just moved R3 and B3 into Home1; player 1's R2 at
        // Shrdlu, sacrificed, captures both with the R3 at home.
        let invaded = position(
            "Home0=y2b1:r2g1g3:/Home1=g3b1:r3b3:r3y1/Shrdlu=b3::r2y3/Kotok=g1::r1y3/\
             Minsky=g1::y1/Licklider=g2::y1/Fritz=g2:r1b1b2:/Lebling=g2:r3:/Delos=g3:r2y3:/\
             Frotz=y2:r1: 1",
        );
        let rules = Rules::CLI;
        let mut tunables = Tunables::default();
        tunables.set("leaf_shot", 0.0).unwrap();
        let plain = eval::value(&invaded, &tunables, false);
        assert_eq!(with_shot(&invaded, &rules, &tunables, plain), plain);
        tunables.set("leaf_shot", 2.0).unwrap();
        let shot = with_shot(&invaded, &rules, &tunables, plain);
        assert!(shot > plain + 0.2, "{plain} -> {shot}");
        // Nothing changes where no sacrifice gains.
        let quiet = position(
            "Home0=y2b1:r2g1g3:/Home1=g3b1::r3y1/Shrdlu=b3::r2y3/Kotok=g1::r1y3/Minsky=g1::y1/\
             Licklider=g2::y1/Fritz=g2:r1r3y2b1b2b3:/Lebling=g2:r3:/Delos=g3:r2y3:/Frotz=y2:r1: 1",
        );
        let value = eval::value(&quiet, &tunables, false);
        assert_eq!(with_shot(&quiet, &rules, &tunables, value), value);
    }
}
