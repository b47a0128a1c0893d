//! System names, kept beside the position rather than inside it.
//!
//! Names matter to people and to notations but not to the rules, so the hot
//! [`Position`] has only slots. A [`Board`] pairs a position with a name per
//! slot and keeps the two in step: a discovery names its new slot, and a
//! system that fades loses its name.
//!
//! Unnamed systems get deterministic names, so that two programs that see the
//! same position and the same turns agree on every name: homes are `Home0`
//! and `Home1`, and other systems take the first unused entry of
//! [`DEFAULT_NAMES`] (the homeworlds-cli list), then `System22`, `System23`, ...

use super::error::{excerpt, ParseError};
use crate::rules::{Action, IllegalReason, Player, Position, Rules, Slot, HOME_SLOTS, SLOT_COUNT};

/// Names given to unnamed non-home systems, in order (from homeworlds-cli).
pub const DEFAULT_NAMES: [&str; 21] = [
    "Delos",
    "Lebling",
    "Kotok",
    "Minsky",
    "Licklider",
    "Fritz",
    "Frotz",
    "Shrdlu",
    "Lighthill",
    "Crowther",
    "Plugh",
    "Calvin",
    "Winograd",
    "Garner",
    "Weizenbaum",
    "Knuth",
    "Gibson",
    "Stuyvesant",
    "Prufrock",
    "Marlow",
    "Daisy",
];

/// The default name of a player's home.
pub fn default_home_name(player: Player) -> String {
    format!("Home{}", player.index())
}

/// One optional name per slot.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Names {
    slots: [Option<String>; SLOT_COUNT],
}

impl Names {
    /// The name of a slot, if it has one.
    pub fn get(&self, slot: Slot) -> Option<&str> {
        self.slots
            .get(slot as usize)
            .and_then(|name| name.as_deref())
    }

    /// Names a slot.
    pub fn set(&mut self, slot: Slot, name: impl Into<String>) {
        if let Some(entry) = self.slots.get_mut(slot as usize) {
            *entry = Some(name.into());
        }
    }

    /// Finds a live system by name: exact match first, then ignoring case,
    /// because SDG records capitalise names inconsistently.
    pub fn find(&self, position: &Position, name: &str) -> Option<Slot> {
        let live = |slot: &Slot| position.system(*slot).exists() || (*slot as usize) < HOME_SLOTS;
        let slots = 0..SLOT_COUNT as Slot;
        slots
            .clone()
            .filter(live)
            .find(|&slot| self.get(slot) == Some(name))
            .or_else(|| {
                slots.filter(live).find(|&slot| {
                    self.get(slot)
                        .is_some_and(|own| own.eq_ignore_ascii_case(name))
                })
            })
    }

    /// Whether a live system already uses this name.
    pub fn in_use(&self, position: &Position, name: &str) -> bool {
        (0..SLOT_COUNT as Slot).any(|slot| {
            (position.system(slot).exists() || (slot as usize) < HOME_SLOTS)
                && self
                    .get(slot)
                    .is_some_and(|own| own.eq_ignore_ascii_case(name))
        })
    }

    /// The first default name not used by a live system.
    pub fn next_default(&self, position: &Position) -> String {
        DEFAULT_NAMES
            .iter()
            .map(|name| name.to_string())
            .chain((22..).map(|number| format!("System{number}")))
            .find(|name| !self.in_use(position, name))
            .expect("an unused name always exists")
    }

    /// Drops the names of empty non-home slots and gives every unnamed live
    /// system its default name, in slot order.
    pub fn sync(&mut self, position: &Position) {
        for slot in 0..SLOT_COUNT as Slot {
            let index = slot as usize;
            if index < HOME_SLOTS {
                if self.slots[index].is_none() {
                    self.slots[index] = Some(default_home_name(Player::BOTH[index]));
                }
            } else if !position.system(slot).exists() {
                self.slots[index] = None;
            }
        }
        for slot in HOME_SLOTS as Slot..SLOT_COUNT as Slot {
            if position.system(slot).exists() && self.get(slot).is_none() {
                let name = self.next_default(position);
                self.set(slot, name);
            }
        }
    }
}

/// The longest system name accepted from text: names are echoed in every
/// `d`, `bestmove` and `pv` reply, so a runaway name must not multiply the
/// size of the engine's output.
pub const MAX_NAME_CHARS: usize = 64;

/// Whether `name` is acceptable as a system name in our notations: letters,
/// digits and `_`, as HWPN and the protocol require, and at most
/// [`MAX_NAME_CHARS`] long.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= MAX_NAME_CHARS
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A position together with its system names.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Board {
    /// The position.
    pub position: Position,
    /// A name per slot.
    pub names: Names,
}

impl Default for Board {
    fn default() -> Board {
        Board::new(Position::start())
    }
}

impl Board {
    /// A board with default names for every system.
    pub fn new(position: Position) -> Board {
        let mut names = Names::default();
        names.sync(&position);
        Board { position, names }
    }

    /// A board with the given names; unnamed systems get default names.
    pub fn with_names(position: Position, mut names: Names) -> Board {
        names.sync(&position);
        Board { position, names }
    }

    /// The name of a slot (every live slot has one after [`Names::sync`]).
    pub fn name(&self, slot: Slot) -> &str {
        self.names.get(slot).unwrap_or("?")
    }

    /// Finds a live system by name, or explains which names exist.
    pub fn slot(&self, name: &str) -> Result<Slot, ParseError> {
        self.names.find(&self.position, name).ok_or_else(|| {
            let known: Vec<String> = self
                .position
                .occupied_slots()
                .map(|slot| excerpt(self.name(slot)))
                .collect();
            ParseError::new(
                name,
                format!("expected a system name, one of: {}", known.join(", ")),
            )
        })
    }

    /// Applies a checked action, naming a discovered system `discovered`
    /// (or by default), then forgets the names of faded systems.
    ///
    /// # Errors
    /// Returns why the action is illegal; the board is then unchanged.
    pub fn apply(
        &mut self,
        rules: &Rules,
        action: Action,
        discovered: Option<&str>,
    ) -> Result<(), IllegalReason> {
        self.position.check(rules, action)?;
        let new_slot = match action {
            Action::Discover { .. } => self.position.free_slot(),
            _ => None,
        };
        let name = match (new_slot, discovered) {
            (Some(_), Some(name)) => Some(name.to_string()),
            (Some(_), None) => Some(self.names.next_default(&self.position)),
            _ => None,
        };
        self.position.apply_unchecked(rules, action);
        if let (Some(slot), Some(name)) = (new_slot, name) {
            self.names.set(slot, name);
        }
        self.names.sync(&self.position);
        Ok(())
    }

    /// Applies an action without naming anything new, for replays that name later.
    pub fn end_turn(&mut self, rules: &Rules) -> Result<crate::rules::Outcome, IllegalReason> {
        self.position.end_turn(rules)
    }
}
