//! The engine's options: one declarative table ([`option_specs`]) gives
//! every option's name, type, default and range, and is what `hwi` lists,
//! what the command lines read their flags' ranges from, and what
//! [`Engine::set_option`] checks a value against before it changes
//! anything. The engine's own options come first, then one per search
//! tunable from the tunables table, so a new tunable is an option without
//! a line here.
//!
//! A value is checked whole before it is applied, and every option is
//! refused while a search runs, so no search ever sees half a change.
//! The bounds that depend on the machine (`Threads`, `Hash`) are read once
//! from the system.

use std::sync::{Arc, OnceLock};

use super::strength;
use super::{Engine, OptionError};
use crate::rules::{parse_repetition, Rules};
use crate::search::{
    Evaluation, PlayerKind, SearchOptions, TunableError, Tunables, ValueNetwork, TUNABLES,
};

/// The tunable that the `Move Overhead` option sets; it is listed and set
/// only under that UCI name.
pub(super) const MOVE_OVERHEAD_TUNABLE: &str = "move_overhead_ms";

/// The largest network file `EvalFile` reads, in bytes. A network of the
/// engine's shape is tens of kilobytes; a bound keeps a wrong path (a huge
/// file, `/dev/zero`) from filling the memory before the parse refuses it.
pub const MAX_NETWORK_FILE_BYTES: u64 = 4 << 20;

/// The `EvalFile` value that names the network built into the binary.
pub const EMBEDDED_NETWORK: &str = "<built-in>";

/// The kind and range of an option: what `hwi` lists (`option name ...
/// type ...`) and what a controller reads back from it, so the engine's
/// table and the protocol's reply parser share one type.
#[derive(Clone, Debug, PartialEq)]
pub enum OptionKind {
    /// `type spin`: a whole number.
    Spin {
        /// Default value.
        default: i64,
        /// Smallest value.
        min: i64,
        /// Largest value.
        max: i64,
    },
    /// `type float`: a real number (a search tunable; an extension of UCI).
    Float {
        /// Default value.
        default: f32,
        /// Smallest value.
        min: f32,
        /// Largest value.
        max: f32,
    },
    /// `type combo`: one of a fixed list of words.
    Combo {
        /// Default value.
        default: String,
        /// Every allowed value.
        values: Vec<String>,
    },
    /// `type string`: free text.
    Text {
        /// Default value (may be empty).
        default: String,
    },
    /// `type check`: on or off (UCI's check box).
    Check {
        /// Default value.
        default: bool,
    },
}

/// plays rather than how the searcher is built.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EngineSettings {
    /// `Ponder`: the controller may ponder; `bestmove` then names the
    /// expected reply (`ponder <turn>`) when the search has one.
    pub ponder: bool,
    /// `UCI_ShowWDL`: `info` lines carry win, draw and loss chances.
    pub show_wdl: bool,
    /// `UCI_LimitStrength`: play at the strength `elo` (see [`strength`]).
    pub limit_strength: bool,
    /// `UCI_Elo`: the strength when limited.
    pub elo: i64,
    /// `Explain`: the protocol writes why each turn was played (`info
    /// string explain`) before its `bestmove`. The facts are gathered after
    /// the search and cost a few milliseconds, never the turn; a
    /// controller that does not show them may save those.
    pub explain: bool,
}

impl Default for EngineSettings {
    fn default() -> EngineSettings {
        EngineSettings {
            ponder: false,
            show_wdl: false,
            limit_strength: false,
            elo: strength::DEFAULT_ELO,
            explain: true,
        }
    }
}

impl EngineSettings {
    /// The strength level in force, when limited.
    pub fn level(&self) -> Option<strength::Level> {
        self.limit_strength.then(|| strength::level_for(self.elo))
    }
}

/// One option the engine understands.
#[derive(Clone, Debug, PartialEq)]
pub struct OptionSpec {
    /// The name, matched without regard to case.
    pub name: &'static str,
    /// Its type, default and range.
    pub kind: OptionKind,
}

impl OptionSpec {
    /// A whole-number option.
    fn spin(name: &'static str, default: i64, min: i64, max: i64) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Spin { default, min, max },
        }
    }

    /// An option that takes one of `values`.
    fn combo<'a>(
        name: &'static str,
        default: &str,
        values: impl IntoIterator<Item = &'a str>,
    ) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Combo {
                default: default.to_string(),
                values: values.into_iter().map(str::to_string).collect(),
            },
        }
    }

    /// A free-text option.
    fn text(name: &'static str, default: &str) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Text {
                default: default.to_string(),
            },
        }
    }

    /// An on-or-off option.
    fn check(name: &'static str, default: bool) -> OptionSpec {
        OptionSpec {
            name,
            kind: OptionKind::Check { default },
        }
    }
}

