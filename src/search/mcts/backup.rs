//! Backing values up the tree: how a leaf's value reaches each node of the
//! path (draws with contempt, distant leaves discounted per turn, far-ahead
//! values stretched), and how proofs of wins, losses and draws move from
//! children to parents.
//!
//! # The stretch far ahead
//! A leaf's value is `tanh(score / eval_scale)`, and far ahead (a root at
//! 0.96, say) a ship more or less moves it by a hundredth, about the noise
//! of a few thousand visits: the tree no longer tells the turn that adds to
//! the lead from the one that throws a large ship away, and a won game
//! drifts to the turn limit. With `stretch_above` below 1, a root whose
//! static value is beyond it has every heuristic leaf value moved back by
//! the excess in `atanh` units, so the root's level reads as
//! `stretch_above` and the values around it are as far apart as they are
//! near that level. Proofs, draws (their contempt already follows the
//! root's value) and finished games keep their values, so a win counts for
//! more against the level than before. The reports and the root's checks
//! read the tree's values back on the plain scale
//! ([`Backup::unstretched`]). It is on by default at 0.6: against the
//! engine without it, over 2,000 games at 3,000 nodes, 20 and 50 ms a
//! turn, it scored +16 Elo [+1, +30], and better than even at each limit
//! (benches/README.md, "Playing strength").

use std::sync::atomic::Ordering;

use super::super::tree::{
    Tree, EXPANDED, PROVEN_DRAW, PROVEN_LOSS, PROVEN_WIN, UNPROVEN, WIDENING,
};
use super::super::tunables::{Tunable, Tunables};

/// How leaf values are turned into backed-up values: draws scored with
/// contempt, and distant leaves discounted per turn.
///
/// Both exist so that a side that is ahead makes progress:
/// without them a repetition is worth 0 to both sides and a win in ten
/// turns is worth as much as a win in two, so a won position can drift into
/// a repetition or the turn limit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Backup {
    /// The player to move at the root.
    pub root_mover: usize,
    /// A draw's value for the root mover: `-contempt`, less
    /// `draw_contempt` times the root's static value when that is positive,
    /// so a side ahead avoids draws all the more. Never above `-contempt`
    /// when behind, because a root that is barely behind by the evaluation
    /// (often in the opening) would otherwise steer into a repetition
    /// against an opponent it beats (measured against greedy).
    pub draw_value: f32,
    /// Per-turn factor on a leaf's value as it is backed up (1: none).
    /// A proof stores no distance, so once a node is proven its value
    /// counts in full from that node up: the discount orders the values of
    /// unproven lines, and a proven win is preferred by its proof anyway.
    pub discount: f32,
    /// How far a heuristic leaf value is moved back towards the middle for
    /// the root mover, in `atanh` units (0: not at all): see
    /// [`Backup::stretched`].
    pub stretch: f32,
}

impl Backup {
    /// The backup rules for a search from a root whose static value for its
    /// mover is `root_value`.
    pub fn new(tunables: &Tunables, root_mover: usize, root_value: f32) -> Backup {
        Backup {
            root_mover,
            draw_value: -(tunables[Tunable::Contempt]
                + tunables[Tunable::DrawContempt] * root_value.clamp(0.0, 1.0))
            .min(1.0),
            discount: tunables[Tunable::TurnDiscount],
            stretch: stretch(root_value, tunables[Tunable::StretchAbove]),
        }
    }

    /// Plain backups: a draw is worth 0 and nothing is discounted.
    #[cfg(test)]
    pub fn neutral() -> Backup {
        Backup {
            root_mover: 0,
            draw_value: 0.0,
            discount: 1.0,
            stretch: 0.0,
        }
    }

    /// A draw's value for `mover`.
    #[inline]
    pub fn draw_for(&self, mover: usize) -> f32 {
        if mover == self.root_mover {
            self.draw_value
        } else {
            -self.draw_value
        }
    }

    /// A proof's value for the node's mover, draws with contempt.
    #[inline]
    pub fn proof_value(&self, proof: u8, mover: usize) -> f32 {
        match proof {
            PROVEN_DRAW => self.draw_for(mover),
            other => proof_value(other),
        }
    }

