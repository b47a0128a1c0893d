//! The search's action filter: which actions can matter for a win in what
//! is left of the turn, and in what order to try them. An action is left
//! out only where a win through it implies a win through one that is kept
//! (or none exists), so the search stays exact.

use super::super::facts::colour_mask;
use super::bound::{
    blue_cost, capture_route, green_cost, may_connect, need, possible_sizes, yellow_cost,
    yellow_covers, Covers,
};
use crate::rules::{Action, Colour, Position, Rules, Slot, System, TurnState, HOME_SLOTS};

/// Pushes the actions that can matter for a win, each with an ordering
/// score (higher first) whose low 12 bits keep the generation order.
/// `covers` is the bound's yellow pricing of this position, when the bound
/// ([`super::bound::may_win_keeping`]) has just computed it.
pub(super) fn collect_relevant(
    position: &Position,
    rules: &Rules,
    covers: Option<Covers>,
    out: &mut Vec<(i32, Action)>,
) {
    let relevance = Relevance::new(position, covers);
    let mut consider = |action| {
        let Some(order) = relevance.order(action) else {
            return;
        };
        let index = out.len() as i32;
        out.push(((order << 12) - index.min(4095), action));
    };
    // At the start, everything but the attack on the target is dropped by
    // the filter: do not list it.
    if relevance.state == TurnState::Start {
        position.for_each_attack_action(rules, relevance.target_slot, &mut consider);
    } else {
        position.for_each_action(rules, &mut consider);
    }
}

/// What the filter knows of one position: the target home, what the bound
/// prices there, and the colours a win could use.
struct Relevance<'a> {
    position: &'a Position,
    state: TurnState,
    them: usize,
    target_slot: Slot,
    own_home: Slot,
    target: System,
    /// The colours of the target's defenders and stars.
    wanted: u8,
    /// The mover's ships at its own home.
    home_ships: u32,
    /// At the start of a turn, for a red sacrifice of each size: whether
    /// its captures could win.
    red: [bool; 3],
    /// At the start of a turn: the builds, trades and moves that a
    /// sacrifice of green, blue or yellow would need.
    green: u32,
    blue: u32,
    yellow: u32,
    /// Inside a yellow sacrifice: whether no move may be wasted, and the
    /// colours of the covers the remaining moves can pay for.
    tight: bool,
    useful: u8,
    /// Pieces of each colour the target lacks to overpopulate.
    needs: [u32; 4],
    /// The target's star sizes as they stand, and as they may be during
    /// the turn within the budget of moves.
    target_sizes: u8,
    target_possible: ([u8; 3], usize),
    budget: u32,
}

