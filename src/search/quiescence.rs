//! A one-step quiescence at the leaves: the side to move's best red
//! sacrifice.
//!
//! The tree's leaf value is static, and one kind of turn makes a static
//! value badly wrong: a red sacrifice that captures ships elsewhere. Two
//! large ships moved into the enemy home look strong (invaders, a large
//! beside their large) until the enemy sacrifices a red ship at another
//! system and captures both with the large ship at home; the capture-now
//! term of the evaluation sees only captures with red already at hand. In
//! a short search the tree seldom reaches that reply: the sacrifice is one
//! of hundreds of first actions, with a sacrifice's small prior, and the
//! captures come two actions later.
//!
//! So where the side to move can take at least `sacrifice_shot` of
//! material net with one red sacrifice ([`sacrifice_shot`], counted in the
//! evaluation's material weights), the leaf plays that turn out (the
//! sacrifice and its captures, applied and checked by the rules core, the
//! turn ended) and is worth the better of its own value and the value
//! after the shot: the side to move may also decline it. Only leaves with
//! such a shot pay for a second evaluation, and they are few.

use super::eval;
use super::facts::{reachable, sacrifice_shot, Facts};
use super::tunables::{Tunable, Tunables};
use crate::rules::{Action, Colour, Outcome, Piece, Position, Rules, TurnState};

/// `value`, the static value of `position` for its side to move, raised to
/// the value after the side to move's best red sacrifice where that shot
/// takes at least `sacrifice_shot` net (see the module documentation).
#[inline]
pub(crate) fn with_sacrifice_shot(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    value: f32,
) -> f32 {
    let least = tunables[Tunable::SacrificeShot];
    if least <= 0.0 || position.turn_state() != TurnState::Start {
        return value;
    }
    match shot_value(position, rules, tunables, least) {
        Some(after) => value.max(after),
        None => value,
    }
}

/// The value for the side to move after playing its best red sacrifice,
/// if it takes at least `least` net.
fn shot_value(position: &Position, rules: &Rules, tunables: &Tunables, least: f32) -> Option<f32> {
    let facts = Facts::new(position);
    let attacker = position.side_to_move();
    let worth = [
        0.0,
        tunables[Tunable::MaterialSmall],
        tunables[Tunable::MaterialMedium],
        tunables[Tunable::MaterialLarge],
    ];
    let shot = sacrifice_shot(&facts, attacker, worth).filter(|shot| shot.net >= least)?;
    let mut after = play_shot(position, rules, &facts, shot.slot, shot.size, |_| {})?;
    match after.end_turn(rules).ok()? {
        Outcome::Ongoing => Some(-eval::value(&after, tunables, false)),
        Outcome::Win(winner) if winner == attacker => Some(1.0),
        Outcome::Win(_) => Some(-1.0),
        Outcome::Draw => Some(0.0),
    }
}

/// Plays the side to move's sacrifice of its red ship of `size` at `slot`
/// and its captures, largest targets first, each where the attacker still
/// reaches it (what [`sacrifice_shot`] counts), checked by the rules core;
/// `on_action` sees each action. Returns the position before the turn
/// ends. What the leaves score and what an explanation names must be the
/// same shot, so both play it here.
pub(crate) fn play_shot(
    position: &Position,
    rules: &Rules,
    facts: &Facts,
    slot: crate::rules::Slot,
    size: u8,
    mut on_action: impl FnMut(Action),
) -> Option<Position> {
    let own = position.side_to_move().index();
    let enemy = 1 - own;
    let mut after = *position;
    let sacrifice = Action::Sacrifice {
        system: slot,
        ship: Piece::new(Colour::Red, size)?,
    };
    after.try_apply(rules, sacrifice).ok()?;
    on_action(sacrifice);
    let mut captures = size;
    for target in (1..=3u8).rev() {
        for &system in facts.slots() {
            while captures > 0 {
                let ships = after.system(system).ships;
                if reachable(ships[own], ships[enemy])[target as usize - 1] == 0 {
                    break;
                }
                let Some(ship) = ships[enemy].types().find(|ship| ship.size() == target) else {
                    break;
                };
                let capture = Action::Capture { system, ship };
                after.try_apply(rules, capture).ok()?;
                on_action(capture);
                captures -= 1;
            }
        }
    }
    Some(after)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testing::{before_the_move_in, walked_into_a_red_sacrifice};

    #[test]
    fn a_leaf_after_two_large_ships_walk_into_a_red_sacrifice_is_valued_after_it() {
        let invaded = walked_into_a_red_sacrifice();
        let rules = Rules::CLI;
        let mut tunables = Tunables::default();
        tunables.set("sacrifice_shot", 0.0).unwrap();
        let plain = eval::value(&invaded, &tunables, false);
        assert_eq!(
            with_sacrifice_shot(&invaded, &rules, &tunables, plain),
            plain
        );
        tunables.set("sacrifice_shot", 2.0).unwrap();
        let shot = with_sacrifice_shot(&invaded, &rules, &tunables, plain);
        assert!(shot > plain + 0.2, "{plain} -> {shot}");
        // Nothing changes where no sacrifice gains.
        let quiet = before_the_move_in();
        let value = eval::value(&quiet, &tunables, false);
        assert_eq!(with_sacrifice_shot(&quiet, &rules, &tunables, value), value);
    }
}
