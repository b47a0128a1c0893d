//! Single-action generation: every legal next step from any partial-turn state.
//!
//! This is the level the search walks, one action at a time, so it allocates
//! nothing: actions go to a caller's closure. Two kinds of duplicate are
//! dropped here because they can never lead to different positions: copies of
//! one piece type (rules.md E1) and moves into one of several identical
//! non-home systems (E3). Everything else is left to the callers, since which
//! orders of independent actions to keep is a search decision.
//!
//! Ending the turn is not an action. Callers end a turn with
//! [`Position::end_turn`], which is a pass when nothing has happened yet.

use super::piece::{Colour, Piece, PieceSet, PieceTypes, Player};
use super::position::{
    word_pieces, word_size_mask, Action, Position, Slot, System, TurnState, HOME_SLOTS, SLOT_COUNT,
};
use super::profile::{CatastropheTiming, Rules};

/// Upper bound on the actions from one state. Each of the at most 34 groups
/// of same-type own ships in one system yields at most 16 moves, 12
/// discoveries, 3 trades, 1 sacrifice and 1 capture target; builds add at most
/// 4 per system and catastrophes 4 per system: 34 × 33 + 18 × 8 = 1,266.
pub const MAX_ACTIONS: usize = 1_280;

/// A fixed-capacity list of actions, for callers that want a slice.
pub struct ActionList {
    actions: [Action; MAX_ACTIONS],
    len: usize,
}

impl Default for ActionList {
    fn default() -> ActionList {
        ActionList {
            actions: [Action::Pass; MAX_ACTIONS],
            len: 0,
        }
    }
}

impl ActionList {
    /// Adds an action.
    ///
    /// # Panics
    /// In debug builds, when the list already holds [`MAX_ACTIONS`]: the
    /// bound is proven, so that would be a generator bug, and no action is
    /// ever dropped silently. Release builds skip the check and keep the
    /// first [`MAX_ACTIONS`].
    pub fn push(&mut self, action: Action) {
        debug_assert!(
            self.len < MAX_ACTIONS,
            "more than MAX_ACTIONS ({MAX_ACTIONS}) actions from one state: {action:?} would be dropped"
        );
        if self.len < MAX_ACTIONS {
            self.actions[self.len] = action;
            self.len += 1;
        }
    }

    /// The number of actions collected.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the list is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Empties the list.
    pub fn clear(&mut self) {
        self.len = 0;
    }

    /// The actions collected.
    pub fn as_slice(&self) -> &[Action] {
        &self.actions[..self.len]
    }
}

/// Per-call facts about a position that every generator step needs.
struct Context {
    bank: PieceSet,
    systems: [System; SLOT_COUNT],
    /// Occupied slots, homes first.
    occupied: [Slot; SLOT_COUNT],
    occupied_count: usize,
    has_free_slot: bool,
    /// Each slot's star sizes ([`System::size_mask`]).
    sizes: [u8; SLOT_COUNT],
    /// For each occupied non-home slot, whether an earlier occupied
    /// non-home slot holds an identical system: what the identical-system
    /// rule (rules.md E3) asks of a move's destination, worked out once a
    /// state instead of once an origin ([`YellowTargets::of`]).
    twinned: [bool; SLOT_COUNT],
    /// By star sizes (the index is a [`System::size_mask`] shifted right
    /// once), a bit for each occupied slot with those sizes that is not
    /// twinned: what [`YellowTargets::of`] takes its destinations from.
    by_sizes: [u32; 8],
}

