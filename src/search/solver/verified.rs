//! The positions a remembered win is known to win from, keyed by what the
//! win reads of them, so that a known position needs no replay.

use crate::rules::{Action, HashSet64, Position, Rules, Slot, HOME_SLOTS};

/// The most positions [`Verified`] keeps for one win before starting over:
/// the slowest suite proofs need 6,000 to 16,000, and the bound keeps a
/// solver's sets within about a megabyte in all (four wins, 256 KB each),
/// since a defence search on sixteen threads has a solver on each.
const VERIFIED_POSITIONS: usize = 1 << 14;

/// The positions where one remembered win was replayed and won, each kept
/// as a key over only what the win reads: the systems it acts on or moves
/// into, both homes (whose survival decides the game), the side to move,
/// the bank when the win builds, trades or discovers (which piece it gets),
/// and the non-home stars when it discovers (which slot the new system
/// takes). Replaying the win checks every action against exactly these, so
/// it wins from every position with the same key (up to a collision of
/// 64-bit hashes, which the turn listings' own duplicate check accepts too).
///
/// Why: proving a two-turn plan asks the solver whether the opponent still
/// wins after each of tens of thousands of replies, and nearly every reply
/// leaves the win standing. Replaying it costs about as much as listing the
/// reply; most replies change nothing the win reads in a way that another
/// reply did not already (in the two-turn suite's slowest proofs, 45,000 to
/// 102,000 replies have 6,000 to 16,000 keys), so the replay is skipped.
pub(super) struct Verified {
    /// The win whose positions these are.
    pub win: Vec<Action>,
    /// The rules it was replayed under.
    pub rules: Rules,
    /// The slots the win acts on, moves into or leaves, with both homes.
    slots: Vec<Slot>,
    /// Whether the win takes pieces from the bank.
    pub bank: bool,
    /// Whether the win discovers a system.
    pub stars: bool,
    pub keys: HashSet64,
}

impl Verified {
    /// No positions yet for `win` under `rules`.
    pub(super) fn new(win: &[Action], rules: &Rules) -> Verified {
        let mut slots: Vec<Slot> = (0..HOME_SLOTS as Slot).collect();
        let (mut bank, mut stars) = (false, false);
        for &action in win {
            match action {
                Action::Move { from, to, .. } => slots.extend([from, to]),
                Action::Discover { from, .. } => {
                    slots.push(from);
                    bank = true;
                    stars = true;
                }
                Action::Build { system, .. } | Action::Trade { system, .. } => {
                    slots.push(system);
                    bank = true;
                }
                Action::Capture { system, .. }
                | Action::Sacrifice { system, .. }
                | Action::Catastrophe { system, .. } => slots.push(system),
                Action::Homeworld { .. } | Action::Pass => {}
            }
        }
        slots.sort_unstable();
        slots.dedup();
        Verified {
            win: win.to_vec(),
            rules: *rules,
            slots,
            bank,
            stars,
            // The set grows only as positions are added.
            keys: HashSet64::with_capacity(0),
        }
    }

    /// Adds a position's key.
    pub(super) fn insert(&mut self, key: u64) {
        if self.keys.len() >= VERIFIED_POSITIONS {
            self.keys = HashSet64::with_capacity(0);
        }
        self.keys.insert(key);
    }

    /// The key of what the win reads of `position`.
    pub(super) fn key(&self, position: &Position) -> u64 {
        let mut key = step(0, position.side_to_move().index() as u64);
        for &slot in &self.slots {
            key = step(key, position.slot_word(slot));
        }
        if self.bank {
            key = step(key, position.bank().0 as u64);
        }
        if self.stars {
            key = step(key, position.non_home_stars());
        }
        finish(key)
    }
}

/// One step of a 64-bit hash over words: the word mixed in, then a
/// multiply and an xor-shift, both invertible, so that two keys that differ
/// in one word always differ; [`finish`] spreads the bits at the end. Half
/// the work of a full finaliser a word, which counted, since a proof keys
/// every one of tens of thousands of replies.
fn step(key: u64, word: u64) -> u64 {
    let z = (key ^ word).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z ^ (z >> 29)
}

/// The end of a key: splitmix64's finaliser.
fn finish(key: u64) -> u64 {
    let mut z = key;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}
