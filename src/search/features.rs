//! The inputs of the learned value: a fixed-length vector of numbers that
//! describes a position from the side to move's point of view.
//!
//! Two kinds of input, so that the model starts from what the hand
//! evaluation knows and can learn what it misses:
//! - the unweighted terms of the hand evaluation ([`Terms`]) for both
//!   players, and the side-to-move terms (capture now, capture threat, free
//!   catastrophes, a win-in-1 threat against the mover);
//! - a plain description of the pieces: each player's fleet by piece type,
//!   its home fleet and home stars by type, its ships at and next to the
//!   enemy home by size, and the bank by type.
//!
//! Over the first kind a network can be exactly the hand evaluation
//! (`hand_linear` gives the weights), where training starts; the second is
//! the raw material from which the hidden layer learns what the hand terms
//! miss. Everything is seen from the side to move, so one network serves
//! both players. Counts are plain
//! numbers of pieces; free catastrophes and the systems beyond the homes
//! are scaled (by 0.2 and 0.25), and `hand_linear` divides the weight of
//! the first by the same 0.2, so that the start is still the hand
//! evaluation.
//!
//! # Layout
//! | Inputs    | What |
//! |-----------|------|
//! | 0..21     | the mover's per-player hand terms, unweighted |
//! | 21..42    | the opponent's, in the same order |
//! | 42..46    | capture now, capture threat, free catastrophes, the win-in-1 threat against the mover |
//! | 46..88    | the mover's pieces: fleet, home fleet and home stars by piece type (12 each), ships at and next to the enemy home by size (3 each) |
//! | 88..130   | the opponent's pieces, in the same order |
//! | 130..142  | the bank by piece type |
//! | 142       | the systems beyond the two homes |
//!
//! The order is part of the network file format: a change of layout is a
//! new [`FEATURE_SET`] number, and networks made for another one are
//! refused when loaded. A test checks the table's bounds.

use super::eval::{Terms, PLAYER_TERMS, PLAYER_WEIGHTS};
use super::facts::{size_counts, Facts};
use super::tunables::{Tunable, Tunables};
use crate::rules::{Piece, PieceSet, Player, Position, Slot};

/// The feature layout's version, written in every network file.
pub const FEATURE_SET: u32 = 1;

/// Inputs per player in the piece description.
const PIECE_INPUTS: usize = 3 * Piece::COUNT + 6;

/// Where the piece description starts.
const PIECES_START: usize = 2 * PLAYER_TERMS + 4;

/// Where the bank starts.
const BANK_START: usize = PIECES_START + 2 * PIECE_INPUTS;

/// The number of inputs.
pub const INPUTS: usize = BANK_START + Piece::COUNT + 1;

/// Fills `inputs` with the features of `position` for its side to move,
/// and returns the hand evaluation's score of it (its terms are computed
/// here anyway, and a blended value needs it). `threat` is whether the
/// opponent could win at once if the mover passed, as the caller's solver
/// found it.
pub(crate) fn features(
    position: &Position,
    tunables: &Tunables,
    threat: bool,
    inputs: &mut [f32; INPUTS],
) -> f32 {
    let facts = Facts::new(position);
    let terms = Terms::new(&facts, position, tunables, threat);
    inputs[..PLAYER_TERMS].copy_from_slice(&terms.mover);
    inputs[PLAYER_TERMS..2 * PLAYER_TERMS].copy_from_slice(&terms.opponent);
    inputs[2 * PLAYER_TERMS] = terms.capture_tempo;
    inputs[2 * PLAYER_TERMS + 1] = terms.capture_threat;
    inputs[2 * PLAYER_TERMS + 2] = terms.free_catastrophe * 0.2;
    inputs[2 * PLAYER_TERMS + 3] = terms.threat;
    let mover = position.side_to_move();
    for (index, player) in [mover, mover.opponent()].into_iter().enumerate() {
        let start = PIECES_START + index * PIECE_INPUTS;
        pieces(&facts, player, &mut inputs[start..start + PIECE_INPUTS]);
    }
    set_counts(
        &mut inputs[BANK_START..BANK_START + Piece::COUNT],
        facts.bank,
    );
    inputs[BANK_START + Piece::COUNT] = facts.slot_count.saturating_sub(2) as f32 * 0.25;
    terms.score(tunables)
}

