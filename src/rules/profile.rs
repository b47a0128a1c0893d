//! Rule options and the named profiles that bundle them (rules.md §15).
//!
//! The sources disagree on a handful of points. Rather than hard-code one
//! reading, every difference is a field of [`Rules`], and the profiles name
//! the combinations that real records and the reference engine need:
//! `standard` (the Looney Labs rules), `sdg` (to replay SuperDuperGames
//! records) and `cli` (to compare turn counts with homeworlds-cli).

use std::fmt;
use std::str::FromStr;

/// When catastrophes may be triggered within a turn (rules.md R8.6).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CatastropheTiming {
    /// At any moment of the turn: before, between and after actions (LL).
    Anytime,
    /// Only before the first non-catastrophe step or after the last (CLI).
    Edges,
    /// Only after the turn's action or actions (GE).
    End,
}

/// What happens to a player who eliminates themselves (rules.md R11.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SelfElimination {
    /// Legal; the mover loses, or draws if both players are eliminated.
    LegalLoss,
    /// The turn is illegal.
    Illegal,
}

/// Draw by repetition (rules.md R11.5). It is judged over a game history,
/// never by the position itself, so only the game layers read it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// No repetition rule (SDG, CLI, JPB).
    Off,
    /// The player to move may claim a draw when a position occurs this many times (BGA).
    Claim(u32),
    /// The game is drawn automatically when a position occurs this many times.
    Automatic(u32),
}

/// A complete set of rule options. Build one from a profile with
/// [`Rules::profile`] or [`str::parse`]; the default is `standard`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// The profile these options came from, for display and for the protocol.
    pub name: &'static str,
    /// Setup ships may be of any size, not only Large (rules.md R3.3).
    pub any_ship_size: bool,
    /// A homeworld may be created with a single star (SDG handicap, R3.7).
    pub one_star_home: bool,
    /// A setup turn may be passed while neither homeworld exists (SDG,
    /// R3.7): the other player then creates first, and the order of play
    /// follows, so the player who created first also moves first. Seats do
    /// not change: a player's home stays in their own home slot. Accepted
    /// when played, so that SDG's records replay; the turn enumerator offers
    /// only creations at setup, so turn counts are those of the rules proper.
    pub setup_pass: bool,
    /// When catastrophes may happen within a turn.
    pub catastrophe_timing: CatastropheTiming,
    /// A homeworld with no ships of either player disappears at once (CLI, R9.2).
    pub home_vanishes_when_empty: bool,
    /// Whether eliminating yourself is a legal (losing) turn.
    pub self_elimination: SelfElimination,
    /// Reject a win that leaves a fatal overpopulation at the mover's home (CLI only, R8.7).
    pub fatal_overpopulation_blocks_win: bool,
    /// Draw by repetition, applied by the game layers.
    pub repetition: Repetition,
    /// A turn limit after which the game is adjudicated a draw, for self-play.
    pub max_turns: Option<u32>,
}

impl Rules {
    /// The Looney Labs rules: rules.md's default (LL) column.
    pub const STANDARD: Rules = Rules {
        name: "standard",
        any_ship_size: false,
        one_star_home: false,
        setup_pass: false,
        catastrophe_timing: CatastropheTiming::Anytime,
        home_vanishes_when_empty: false,
        self_elimination: SelfElimination::LegalLoss,
        fatal_overpopulation_blocks_win: false,
        repetition: Repetition::Claim(3),
        max_turns: None,
    };

    /// What SuperDuperGames.org enforced, for replaying its records.
    pub const SDG: Rules = Rules {
        name: "sdg",
        any_ship_size: true,
        one_star_home: true,
        setup_pass: true,
        catastrophe_timing: CatastropheTiming::Anytime,
        home_vanishes_when_empty: false,
        self_elimination: SelfElimination::LegalLoss,
        fatal_overpopulation_blocks_win: false,
        repetition: Repetition::Off,
        max_turns: None,
    };

    /// The homeworlds-cli reference engine, for comparing turn counts.
    pub const CLI: Rules = Rules {
        name: "cli",
        any_ship_size: true,
        one_star_home: false,
        setup_pass: false,
        catastrophe_timing: CatastropheTiming::Edges,
        home_vanishes_when_empty: true,
        self_elimination: SelfElimination::Illegal,
        fatal_overpopulation_blocks_win: true,
        repetition: Repetition::Off,
        max_turns: None,
    };

    /// Every named profile, for listings and error messages.
    pub const PROFILES: [Rules; 3] = [Rules::STANDARD, Rules::SDG, Rules::CLI];

    /// Looks a profile up by name.
    pub fn profile(name: &str) -> Option<Rules> {
        Rules::PROFILES
            .into_iter()
            .find(|rules| rules.name.eq_ignore_ascii_case(name))
    }
}

impl Default for Rules {
    fn default() -> Rules {
        Rules::STANDARD
    }
}

impl fmt::Display for Rules {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.name)
    }
}

/// The error for an unknown profile name; it lists the known ones.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownRules(pub String);

impl fmt::Display for UnknownRules {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = Rules::PROFILES.iter().map(|rules| rules.name).collect();
        write!(
            formatter,
            "unknown rules '{}': expected one of {}",
            self.0,
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownRules {}

impl FromStr for Rules {
    type Err = UnknownRules;

    fn from_str(text: &str) -> Result<Rules, UnknownRules> {
        Rules::profile(text).ok_or_else(|| UnknownRules(text.to_string()))
    }
}