impl Relevance<'_> {
    /// The filter for `position`, with the bound's yellow pricing of it
    /// when already known.
    #[inline]
    fn new(position: &Position, covers: Option<Covers>) -> Relevance<'_> {
        let mover = position.side_to_move();
        let me = mover.index();
        let them = 1 - me;
        let target_slot = them as Slot;
        let own_home = me as Slot;
        let target = position.system(target_slot);
        let wanted = colour_mask(target.ships[them]) | colour_mask(target.stars);
        let state = position.turn_state();
        // At the start of a turn, a sacrifice is worth trying only if its
        // colour's bound allows a win with that many actions.
        let home_ships = position.system(own_home).ships[me].len();
        let (red, green, blue, yellow) = if state == TurnState::Start {
            (
                [1, 2, 3].map(|size| capture_route(target, me, them, size)),
                green_cost(target, me, them),
                blue_cost(target, me, them),
                yellow_cost(position, mover, 3),
            )
        } else {
            ([true; 3], 0, 0, 0)
        };
        // Inside a yellow sacrifice with no slack (every remaining move must
        // lower the bound's cost), only ships of a colour in the cover, and a
        // ship returning to an empty home, can make progress: moving any other
        // ship leaves the cost unchanged, so the bound would reject the result.
        let (tight, useful, budget) = match state {
            TurnState::Sacrifice {
                colour: Colour::Yellow,
                remaining,
            } => {
                let home = position.system(own_home);
                let alive = home.exists() && !home.ships[me].is_empty();
                let budget = if alive {
                    remaining as u32
                } else {
                    (remaining as u32).saturating_sub(1)
                };
                // The bound priced this very position with the same budget.
                let covers = covers.unwrap_or_else(|| yellow_covers(position, mover, budget));
                (budget <= covers.min(), covers.affordable(budget), budget)
            }
            _ => (false, wanted, 3),
        };
        Relevance {
            position,
            state,
            them,
            target_slot,
            own_home,
            target,
            wanted,
            home_ships,
            red,
            green,
            blue,
            yellow,
            tight,
            useful,
            needs: Colour::ALL.map(|colour| need(target, colour)),
            target_sizes: target.size_mask(),
            target_possible: possible_sizes(target, true, budget),
            budget,
        }
    }

    /// The ordering score of `action` (higher first), or `None` when it
    /// cannot matter for a win.
    #[inline]
    fn order(&self, action: Action) -> Option<i32> {
        if let Action::Catastrophe { system, .. } = action {
            return if system == self.target_slot {
                Some(100)
            } else if self.state == TurnState::Done {
                None
            } else {
                Some(10)
            };
        }
        match self.state {
            TurnState::Done => None,
            TurnState::Start => self.order_at_start(action),
            TurnState::Sacrifice { colour, .. } => self.order_in_sacrifice(colour, action),
        }
    }

    /// [`Relevance::order`] at the start of a turn: a sacrifice whose
    /// colour's bound allows a win, a pass (whose catastrophes may win), or
    /// a basic action at the target that completes a cover.
    #[inline]
    fn order_at_start(&self, action: Action) -> Option<i32> {
        let target_slot = self.target_slot;
        match action {
            Action::Sacrifice { system, ship } => {
                let size = ship.size() as u32;
                let leaves_home = system == self.own_home && self.home_ships == 1;
                let possible = match ship.colour() {
                    Colour::Red => !leaves_home && self.red[size as usize - 1],
                    Colour::Green => !leaves_home && self.green <= size,
                    Colour::Blue => !leaves_home && self.blue <= size,
                    Colour::Yellow => self.yellow + leaves_home as u32 <= size,
                };
                possible.then_some(40 + size as i32)
            }
            Action::Pass => Some(0),
            Action::Capture { system, .. } => (system == target_slot && self.red[0]).then_some(90),
            Action::Build { system, piece } => {
                (system == target_slot && self.completes(piece.colour())).then_some(85)
            }
            Action::Trade { system, to, .. } => {
                (system == target_slot && self.completes(to.colour())).then_some(85)
            }
            Action::Move { to, ship, .. } => {
                (to == target_slot && self.completes(ship.colour())).then_some(80)
            }
            _ => None,
        }
    }

    /// [`Relevance::order`] inside a sacrifice of `colour`.
    ///
    /// An action on a ship or piece whose colour is not in the cover
    /// (`wanted`) matters only through side effects: bringing a ship back
    /// to an empty home, emptying a system so that its star returns to the
    /// bank, a trade returning a wanted colour to the bank, or making a
    /// fourth piece of a colour somewhere so that a catastrophe can return
    /// pieces. Anything else (including a discovery, which a wanted ship
    /// could make itself, one action cheaper) leaves every way to win
    /// unchanged.
    #[inline]
    fn order_in_sacrifice(&self, colour: Colour, action: Action) -> Option<i32> {
        let (target_slot, own_home) = (self.target_slot, self.own_home);
        let wanted = self.wanted;
        match action {
            Action::Capture { system, .. } if colour == Colour::Red => {
                if system == target_slot {
                    Some(90)
                } else if system == own_home {
                    Some(50)
                } else {
                    None
                }
            }
            Action::Move { from, to, ship } => {
                // A useful ship already one jump from the target gains
                // nothing by going elsewhere first (connections only grow
                // during a turn), except through the side effects above.
                let useful_ship = wants(self.useful, ship.colour()) > 0
                    && (to == target_slot || (!self.connected_now(from) && self.may_reach(to)));
                if self.tight && !useful_ship && to != own_home {
                    return None;
                }
                if !useful_ship
                    && to != own_home
                    && !self.lone(from)
                    && !self.fourth(to, ship.colour())
                {
                    return None;
                }
                if to == target_slot {
                    Some(80 + wants(wanted, ship.colour()))
                } else {
                    Some(20 + wants(wanted, ship.colour()))
                }
            }
            Action::Discover { from, ship, star } => {
                let reaches = may_connect(([1 << star.size(), 0, 0], 1), self.target_possible);
                let useful_ship =
                    wants(self.useful, ship.colour()) > 0 && !self.connected_now(from) && reaches;
                if (self.tight || !self.lone(from)) && !useful_ship {
                    return None;
                }
                Some(15 + wants(wanted, ship.colour()))
            }
            Action::Build { system, piece } => {
                if system == target_slot {
                    Some(70)
                } else if self.fourth(system, piece.colour()) {
                    Some(5)
                } else {
                    None
                }
            }
            Action::Trade { system, from, to } => {
                if system == target_slot {
                    Some(70)
                } else if wants(wanted, from.colour()) > 0 || self.fourth(system, to.colour()) {
                    Some(5)
                } else {
                    None
                }
            }
            _ => Some(0),
        }
    }

    /// Whether one more piece of `colour` at the target completes a cover:
    /// a basic action at the start ends the core, so it can only win so.
    #[inline]
    fn completes(&self, colour: Colour) -> bool {
        let target = self.target;
        let covers = [
            colour_mask(target.ships[self.them]),
            colour_mask(target.stars),
        ];
        covers.iter().any(|&cover| {
            Colour::ALL.iter().all(|other| {
                cover & (1 << other.index()) == 0
                    || self.needs[other.index()] == 0
                    || (*other == colour && self.needs[other.index()] == 1)
            })
        })
    }

    /// Whether a ship at `slot` reaches the target in one jump now.
    #[inline]
    fn connected_now(&self, slot: Slot) -> bool {
        self.position.system(slot).size_mask() & self.target_sizes == 0
    }

    /// Whether a ship at `slot` may reach the target in one jump at some
    /// moment of the turn.
    #[inline]
    fn may_reach(&self, slot: Slot) -> bool {
        may_connect(
            possible_sizes(
                self.position.system(slot),
                (slot as usize) < HOME_SLOTS,
                self.budget,
            ),
            self.target_possible,
        )
    }

    /// Whether `slot` is a non-home system with a single ship, whose
    /// leaving returns its star to the bank.
    #[inline]
    fn lone(&self, slot: Slot) -> bool {
        slot as usize >= HOME_SLOTS && self.position.system(slot).all_ships().len() == 1
    }

    /// Whether one more piece of `colour` at `slot` overpopulates it.
    #[inline]
    fn fourth(&self, slot: Slot, colour: Colour) -> bool {
        self.position.system(slot).colour_count(colour) == 3
    }
}

/// The ordering bonus of a colour in `wanted`.
#[inline]
fn wants(wanted: u8, colour: Colour) -> i32 {
    if wanted & (1 << colour.index()) != 0 {
        10
    } else {
        0
    }
}
