//! The shot player: a test opponent that plays the one-turn shots.
//!
//! The tree search is far stronger than one turn of lookahead on average,
//! but at short time it can leave material to a single reply it never
//! looked at: two large ships moved into the enemy home where a red
//! sacrifice elsewhere captures both, a home one piece short of a
//! catastrophe. The engine's own greedy player does not punish that, since
//! it shares the engine's evaluation and so its blind spots. This player
//! is what the older Homeworlds programs were: it lists every distinct
//! whole turn and keeps the best by a static evaluation of its own, which
//! counts material by size and what the opponent's best single turn could
//! take next:
//! - a capture with a basic action where the opponent has red;
//! - the captures of a red sacrifice (as many as its size, of ships no
//!   larger than the opponent's largest in their system), less the ship
//!   given up;
//! - a catastrophe the opponent can fire or complete (a fourth piece moved
//!   in from a connected system, built or traded there), with a home star
//!   lost counted as most of the game.
//!
//! It takes a win in one when there is one and never plays a turn after
//! which the opponent wins at once, as the greedy player does. Its weights
//! are those of the homeworlds-cli evaluation's material (20 : 50 : 110 for
//! small, medium and large), scaled so that a small ship is 1.

use super::eval;
use super::facts::{sacrifice_shot, size_counts, Facts};
use super::players::Choice;
use super::report::Decision;
use super::solver::Solver;
use crate::rules::{
    Action, Colour, Outcome, PieceSet, Player, Position, Rules, Slot, TurnEnumerator,
};

/// A ship's worth by size (index 0 unused): homeworlds-cli's 20, 50, 110.
const SHIP_VALUE: [f32; 4] = [0.0, 1.0, 2.5, 5.5];

/// A home star destroyed: the game is nearly lost.
const HOME_STAR_LOST: f32 = 40.0;

/// How much of the opponent's best shot counts against a turn: it moves
/// next, so almost all of it.
const THREAT_SHARE: f32 = 0.9;

/// How much of the player's own next shot counts: the opponent moves
/// first and may parry it.
const CHANCE_SHARE: f32 = 0.25;

/// A large ship at home.
const HOME_LARGE: f32 = 2.0;

/// Each colour a player can use somewhere (its ships and home stars).
const COLOUR_ACCESS: f32 = 1.0;

/// The shot player's turn: a win in one if there is one, else the best
/// turn by [`shot_score`] after which the opponent cannot win at once,
/// else a mutual elimination, else the best-scored turn.
pub(crate) fn shots(position: &Position, rules: &Rules, solver: &mut Solver) -> Choice {
    if let Some(actions) = solver.find_win(position, rules) {
        return Choice {
            actions,
            value: 1.0,
            decision: Decision::ImmediateWin,
        };
    }
    let mover = position.side_to_move();
    let mut scored: Vec<(f32, Vec<Action>, Position, Outcome)> = Vec::new();
    TurnEnumerator::default().for_each_turn(position, rules, |actions, result, outcome| {
        let score = match outcome {
            Outcome::Win(winner) if winner == mover => f32::INFINITY,
            Outcome::Win(_) => f32::NEG_INFINITY,
            Outcome::Draw => -1000.0,
            Outcome::Ongoing => shot_score(result, mover),
        };
        scored.push((score, actions.to_vec(), *result, outcome));
    });
    // A stable sort keeps the listing's order among equal scores, so the
    // player is deterministic.
    scored.sort_by(|a, b| b.0.total_cmp(&a.0));
    let mut draw = None;
    for (index, (score, actions, result, outcome)) in scored.iter().enumerate() {
        match outcome {
            Outcome::Win(winner) if *winner == mover => {
                return choice(actions, 1.0, Decision::ImmediateWin);
            }
            Outcome::Win(_) => {}
            Outcome::Draw => {
                draw.get_or_insert(index);
            }
            Outcome::Ongoing => {
                if !solver.can_win(result, rules) {
                    return choice(actions, (score / 20.0).tanh(), Decision::Greedy);
                }
            }
        }
    }
    if let Some(index) = draw {
        return choice(&scored[index].1, 0.0, Decision::ForcedDraw);
    }
    let actions = scored.first().map_or(&[][..], |entry| &entry.1[..]);
    choice(actions, -1.0, Decision::NoSafeTurn)
}

fn choice(actions: &[Action], value: f32, decision: Decision) -> Choice {
    Choice {
        actions: actions.to_vec(),
        value,
        decision,
    }
}

/// The static score of `result` (the opponent of `mover` to move) for
/// `mover`: material, the opponent's best shot next turn counted almost
/// whole, the mover's own next shot a little, a large ship at home and
/// colour access.
pub(crate) fn shot_score(result: &Position, mover: Player) -> f32 {
    let facts = Facts::new(result);
    let opponent = mover.opponent();
    let mut score = material(facts.fleet[mover.index()]) - material(facts.fleet[opponent.index()]);
    score -= THREAT_SHARE * best_shot(&facts, opponent);
    score += CHANCE_SHARE * best_shot(&facts, mover);
    for (player, sign) in [(mover, 1.0), (opponent, -1.0)] {
        let home = facts.systems[player.index()];
        if home.ships[player.index()].largest_size() == 3 {
            score += sign * HOME_LARGE;
        }
        let usable = facts.fleet[player.index()].plus(home.stars);
        let colours = Colour::ALL
            .iter()
            .filter(|&&colour| usable.has_colour(colour))
            .count();
        score += sign * COLOUR_ACCESS * colours as f32;
    }
    score
}

