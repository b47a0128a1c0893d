//! Every number the search and the evaluation depend on, in one table.
//!
//! Keeping them together means the protocol layer can expose each as an
//! option by name, a tuner can vary them without touching code, and a reader
//! sees in one place what the engine believes. Each entry has a name, a
//! default, a range and a one-line reason; [`Tunables::set`] enforces the
//! range so that a typo in an option cannot silently break the engine.

use std::fmt;
use std::ops::Index;
use std::str::FromStr;
use std::sync::Arc;

use super::network::ValueNetwork;

/// The description of one tunable: what the protocol shows as an option.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TunableSpec {
    /// The option name (lower case, words joined by `_`).
    pub name: &'static str,
    /// The value the engine uses unless told otherwise.
    pub default: f32,
    /// The smallest accepted value.
    pub min: f32,
    /// The largest accepted value.
    pub max: f32,
    /// Why the number exists.
    pub help: &'static str,
}

macro_rules! tunables {
    ($( $variant:ident = ($name:literal, $default:expr, $min:expr, $max:expr, $help:literal), )*) => {
        /// Names every tunable, for fast indexed access in hot code.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[allow(missing_docs)]
        pub enum Tunable {
            $( $variant, )*
        }

        /// The one table of tunables: name, default, range and reason.
        pub const TUNABLES: &[TunableSpec] = &[
            $( TunableSpec { name: $name, default: $default, min: $min, max: $max, help: $help }, )*
        ];
    };
}

