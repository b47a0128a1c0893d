//! The rulebook's Second Turn Timewarp handicap ("Novice vs. Expert"):
//! after both homeworlds are built, the junior player takes some bonus
//! turns in a row, and then ordinary alternation begins.
//!
//! Who moves next is then no longer strict alternation, so it is a rule of
//! the game, kept by the rules core's [`super::History`]
//! ([`super::History::with_timewarp`]) rather than by each tool: the
//! referee, the record replay and every controller ask the history who
//! moves, and a [`super::Position`] after a turn carries the mover the
//! history gave it.
//!
//! The order, counting the turns played after setup from 0: turns
//! `0..bonus_turns` are the junior's; from turn `bonus_turns` on the players
//! alternate, starting with the player who would have moved first after
//! setup without the handicap (player 0 when player 0 created first). So
//! with the junior as player 0 and one bonus turn, player 0 plays twice in
//! a row after setup; with the junior as player 1, player 1's setup turn
//! is followed by its bonus turns, and then player 0 moves.

use std::fmt;

use super::piece::Player;

/// The most bonus turns the handicap grants.
pub const MAX_BONUS_TURNS: u8 = 3;

/// Second Turn Timewarp: `bonus_turns` extra turns for `junior` after setup.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Timewarp {
    /// The player who gets the bonus turns.
    pub junior: Player,
    /// How many (1 to [`MAX_BONUS_TURNS`]).
    pub bonus_turns: u8,
}

/// Why a timewarp cannot be set up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimewarpError {
    /// The number of bonus turns is not 1 to [`MAX_BONUS_TURNS`].
    BonusTurns(u8),
    /// The game starts after setup, where the bonus turns would have been.
    AfterSetup,
}

impl fmt::Display for TimewarpError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TimewarpError::BonusTurns(count) => write!(
                formatter,
                "expected 1 to {MAX_BONUS_TURNS} bonus turns, not {count}"
            ),
            TimewarpError::AfterSetup => write!(
                formatter,
                "the timewarp's bonus turns follow the setup, so the game must start in the setup"
            ),
        }
    }
}

impl std::error::Error for TimewarpError {}

impl Timewarp {
    /// A timewarp of `bonus_turns` for `junior`.
    ///
    /// # Errors
    /// [`TimewarpError::BonusTurns`] outside 1 to [`MAX_BONUS_TURNS`].
    pub fn new(junior: Player, bonus_turns: u8) -> Result<Timewarp, TimewarpError> {
        if !(1..=MAX_BONUS_TURNS).contains(&bonus_turns) {
            return Err(TimewarpError::BonusTurns(bonus_turns));
        }
        Ok(Timewarp {
            junior,
            bonus_turns,
        })
    }

    /// Who plays turn `index` after setup (from 0), when `ordinary_first`
    /// would have played turn 0 without the handicap.
    pub fn mover(self, index: u32, ordinary_first: Player) -> Player {
        let bonus = u32::from(self.bonus_turns);
        if index < bonus {
            self.junior
        } else if (index - bonus) % 2 == 0 {
            ordinary_first
        } else {
            ordinary_first.opponent()
        }
    }

    /// How a record's header names it: `Timewarp 2 for player 1`.
    pub fn variant(self) -> String {
        format!(
            "{TIMEWARP_VARIANT}{} for player {}",
            self.bonus_turns,
            self.junior.index()
        )
    }

    /// Reads a [`Timewarp::variant`] back: `None` when `text` is not a
    /// timewarp variant at all.
    ///
    /// # Errors
    /// A timewarp variant whose numbers are not understood, said in words.
    pub fn parse_variant(text: &str) -> Option<Result<Timewarp, String>> {
        let rest = text.strip_prefix(TIMEWARP_VARIANT)?;
        let parsed = rest.split_once(" for player ").and_then(|(count, player)| {
            let count: u8 = count.trim().parse().ok()?;
            let junior = match player.trim() {
                "0" => Player::First,
                "1" => Player::Second,
                _ => return None,
            };
            Some(Timewarp::new(junior, count).map_err(|error| error.to_string()))
        });
        Some(parsed.unwrap_or_else(|| {
            Err(format!(
                "variant \"{text}\": expected Timewarp K for player P (K 1 to {MAX_BONUS_TURNS}, P 0 or 1)"
            ))
        }))
    }
}

