//! Homeworlds for three to six players: the position, its turns,
//! elimination and the three victory conditions.
//!
//! # Why a second position type
//! The two-player [`Position`](super::Position) is a 128-byte `Copy` value
//! with 2-bit piece counts, two fleets per system and an incremental hash:
//! the search's speed rests on that packing, and `tests/bench.rs` pins its
//! signature. A core generic over the number of players would have to widen
//! every count (a six-player game has seven copies of each piece, which do
//! not fit in 2 bits) and carry up to six fleets per system, so the
//! two-player position would grow and slow down. The multi-player game is
//! therefore a second, plainer position type, [`MultiPosition`], which owns
//! a `Vec` of systems with 4-bit counts ([`Fleet`]) and computes its hash
//! from scratch. What the two share is everything that is a rule rather
//! than a layout: the pieces, the [`Action`] type, and the legality of each
//! action ([`super::legality`], one implementation called by both checkers),
//! the turn-state transitions and the fade rule. A [`MultiPosition`] with
//! two players plays exactly the two-player game (`tests/multi.rs` checks
//! that against [`Position`](super::Position) over random games).
//!
//! # The rules added for more players
//! Each rule below is written down with its source in `positions/README.md`
//! ("Multi-player rules"); in short:
//! - The bank has one trio of each colour per extra player: `players + 1`
//!   copies of each piece (LL "Additional players"; the SDG records).
//! - Seats `0..players` take turns in order (SDG's N, E, S, W), skipping
//!   players who are out. Each creates a homeworld on their first turn.
//! - At the end of every turn each player still in the game whose
//!   homeworld is gone or holds none of their ships is eliminated and leaves
//!   the turn order; their ships stay on the board (LL, GE). A resignation
//!   ([`MultiPosition::resign`]) removes a player the same way.
//! - [`Victory`] decides the winner: the last player standing, the Sinister
//!   rule (eliminate the next player in turn order), or Good versus Evil.

mod fleet;
mod generate;

pub use fleet::{Fleet, MultiSystem, Seats};
pub use generate::MultiActionList;

use std::fmt;

use super::legality::{self, InPlay, PieceCounts};
use super::piece::{Colour, Piece};
use super::position::{mix, Action, IllegalReason, Slot, TurnState};
use super::profile::{Rules, SelfElimination};

/// A seat: 0 takes the first turn, then 1, 2, ... (SDG's N, E, S, W).
pub type Seat = u8;

/// The fewest players a [`MultiPosition`] takes: two plays the plain game
/// (useful to check it against the two-player position).
pub const MIN_PLAYERS: usize = 2;
/// The most players: the Good-versus-Evil rules name six.
pub const MAX_PLAYERS: usize = 6;
/// The most systems at once. The bank of six players holds 84 pieces; every
/// system needs two (a star and a ship), so 42 always suffice.
pub const MAX_SYSTEMS: usize = 48;

/// How a multi-player game is won (LL "Additional players"; SDG variants;
/// seed 001), as the `Victory` option and `--victory` name them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Victory {
    /// The last player with a homeworld wins (SDG's default).
    LastManStanding,
    /// A player wins by eliminating their target, the next player still in
    /// the game in turn order (SDG's `Sinister`, formerly `Left man down`).
    Sinister,
    /// Secret alignments (seed 001): an Evil player wins by eliminating
    /// anyone; the Good players still in the game share the win when no Evil
    /// player is left.
    GoodVersusEvil {
        /// The Evil seats.
        evil: Seats,
    },
}

impl Victory {
    /// The option's name, as `--victory` and the position text spell it.
    pub fn word(self) -> &'static str {
        match self {
            Victory::LastManStanding => "last",
            Victory::Sinister => "sinister",
            Victory::GoodVersusEvil { .. } => "good-evil",
        }
    }

    /// The victory condition a name spells ([`Victory::word`] backwards):
    /// `last`, `sinister` or `good-evil`. Good versus Evil comes with no
    /// Evil seats; the caller deals or reads them. Every command line,
    /// option and position text reads the name here, so they all accept and
    /// refuse the same words.
    ///
    /// # Errors
    /// Any other word, with the three names in the message.
    pub fn from_word(word: &str) -> Result<Victory, String> {
        match word {
            "last" => Ok(Victory::LastManStanding),
            "sinister" => Ok(Victory::Sinister),
            "good-evil" => Ok(Victory::GoodVersusEvil { evil: Seats::EMPTY }),
            other => Err(format!(
                "unknown victory {other:?}: expected last, sinister or good-evil"
            )),
        }
    }
}

