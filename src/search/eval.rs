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

/// The number of per-player terms of the hand evaluation.
pub(crate) const PLAYER_TERMS: usize = 21;

/// The weight of each per-player term, in [`player_terms`]'s order. Terms
/// that are bad for the player are stored negative, so that a player's
/// share of the score is the plain dot product.
pub(crate) const PLAYER_WEIGHTS: [Tunable; PLAYER_TERMS] = [
    Tunable::MaterialSmall,
    Tunable::MaterialMedium,
    Tunable::MaterialLarge,
    Tunable::ColourRed,
    Tunable::ColourYellow,
    Tunable::ColourGreen,
    Tunable::ColourBlue,
    Tunable::FrozenOut,
    Tunable::BuildOption,
    Tunable::HomeLarge,
    Tunable::HomeOutgunned,
    Tunable::HomeShip,
    Tunable::HomeVariety,
    Tunable::HalfHome,
    Tunable::Bluebird,
    Tunable::SittingDuck,
    Tunable::HomeCatastrophe,
    Tunable::Invader,
    Tunable::InvaderDominance,
    Tunable::LargeAdjacent,
    Tunable::Pressure,
];

/// The unweighted terms of the hand evaluation: what the hand-weighted sum
/// and the learned value (see `features.rs`) both read.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Terms {
    /// The side to move's per-player terms.
    pub mover: [f32; PLAYER_TERMS],
    /// The other side's per-player terms.
    pub opponent: [f32; PLAYER_TERMS],
    /// The largest enemy ship the side to move can capture now (a size).
    pub capture_tempo: f32,
    /// Net material the side to move destroys by firing the catastrophes
    /// already on the board.
    pub free_catastrophe: f32,
    /// The largest ship of the side to move the opponent could capture.
    pub capture_threat: f32,
    /// 1 when the opponent could eliminate the side to move after a pass.
    pub threat: f32,
    /// Material at the opponent's home the side to move could destroy by
    /// an overpopulation there (see [`home_exposure`]).
    pub exposure_opponent: f32,
    /// The same at the mover's own home, for the opponent.
    pub exposure_mover: f32,
}

impl Terms {
    /// Gathers the terms of `position` for the side to move.
    pub fn new(facts: &Facts, position: &Position, tunables: &Tunables, threat: bool) -> Terms {
        let mover = position.side_to_move();
        let opponent = mover.opponent();
        // The exposure terms are skipped at weight zero (their default
        // until a match accepts them), so they cost nothing there.
        let exposure =
            tunables[Tunable::ExposureNow] != 0.0 || tunables[Tunable::ExposureLater] != 0.0;
        Terms {
            mover: player_terms(facts, mover),
            opponent: player_terms(facts, opponent),
            capture_tempo: best_capture(facts, mover) as f32,
            free_catastrophe: free_catastrophes(facts, mover, tunables),
            capture_threat: best_capture(facts, opponent) as f32,
            threat: if threat { 1.0 } else { 0.0 },
            exposure_opponent: if exposure {
                home_exposure(facts, opponent, tunables)
            } else {
                0.0
            },
            exposure_mover: if exposure {
                home_exposure(facts, mover, tunables)
            } else {
                0.0
            },
        }
    }

    /// The hand-weighted sum of the terms.
    pub fn score(&self, tunables: &Tunables) -> f32 {
        let mut total = 0.0;
        for (index, weight) in PLAYER_WEIGHTS.iter().enumerate() {
            total += tunables[*weight] * (self.mover[index] - self.opponent[index]);
        }
        total += tunables[Tunable::CaptureTempo] * self.capture_tempo;
        total += tunables[Tunable::FreeCatastrophe] * self.free_catastrophe;
        total -= tunables[Tunable::CaptureThreat] * self.capture_threat;
        total += tunables[Tunable::Tempo];
        total -= tunables[Tunable::ThreatInOne] * self.threat;
        total += tunables[Tunable::ExposureNow] * self.exposure_opponent;
        total -= tunables[Tunable::ExposureLater] * self.exposure_mover;
        total
    }
}

/// The raw score of `position` for the side to move (positive is good for
/// it). `threat` says whether the side not to move could eliminate the side
/// to move if it passed; the caller knows it from the solver.
pub(crate) fn score(position: &Position, tunables: &Tunables, threat: bool) -> f32 {
    let facts = Facts::new(position);
    Terms::new(&facts, position, tunables, threat).score(tunables)
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
    match tunables.network() {
        Some(network) => network.value(position, tunables, threat),
        None => squash(score(position, tunables, threat), tunables),
    }
}