/// `Threads` is at most this many times the processors this process may
/// use: helpers beyond the processors only take turns with each other.
const THREADS_PER_PROCESSOR: usize = 2;
/// The most `Threads` on any machine.
const THREAD_CEILING: usize = 1024;
/// `Hash` is at most this fraction (1/n) of the machine's memory: the tree
/// grows into what it is given, and the rest is the system's.
const HASH_MEMORY_DIVISOR: u64 = 2;
/// The `Hash` bound, in megabytes, where the machine's memory cannot be
/// read (not Linux): safe on any machine this is likely to run on.
const FALLBACK_MAX_HASH_MB: usize = 4096;

/// The largest `Threads` value on this machine: twice the processors this
/// process may use ([`std::thread::available_parallelism`], which follows
/// CPU affinity and cgroup quotas), at most 1024. Beyond it, `Threads 1024`
/// on 2 cores made the engine slow to answer even `isready`.
pub fn max_threads() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        let processors = std::thread::available_parallelism().map_or(1, usize::from);
        (processors * THREADS_PER_PROCESSOR).clamp(1, THREAD_CEILING)
    })
}

/// The largest `Hash` value on this machine, in megabytes: half its memory
/// (on Linux the smaller of `MemTotal` in /proc/meminfo and a cgroup v2
/// `memory.max`), or 4096 where neither can be read; never below the
/// default. The tree's memory is reserved lazily, so a larger value is
/// accepted by the system and then grows until the machine swaps or the
/// process is killed.
pub fn max_hash_mb() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        let megabytes = memory_total_bytes().map_or(FALLBACK_MAX_HASH_MB as u64, |bytes| {
            (bytes / HASH_MEMORY_DIVISOR) >> 20
        });
        let default = crate::search::DEFAULT_HASH_MB as u64;
        megabytes.clamp(default, i64::MAX as u64) as usize
    })
}

/// The memory this process may use, in bytes, where the system says.
pub(super) fn memory_total_bytes() -> Option<u64> {
    let meminfo = std::fs::read_to_string("/proc/meminfo").ok();
    let physical = meminfo.as_deref().and_then(|text| {
        let line = text.lines().find(|line| line.starts_with("MemTotal:"))?;
        let kilobytes: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        kilobytes.checked_mul(1024)
    });
    let limit = std::fs::read_to_string("/sys/fs/cgroup/memory.max")
        .ok()
        .and_then(|text| text.trim().parse::<u64>().ok());
    match (physical, limit) {
        (Some(physical), Some(limit)) => Some(physical.min(limit)),
        (physical, limit) => physical.or(limit),
    }
}

/// The largest `MultiPV` value.
const MAX_MULTI_PV: i64 = 256;
/// The largest `MaxTurns` value.
const MAX_TURN_LIMIT: i64 = 1_000_000;

/// Every option, in the order `hwi` lists them: the engine's own, then each
/// search tunable from the tunables table.
pub fn option_specs() -> Vec<OptionSpec> {
    // Every command line lists these for its flags' ranges: the defaults
    // here need no network loaded.
    let defaults = SearchOptions::with_tunables(Tunables::hand());
    let settings = EngineSettings::default();
    let mut specs = vec![
        OptionSpec::spin("Threads", defaults.threads as i64, 1, max_threads() as i64),
        OptionSpec::spin("Hash", defaults.hash_mb as i64, 1, max_hash_mb() as i64),
        OptionSpec::spin("MultiPV", defaults.multi_pv as i64, 1, MAX_MULTI_PV),
        OptionSpec::spin("Seed", defaults.seed as i64, 0, i64::MAX),
        OptionSpec::combo(
            "Player",
            defaults.player.name(),
            ["mcts", "greedy", "random", "shots"],
        ),
        OptionSpec::combo(
            "Rules",
            defaults.rules.name,
            Rules::PROFILES.iter().map(|rules| rules.name),
        ),
        OptionSpec::text("Repetition", "profile"),
        OptionSpec::combo(
            "Eval",
            Evaluation::DEFAULT.name(),
            [Evaluation::Hand.name(), Evaluation::Learned.name()],
        ),
        OptionSpec::text("EvalFile", EMBEDDED_NETWORK),
        OptionSpec::spin("MaxTurns", 0, 0, MAX_TURN_LIMIT),
        OptionSpec::check("Ponder", settings.ponder),
        OptionSpec::check("UCI_ShowWDL", settings.show_wdl),
        OptionSpec::check("UCI_LimitStrength", settings.limit_strength),
        OptionSpec::spin(
            "UCI_Elo",
            strength::DEFAULT_ELO,
            strength::MIN_ELO,
            strength::MAX_ELO,
        ),
        OptionSpec::check("Explain", settings.explain),
    ];
    let overhead = Tunables::find(MOVE_OVERHEAD_TUNABLE).map(|(_, spec)| spec);
    if let Some(spec) = overhead {
        specs.push(OptionSpec::spin(
            "Move Overhead",
            spec.default as i64,
            spec.min as i64,
            spec.max as i64,
        ));
    }
    specs.extend(
        TUNABLES
            .iter()
            .filter(|spec| spec.name != MOVE_OVERHEAD_TUNABLE)
            .map(|spec| OptionSpec {
                name: spec.name,
                kind: OptionKind::Float {
                    default: spec.default,
                    min: spec.min,
                    max: spec.max,
                },
            }),
    );
    specs
}