/// The result of a multi-player game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MultiOutcome {
    /// The game goes on.
    Ongoing,
    /// These seats won (more than one only for Good versus Evil).
    Win(Seats),
    /// Every remaining player was eliminated in the same turn.
    Draw,
}

/// One step of a multi-player turn: a two-player [`Action`], except that a
/// capture names whose ship it takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MultiAction {
    /// Any action but a capture, with the same meaning as in the
    /// two-player game. `Action::Capture` here is illegal: it does not say
    /// whose ship it takes.
    Plain(Action),
    /// Red: take `owner`'s `ship` in `system` (§6.4).
    Capture {
        /// Where.
        system: Slot,
        /// The ship taken.
        ship: Piece,
        /// Its owner.
        owner: Seat,
    },
}

impl MultiAction {
    /// The two-player action with the owner dropped: what the shared
    /// legality code and the notation see.
    pub fn action(self) -> Action {
        match self {
            MultiAction::Plain(action) => action,
            MultiAction::Capture { system, ship, .. } => Action::Capture { system, ship },
        }
    }
}

impl From<Action> for MultiAction {
    fn from(action: Action) -> MultiAction {
        MultiAction::Plain(action)
    }
}

/// A multi-player position: the map, whose turn it is, who is out, and the
/// result once the game is decided. See the module docs for why it is a
/// type of its own.
///
/// Slot `s < players` is seat `s`'s homeworld; higher slots hold the other
/// systems in no particular order. Equality and [`MultiPosition::hash`]
/// ignore that order (the non-home systems form a multiset), like the
/// two-player position's.
#[derive(Clone, Debug)]
pub struct MultiPosition {
    players: u8,
    victory: Victory,
    systems: Vec<MultiSystem>,
    created: Seats,
    out: Seats,
    resigned: Seats,
    side_to_move: Seat,
    turn_state: TurnState,
    outcome: MultiOutcome,
    decided_by_resignation: bool,
}

/// Why a multi-player position cannot be built from its parts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MultiSetupError(pub String);

impl fmt::Display for MultiSetupError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(&self.0)
    }
}

impl std::error::Error for MultiSetupError {}

/// Why a resignation or a skipped turn cannot be applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatError {
    /// The seat is not in the game.
    NoSuchSeat,
    /// The player is already out.
    AlreadyOut,
    /// A turn is in progress: resignations come between turns.
    MidTurn,
    /// The game is over.
    GameOver,
}

impl fmt::Display for SeatError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            SeatError::NoSuchSeat => "no player sits there",
            SeatError::AlreadyOut => "that player is already out of the game",
            SeatError::MidTurn => "a resignation must come between turns",
            SeatError::GameOver => "the game is over",
        })
    }
}

impl std::error::Error for SeatError {}

/// The multi-player position as [`legality::check_in_play`] reads it, for
/// `mover`, with the seat a capture targets (none for other actions, or a
/// seat that cannot be captured from) and the bank already worked out.
struct MultiView<'a> {
    position: &'a MultiPosition,
    mover: Seat,
    target: Option<Seat>,
    bank: Fleet,
}