impl Context {
    fn new(position: &Position) -> Context {
        let mut systems = [System::default(); SLOT_COUNT];
        let mut occupied = [0; SLOT_COUNT];
        let mut occupied_count = 0;
        let mut used = PieceSet::EMPTY;
        let mut sizes = [0; SLOT_COUNT];
        let mut twinned = [false; SLOT_COUNT];
        let mut by_sizes = [0; 8];
        for slot in 0..SLOT_COUNT as Slot {
            let system = position.system(slot);
            systems[slot as usize] = system;
            if system.exists() {
                let index = slot as usize;
                if index >= HOME_SLOTS {
                    twinned[index] = occupied[..occupied_count].iter().any(|&earlier| {
                        earlier as usize >= HOME_SLOTS && systems[earlier as usize] == system
                    });
                }
                sizes[index] = system.size_mask();
                if !twinned[index] {
                    by_sizes[usize::from(sizes[index] >> 1)] |= 1 << slot;
                }
                occupied[occupied_count] = slot;
                occupied_count += 1;
                used = used.plus(system.pieces());
            }
        }
        Context {
            bank: used.complement(),
            systems,
            occupied,
            occupied_count,
            has_free_slot: occupied_count
                - (0..HOME_SLOTS).filter(|&h| systems[h].exists()).count()
                < SLOT_COUNT - HOME_SLOTS,
            sizes,
            twinned,
            by_sizes,
        }
    }

    fn occupied(&self) -> &[Slot] {
        &self.occupied[..self.occupied_count]
    }
}

impl Position {
    /// Calls `visit` with every legal next action from this state. It does not
    /// include ending the turn (see [`Position::end_turn`]).
    pub fn for_each_action(&self, rules: &Rules, visit: impl FnMut(Action)) {
        self.for_each_action_within(rules, None, false, visit);
    }

    /// [`Position::for_each_action`] without the actions at a non-home
    /// system identical to an earlier one (a move from it, a discovery,
    /// build, trade, capture, sacrifice or catastrophe there). Each leads
    /// to the same state as the action at the earlier system, listed
    /// first, with the two systems' slots swapped: for an enumerator whose
    /// keys ignore slots, a repeat. Why: such twins are common mid-turn
    /// (a ship moved next to its like), and each repeat costs a patch, a
    /// hash and a lookup.
    pub(crate) fn for_each_distinct_action(&self, rules: &Rules, visit: impl FnMut(Action)) {
        self.for_each_action_within(rules, None, true, visit);
    }

    /// [`Position::for_each_action`] without, at the start of a turn, the
    /// actions that cannot take part in an attack on `target` this turn:
    /// it keeps every catastrophe and sacrifice, the captures, builds and
    /// trades at `target` and the moves into it, and leaves out the other
    /// basic actions (including every discovery), in the same order as the
    /// full list. Why: the win-in-1 solver looks only at those at a turn's
    /// start, and calls there are by the hundred thousand in a two-turn
    /// check, each listing every move of every ship before throwing most
    /// away. Mid-turn it lists everything, as `for_each_action` does.
    pub fn for_each_attack_action(&self, rules: &Rules, target: Slot, visit: impl FnMut(Action)) {
        self.for_each_action_within(rules, Some(target), false, visit);
    }