/// The worth of a set of ships.
fn material(ships: PieceSet) -> f32 {
    let counts = size_counts(ships);
    counts[0] as f32 * SHIP_VALUE[1]
        + counts[1] as f32 * SHIP_VALUE[2]
        + counts[2] as f32 * SHIP_VALUE[3]
}

/// What `attacker`'s best single turn takes from its enemy, net: the best
/// of one basic capture, a red sacrifice's captures and a catastrophe.
pub(crate) fn best_shot(facts: &Facts, attacker: Player) -> f32 {
    basic_capture(facts, attacker)
        .max(sacrifice_captures(facts, attacker))
        .max(catastrophe(facts, attacker))
}

/// The best enemy ship `attacker` can capture with a basic action (red
/// there, a ship at least as large), by its worth.
fn basic_capture(facts: &Facts, attacker: Player) -> f32 {
    SHIP_VALUE[eval::best_capture(facts, attacker) as usize]
}

/// What `attacker`'s best red sacrifice captures, net.
fn sacrifice_captures(facts: &Facts, attacker: Player) -> f32 {
    sacrifice_shot(facts, attacker, SHIP_VALUE).map_or(0.0, |shot| shot.net)
}

/// The best catastrophe `attacker` can fire next turn, net of its own
/// losses: one already on the board, or one it completes with a fourth
/// piece (a ship of the colour moved in from a connected system where it
/// has yellow, built where it has green and that colour, or traded where
/// it has blue). A home star destroyed counts [`HOME_STAR_LOST`].
fn catastrophe(facts: &Facts, attacker: Player) -> f32 {
    let own = attacker.index();
    let enemy = attacker.opponent().index();
    let mut best = 0.0f32;
    for &slot in facts.slots() {
        let system = facts.systems[slot as usize];
        if system.ships[enemy].is_empty() && slot as usize != enemy {
            continue;
        }
        for colour in Colour::ALL {
            let count = system.colour_count(colour);
            let added = if count >= 4 {
                Some(0.0)
            } else if count == 3 {
                completion_cost(facts, slot, colour, attacker)
            } else {
                None
            };
            let Some(cost) = added else {
                continue;
            };
            let stars_left = system.stars.without_colour(colour);
            let lost = |player: usize| {
                if stars_left.is_empty() {
                    material(system.ships[player])
                } else {
                    material(system.ships[player].of_colour(colour))
                }
            };
            let mut net = lost(enemy) - lost(own) - cost;
            if slot as usize == enemy && stars_left.len() < system.stars.len() {
                net += HOME_STAR_LOST;
            }
            if slot as usize == own && stars_left.len() < system.stars.len() {
                net -= HOME_STAR_LOST;
            }
            best = best.max(net);
        }
    }
    best
}

/// What it costs `attacker` to add a fourth piece of `colour` at `slot`
/// next turn (the worth of the piece it puts in harm's way), or `None` if it
/// cannot: a move needs a ship of the colour at a connected system with
/// yellow there; a build needs a ship of the colour and green here and the
/// colour in the bank; a trade needs blue here and a ship of another colour.
fn completion_cost(facts: &Facts, slot: Slot, colour: Colour, attacker: Player) -> Option<f32> {
    let own = attacker.index();
    let system = facts.systems[slot as usize];
    let access = system.access(attacker);
    let mine = system.ships[own];
    let has = |mask: u8, colour: Colour| mask & (1 << colour.index()) != 0;
    let mut cheapest: Option<f32> = None;
    let mut offer = |value: f32| {
        cheapest = Some(cheapest.map_or(value, |current: f32| current.min(value)));
    };
    if mine.has_colour(colour) && has(access, Colour::Green) {
        if let Some(piece) = facts.bank.smallest_of_colour(colour) {
            offer(SHIP_VALUE[piece.size() as usize]);
        }
    }
    if has(access, Colour::Blue) && !mine.without_colour(colour).is_empty() {
        offer(SHIP_VALUE[1]);
    }
    for &from in facts.slots() {
        if !facts.connected(from, slot) {
            continue;
        }
        let there = facts.systems[from as usize];
        let ships = there.ships[own].of_colour(colour);
        if !ships.is_empty() && has(there.access(attacker), Colour::Yellow) {
            let counts = size_counts(ships);
            let smallest = (1..=3).find(|&size| counts[size - 1] > 0).unwrap_or(3);
            offer(SHIP_VALUE[smallest]);
        }
    }
    cheapest
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testing::{before_the_move_in, walked_into_a_red_sacrifice};

    #[test]
    fn two_large_ships_in_reach_of_a_red_sacrifice_are_counted_as_lost() {
        let invaded = walked_into_a_red_sacrifice();
        let facts = Facts::new(&invaded);
        let taken = sacrifice_captures(&facts, Player::from_index(1).unwrap());
        assert_eq!(taken, 2.0 * SHIP_VALUE[3] - SHIP_VALUE[2]);
        let mover = Player::from_index(0).unwrap();
        assert!(shot_score(&before_the_move_in(), mover) > shot_score(&invaded, mover) + 5.0);
    }

    #[test]
    fn the_shot_player_takes_the_two_large_ships() {
        let invaded = walked_into_a_red_sacrifice();
        let choice = shots(&invaded, &Rules::CLI, &mut Solver::default());
        let captures = choice
            .actions
            .iter()
            .filter(|action| matches!(action, Action::Capture { system: 1, .. }))
            .count();
        assert_eq!(captures, 2, "{:?}", choice.actions);
    }
}