tunables! {
    // ----- evaluation: material and colours -----
    MaterialSmall = ("material_small", 1.0, 0.0, 10.0, "value of a small ship"),
    MaterialMedium = ("material_medium", 2.5, 0.0, 20.0, "value of a medium ship"),
    MaterialLarge = ("material_large", 5.5, 0.0, 30.0, "value of a large ship"),
    ColourRed = ("colour_red", 1.0, 0.0, 10.0, "owning at least one red ship (a gun)"),
    ColourYellow = ("colour_yellow", 1.5, 0.0, 10.0, "owning at least one yellow ship (mobility)"),
    ColourGreen = ("colour_green", 1.5, 0.0, 10.0, "owning at least one green ship (economy)"),
    ColourBlue = ("colour_blue", 1.0, 0.0, 10.0, "owning at least one blue ship (trade)"),
    FrozenOut = ("frozen_out", 1.5, 0.0, 10.0, "no ship of a colour and no trade can get one"),
    BuildOption = ("build_option", 0.3, 0.0, 5.0, "per colour the player can build right now"),
    // ----- evaluation: home defence -----
    HomeLarge = ("home_large", 5.0, 0.0, 20.0, "a large own ship at home (primary directive)"),
    HomeOutgunned = ("home_outgunned", 1.5, 0.0, 10.0, "per size the nearby enemy largest exceeds the home largest"),
    HomeShip = ("home_ship", 0.4, 0.0, 5.0, "per own ship at home, up to three"),
    HomeVariety = ("home_variety", 0.3, 0.0, 5.0, "per distinct colour at home (happy homeworld)"),
    Bluebird = ("bluebird", 2.0, 0.0, 20.0, "exactly two home ships, both of one colour"),
    SittingDuck = ("sitting_duck", 3.0, 0.0, 30.0, "a catastrophe one piece away would wipe the home fleet"),
    HomeCatastrophe = ("home_catastrophe", 6.0, 0.0, 30.0, "enemy ships near enough to overpopulate the home"),
    HalfHome = ("half_home", 3.0, 0.0, 30.0, "a homeworld reduced to one star"),
    // ----- evaluation: attack -----
    Invader = ("invader", 1.5, 0.0, 10.0, "per own ship at the enemy home"),
    InvaderDominance = ("invader_dominance", 1.5, 0.0, 10.0, "own largest at the enemy home beats theirs, with red there"),
    LargeAdjacent = ("large_adjacent", 0.6, 0.0, 10.0, "own large ship one jump from the enemy home"),
    CaptureTempo = ("capture_tempo", 0.8, 0.0, 10.0, "side to move can capture now, per size of the best target"),
    CaptureThreat = ("capture_threat", 0.4, 0.0, 10.0, "opponent could capture next turn, per size of the best target"),
    ThreatInOne = ("threat_in_one", 4.0, 0.0, 30.0, "the side not to move could eliminate after a pass"),
    FreeCatastrophe = ("free_catastrophe", 0.8, 0.0, 5.0, "side to move can fire a catastrophe now, per unit of net material destroyed"),
    SacrificeShot = ("sacrifice_shot", 2.0, 0.0, 30.0, "a leaf whose side to move can take at least this much material net with one red sacrifice is valued as after it, if that is better; 0 is off"),
    ExposureNow = ("exposure_now", 0.0, 0.0, 5.0, "per unit of material the side to move could destroy by overpopulating the enemy home (short of eliminating it) with ships in reach; off, because matches measured no gain from it"),
    ExposureLater = ("exposure_later", 0.0, 0.0, 5.0, "per unit of material the side not to move could destroy likewise at the mover's home"),
    Pressure = ("pressure", 0.15, 0.0, 5.0, "per size of own ships one jump from the enemy home"),
    Tempo = ("tempo", 0.3, -5.0, 5.0, "bonus for having the move"),
    EvalScale = ("eval_scale", 25.0, 1.0, 100.0, "K in value = tanh(score / K); large enough that a big lead still shows progress"),
    LearnedBlend = ("learned_blend", 1.0, 0.0, 1.0, "with Eval learned, the learned value's share of the leaf value (before the tanh); the rest is the hand evaluation's, whose errors differ; 1 because a blend measured no gain"),
    LearnedScale = ("learned_scale", 1.0, 0.1, 10.0, "the learned value is tanh(learned_scale * logit / 2): its sharpness for the search; 1 plays a network as sharp as it was fitted, and sharper played worse"),
    // ----- search -----
    Cpuct = ("cpuct", 1.0, 0.05, 10.0, "exploration constant at the start of a turn; with the network 1.0 (and cpuct_intra_turn 0.7) beat the lower pair the hand evaluation wanted"),
    CpuctIntraTurn = ("cpuct_intra_turn", 0.7, 0.05, 10.0, "exploration constant inside a turn"),
    CpuctGrowth = ("cpuct_growth", 0.15, 0.0, 2.0, "how fast exploration grows with log(parent visits)"),
    FpuReduction = ("fpu_reduction", 0.1, 0.0, 2.0, "first-play urgency: parent value minus this"),
    WideningBase = ("widening_base", 4.0, 1.0, 64.0, "children selectable at a fresh node"),
    WideningExponent = ("widening_exponent", 0.6, 0.0, 1.0, "children selectable grow as visits^this; 0.5 measured no better"),
    PriorTemperature = ("prior_temperature", 1.0, 0.1, 10.0, "softmax temperature of the action priors"),
    PriorCapture = ("prior_capture", 1.56, -10.0, 10.0, "prior logit of a capture, plus size/2"),
    PriorCaptureHome = ("prior_capture_home", 1.18, -10.0, 10.0, "extra prior for a capture at the enemy home"),
    PriorCatastrophe = ("prior_catastrophe", 0.28, -10.0, 10.0, "prior logit per unit of value destroyed (theirs - ours)"),
    PriorBuild = ("prior_build", 2.02, -10.0, 10.0, "prior logit of a build"),
    PriorTrade = ("prior_trade", -0.35, -10.0, 10.0, "prior logit of a trade"),
    PriorNewColour = ("prior_new_colour", 0.81, -10.0, 10.0, "extra prior for getting a colour the mover lacks"),
    PriorMove = ("prior_move", -0.69, -10.0, 10.0, "prior logit of a move or discovery"),
    PriorAttackMove = ("prior_attack_move", 1.32, -10.0, 10.0, "extra prior for a move next to or into the enemy home"),
    PriorLeaveHome = ("prior_leave_home", -2.60, -20.0, 10.0, "prior for leaving home without a large or empty"),
    PriorGiveCatastrophe = ("prior_give_catastrophe", -1.06, -20.0, 10.0, "prior for making a fourth piece of a colour outside the enemy home"),
    PriorSacrificeShot = ("prior_sacrifice_shot", 0.3, 0.0, 5.0, "per unit of material a red sacrifice's captures take net (small 1, medium 2.5, large 5.5); 0 is off"),
    PriorSacrifice = ("prior_sacrifice", -0.32, -10.0, 10.0, "prior logit of a sacrifice"),
    PriorPass = ("prior_pass", -4.10, -20.0, 10.0, "prior logit of passing at the start of a turn"),
    PriorEndSacrifice = ("prior_end_sacrifice", -1.63, -20.0, 10.0, "prior logit of ending a sacrifice early"),
    PriorEndDone = ("prior_end_done", 0.53, -20.0, 20.0, "prior logit of ending a finished turn"),
    PriorExposed = ("prior_exposed", 0.0, -10.0, 10.0, "extra prior for a move or build that leaves the ship where the opponent can capture it at once (an enemy ship as large or larger there, with red)"),
    PriorEscape = ("prior_escape", 0.0, -10.0, 10.0, "extra prior for moving a ship the opponent could capture at once to where it cannot"),
    Contempt = ("contempt", 0.1, 0.0, 1.0, "a draw in the tree is worth -this to the root mover at least (more when ahead: draw_contempt), so that a root the evaluation puts slightly behind does not settle for a repetition (against greedy a near-level engine otherwise passed back into drawn repetitions)"),
    DrawContempt = ("draw_contempt", 0.5, 0.0, 1.0, "a draw in the tree is worth -this x the root's static value (when positive) to the root mover: a side ahead avoids repetitions"),
    TurnDiscount = ("turn_discount", 1.0, 0.8, 1.0, "a leaf value counts this^(turns below the node) in the backup (proofs count in full): a win sooner is worth more"),
    // ----- turn extraction and time -----
    ExtractMinVisits = ("extract_min_visits", 50.0, 1.0, 10000.0, "below this, an intra-turn node ends the turn instead of descending"),
    MoveOverheadMs = ("move_overhead_ms", 50.0, 0.0, 5000.0, "clock time kept back for communication, in ms"),
    TimeUnstable = ("time_unstable", 1.5, 1.0, 5.0, "clock games: soft-limit factor when the best turn changed late"),
    TimeObvious = ("time_obvious", 0.6, 0.1, 1.0, "clock games: soft-limit factor when the best turn has most visits"),
    AttackAnywhereShare = ("attack_anywhere_share", 0.0, 0.0, 1.0, "on the clock, the share of the planned time the root's search for its own win in two may take where it is not far ahead or is in check (0: it does not look there)"),
    AttackAnywhereFromMs = ("attack_anywhere_from_ms", 0.0, 0.0, 100000.0, "on the clock, the planned time in ms from which the root looks for its own win in two where it is not far ahead (with attack_anywhere_share)"),
    CheckShare = ("check_share", 0.125, 0.02, 1.0, "on the clock, the share of the planned time the root's two-turn checks may take (twice this after a check ran out of it); a larger share took too much from the tree, a smaller one measured no better"),
    StretchAbove = ("stretch_above", 0.6, 0.0, 1.0, "where the root's static value is beyond this, heuristic leaf values are measured from the root's level instead (backup.rs, Backup::stretched), so that far ahead the tree still tells a growing lead from a shrinking one; 1 is off"),
    ShotGuard = ("shot_guard", 0.0, 0.0, 100.0, "the root checks every reply to its chosen turn, and where the worst takes at least this much material net (small 1, medium 2.5, large 5.5) weighs its candidates by the value after their worst reply (shot_guard.rs; 4.5 with shot_guard_visits 0.1 avoids most one-turn shots and played level in matches); 0 is off"),
    ShotGuardShare = ("shot_guard_share", 0.15, 0.0, 0.5, "on the clock, the share of the planned time kept from the tree for the shot guard"),
    ShotGuardCandidates = ("shot_guard_candidates", 6.0, 1.0, 16.0, "the most candidate turns the shot guard checks"),
    ShotGuardMargin = ("shot_guard_margin", 0.0, 0.0, 2.0, "the shot guard acts only where the value after the worst reply to the tree's turn is below the tree's own value for it by more than this: a smaller gap means the tree already weighed the shot"),
    ShotGuardVisits = ("shot_guard_visits", 0.0, 0.0, 1.0, "the shot guard moves only to a candidate with at least this share of the tree's turn's visits, whose tree value means something"),
    SmartPruning = ("smart_pruning", 1.33, 0.0, 10.0, "clock games: stop when the best cannot be overtaken; 0 disables"),
}