    /// [`Position::for_each_action`], restricted at the start of a turn to
    /// the attack on a slot if one is given (see
    /// [`Position::for_each_attack_action`]), and without the actions at
    /// twinned systems where asked (see
    /// [`Position::for_each_distinct_action`]). Forced inline: the
    /// enumerator's walk calls it for every state it lists the general way,
    /// and the compiler, left to itself, keeps it out of line there.
    #[inline(always)]
    fn for_each_action_within(
        &self,
        rules: &Rules,
        attack: Option<Slot>,
        skip_twins: bool,
        mut visit: impl FnMut(Action),
    ) {
        let mover = self.side_to_move();
        let context = Context::new(self);
        let acting = |slot: Slot| !(skip_twins && context.twinned[slot as usize]);
        if self.in_setup() {
            if !self.home_created(mover) && self.turn_state() == TurnState::Start {
                homeworld_actions(rules, context.bank, &mut visit);
                // Under `setup_pass` (SDG) a player may pass the setup turn
                // while neither homeworld exists.
                if rules.setup_pass && !self.home_created(mover.opponent()) {
                    visit(Action::Pass);
                }
            }
            return;
        }
        let state = self.turn_state();
        if state == TurnState::Start && rules.catastrophe_timing == CatastropheTiming::End {
            // Under `end` timing catastrophes follow the core, so a pass turn
            // with catastrophes needs the pass as an explicit first step.
            visit(Action::Pass);
        }
        let catastrophes_now = !matches!(
            (rules.catastrophe_timing, state),
            (CatastropheTiming::End, TurnState::Start)
        );
        if catastrophes_now {
            for &slot in context.occupied().iter().filter(|&&slot| acting(slot)) {
                let system = context.systems[slot as usize];
                for colour in Colour::ALL {
                    if system.is_overpopulated(colour) {
                        visit(Action::Catastrophe {
                            system: slot,
                            colour,
                        });
                    }
                }
            }
        }
        match state {
            TurnState::Done => {}
            TurnState::Start => {
                for &slot in context.occupied().iter().filter(|&&slot| acting(slot)) {
                    let system = context.systems[slot as usize];
                    let own = system.ships[mover.index()];
                    if own.is_empty() {
                        continue;
                    }
                    for ship in own.types() {
                        visit(Action::Sacrifice { system: slot, ship });
                    }
                    let access = system.access(mover);
                    for colour in Colour::ALL {
                        if access & (1 << colour.index()) == 0 {
                            continue;
                        }
                        match attack {
                            None => colour_actions(&context, mover, slot, colour, &mut visit),
                            Some(target) => {
                                attack_actions(&context, mover, slot, colour, target, &mut visit)
                            }
                        }
                    }
                }
            }
            TurnState::Sacrifice { colour, remaining } => {
                if remaining > 0 {
                    for &slot in context.occupied().iter().filter(|&&slot| acting(slot)) {
                        if !context.systems[slot as usize].ships[mover.index()].is_empty() {
                            colour_actions(&context, mover, slot, colour, &mut visit);
                        }
                    }
                }
            }
        }
    }

    /// Collects [`Position::for_each_action`] into a list.
    pub fn legal_actions(&self, rules: &Rules, list: &mut ActionList) {
        list.clear();
        self.for_each_action(rules, |action| list.push(action));
    }
}

/// Every setup choice: two stars (unordered) and a ship, within the bank.
fn homeworld_actions(rules: &Rules, bank: PieceSet, visit: &mut impl FnMut(Action)) {
    for star in bank.types() {
        let mut after_star = bank;
        after_star.remove(star);
        let two_star = after_star
            .types()
            .filter(|second| *second >= star)
            .map(Some);
        let one_star = rules.one_star_home.then_some(None);
        for second_star in two_star.chain(one_star) {
            let mut remaining = after_star;
            if let Some(second) = second_star {
                remaining.remove(second);
            }
            for ship in remaining.types() {
                if ship.size() == 3 || rules.any_ship_size {
                    visit(Action::Homeworld {
                        star,
                        second_star,
                        ship,
                    });
                }
            }
        }
    }
}

/// The actions of one colour that `mover` can take in `slot` as a turn's
/// basic action that act on `target`: those at `target` itself, and moves
/// into it (see [`Position::for_each_attack_action`]), in the order
/// [`colour_actions`] lists them.
fn attack_actions(
    context: &Context,
    mover: Player,
    slot: Slot,
    colour: Colour,
    target: Slot,
    visit: &mut impl FnMut(Action),
) {
    match colour {
        // A home is never left out as a copy of another system (E3), so a
        // move into one needs only a connection; any other target goes
        // through the full list.
        Colour::Yellow if (target as usize) < HOME_SLOTS => {
            let system = context.systems[slot as usize];
            let destination = context.systems[target as usize];
            if slot != target
                && destination.exists()
                && destination.size_mask() & system.size_mask() == 0
            {
                for ship in system.ships[mover.index()].types() {
                    visit(Action::Move {
                        from: slot,
                        to: target,
                        ship,
                    });
                }
            }
        }
        Colour::Yellow => colour_actions(context, mover, slot, colour, &mut |action| {
            if matches!(action, Action::Move { to, .. } if to == target) {
                visit(action);
            }
        }),
        _ if slot == target => colour_actions(context, mover, slot, colour, visit),
        _ => {}
    }
}