impl InPlay for MultiView<'_> {
    type System = MultiSystem;
    type Fleet = Fleet;
    type Bank = Fleet;

    #[inline]
    fn system(&self, slot: Slot) -> Option<MultiSystem> {
        Some(self.position.system(slot)).filter(MultiSystem::exists)
    }

    #[inline]
    fn own(&self, system: &MultiSystem) -> Fleet {
        system.ships[self.mover as usize]
    }

    #[inline]
    fn enemy(&self, system: &MultiSystem) -> Fleet {
        self.target
            .map_or(Fleet::EMPTY, |owner| system.ships[owner as usize])
    }

    #[inline]
    fn is_overpopulated(&self, system: &MultiSystem, colour: Colour) -> bool {
        system.is_overpopulated(colour)
    }

    #[inline]
    fn access(&self, system: &MultiSystem) -> u8 {
        system.access(self.mover)
    }

    #[inline]
    fn star_sizes(&self, system: &MultiSystem) -> u8 {
        system.stars.size_mask()
    }

    #[inline]
    fn bank(&self) -> Fleet {
        self.bank
    }

    #[inline]
    fn has_free_slot(&self) -> bool {
        self.position.free_slot().is_some()
    }
}

/// The parts of a [`MultiPosition`], for the text parser and tests.
#[derive(Clone, Debug)]
pub struct MultiParts {
    /// Number of players.
    pub players: usize,
    /// The victory condition.
    pub victory: Victory,
    /// Each seat's home: `None` when not created or destroyed (see `created`).
    pub homes: Vec<Option<MultiSystem>>,
    /// Which seats have created a home.
    pub created: Seats,
    /// Which seats are out of the game (eliminated or resigned).
    pub out: Seats,
    /// Which of those resigned.
    pub resigned: Seats,
    /// The other systems.
    pub others: Vec<MultiSystem>,
    /// Whose turn it is.
    pub side_to_move: Seat,
    /// The turn in progress.
    pub turn_state: TurnState,
    /// The result, for a finished game.
    pub outcome: MultiOutcome,
    /// Whether that result came from a resignation.
    pub decided_by_resignation: bool,
}

const HOME_SALT: u64 = 0x243F_6A88_85A3_08D3;
const OTHER_SALT: u64 = 0xA409_3822_299F_31D0;
const META_SALT: u64 = 0x082E_FA98_EC4E_6C89;

fn system_hash(system: &MultiSystem, salt: u64) -> u64 {
    let mut hash = mix(system.stars.0 ^ salt);
    for fleet in system.ships {
        hash = mix(hash ^ fleet.0);
    }
    hash
}

fn encode_state(state: TurnState) -> u64 {
    match state {
        TurnState::Start => 0,
        TurnState::Done => 1,
        TurnState::Sacrifice { colour, remaining } => {
            2 | (colour.index() as u64) << 2 | (remaining as u64) << 4
        }
    }
}

impl MultiPosition {
    /// The empty map before any homeworld, seat 0 to move.
    ///
    /// # Errors
    /// A player count outside 2..=6, or Evil seats that do not exist.
    pub fn start(players: usize, victory: Victory) -> Result<MultiPosition, MultiSetupError> {
        if !(MIN_PLAYERS..=MAX_PLAYERS).contains(&players) {
            return Err(MultiSetupError(format!(
                "expected {MIN_PLAYERS} to {MAX_PLAYERS} players, not {players}"
            )));
        }
        if let Victory::GoodVersusEvil { evil } = victory {
            if !evil.without(Seats::first(players)).is_empty() {
                return Err(MultiSetupError(
                    "an Evil seat is not a player of this game".into(),
                ));
            }
        }
        Ok(MultiPosition {
            players: players as u8,
            victory,
            systems: vec![MultiSystem::default(); players],
            created: Seats::EMPTY,
            out: Seats::EMPTY,
            resigned: Seats::EMPTY,
            side_to_move: 0,
            turn_state: TurnState::Start,
            outcome: MultiOutcome::Ongoing,
            decided_by_resignation: false,
        })
    }