/// The start of the record variant that names a timewarp.
pub const TIMEWARP_VARIANT: &str = "Timewarp ";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::history::tests::{after_setup, homeworld};
    use crate::rules::{Colour, History, Position, Rules};

    /// A game under `timewarp` through setup and then `passes` passes.
    fn passes_after_setup(timewarp: Timewarp, passes: usize) -> History {
        let rules = Rules::STANDARD;
        let mut history = History::with_timewarp(Position::start(), timewarp).unwrap();
        let setup = [
            homeworld((Colour::Red, 1), (Colour::Blue, 3), (Colour::Green, 3)),
            homeworld((Colour::Yellow, 2), (Colour::Blue, 1), (Colour::Green, 3)),
        ];
        for action in setup {
            history.play(&rules, &[action]).unwrap();
        }
        for _ in 0..passes {
            history.play(&rules, &[]).unwrap();
        }
        history
    }

    #[test]
    fn the_history_gives_the_junior_the_bonus_turns() {
        let history = passes_after_setup(Timewarp::new(Player::Second, 2).unwrap(), 4);
        let movers: Vec<usize> = history.movers().iter().map(|mover| mover.index()).collect();
        assert_eq!(movers, [0, 1, 1, 1, 0, 1]);
        assert_eq!(history.position().side_to_move(), Player::First);
        // Turns 3 (player 1's last bonus turn) on alternate.
        assert_eq!(history.alternating_since(), 3);
        assert_eq!(history.turns_after_setup(), 4);
        let history = passes_after_setup(Timewarp::new(Player::First, 1).unwrap(), 3);
        let movers: Vec<usize> = history.movers().iter().map(|mover| mover.index()).collect();
        assert_eq!(movers, [0, 1, 0, 0, 1]);
        assert_eq!(history.position().side_to_move(), Player::First);
        assert_eq!(history.alternating_since(), 3);
        // Without the handicap the same turns alternate from the start.
        let mut plain = History::new(Position::start()).unwrap();
        for turn in passes_after_setup(Timewarp::new(Player::First, 1).unwrap(), 3).turns() {
            plain.play(&Rules::STANDARD, turn).unwrap();
        }
        let movers: Vec<usize> = plain.movers().iter().map(|mover| mover.index()).collect();
        assert_eq!(movers, [0, 1, 0, 1, 0]);
        assert_eq!(plain.alternating_since(), 0);
    }

    #[test]
    fn a_timewarp_needs_a_game_from_the_setup() {
        let history = after_setup(&Rules::STANDARD);
        let after_setup = *history.position();
        let error = History::with_timewarp(after_setup, Timewarp::new(Player::First, 1).unwrap());
        assert!(error.unwrap_err().contains("start in the setup"));
    }

    #[test]
    fn the_junior_moves_first_then_the_players_alternate() {
        let junior_first = Timewarp::new(Player::First, 2).unwrap();
        let movers: Vec<usize> = (0..6)
            .map(|index| junior_first.mover(index, Player::First).index())
            .collect();
        assert_eq!(movers, [0, 0, 0, 1, 0, 1]);
        let junior_second = Timewarp::new(Player::Second, 1).unwrap();
        let movers: Vec<usize> = (0..5)
            .map(|index| junior_second.mover(index, Player::First).index())
            .collect();
        assert_eq!(movers, [1, 0, 1, 0, 1]);
    }

    #[test]
    fn variants_read_back_and_bad_ones_are_refused() {
        for junior in Player::BOTH {
            for count in 1..=MAX_BONUS_TURNS {
                let timewarp = Timewarp::new(junior, count).unwrap();
                assert_eq!(
                    Timewarp::parse_variant(&timewarp.variant()),
                    Some(Ok(timewarp))
                );
            }
        }
        assert_eq!(Timewarp::parse_variant("Unrated"), None);
        for bad in [
            "Timewarp 4 for player 0",
            "Timewarp 0 for player 0",
            "Timewarp 1 for player 2",
            "Timewarp two",
        ] {
            assert!(
                matches!(Timewarp::parse_variant(bad), Some(Err(_))),
                "{bad}"
            );
        }
        assert_eq!(
            Timewarp::new(Player::First, 4),
            Err(TimewarpError::BonusTurns(4))
        );
    }
}