/// Where a ship can go from one slot in one yellow step, which does not
/// depend on the ship: the systems it can move to, leaving out one
/// identical to an earlier one (E3), and the stars it can discover. It
/// depends only on the origin's star sizes. Kept as masks, a slot's bit
/// and a type's: both are a few mask operations from the [`Context`],
/// where lists took a test a system and a type, once a state for each set
/// of star sizes (the enumerator's last steps spent 8% there).
#[derive(Clone, Copy)]
pub(crate) struct YellowTargets {
    /// A bit for each destination slot.
    destinations: u32,
    stars: PieceTypes,
}

impl YellowTargets {
    /// The targets from an origin with star sizes `sizes`
    /// ([`System::size_mask`]).
    fn of(context: &Context, sizes: u8) -> YellowTargets {
        let bank = if context.has_free_slot {
            context.bank
        } else {
            PieceSet::EMPTY
        };
        YellowTargets::from(&context.by_sizes, bank, sizes)
    }

    /// The targets from an origin with star sizes `sizes`, given the
    /// destinations by star sizes (see `Context::by_sizes`) and the stars
    /// that can be discovered (none without a free slot).
    #[inline]
    fn from(by_sizes: &[u32; 8], bank: PieceSet, sizes: u8) -> YellowTargets {
        // Connected systems share no star size, so the origin itself, and
        // any system identical to it, is never a destination; nor is a
        // twin, since an earlier identical system takes the move instead
        // (E3).
        let mut destinations = 0;
        for (class, &slots) in by_sizes.iter().enumerate() {
            if (class as u8) << 1 & sizes == 0 {
                destinations |= slots;
            }
        }
        YellowTargets {
            destinations,
            stars: bank.types_sized_outside(sizes),
        }
    }

    /// The slots a move can go to, in the generator's order.
    #[inline]
    pub(crate) fn destinations(&self) -> impl Iterator<Item = Slot> {
        let mut slots = self.destinations;
        std::iter::from_fn(move || {
            (slots != 0).then(|| {
                let slot = slots.trailing_zeros() as Slot;
                slots &= slots - 1;
                slot
            })
        })
    }

    /// The stars a discovery can take, in the generator's order.
    #[inline]
    pub(crate) fn stars(&self) -> PieceTypes {
        self.stars
    }
}

impl Position {
    /// Calls `visit` with each slot where the mover has ships, its ships
    /// and their [`YellowTargets`], in the order [`Position::for_each_action`]
    /// lists the yellow steps of a sacrifice: by slot, then by ship, the
    /// moves before the discoveries. Why: a whole-turn enumerator keys a
    /// sacrifice's last steps from these lists directly (see
    /// `TurnEnumerator`), without an action at a time. With `skip_twins`,
    /// an origin identical to an earlier one is left out, as
    /// [`Position::for_each_distinct_action`] leaves out its actions.
    pub(crate) fn for_each_yellow_origin(
        &self,
        skip_twins: bool,
        mut visit: impl FnMut(Slot, PieceSet, &YellowTargets),
    ) {
        // From the packed words, without decoding systems as `Context`
        // does for every kind of action: a listing's last steps call this
        // once a state.
        let shift = 24 * self.side_to_move().index();
        let mut words = [0; SLOT_COUNT];
        let mut sizes = [0; SLOT_COUNT];
        let mut by_sizes = [0; 8];
        let mut used = PieceSet::EMPTY;
        let mut others = 0;
        let mut origins = 0u32;
        for slot in 0..SLOT_COUNT {
            let word = self.slot_word(slot as Slot);
            words[slot] = word;
            if word >> 48 == 0 {
                continue;
            }
            // Canonical words are equal exactly for identical systems.
            let twinned = slot >= HOME_SLOTS && words[HOME_SLOTS..slot].contains(&word);
            let size_mask = word_size_mask(word);
            sizes[slot] = size_mask;
            if !twinned {
                by_sizes[usize::from(size_mask >> 1)] |= 1 << slot;
            }
            used = used.plus(word_pieces(word));
            others += usize::from(slot >= HOME_SLOTS);
            if word >> shift & 0xFF_FFFF != 0 && !(skip_twins && twinned) {
                origins |= 1 << slot;
            }
        }
        let bank = if others < SLOT_COUNT - HOME_SLOTS {
            used.complement()
        } else {
            PieceSet::EMPTY
        };
        while origins != 0 {
            let slot = origins.trailing_zeros() as usize;
            origins &= origins - 1;
            let own = PieceSet((words[slot] >> shift & 0xFF_FFFF) as u32);
            let targets = YellowTargets::from(&by_sizes, bank, sizes[slot]);
            visit(slot as Slot, own, &targets);
        }
    }
}