/// Number of tunables.
pub const TUNABLE_COUNT: usize = TUNABLES.len();

/// Which leaf evaluation the search uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Evaluation {
    /// The hand-weighted sum of features (the weights in this table), kept
    /// so that every gain of the learned value is measured against it.
    Hand,
    /// The learned value network (`network.rs`), made by `supernova train`.
    Learned,
}

impl Evaluation {
    /// The evaluation a new [`Tunables`] uses.
    pub const DEFAULT: Evaluation = Evaluation::Learned;

    /// The option value naming this evaluation.
    pub fn name(self) -> &'static str {
        match self {
            Evaluation::Hand => "hand",
            Evaluation::Learned => "learned",
        }
    }
}

impl FromStr for Evaluation {
    type Err = String;

    fn from_str(text: &str) -> Result<Evaluation, String> {
        [Evaluation::Hand, Evaluation::Learned]
            .into_iter()
            .find(|evaluation| evaluation.name().eq_ignore_ascii_case(text))
            .ok_or_else(|| format!("unknown evaluation '{text}': expected hand or learned"))
    }
}

/// A full set of tunable values, and the value network when the learned
/// evaluation is chosen (its weights are numbers the evaluation depends on,
/// like the hand weights). Cheap to clone, indexed by [`Tunable`].
#[derive(Clone, Debug, PartialEq)]
pub struct Tunables {
    values: [f32; TUNABLE_COUNT],
    network: Option<Arc<ValueNetwork>>,
}