/// Everything that is good for `player`, independent of who is to move, as
/// unweighted terms in [`PLAYER_WEIGHTS`]'s order.
fn player_terms(facts: &Facts, player: Player) -> [f32; PLAYER_TERMS] {
    let me = player.index();
    let fleet = facts.fleet[me];
    let mut terms = [0.0; PLAYER_TERMS];

    // Material by size.
    let counts = size_counts(fleet);
    terms[0] = counts[0] as f32;
    terms[1] = counts[1] as f32;
    terms[2] = counts[2] as f32;

    // Colours owned, or at least reachable by a trade.
    for colour in Colour::ALL {
        if fleet.has_colour(colour) {
            terms[3 + colour.index()] = 1.0;
        } else {
            let can_trade = (1..=3u8).any(|size| {
                counts[size as usize - 1] > 0 && facts.bank.count(piece(colour, size)) > 0
            });
            if !can_trade {
                terms[7] -= 1.0;
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
    terms[8] = (buildable & bank_colours).count_ones() as f32;

    home_terms(facts, player, &mut terms);
    attack_terms(facts, player, player.opponent(), &mut terms);
    terms
}

/// Home defence: the primary directive and the catastrophe dangers (terms
/// 9 to 16).
fn home_terms(facts: &Facts, player: Player, terms: &mut [f32; PLAYER_TERMS]) {
    let me = player.index();
    let enemy = player.opponent().index();
    let home_slot = me as Slot;
    let home = facts.systems[me];
    if !home.exists() {
        return;
    }
    let own = home.ships[me];
    let largest = own.largest_size();
    if largest == 3 {
        terms[9] = 1.0;
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
        terms[10] = -((enemy_near_largest - largest) as f32);
    }
    terms[11] = own.len().min(3) as f32;
    terms[12] = colour_mask(home.stars.plus(own)).count_ones() as f32;
    if home.stars.len() == 1 {
        terms[13] = -1.0;
    }
    if own.len() == 2 && colour_mask(own).count_ones() == 1 {
        terms[14] = -1.0;
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
            terms[15] -= danger;
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
            terms[16] -= danger * mobile * weight;
        }
    }
}

/// Pressure on the enemy home (terms 17 to 20).
fn attack_terms(facts: &Facts, player: Player, enemy: Player, terms: &mut [f32; PLAYER_TERMS]) {
    let me = player.index();
    let enemy_slot = enemy.index() as Slot;
    let enemy_home = facts.systems[enemy.index()];
    if !enemy_home.exists() {
        return;
    }
    let invaders = enemy_home.ships[me];
    if !invaders.is_empty() {
        terms[17] = invaders.len() as f32;
        let has_red = enemy_home.access(player) & (1 << Colour::Red.index()) != 0
            || facts.fleet[me].has_colour(Colour::Red);
        if has_red && invaders.largest_size() >= enemy_home.ships[enemy.index()].largest_size() {
            terms[18] = 1.0;
        }
    }
    let enemy_has_large = enemy_home.ships[enemy.index()].largest_size() == 3;
    let mut adjacent_larges = 0;
    let mut near_sizes = 0;
    for &slot in facts.slots() {
        if facts.connected(slot, enemy_slot) {
            let counts = size_counts(facts.systems[slot as usize].ships[me]);
            adjacent_larges += counts[2];
            near_sizes += counts[0] + 2 * counts[1] + 3 * counts[2];
        }
    }
    let factor = if enemy_has_large { 1.0 } else { 1.5 };
    terms[19] = adjacent_larges.min(2) as f32 * factor;
    terms[20] = near_sizes as f32;
}

/// Material `player` stands to lose at home to an overpopulation the enemy
/// can bring about, short of one that eliminates (those are terms 15 and
/// 16): for each colour one or two pieces short of four at the home, the
/// player's ships of that colour there and a star of it (a lost star halves
/// the home) minus the enemy's ships it would take along, weighted by how
/// surely enemy ships of that colour can arrive (next door, or anywhere
/// with a yellow ship to carry them). Real games were lost to exactly this:
/// a large ship and a star burnt by a red catastrophe at home.
fn home_exposure(facts: &Facts, player: Player, tunables: &Tunables) -> f32 {
    let me = player.index();
    let enemy = 1 - me;
    let home_slot = me as Slot;
    let home = facts.systems[me];
    let own = home.ships[me];
    if !home.exists() || own.is_empty() {
        return 0.0;
    }
    let value = |ships: crate::rules::PieceSet| material(ships, tunables);
    let enemy_fleet = facts.fleet[enemy];
    let mobile = largest_of_colour(enemy_fleet, Colour::Yellow) > 0;
    let mut exposure = 0.0;
    for colour in Colour::ALL {
        let kills_fleet = own.without_colour(colour).is_empty();
        let kills_stars = home.stars.without_colour(colour).is_empty();
        let count = home.colour_count(colour);
        if kills_fleet || kills_stars || !(2..4).contains(&count) {
            continue;
        }
        let need = 4 - count;
        let mut loss = value(own.of_colour(colour)) - value(home.ships[enemy].of_colour(colour));
        if home.stars.has_colour(colour) {
            loss += tunables[Tunable::HalfHome];
        }
        if loss <= 0.0 {
            continue;
        }
        let mut near = 0;
        for &slot in facts.slots() {
            if facts.connected(slot, home_slot) {
                near += facts.systems[slot as usize].ships[enemy].colour_count(colour);
            }
        }
        let elsewhere = enemy_fleet.colour_count(colour) - home.ships[enemy].colour_count(colour);
        let danger = if near >= need {
            1.0
        } else if mobile && elsewhere >= need {
            0.5
        } else {
            0.0
        };
        exposure += loss * danger;
    }
    exposure
}

/// The material value of `ships`, by size, in the evaluation's weights.
fn material(ships: crate::rules::PieceSet, tunables: &Tunables) -> f32 {
    let counts = size_counts(ships);
    counts[0] as f32 * tunables[Tunable::MaterialSmall]
        + counts[1] as f32 * tunables[Tunable::MaterialMedium]
        + counts[2] as f32 * tunables[Tunable::MaterialLarge]
}

/// Material `mover` gains (theirs minus ours) by firing the overpopulations
/// that are already on the board, counting only those that gain anything.
fn free_catastrophes(facts: &Facts, mover: Player, tunables: &Tunables) -> f32 {
    let value = |ships: crate::rules::PieceSet| material(ships, tunables);
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
pub(crate) fn best_capture(facts: &Facts, player: Player) -> u8 {
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
    fn a_home_one_piece_from_a_partial_catastrophe_is_exposed() {
        let tunables = Tunables::default();
        // Player 0's home r1b2 holds r3, r2 and g3: three reds, and a red
        // catastrophe would burn both red ships and the r1 star, leaving
        // the b2 star and the g3 (not an elimination). Player 1 has an r1
        // next door (at y3, which connects to the size-1 and 2 home).
        let exposed = position(
            &[
                ("r1b2", "r3r2g3", ""),
                ("y1b3", "", "g3y2"),
                ("y3", "", "r1"),
            ],
            1,
        );
        let facts = Facts::new(&exposed);
        let loss = 5.5 + 2.5 + tunables[Tunable::HalfHome];
        assert!((home_exposure(&facts, Player::First, &tunables) - loss).abs() < 1e-4);
        assert_eq!(home_exposure(&facts, Player::Second, &tunables), 0.0);
        // The red ship far away, but a yellow to carry it: half as sure.
        let far = position(
            &[
                ("r1b2", "r3r2g3", ""),
                ("y1b3", "", "g3y2"),
                ("b1", "", "r1"),
            ],
            1,
        );
        let facts = Facts::new(&far);
        assert!((home_exposure(&facts, Player::First, &tunables) - loss / 2.0).abs() < 1e-4);
        // No red ship at all: nothing to fear.
        let safe = position(&[("r1b2", "r3r2g3", ""), ("y1b3", "", "g3y2")], 1);
        assert_eq!(
            home_exposure(&Facts::new(&safe), Player::First, &tunables),
            0.0
        );
        // A red catastrophe that would eliminate (every home ship red) is
        // the elimination terms' business, not this one's.
        let doomed = position(
            &[("r1b2", "r3r2", ""), ("y1b3", "", "g3y2"), ("y3", "", "r1")],
            1,
        );
        assert_eq!(
            home_exposure(&Facts::new(&doomed), Player::First, &tunables),
            0.0
        );
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
