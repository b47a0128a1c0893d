//! The named playing levels a person chooses from, in `supernova play
//! --level NAME` and on the GUI's Play page: each is one row of the
//! calibration table ([`crate::engine::strength::LEVELS`],
//! benches/README.md "Playing strength") under a rank's name, or the full
//! engine.
//!
//! A level is given to an engine through the protocol only, as the two
//! options any engine with calibrated strength has (`UCI_LimitStrength`
//! and `UCI_Elo`, [`NamedLevel::option_lines`]), so the GUI plays any such
//! engine at the same level names.

use crate::engine::strength::LEVELS;

/// One level a person may choose.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NamedLevel {
    /// Its name, as typed (`--level cadet`) and shown.
    pub name: &'static str,
    /// The calibrated `UCI_Elo`, or `None` for the full engine (no limit).
    pub elo: Option<i64>,
}

/// The levels, weakest first: the calibration table's rows, then the full
/// engine. Their Elo values are the table's, so a test keeps them equal.
pub const NAMED_LEVELS: [NamedLevel; 7] = [
    NamedLevel {
        name: "cadet",
        elo: Some(LEVELS[0].elo),
    },
    NamedLevel {
        name: "ensign",
        elo: Some(LEVELS[1].elo),
    },
    NamedLevel {
        name: "lieutenant",
        elo: Some(LEVELS[2].elo),
    },
    NamedLevel {
        name: "commander",
        elo: Some(LEVELS[3].elo),
    },
    NamedLevel {
        name: "captain",
        elo: Some(LEVELS[4].elo),
    },
    NamedLevel {
        name: "admiral",
        elo: Some(LEVELS[5].elo),
    },
    NamedLevel {
        name: "full",
        elo: None,
    },
];

/// The level of a new game: the middle of the list, not full strength.
pub const DEFAULT_LEVEL: NamedLevel = NAMED_LEVELS[3];

impl NamedLevel {
    /// The level called `name` (in any case).
    ///
    /// # Errors
    /// Names every level when none is called so.
    pub fn find(name: &str) -> Result<NamedLevel, String> {
        NAMED_LEVELS
            .into_iter()
            .find(|level| level.name.eq_ignore_ascii_case(name.trim()))
            .ok_or_else(|| format!("unknown level '{name}': expected one of {}", level_list()))
    }

    /// The level in words, for messages and the page: `commander (Elo 1680)`.
    pub fn text(self) -> String {
        match self.elo {
            Some(elo) => format!("{} (Elo {elo})", self.name),
            None => format!("{} (full strength)", self.name),
        }
    }

    /// The options, name and value, that set an engine to this level.
    pub fn options(self) -> Vec<(&'static str, String)> {
        match self.elo {
            Some(elo) => vec![
                ("UCI_LimitStrength", "true".to_string()),
                ("UCI_Elo", elo.to_string()),
            ],
            None => vec![("UCI_LimitStrength", "false".to_string())],
        }
    }

    /// The protocol lines that set an engine to this level.
    pub fn option_lines(self) -> Vec<String> {
        self.options()
            .into_iter()
            .map(|(name, value)| format!("setoption name {name} value {value}"))
            .collect()
    }
}

/// Every level in words, weakest first, for help and errors.
pub fn level_list() -> String {
    NAMED_LEVELS
        .iter()
        .map(|level| level.text())
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_levels_are_the_calibrated_ones_in_order() {
        let calibrated: Vec<i64> = LEVELS.iter().map(|level| level.elo).collect();
        let named: Vec<i64> = NAMED_LEVELS.iter().filter_map(|level| level.elo).collect();
        assert_eq!(named, calibrated);
        assert_eq!(NAMED_LEVELS.last().unwrap().elo, None);
        assert_ne!(DEFAULT_LEVEL.elo, None);
        assert_eq!(NamedLevel::find("Cadet").unwrap().elo, Some(870));
        let error = NamedLevel::find("grandmaster").unwrap_err();
        assert!(error.contains("cadet (Elo 870)") && error.contains("full (full strength)"));
        assert_eq!(
            NamedLevel::find("ensign").unwrap().option_lines(),
            [
                "setoption name UCI_LimitStrength value true",
                "setoption name UCI_Elo value 1070"
            ]
        );
    }
}