impl Engine {
    /// Sets an option by name (case-insensitive). Values are checked against
    /// [`option_specs`]; tunables by the tunables table.
    ///
    /// The rules are one value: `Rules` replaces all of it with the named
    /// profile, the profile's repetition rule and (absent) turn limit
    /// included, so `Repetition` and `MaxTurns` set after `Rules` adjust the
    /// profile, and set before it are reset by it. `Repetition profile`
    /// restores the current profile's repetition rule.
    ///
    /// # Errors
    /// An unknown name, a bad value, or a search in progress. The options are
    /// then unchanged.
    pub fn set_option(&mut self, name: &str, value: &str) -> Result<(), OptionError> {
        let spec = option_specs()
            .into_iter()
            .find(|spec| spec.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| OptionError::UnknownName(name.to_string()))?;
        let setting = Setting {
            name: spec.name,
            given: name,
            value,
        };
        let mut options = self.options.clone();
        match &spec.kind {
            OptionKind::Spin { min, max, .. } => {
                let number: i64 = value
                    .parse()
                    .ok()
                    .filter(|number| (min..=max).contains(&number))
                    .ok_or_else(|| setting.bad(format!("a whole number from {min} to {max}")))?;
                if spec.name == "UCI_Elo" {
                    let settings = EngineSettings {
                        elo: number,
                        ..self.settings
                    };
                    return self.set_settings(settings);
                }
                setting.whole_number(&mut options, number)?;
            }
            OptionKind::Float { .. } => setting.real_number(&mut options)?,
            OptionKind::Combo { values, .. } => {
                setting.word(&mut options, values, &self.network)?
            }
            OptionKind::Check { .. } => {
                let settings = setting.switch(self.settings)?;
                return self.set_settings(settings);
            }
            OptionKind::Text { .. } if spec.name == "EvalFile" => {
                let network = setting.network()?;
                return self.set_network(network, options);
            }
            // Repetition is the other free text.
            OptionKind::Text { .. } => setting.repetition(&mut options)?,
        }
        self.set_search_options(options)
    }

    /// Puts checked search options in force, once no search runs.
    fn set_search_options(&mut self, options: SearchOptions) -> Result<(), OptionError> {
        let searcher = self.idle_searcher()?;
        searcher.set_options(options.clone());
        self.options = options;
        Ok(())
    }

    /// Puts checked engine settings in force. Refused during a search like
    /// every option, so that no search ever sees half of a change.
    fn set_settings(&mut self, settings: EngineSettings) -> Result<(), OptionError> {
        self.idle_searcher()?;
        self.settings = settings;
        Ok(())
    }

    /// Makes `network` the one `Eval learned` uses, and the one searched
    /// with at once if the learned evaluation is in force.
    fn set_network(
        &mut self,
        network: Arc<ValueNetwork>,
        mut options: SearchOptions,
    ) -> Result<(), OptionError> {
        let searcher = self.idle_searcher()?;
        if options.tunables.network().is_some() {
            options.tunables.set_network(Some(network.clone()));
            searcher.set_options(options.clone());
            self.options = options;
        }
        self.network = network;
        Ok(())
    }
}

/// One [`Engine::set_option`] call: the option found, the name as given
/// and the value, which its errors quote.
struct Setting<'a> {
    /// The option's own spelling.
    name: &'static str,
    /// The name as the caller spelled it.
    given: &'a str,
    value: &'a str,
}