    /// Builds a position from its parts, checking the piece supply and the
    /// shape of each system.
    ///
    /// # Errors
    /// Says what is wrong.
    pub fn from_parts(parts: MultiParts) -> Result<MultiPosition, MultiSetupError> {
        let mut position = MultiPosition::start(parts.players, parts.victory)?;
        let error = |text: &str| Err(MultiSetupError(text.to_string()));
        if parts.homes.len() != parts.players {
            return error("expected one home slot per player");
        }
        let everyone = Seats::first(parts.players);
        for seats in [parts.created, parts.out, parts.resigned] {
            if !seats.without(everyone).is_empty() {
                return error("a seat is not a player of this game");
            }
        }
        if !parts.resigned.without(parts.out).is_empty() {
            return error("a resigned player must be out");
        }
        if parts.side_to_move as usize >= parts.players {
            return error("the side to move is not a player of this game");
        }
        for (seat, home) in parts.homes.iter().enumerate() {
            if let Some(home) = home {
                if !parts.created.contains(seat as Seat) {
                    return error("a home exists for a player who has not created one");
                }
                if home.stars.is_empty() || home.stars.len() > 2 {
                    return error("a homeworld has one or two stars");
                }
                position.systems[seat] = *home;
            }
        }
        for system in &parts.others {
            if system.stars.len() != 1 {
                return error("a non-home system has exactly one star");
            }
            if system.all_ships().is_empty() {
                return error("a non-home system has at least one ship");
            }
            position.systems.push(*system);
        }
        if position.systems.len() > MAX_SYSTEMS {
            return error("too many systems");
        }
        if position
            .systems
            .iter()
            .any(|system| system.ships[parts.players..].iter().any(|f| !f.is_empty()))
        {
            return error("a ship belongs to a seat that is not in the game");
        }
        let used = position.used();
        let full = Fleet::full(position.copies());
        if Piece::ALL
            .iter()
            .any(|&piece| used.count(piece) > full.count(piece))
        {
            return error("more copies of a piece than the game has");
        }
        position.created = parts.created;
        position.out = parts.out;
        position.resigned = parts.resigned;
        position.side_to_move = parts.side_to_move;
        position.turn_state = parts.turn_state;
        position.outcome = parts.outcome;
        position.decided_by_resignation = parts.decided_by_resignation;
        if position.out.contains(position.side_to_move) && position.outcome == MultiOutcome::Ongoing
        {
            return error("the side to move is out of the game");
        }
        Ok(position)
    }

    /// The parts, for the text writer.
    pub fn parts(&self) -> MultiParts {
        MultiParts {
            players: self.players as usize,
            victory: self.victory,
            homes: (0..self.players as usize)
                .map(|seat| Some(self.systems[seat]).filter(MultiSystem::exists))
                .collect(),
            created: self.created,
            out: self.out,
            resigned: self.resigned,
            others: self.systems[self.players as usize..]
                .iter()
                .copied()
                .filter(MultiSystem::exists)
                .collect(),
            side_to_move: self.side_to_move,
            turn_state: self.turn_state,
            outcome: self.outcome,
            decided_by_resignation: self.decided_by_resignation,
        }
    }

    /// The number of players.
    pub fn players(&self) -> usize {
        self.players as usize
    }

    /// The victory condition.
    pub fn victory(&self) -> Victory {
        self.victory
    }

    /// Copies of each piece in the game: three, plus one per player beyond
    /// two (LL "Additional players"; 4 with three players, 5 with four).
    pub fn copies(&self) -> u8 {
        self.players + 1
    }

    /// Whose turn it is.
    pub fn side_to_move(&self) -> Seat {
        self.side_to_move
    }

    /// The turn in progress.
    pub fn turn_state(&self) -> TurnState {
        self.turn_state
    }

    /// Seats that have created a homeworld (it may since be gone).
    pub fn created(&self) -> Seats {
        self.created
    }

    /// Seats out of the game: eliminated or resigned.
    pub fn out(&self) -> Seats {
        self.out
    }

    /// Seats that resigned.
    pub fn resigned(&self) -> Seats {
        self.resigned
    }

    /// Seats still in the game.
    pub fn in_game(&self) -> Seats {
        Seats::first(self.players as usize).without(self.out)
    }

    /// The result so far.
    pub fn outcome(&self) -> MultiOutcome {
        self.outcome
    }

    /// Whether the result came from a resignation rather than the board.
    pub fn decided_by_resignation(&self) -> bool {
        self.decided_by_resignation
    }