/// The actions of one colour that `mover` can take in `slot`.
fn colour_actions(
    context: &Context,
    mover: Player,
    slot: Slot,
    colour: Colour,
    visit: &mut impl FnMut(Action),
) {
    let me = mover.index();
    let system = context.systems[slot as usize];
    let own = system.ships[me];
    match colour {
        Colour::Green => {
            for built_colour in Colour::ALL {
                if own.has_colour(built_colour) {
                    if let Some(piece) = context.bank.smallest_of_colour(built_colour) {
                        visit(Action::Build {
                            system: slot,
                            piece,
                        });
                    }
                }
            }
        }
        Colour::Blue => {
            for from in own.types() {
                for to_colour in Colour::ALL {
                    if to_colour == from.colour() {
                        continue;
                    }
                    let to = Piece::new(to_colour, from.size()).expect("sizes are 1..=3");
                    if context.bank.count(to) > 0 {
                        visit(Action::Trade {
                            system: slot,
                            from,
                            to,
                        });
                    }
                }
            }
        }
        Colour::Yellow => {
            if own.is_empty() {
                return;
            }
            let targets = YellowTargets::of(context, context.sizes[slot as usize]);
            for ship in own.types() {
                for to in targets.destinations() {
                    visit(Action::Move {
                        from: slot,
                        to,
                        ship,
                    });
                }
                for star in targets.stars() {
                    visit(Action::Discover {
                        from: slot,
                        ship,
                        star,
                    });
                }
            }
        }
        Colour::Red => {
            let largest = own.largest_size();
            for ship in system.ships[1 - me].types() {
                if ship.size() <= largest {
                    visit(Action::Capture { system: slot, ship });
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_action_list_holds_exactly_max_actions() {
        let mut list = ActionList::default();
        let build = |index: usize| Action::Build {
            system: (index % SLOT_COUNT) as Slot,
            piece: Piece::ALL[index % Piece::COUNT],
        };
        for index in 0..MAX_ACTIONS {
            list.push(build(index));
        }
        assert_eq!(list.len(), MAX_ACTIONS);
        assert_eq!(list.as_slice()[MAX_ACTIONS - 1], build(MAX_ACTIONS - 1));
        // One more is a generator bug: debug builds say so instead of
        // dropping it silently.
        let overflow = std::panic::catch_unwind(move || {
            let mut list = list;
            list.push(Action::Pass);
            list.len()
        });
        if cfg!(debug_assertions) {
            let message = overflow.unwrap_err();
            let message = message.downcast_ref::<String>().unwrap();
            assert!(message.contains("MAX_ACTIONS"), "{message}");
        } else {
            assert_eq!(overflow.unwrap(), MAX_ACTIONS);
        }
    }
}
