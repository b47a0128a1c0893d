//! The heuristic leaf evaluation.
//!
//! Random playouts mean nothing in Homeworlds (random sacrifices, suicidal
//! moves, games hundreds of turns long), so every leaf is scored statically,
//! from the side to move's point of view, and squashed into a value in
//! [-1, 1] with `tanh(score / eval_scale)`. The features follow the Looney
//! Labs strategy advice and the homeworlds-cli evaluation: material weighted
//! by size, access to each colour and not being frozen out of one, home
//! defence (a large ship at home, a varied home fleet), catastrophe threats
//! against each home (Bluebird, Sitting Duck, enemy ships within reach),
//! build options, attack potential against the enemy home, and the capture
//! tempo of the side to move. Every weight lives in [`super::tunables`].

use super::facts::{colour_mask, largest_of_colour, piece, size_counts, Facts};
use super::tunables::{Tunable, Tunables};
use crate::rules::{Colour, Outcome, Player, Position, Slot};

/// The raw score of `position` for the side to move (positive is good for
/// it). `threat` says whether the side not to move could eliminate the side
/// to move if it passed; the caller knows it from the solver.
pub(crate) fn score(position: &Position, tunables: &Tunables, threat: bool) -> f32 {
    let facts = Facts::new(position);
    let mover = position.side_to_move();
    let opponent = mover.opponent();
    let mut total =
        player_score(&facts, mover, tunables) - player_score(&facts, opponent, tunables);
    total += tunables[Tunable::CaptureTempo] * best_capture(&facts, mover) as f32;
    total += tunables[Tunable::FreeCatastrophe] * free_catastrophes(&facts, mover, tunables);
    total -= tunables[Tunable::CaptureThreat] * best_capture(&facts, opponent) as f32;
    total += tunables[Tunable::Tempo];
    if threat {
        total -= tunables[Tunable::ThreatInOne];
    }
    total
}

/// Squashes a score into a value in (-1, 1).
#[inline]
pub(crate) fn squash(score: f32, tunables: &Tunables) -> f32 {
    (score / tunables[Tunable::EvalScale]).tanh()
}

/// The value of a finished game for the side to move, if it is finished.
pub(crate) fn terminal_value(position: &Position) -> Option<f32> {
    match position.outcome() {
        Outcome::Ongoing => None,
        Outcome::Draw => Some(0.0),
        Outcome::Win(player) => Some(if player == position.side_to_move() {
            1.0
        } else {
            -1.0
        }),
    }
}

/// The heuristic value for the side to move, in [-1, 1], with the threat flag
/// supplied by the caller.
pub(crate) fn value(position: &Position, tunables: &Tunables, threat: bool) -> f32 {
    if position.in_setup() {
        return 0.0;
    }
    if let Some(value) = terminal_value(position) {
        return value;
    }
    squash(score(position, tunables, threat), tunables)
}

/// Everything that is good for `player`, independent of who is to move.
fn player_score(facts: &Facts, player: Player, tunables: &Tunables) -> f32 {
    let me = player.index();
    let enemy = player.opponent();
    let fleet = facts.fleet[me];
    let mut score = 0.0;

    // Material by size.
    let counts = size_counts(fleet);
    score += counts[0] as f32 * tunables[Tunable::MaterialSmall]
        + counts[1] as f32 * tunables[Tunable::MaterialMedium]
        + counts[2] as f32 * tunables[Tunable::MaterialLarge];

    // Colours owned, or at least reachable by a trade.
    const COLOUR_WEIGHTS: [Tunable; 4] = [
        Tunable::ColourRed,
        Tunable::ColourYellow,
        Tunable::ColourGreen,
        Tunable::ColourBlue,
    ];
    for colour in Colour::ALL {
        if fleet.has_colour(colour) {
            score += tunables[COLOUR_WEIGHTS[colour.index()]];
        } else {
            let can_trade = (1..=3u8).any(|size| {
                counts[size as usize - 1] > 0 && facts.bank.count(piece(colour, size)) > 0
            });
            if !can_trade {
                score -= tunables[Tunable::FrozenOut];
            }
        }
    }

    // Build options: colours the player can build somewhere right now.
    let mut buildable = 0u8;
    for &slot in facts.slots() {
        let system = facts.systems[slot as usize];
        let own = system.ships[me];
        if !own.is_empty() && system.access(player) & (1 << Colour::Green.index()) != 0 {
            buildable |= colour_mask(own);
        }
    }
    let bank_colours = colour_mask(facts.bank);
    score += (buildable & bank_colours).count_ones() as f32 * tunables[Tunable::BuildOption];

    score += home_score(facts, player, tunables);
    score += attack_score(facts, player, enemy, tunables);
    score
}