    /// A heuristic leaf value for `mover`, measured from the root's level
    /// rather than from level: far ahead, `tanh` leaves the values of good
    /// and better positions a hair apart (0.96 against 0.97), so the tree
    /// cannot tell the turn that adds to the lead from the one that throws
    /// a ship away, and a won game drifts into the turn limit. Moved back by
    /// the root's excess over `stretch_above`, they differ as they would
    /// near that level. Proofs, draws and finished games are not moved.
    #[inline]
    pub fn stretched(&self, value: f32, mover: usize) -> f32 {
        self.shifted(value, mover, -1.0)
    }

    /// A value of the tree for `mover` back on the plain scale: the inverse
    /// of [`Backup::stretched`], for reports and for comparison with
    /// static values.
    #[inline]
    pub fn unstretched(&self, value: f32, mover: usize) -> f32 {
        self.shifted(value, mover, 1.0)
    }

    /// `value` for `mover` moved by `direction` times the stretch (signed
    /// for the root mover) in `atanh` units; wins and losses stay.
    #[inline]
    fn shifted(&self, value: f32, mover: usize, direction: f32) -> f32 {
        if self.stretch == 0.0 || value.abs() >= MOST_STRETCHED {
            return value;
        }
        let shift = if mover == self.root_mover {
            self.stretch
        } else {
            -self.stretch
        };
        (value.atanh() + direction * shift).tanh()
    }

    /// The factor on a value found `turns` turns below a node.
    #[inline]
    pub fn factor(&self, turns: u32) -> f32 {
        if self.discount == 1.0 || turns == 0 {
            1.0
        } else {
            power(self.discount, turns)
        }
    }
}

/// Values at least this far out are wins and losses, never moved.
const MOST_STRETCHED: f32 = 0.999;

/// The shift of [`Backup::stretched`] for a root whose static value is
/// `root_value`: its excess over `above` in `atanh` units, signed for the
/// root mover (a root far behind stretches the other way, so that the side
/// behind still tells its better chances from its worse).
fn stretch(root_value: f32, above: f32) -> f32 {
    if above >= 1.0 {
        return 0.0;
    }
    let level = root_value.abs().min(MOST_STRETCHED);
    let excess = level.atanh() - above.atanh();
    if excess <= 0.0 {
        0.0
    } else {
        excess.copysign(root_value)
    }
}

/// `base` to the power `exponent`, out of line: inlined, the compiler
/// computed the power (a library call) on every backup step and kept it
/// only when the discount was not 1, which it never is by default.
#[inline(never)]
fn power(base: f32, exponent: u32) -> f32 {
    base.powi(exponent.min(i32::MAX as u32) as i32)
}

/// The value of a proof for the node's mover.
#[inline]
pub(crate) fn proof_value(proof: u8) -> f32 {
    match proof {
        PROVEN_WIN => 1.0,
        PROVEN_LOSS => -1.0,
        _ => 0.0,
    }
}

/// A proof seen from the other player's side.
#[inline]
pub(crate) fn flip_proof(proof: u8) -> u8 {
    match proof {
        PROVEN_WIN => PROVEN_LOSS,
        PROVEN_LOSS => PROVEN_WIN,
        other => other,
    }
}

/// A child's proof from the point of view of the parent's mover.
#[inline]
pub(crate) fn proof_for(tree: &Tree, child: u32, mover: usize) -> u8 {
    let node = tree.node(child);
    let proof = node.proof.load(Ordering::Acquire);
    if node.mover() == mover {
        proof
    } else {
        flip_proof(proof)
    }
}

/// Tries to prove a node from its children; true if it is (now) proven.
pub(crate) fn try_prove(tree: &Tree, node_id: u32) -> bool {
    let node = tree.node(node_id);
    if node.proof.load(Ordering::Acquire) != UNPROVEN {
        return true;
    }
    let state = node.state.load(Ordering::Acquire);
    if state != EXPANDED && state != WIDENING {
        return false;
    }
    let (first, count, total) = node.children();
    let mover = node.mover();
    let mut complete = count == total;
    let mut best = PROVEN_LOSS;
    for index in first..first + count {
        let child = tree.edge(index).child.load(Ordering::Acquire);
        if child == 0 {
            complete = false;
            continue;
        }
        match proof_for(tree, child, mover) {
            PROVEN_WIN => {
                node.proof.store(PROVEN_WIN, Ordering::Release);
                return true;
            }
            PROVEN_DRAW => best = PROVEN_DRAW,
            PROVEN_LOSS => {}
            _ => complete = false,
        }
    }
    if complete {
        node.proof.store(best, Ordering::Release);
    }
    complete
}