    /// The number of slots (some may be empty).
    pub fn slot_count(&self) -> usize {
        self.systems.len()
    }

    /// The system in `slot`; an empty one for an unused or unknown slot.
    pub fn system(&self, slot: Slot) -> MultiSystem {
        self.systems.get(slot as usize).copied().unwrap_or_default()
    }

    /// Slots holding a system, homes first.
    pub fn occupied_slots(&self) -> impl Iterator<Item = Slot> + '_ {
        (0..self.systems.len() as Slot).filter(|&slot| self.system(slot).exists())
    }

    /// Whether `slot` is a home slot.
    pub fn is_home(&self, slot: Slot) -> bool {
        (slot as usize) < self.players as usize
    }

    /// Where the next discovery goes: the first free non-home slot.
    pub fn free_slot(&self) -> Option<Slot> {
        let first = self.players as usize;
        (first..self.systems.len())
            .find(|&slot| !self.systems[slot].exists())
            .or_else(|| (self.systems.len() < MAX_SYSTEMS).then_some(self.systems.len()))
            .map(|slot| slot as Slot)
    }

    fn used(&self) -> Fleet {
        self.systems
            .iter()
            .fold(Fleet::EMPTY, |used, system| used.plus(system.pieces()))
    }

    /// The bank: every copy of the game not on the map (R1.2).
    pub fn bank(&self) -> Fleet {
        Fleet::full(self.copies()).minus(self.used())
    }

    /// Whether `seat`'s homeworld exists and holds one of their ships.
    pub fn has_home_ship(&self, seat: Seat) -> bool {
        let home = self.system(seat);
        home.exists() && !home.ships[seat as usize].is_empty()
    }

    /// The next seat in turn order after `seat` that is still in the game
    /// (not `seat` itself): the Sinister target.
    pub fn next_in_game(&self, seat: Seat) -> Option<Seat> {
        (1..self.players)
            .map(|step| (seat + step) % self.players)
            .find(|&other| !self.out.contains(other))
    }

    /// A hash of the position; equal positions hash equally.
    pub fn hash(&self) -> u64 {
        let mut hash = mix(META_SALT
            ^ self.players as u64
            ^ (self.side_to_move as u64) << 4
            ^ (self.created.0 as u64) << 8
            ^ (self.out.0 as u64) << 16
            ^ (self.resigned.0 as u64) << 24
            ^ encode_state(self.turn_state) << 32
            ^ (self.decided_by_resignation as u64) << 40);
        hash = mix(hash ^ outcome_key(self.outcome) ^ victory_key(self.victory));
        for (slot, system) in self.systems.iter().enumerate() {
            if (slot as u8) < self.players {
                hash = hash.wrapping_add(system_hash(system, HOME_SALT ^ slot as u64));
            } else if system.exists() {
                hash = hash.wrapping_add(system_hash(system, OTHER_SALT));
            }
        }
        hash
    }

    // ----- checking and applying actions ---------------------------------

    /// Checks one action against the rules without applying it.
    ///
    /// # Errors
    /// Why the action is illegal.
    pub fn check(&self, rules: &Rules, action: MultiAction) -> Result<(), IllegalReason> {
        self.check_with_bank(rules, action, self.bank())
    }

    /// [`MultiPosition::check`] with the bank already worked out, for the
    /// generator, which checks many candidates against one bank.
    pub(crate) fn check_with_bank(
        &self,
        rules: &Rules,
        action: MultiAction,
        bank: Fleet,
    ) -> Result<(), IllegalReason> {
        if self.outcome != MultiOutcome::Ongoing {
            return Err(IllegalReason::GameOver);
        }
        let mover = self.side_to_move;
        let state = self.turn_state;
        let plain = action.action();
        if let Action::Homeworld {
            star,
            second_star,
            ship,
        } = plain
        {
            if self.created.contains(mover) {
                return Err(IllegalReason::HomeworldOutsideSetup);
            }
            if state != TurnState::Start {
                return Err(IllegalReason::TurnCoreUsed);
            }
            return legality::check_homeworld(rules, star, second_star, ship, bank);
        }
        if !self.created.contains(mover) {
            if plain != Action::Pass || !rules.setup_pass {
                return Err(IllegalReason::SetupNeedsHomeworld);
            }
            if !self.created.is_empty() {
                return Err(IllegalReason::SetupPassAfterHomeworld);
            }
            return legality::check_pass(state);
        }
        let target = match action {
            MultiAction::Capture { owner, .. }
                if owner != mover && (owner as usize) < self.players as usize =>
            {
                Some(owner)
            }
            _ => None,
        };
        legality::check_in_play(
            &MultiView {
                position: self,
                mover,
                target,
                bank,
            },
            rules,
            state,
            plain,
        )
    }

    /// Checks and applies one action.
    ///
    /// # Errors
    /// Why it is illegal; the position is then unchanged.
    pub fn try_apply(&mut self, rules: &Rules, action: MultiAction) -> Result<(), IllegalReason> {
        self.check(rules, action)?;
        self.apply_unchecked(rules, action);
        Ok(())
    }

    /// Applies the fade rules (R9) to a slot after a change. The home of a
    /// player out of the game is an ordinary system: it fades when no ship
    /// is left there (SDG, game 13860 turn 86; BGA does the same).
    fn settle(&mut self, rules: &Rules, slot: Slot) {
        let is_home = self.is_home(slot) && !self.out.contains(slot);
        let system = &mut self.systems[slot as usize];
        let has_ships = !system.all_ships().is_empty();
        if legality::fades(rules, is_home, system.exists(), has_ships) {
            *system = MultiSystem::default();
        }
    }

    /// Applies an action the caller knows to be legal (from
    /// [`MultiPosition::check`] or the generator).
    pub fn apply_unchecked(&mut self, rules: &Rules, action: MultiAction) {
        let me = self.side_to_move as usize;
        let state = self.turn_state;
        let next = match action {
            MultiAction::Capture {
                system,
                ship,
                owner,
            } => {
                let here = &mut self.systems[system as usize];
                here.ships[owner as usize].remove(ship);
                here.ships[me].add(ship);
                legality::state_after_colour_action(state)
            }
            MultiAction::Plain(plain) => match plain {
                Action::Homeworld {
                    star,
                    second_star,
                    ship,
                } => {
                    let home = &mut self.systems[me];
                    home.stars.add(star);
                    if let Some(second) = second_star {
                        home.stars.add(second);
                    }
                    home.ships[me].add(ship);
                    self.created.insert(me as Seat);
                    TurnState::Done
                }
                Action::Pass => legality::state_after_pass(state),
                Action::Catastrophe { system, colour } => {
                    let here = &mut self.systems[system as usize];
                    here.stars = here.stars.without_colour(colour);
                    for fleet in &mut here.ships {
                        *fleet = fleet.without_colour(colour);
                    }
                    self.settle(rules, system);
                    legality::state_after_catastrophe(rules, state)
                }
                Action::Sacrifice { system, ship } => {
                    self.systems[system as usize].ships[me].remove(ship);
                    self.settle(rules, system);
                    TurnState::Sacrifice {
                        colour: ship.colour(),
                        remaining: ship.size(),
                    }
                }
                Action::Build { system, piece } => {
                    self.systems[system as usize].ships[me].add(piece);
                    legality::state_after_colour_action(state)
                }
                Action::Trade { system, from, to } => {
                    let fleet = &mut self.systems[system as usize].ships[me];
                    fleet.remove(from);
                    fleet.add(to);
                    legality::state_after_colour_action(state)
                }
                Action::Move { from, to, ship } => {
                    self.systems[from as usize].ships[me].remove(ship);
                    self.systems[to as usize].ships[me].add(ship);
                    self.settle(rules, from);
                    legality::state_after_colour_action(state)
                }
                Action::Discover { from, ship, star } => {
                    // The star is taken before the ship leaves (§6.3).
                    if let Some(slot) = self.free_slot() {
                        if slot as usize == self.systems.len() {
                            self.systems.push(MultiSystem::default());
                        }
                        let mut system = MultiSystem::default();
                        system.stars.add(star);
                        system.ships[me].add(ship);
                        self.systems[slot as usize] = system;
                        self.systems[from as usize].ships[me].remove(ship);
                        self.settle(rules, from);
                    }
                    legality::state_after_colour_action(state)
                }
                Action::Capture { .. } => state,
            },
        };
        self.turn_state = legality::settle_state(next);
    }

    /// Ends the turn: eliminates every player in the game without a ship at
    /// home (R11.1 for each player), judges the victory condition, and
    /// hands the turn to the next player in the game. Ending at the start of
    /// a turn is a pass, except in the mover's setup turn.
    ///
    /// # Errors
    /// The setup turn has no homeworld, or the rules forbid the mover's
    /// self-elimination; the position is then unchanged.
    pub fn end_turn(&mut self, rules: &Rules) -> Result<MultiOutcome, IllegalReason> {
        if self.outcome != MultiOutcome::Ongoing {
            return Err(IllegalReason::GameOver);
        }
        let mover = self.side_to_move;
        if !self.created.contains(mover) {
            let setup_pass =
                rules.setup_pass && self.created.is_empty() && self.turn_state == TurnState::Done;
            if !setup_pass {
                return Err(IllegalReason::SetupIncomplete);
            }
        }
        let eliminated = Seats(
            self.in_game()
                .and(self.created)
                .iter()
                .filter(|&seat| !self.has_home_ship(seat))
                .fold(0, |bits, seat| bits | 1 << seat),
        );
        if eliminated.contains(mover) && rules.self_elimination == SelfElimination::Illegal {
            return Err(IllegalReason::SelfElimination);
        }
        let target = self.next_in_game(mover);
        self.out = Seats(self.out.0 | eliminated.0);
        for seat in eliminated.iter() {
            self.settle(rules, seat);
        }
        self.turn_state = TurnState::Start;
        self.outcome = self.judge(mover, target, eliminated);
        if self.outcome == MultiOutcome::Ongoing {
            self.side_to_move = self.next_in_game(mover).unwrap_or(mover);
        }
        Ok(self.outcome)
    }

    /// The victory condition after `mover`'s turn eliminated `eliminated`
    /// (`target` was the mover's Sinister target before it).
    fn judge(&self, mover: Seat, target: Option<Seat>, eliminated: Seats) -> MultiOutcome {
        let survivors = self.in_game();
        let mover_survives = !eliminated.contains(mover);
        match self.victory {
            Victory::LastManStanding => {}
            Victory::Sinister => {
                if mover_survives && target.is_some_and(|target| eliminated.contains(target)) {
                    return MultiOutcome::Win(Seats(1 << mover));
                }
            }
            Victory::GoodVersusEvil { evil } => {
                let others = Seats(eliminated.0 & !(1 << mover));
                if evil.contains(mover) && mover_survives && !others.is_empty() {
                    return MultiOutcome::Win(Seats(1 << mover));
                }
            }
        }
        self.standing(survivors)
    }

    /// The result when nobody won by the Sinister or Evil rule: decided
    /// once one player is left, or none, or (Good versus Evil) one side.
    fn standing(&self, survivors: Seats) -> MultiOutcome {
        if survivors.is_empty() {
            return MultiOutcome::Draw;
        }
        if let Victory::GoodVersusEvil { evil } = self.victory {
            if survivors.and(evil).is_empty() || survivors.without(evil).is_empty() {
                return MultiOutcome::Win(survivors);
            }
            return MultiOutcome::Ongoing;
        }
        if survivors.len() == 1 {
            MultiOutcome::Win(survivors)
        } else {
            MultiOutcome::Ongoing
        }
    }

    /// `seat` resigns between turns: they leave the turn order and their
    /// ships stay on the board (SDG's `SYSTEM: X resigns.`). A result it
    /// leaves (one player standing, or one side in Good versus Evil) counts
    /// as decided by resignation, not on the board.
    ///
    /// # Errors
    /// An unknown seat, a player already out, a turn in progress, or a
    /// finished game; the position is then unchanged.
    pub fn resign(&mut self, seat: Seat) -> Result<MultiOutcome, SeatError> {
        self.check_seat_between_turns(seat)?;
        self.out.insert(seat);
        self.resigned.insert(seat);
        self.outcome = self.standing(self.in_game());
        // The resigning player's home stays while ships are there.
        if self.outcome != MultiOutcome::Ongoing {
            self.decided_by_resignation = true;
        } else if self.side_to_move == seat {
            self.side_to_move = self.next_in_game(seat).unwrap_or(seat);
        }
        Ok(self.outcome)
    }

    /// Whether `seat` may leave the game or be given the turn now: a seat
    /// of this game, still in it, between turns of a game not over. What
    /// [`MultiPosition::resign`] and [`MultiPosition::skip_to`] both ask.
    fn check_seat_between_turns(&self, seat: Seat) -> Result<(), SeatError> {
        if seat >= self.players {
            return Err(SeatError::NoSuchSeat);
        }
        if self.outcome != MultiOutcome::Ongoing {
            return Err(SeatError::GameOver);
        }
        if self.out.contains(seat) {
            return Err(SeatError::AlreadyOut);
        }
        if self.turn_state != TurnState::Start {
            return Err(SeatError::MidTurn);
        }
        Ok(())
    }

    /// Gives the turn to `seat` between turns, skipping the players in
    /// between. SDG's turn order after an elimination or resignation was
    /// faulty (players said so in the records), so a replay follows the
    /// record's movers; see `positions/README.md`. A skipped player in
    /// `leaving` left the game there (a resignation or time-out the record
    /// does not print); any other skipped player loses the turn, as if they
    /// passed.
    ///
    /// # Errors
    /// An unknown seat, a player out of the game, a turn in progress, or a
    /// finished game; the position is then unchanged.
    pub fn skip_to(&mut self, seat: Seat, leaving: Seats) -> Result<MultiOutcome, SeatError> {
        self.check_seat_between_turns(seat)?;
        while self.side_to_move != seat {
            let skipped = self.side_to_move;
            if leaving.contains(skipped) {
                self.out.insert(skipped);
                self.resigned.insert(skipped);
            }
            self.side_to_move = (skipped + 1) % self.players;
            while self.out.contains(self.side_to_move) && self.side_to_move != seat {
                self.side_to_move = (self.side_to_move + 1) % self.players;
            }
        }
        self.outcome = self.standing(self.in_game());
        if self.outcome != MultiOutcome::Ongoing {
            self.decided_by_resignation = true;
        }
        Ok(self.outcome)
    }

    /// The canonical order of the non-home systems, for equality.
    fn sorted_others(&self) -> Vec<MultiSystem> {
        let mut others: Vec<MultiSystem> = self.systems[self.players as usize..]
            .iter()
            .copied()
            .filter(MultiSystem::exists)
            .collect();
        others.sort_unstable();
        others
    }
}

fn outcome_key(outcome: MultiOutcome) -> u64 {
    match outcome {
        MultiOutcome::Ongoing => 0,
        MultiOutcome::Draw => 1,
        MultiOutcome::Win(seats) => 2 | (seats.0 as u64) << 2,
    }
}

fn victory_key(victory: Victory) -> u64 {
    match victory {
        Victory::LastManStanding => 0,
        Victory::Sinister => 1 << 48,
        Victory::GoodVersusEvil { evil } => (2 | (evil.0 as u64) << 2) << 48,
    }
}

impl PartialEq for MultiPosition {
    /// Equal when everything but the order of non-home slots agrees.
    fn eq(&self, other: &MultiPosition) -> bool {
        self.players == other.players
            && self.victory == other.victory
            && self.created == other.created
            && self.out == other.out
            && self.resigned == other.resigned
            && self.side_to_move == other.side_to_move
            && self.turn_state == other.turn_state
            && self.outcome == other.outcome
            && self.decided_by_resignation == other.decided_by_resignation
            && self.systems[..self.players as usize] == other.systems[..other.players as usize]
            && self.sorted_others() == other.sorted_others()
    }
}

impl Eq for MultiPosition {}