/// Home defence: the primary directive and the catastrophe dangers.
fn home_score(facts: &Facts, player: Player, tunables: &Tunables) -> f32 {
    let me = player.index();
    let enemy = player.opponent().index();
    let home_slot = me as Slot;
    let home = facts.systems[me];
    if !home.exists() {
        return 0.0;
    }
    let own = home.ships[me];
    let mut score = 0.0;
    let largest = own.largest_size();
    if largest == 3 {
        score += tunables[Tunable::HomeLarge];
    }
    // The largest enemy ship that is at home or one jump away.
    let mut enemy_near_largest = home.ships[enemy].largest_size();
    for &slot in facts.slots() {
        if facts.connected(slot, home_slot) {
            enemy_near_largest =
                enemy_near_largest.max(facts.systems[slot as usize].ships[enemy].largest_size());
        }
    }
    if enemy_near_largest > largest {
        score -= tunables[Tunable::HomeOutgunned] * (enemy_near_largest - largest) as f32;
    }
    score += own.len().min(3) as f32 * tunables[Tunable::HomeShip];
    score += colour_mask(home.stars.plus(own)).count_ones() as f32 * tunables[Tunable::HomeVariety];
    if home.stars.len() == 1 {
        score -= tunables[Tunable::HalfHome];
    }
    if own.len() == 2 && colour_mask(own).count_ones() == 1 {
        score -= tunables[Tunable::Bluebird];
    }
    // Catastrophes that would eliminate the player, and the enemy ships
    // that could bring them about.
    let enemy_fleet = facts.fleet[enemy];
    let enemy_yellow = largest_of_colour(enemy_fleet, Colour::Yellow);
    for colour in Colour::ALL {
        let kills_fleet = !own.is_empty() && own.without_colour(colour).is_empty();
        let kills_stars = home.stars.without_colour(colour).is_empty();
        if !kills_fleet && !kills_stars {
            continue;
        }
        let count = home.colour_count(colour);
        let need = 4u32.saturating_sub(count);
        let mut near = 0;
        for &slot in facts.slots() {
            if facts.connected(slot, home_slot) {
                near += facts.systems[slot as usize].ships[enemy].colour_count(colour);
            }
        }
        let elsewhere = enemy_fleet.colour_count(colour) - home.ships[enemy].colour_count(colour);
        if need <= 1 {
            let danger = if near >= need {
                1.0
            } else if elsewhere >= need {
                0.6
            } else {
                0.3
            };
            score -= tunables[Tunable::SittingDuck] * danger;
        } else {
            let mobile = if enemy_yellow as u32 >= need {
                1.0
            } else {
                0.3
            };
            let danger = if near >= need {
                1.0
            } else if elsewhere >= need {
                0.4
            } else {
                0.0
            };
            let weight = if need == 2 { 1.0 } else { 0.4 };
            score -= tunables[Tunable::HomeCatastrophe] * danger * mobile * weight;
        }
    }
    score
}

/// Pressure on the enemy home.
fn attack_score(facts: &Facts, player: Player, enemy: Player, tunables: &Tunables) -> f32 {
    let me = player.index();
    let enemy_slot = enemy.index() as Slot;
    let enemy_home = facts.systems[enemy.index()];
    if !enemy_home.exists() {
        return 0.0;
    }
    let mut score = 0.0;
    let invaders = enemy_home.ships[me];
    if !invaders.is_empty() {
        score += invaders.len() as f32 * tunables[Tunable::Invader];
        let has_red = enemy_home.access(player) & (1 << Colour::Red.index()) != 0
            || facts.fleet[me].has_colour(Colour::Red);
        if has_red && invaders.largest_size() >= enemy_home.ships[enemy.index()].largest_size() {
            score += tunables[Tunable::InvaderDominance];
        }
    }
    let enemy_has_large = enemy_home.ships[enemy.index()].largest_size() == 3;
    let mut adjacent_larges = 0;
    for &slot in facts.slots() {
        if facts.connected(slot, enemy_slot) {
            adjacent_larges += size_counts(facts.systems[slot as usize].ships[me])[2];
        }
    }
    let factor = if enemy_has_large { 1.0 } else { 1.5 };
    score += adjacent_larges.min(2) as f32 * tunables[Tunable::LargeAdjacent] * factor;
    let mut near_sizes = 0;
    for &slot in facts.slots() {
        if facts.connected(slot, enemy_slot) {
            let counts = size_counts(facts.systems[slot as usize].ships[me]);
            near_sizes += counts[0] + 2 * counts[1] + 3 * counts[2];
        }
    }
    score += near_sizes as f32 * tunables[Tunable::Pressure];
    score
}

