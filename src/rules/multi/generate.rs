//! The legal single actions of a multi-player position.
//!
//! Candidates are listed from the map (every own ship, every bank piece,
//! every overpopulation) and kept when [`MultiPosition::check`] accepts
//! them, so the generator cannot disagree with the checker: there is one
//! implementation of legality. Multi-player games are replayed, tested and
//! searched far less than two-player ones, so the simple form is enough.

use super::{Fleet, MultiAction, MultiPosition, Seat};
use crate::rules::legality::PieceCounts;
use crate::rules::piece::{Colour, Piece};
use crate::rules::position::{Action, TurnState};
use crate::rules::profile::Rules;

/// A reusable list of actions.
pub type MultiActionList = Vec<MultiAction>;

impl MultiPosition {
    /// Every legal single action of the side to move, in a fixed order.
    /// Ending the turn is not an action: see [`MultiPosition::end_turn`].
    pub fn legal_actions(&self, rules: &Rules, list: &mut MultiActionList) {
        list.clear();
        let bank = self.bank();
        let mut push = |action: MultiAction| {
            if self.check_with_bank(rules, action, bank).is_ok() {
                list.push(action);
            }
        };
        let mover = self.side_to_move();
        let me = mover as usize;
        if !self.created().contains(mover) {
            for_each_setup(bank, &mut push);
            push(Action::Pass.into());
            return;
        }
        if self.turn_state() != TurnState::Done {
            push(Action::Pass.into());
        }
        for slot in self.occupied_slots() {
            let here = self.system(slot);
            for colour in Colour::ALL {
                if here.is_overpopulated(colour) {
                    push(
                        Action::Catastrophe {
                            system: slot,
                            colour,
                        }
                        .into(),
                    );
                }
            }
            let own = here.ships[me];
            if own.is_empty() || self.turn_state() == TurnState::Done {
                continue;
            }
            for colour in Colour::ALL {
                if let Some(piece) = bank.smallest_of_colour(colour) {
                    push(
                        Action::Build {
                            system: slot,
                            piece,
                        }
                        .into(),
                    );
                }
            }
            for ship in own.types() {
                push(Action::Sacrifice { system: slot, ship }.into());
                for to in Piece::ALL {
                    if to.size() == ship.size() && to.colour() != ship.colour() {
                        push(
                            Action::Trade {
                                system: slot,
                                from: ship,
                                to,
                            }
                            .into(),
                        );
                    }
                }
                for to in self.occupied_slots() {
                    if to != slot {
                        push(
                            Action::Move {
                                from: slot,
                                to,
                                ship,
                            }
                            .into(),
                        );
                    }
                }
                for star in bank.types() {
                    push(
                        Action::Discover {
                            from: slot,
                            ship,
                            star,
                        }
                        .into(),
                    );
                }
            }
            for owner in 0..self.players() as Seat {
                if owner == mover {
                    continue;
                }
                for ship in here.ships[owner as usize].types() {
                    push(MultiAction::Capture {
                        system: slot,
                        ship,
                        owner,
                    });
                }
            }
        }
    }
}

/// Every homeworld creation the bank allows (the checker filters the rules).
fn for_each_setup(bank: Fleet, push: &mut impl FnMut(MultiAction)) {
    let pieces: Vec<Piece> = bank.types().collect();
    for (index, &star) in pieces.iter().enumerate() {
        for &second in &pieces[index..] {
            for &ship in &pieces {
                push(
                    Action::Homeworld {
                        star,
                        second_star: Some(second),
                        ship,
                    }
                    .into(),
                );
            }
        }
        for &ship in &pieces {
            push(
                Action::Homeworld {
                    star,
                    second_star: None,
                    ship,
                }
                .into(),
            );
        }
    }
}