impl Setting<'_> {
    /// The value does not fit: `expected` says what would.
    fn bad(&self, expected: impl Into<String>) -> OptionError {
        OptionError::BadValue {
            name: self.name.to_string(),
            value: self.value.to_string(),
            expected: expected.into(),
        }
    }

    /// The option is listed but no setter knows it.
    fn unknown(&self) -> OptionError {
        OptionError::UnknownName(self.given.to_string())
    }

    /// A whole-number option, already checked against its range.
    fn whole_number(&self, options: &mut SearchOptions, number: i64) -> Result<(), OptionError> {
        match self.name {
            "Threads" => options.threads = number as usize,
            "Hash" => options.hash_mb = number as usize,
            "MultiPV" => options.multi_pv = number as usize,
            "Seed" => options.seed = number as u64,
            "MaxTurns" => options.rules.max_turns = (number > 0).then_some(number as u32),
            "Move Overhead" => options
                .tunables
                .set(MOVE_OVERHEAD_TUNABLE, number as f32)
                .map_err(|error| self.bad(error.to_string()))?,
            _ => return Err(self.unknown()),
        }
        Ok(())
    }

    /// A search tunable, checked by the tunables table.
    fn real_number(&self, options: &mut SearchOptions) -> Result<(), OptionError> {
        let number: f32 = self
            .value
            .parse()
            .ok()
            .filter(|number: &f32| number.is_finite())
            .ok_or_else(|| self.bad("a number"))?;
        options
            .tunables
            .set(self.name, number)
            .map_err(|error| match error {
                TunableError::OutOfRange { min, max, .. } => {
                    self.bad(format!("a number from {min} to {max}"))
                }
                TunableError::UnknownName(name) => OptionError::UnknownName(name),
            })
    }

    /// A combo option, one of `values`; `Eval learned` searches with
    /// `network`.
    fn word(
        &self,
        options: &mut SearchOptions,
        values: &[String],
        network: &Arc<ValueNetwork>,
    ) -> Result<(), OptionError> {
        let expected = || self.bad(format!("one of {}", values.join(", ")));
        match self.name {
            "Player" => {
                options.player = self.value.parse::<PlayerKind>().map_err(|_| expected())?;
            }
            "Rules" => options.rules = self.value.parse::<Rules>().map_err(|_| expected())?,
            "Eval" => match self.value.parse::<Evaluation>().map_err(|_| expected())? {
                Evaluation::Hand => options.tunables.set_network(None),
                Evaluation::Learned => options.tunables.set_network(Some(network.clone())),
            },
            _ => return Err(self.unknown()),
        }
        Ok(())
    }

    /// A check option: `settings` with it switched on or off.
    fn switch(&self, mut settings: EngineSettings) -> Result<EngineSettings, OptionError> {
        let on = match self.value.to_ascii_lowercase().as_str() {
            "true" => true,
            "false" => false,
            _ => return Err(self.bad("true or false")),
        };
        match self.name {
            "Ponder" => settings.ponder = on,
            "UCI_ShowWDL" => settings.show_wdl = on,
            "UCI_LimitStrength" => settings.limit_strength = on,
            "Explain" => settings.explain = on,
            _ => return Err(self.unknown()),
        }
        Ok(settings)
    }

    /// `EvalFile`: the network it names, read and checked.
    fn network(&self) -> Result<Arc<ValueNetwork>, OptionError> {
        if self.value.is_empty() || self.value == EMBEDDED_NETWORK {
            return Ok(ValueNetwork::embedded());
        }
        let text =
            read_network_file(std::path::Path::new(self.value)).map_err(|error| self.bad(error))?;
        let network = ValueNetwork::parse(&text)
            .map_err(|error| self.bad(format!("a network file ({error})")))?;
        Ok(Arc::new(network))
    }

    /// `Repetition`: a rule, or `profile` for the current profile's own.
    fn repetition(&self, options: &mut SearchOptions) -> Result<(), OptionError> {
        options.rules.repetition = if self.value.eq_ignore_ascii_case("profile") {
            Rules::profile(options.rules.name)
                .unwrap_or_default()
                .repetition
        } else {
            parse_repetition(self.value)
                .ok_or_else(|| self.bad("profile, off, claim@N or auto@N with N at least 2"))?
        };
        Ok(())
    }
}

/// Reads a network file for `EvalFile`: a regular file of at most
/// [`MAX_NETWORK_FILE_BYTES`], as text (see [`crate::files`]). Anything
/// else is refused without being read: a FIFO would block the command loop
/// until a writer came, and a device such as `/dev/zero` never ends.
///
/// # Errors
/// What was wanted instead: a regular file, a readable one, a smaller one.
fn read_network_file(path: &std::path::Path) -> Result<String, String> {
    crate::files::read_bounded_text(path, MAX_NETWORK_FILE_BYTES)
        .map_err(|error| error.expected("a network file"))
}