/// The linear weights and bias over these features that reproduce the hand
/// evaluation exactly: `tanh(learned_scale * logit / 2) = tanh(score /
/// eval_scale)` when `logit = 2 * score / (eval_scale * learned_scale)`.
/// Training starts from them, so the first learned value begins where the
/// hand evaluation is.
pub(crate) fn hand_linear(tunables: &Tunables) -> ([f32; INPUTS], f32) {
    let factor = 2.0 / (tunables[Tunable::EvalScale] * tunables[Tunable::LearnedScale]);
    let mut weights = [0.0; INPUTS];
    for (index, tunable) in PLAYER_WEIGHTS.iter().enumerate() {
        weights[index] = tunables[*tunable] * factor;
        weights[PLAYER_TERMS + index] = -tunables[*tunable] * factor;
    }
    weights[2 * PLAYER_TERMS] = tunables[Tunable::CaptureTempo] * factor;
    weights[2 * PLAYER_TERMS + 1] = -tunables[Tunable::CaptureThreat] * factor;
    weights[2 * PLAYER_TERMS + 2] = tunables[Tunable::FreeCatastrophe] * factor / 0.2;
    weights[2 * PLAYER_TERMS + 3] = -tunables[Tunable::ThreatInOne] * factor;
    (weights, tunables[Tunable::Tempo] * factor)
}

/// One player's piece description: fleet, home fleet and home stars by
/// type, then ships at and next to the enemy home by size.
fn pieces(facts: &Facts, player: Player, out: &mut [f32]) {
    let me = player.index();
    let enemy = player.opponent().index();
    set_counts(&mut out[..Piece::COUNT], facts.fleet[me]);
    let home = facts.systems[me];
    set_counts(&mut out[Piece::COUNT..2 * Piece::COUNT], home.ships[me]);
    set_counts(&mut out[2 * Piece::COUNT..3 * Piece::COUNT], home.stars);
    let sizes = 3 * Piece::COUNT;
    let enemy_home = facts.systems[enemy];
    let at = size_counts(enemy_home.ships[me]);
    let mut near = [0u32; 3];
    if enemy_home.exists() {
        for &slot in facts.slots() {
            if facts.connected(slot, enemy as Slot) {
                let counts = size_counts(facts.systems[slot as usize].ships[me]);
                for size in 0..3 {
                    near[size] += counts[size];
                }
            }
        }
    }
    for size in 0..3 {
        out[sizes + size] = at[size] as f32;
        out[sizes + 3 + size] = near[size] as f32;
    }
}

/// Writes how many of each piece type a set holds.
#[inline]
fn set_counts(out: &mut [f32], set: PieceSet) {
    for (slot, piece) in out.iter_mut().zip(Piece::ALL) {
        *slot = set.count(piece) as f32;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testing::position;

    #[test]
    fn features_are_from_the_side_to_move() {
        let tunables = Tunables::default();
        let systems = [("r1b2", "g3y1", ""), ("y1b3", "", "g3")];
        let mut first = [0.0; INPUTS];
        let mut second = [0.0; INPUTS];
        features(&position(&systems, 0), &tunables, false, &mut first);
        features(&position(&systems, 1), &tunables, false, &mut second);
        // Player 0 has two ships, player 1 one: the mover's material comes first.
        assert_eq!(first[0] + first[1] + first[2], 2.0);
        assert_eq!(second[0] + second[1] + second[2], 1.0);
        assert_eq!(
            first[..PLAYER_TERMS],
            second[PLAYER_TERMS..2 * PLAYER_TERMS]
        );
        // The bank is the same from both sides, and holds 36 - 7 pieces.
        let bank = BANK_START..BANK_START + Piece::COUNT;
        assert_eq!(first[bank.clone()], second[bank.clone()]);
        assert_eq!(first[bank].iter().sum::<f32>(), 29.0);
        let mut threatened = [0.0; INPUTS];
        features(&position(&systems, 0), &tunables, true, &mut threatened);
        assert_eq!(threatened[2 * PLAYER_TERMS + 3], 1.0);
    }

    #[test]
    fn the_layout_is_the_one_the_module_documents() {
        assert_eq!(PLAYER_TERMS, 21);
        assert_eq!(PIECES_START, 46);
        assert_eq!(PIECE_INPUTS, 42);
        assert_eq!(BANK_START, 130);
        assert_eq!(INPUTS, 143);
    }
}