impl Default for Tunables {
    fn default() -> Tunables {
        let mut tunables = Tunables::hand();
        if Evaluation::DEFAULT == Evaluation::Learned {
            tunables.network = Some(ValueNetwork::embedded());
        }
        tunables
    }
}

impl Tunables {
    /// The default values with the hand-weighted evaluation. Why: the
    /// default tunables load the built-in network, a parse that listing the
    /// options (every command line's flags) does not need.
    pub fn hand() -> Tunables {
        let mut values = [0.0; TUNABLE_COUNT];
        for (value, spec) in values.iter_mut().zip(TUNABLES) {
            *value = spec.default;
        }
        Tunables {
            values,
            network: None,
        }
    }
}

/// Why a tunable could not be set: the protocol reports it to the user.
#[derive(Clone, Debug, PartialEq)]
pub enum TunableError {
    /// No tunable has this name.
    UnknownName(String),
    /// The value is outside the allowed range.
    OutOfRange {
        /// The tunable.
        name: &'static str,
        /// The rejected value.
        value: f32,
        /// The smallest allowed.
        min: f32,
        /// The largest allowed.
        max: f32,
    },
}

impl fmt::Display for TunableError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TunableError::UnknownName(name) => write!(formatter, "unknown tunable '{name}'"),
            TunableError::OutOfRange {
                name,
                value,
                min,
                max,
            } => write!(
                formatter,
                "tunable {name} = {value}: expected a value from {min} to {max}"
            ),
        }
    }
}

impl std::error::Error for TunableError {}

impl Tunables {
    /// Looks a tunable up by name (case-insensitive).
    pub fn find(name: &str) -> Option<(usize, &'static TunableSpec)> {
        TUNABLES
            .iter()
            .enumerate()
            .find(|(_, spec)| spec.name.eq_ignore_ascii_case(name))
    }

    /// Sets a tunable by name, checking its range.
    ///
    /// # Errors
    /// An unknown name or a value outside the tunable's range.
    pub fn set(&mut self, name: &str, value: f32) -> Result<(), TunableError> {
        let (index, spec) =
            Tunables::find(name).ok_or_else(|| TunableError::UnknownName(name.to_string()))?;
        if !(spec.min..=spec.max).contains(&value) {
            return Err(TunableError::OutOfRange {
                name: spec.name,
                value,
                min: spec.min,
                max: spec.max,
            });
        }
        self.values[index] = value;
        Ok(())
    }

    /// The current value of a tunable by name.
    pub fn get(&self, name: &str) -> Option<f32> {
        Tunables::find(name).map(|(index, _)| self.values[index])
    }

    /// The evaluation in use.
    pub fn evaluation(&self) -> Evaluation {
        if self.network.is_some() {
            Evaluation::Learned
        } else {
            Evaluation::Hand
        }
    }

    /// The value network, when the learned evaluation is in use.
    pub fn network(&self) -> Option<&ValueNetwork> {
        self.network.as_deref()
    }

    /// Chooses the evaluation: a network for the learned one, `None` for
    /// the hand-weighted one.
    pub fn set_network(&mut self, network: Option<Arc<ValueNetwork>>) {
        self.network = network;
    }

    /// Every (spec, current value) pair, for listing options.
    pub fn iter(&self) -> impl Iterator<Item = (&'static TunableSpec, f32)> + '_ {
        TUNABLES.iter().zip(self.values.iter().copied())
    }
}

impl Index<Tunable> for Tunables {
    type Output = f32;

    #[inline]
    fn index(&self, tunable: Tunable) -> &f32 {
        &self.values[tunable as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_within_their_ranges_and_names_are_unique() {
        let mut names = ahash::AHashSet::new();
        for spec in TUNABLES {
            assert!(
                spec.min <= spec.default && spec.default <= spec.max,
                "{}",
                spec.name
            );
            assert!(names.insert(spec.name), "duplicate {}", spec.name);
        }
        assert_eq!(Tunables::default()[Tunable::MaterialLarge], 5.5);
    }

    #[test]
    fn set_by_name_checks_range_and_name() {
        let mut tunables = Tunables::default();
        tunables.set("CPUCT", 2.0).unwrap();
        assert_eq!(tunables[Tunable::Cpuct], 2.0);
        assert!(matches!(
            tunables.set("cpuct", 100.0),
            Err(TunableError::OutOfRange { .. })
        ));
        assert!(matches!(
            tunables.set("no_such", 1.0),
            Err(TunableError::UnknownName(_))
        ));
    }
}