/// Material `mover` gains (theirs minus ours) by firing the overpopulations
/// that are already on the board, counting only those that gain anything.
fn free_catastrophes(facts: &Facts, mover: Player, tunables: &Tunables) -> f32 {
    let weights = [
        tunables[Tunable::MaterialSmall],
        tunables[Tunable::MaterialMedium],
        tunables[Tunable::MaterialLarge],
    ];
    let value = |ships: crate::rules::PieceSet| -> f32 {
        let counts = size_counts(ships);
        counts[0] as f32 * weights[0]
            + counts[1] as f32 * weights[1]
            + counts[2] as f32 * weights[2]
    };
    let me = mover.index();
    let mut gain = 0.0;
    for &slot in facts.slots() {
        let system = facts.systems[slot as usize];
        if system.pieces().len() < 4 {
            continue;
        }
        for colour in Colour::ALL {
            if !system.is_overpopulated(colour) {
                continue;
            }
            // A star of that colour going means the whole system goes, unless
            // a home keeps another star.
            let vanishes = system.stars.without_colour(colour).is_empty();
            let (mine, theirs) = if vanishes {
                (system.ships[me], system.ships[1 - me])
            } else {
                (
                    system.ships[me].of_colour(colour),
                    system.ships[1 - me].of_colour(colour),
                )
            };
            let net = value(theirs) - value(mine);
            if net > 0.0 {
                gain += net;
            }
        }
    }
    gain
}

/// The size of the largest enemy ship `player` can capture with a basic
/// action now (0 if none).
fn best_capture(facts: &Facts, player: Player) -> u8 {
    let me = player.index();
    let mut best = 0;
    for &slot in facts.slots() {
        let system = facts.systems[slot as usize];
        let own = system.ships[me];
        let theirs = system.ships[1 - me];
        if own.is_empty() || theirs.is_empty() {
            continue;
        }
        if system.access(player) & (1 << Colour::Red.index()) == 0 {
            continue;
        }
        let largest = own.largest_size();
        for target in theirs.types() {
            if target.size() <= largest {
                best = best.max(target.size());
            }
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testing::position;

    #[test]
    fn symmetric_positions_differ_only_by_tempo() {
        let tunables = Tunables::default();
        let first = position(&[("r1b2", "g3", ""), ("r1b2", "", "g3")], 0);
        let second = position(&[("r1b2", "g3", ""), ("r1b2", "", "g3")], 1);
        let expected = tunables[Tunable::Tempo];
        assert!((score(&first, &tunables, false) - expected).abs() < 1e-4);
        assert!((score(&second, &tunables, false) - expected).abs() < 1e-4);
    }

    #[test]
    fn more_material_is_better() {
        let tunables = Tunables::default();
        let ahead = position(&[("r1b2", "g3y1", ""), ("y1b3", "", "g3")], 0);
        let behind = position(&[("r1b2", "g3", ""), ("y1b3", "", "g3y1y2")], 0);
        assert!(score(&ahead, &tunables, false) > score(&behind, &tunables, false));
        let value = value(&ahead, &tunables, false);
        assert!(value > -1.0 && value < 1.0);
    }

    #[test]
    fn finished_games_score_exactly() {
        let tunables = Tunables::default();
        // Player 1 has no ship at home: player 0 has won.
        let won = position(
            &[("r1b2", "g3", ""), ("y1b3", "", ""), ("g2", "y1", "g1")],
            1,
        );
        assert_eq!(value(&won, &tunables, false), -1.0);
    }
}
