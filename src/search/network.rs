//! The learned value: a small network over the features of `features.rs`
//! that gives the win probability of the side to move.
//!
//! The leaf evaluation is either this network (`Eval learned`, the default
//! and the stronger of the two) or the hand-weighted sum of features it
//! starts from (`Eval hand`, kept so that every gain is measured against
//! it). The network
//! built into the binary is `networks/value.net`; `EvalFile` (or
//! `--eval-file`) loads another. How networks are made, and how the
//! built-in one was, is in [`tools::train`](crate::tools::train).
//!
//! # The model
//! A one-hidden-layer perceptron with a linear skip path:
//! `logit = b + l·x + v·relu(W x + c)` and `value = tanh(logit / 2)`, so
//! that `(value + 1) / 2` is the logistic win probability, which training
//! fits with a logistic loss. The skip path alone is a linear evaluation
//! over the hand evaluation's terms, so a network can start exactly as the
//! hand evaluation ([`ValueNetwork::from_hand`]) and every fit begins from
//! what it knows; the hidden layer adds what depends on several features
//! at once. Inputs are mostly zero, so the forward pass skips them: about
//! two thousand multiply-adds a leaf.
//!
//! # Its size
//! The built-in network has 16 hidden units. The records it is fitted to,
//! not its width, limit it: fitted to the same 2,000 engine records,
//! networks of 32 and of 16 units reached the same validation loss (0.5940
//! and 0.5942), and the wider one lost to the built-in network, fitted to
//! 5,550 records (-36 ± 33 Elo at 3,000 nodes a turn); a linear value (one
//! hidden unit) fitted like the built-in one only drew level with the hand
//! evaluation. A wider network would be affordable (the network and its
//! inputs take about a tenth of a one-thread search's time, `perf record`
//! over `supernova bench`), and networks up to [`MAX_HIDDEN`] units load.
//!
//! # Its sharpness
//! The value is `tanh(learned_scale * logit / 2)`, and `learned_scale` is 1
//! by default: the network is played as sharp as it was fitted. Sharper or
//! flatter (1.25, 0.8) plays no better, and at 2, twice as sharp as fitted,
//! a network of this kind lost to the hand evaluation (19-34-2): the
//! value's sharpness matters to the tree as much as its weights. A blend
//! with the hand evaluation (`learned_blend` below 1) is there for
//! experiments; at 0.7 it played no better than the network alone.
//!
//! # Speed
//! The forward pass runs at every leaf, so it is written for the machine
//! (each step keeps the value the same to the bit): the common layer sizes
//! get passes sized at compile time, whose hidden sums stay in registers
//! as chunks of four; the inputs that are not zero are listed without a
//! branch before the pass; and weights too small to matter are read as 0,
//! as subnormal floats are slow to compute with (`flush_tiny`).
//!
//! # File format
//! A network is a small text file (so that a committed network diffs and
//! reviews like code), one `key values...` line each, in this order:
//!
//! ```text
//! supernova-value 1          # format version
//! features 1                 # feature layout (features::FEATURE_SET)
//! inputs 143                 # number of inputs (features::INPUTS)
//! hidden 32                  # hidden units, at most MAX_HIDDEN
//! name gen-3                 # free text, shown by the engine
//! output_bias B
//! linear L1 ... Ln           # n = inputs
//! hidden_bias C1 ... Ch
//! output V1 ... Vh
//! weights W11 ... W1h        # one line per input
//! ```
//! Numbers are decimal floats as Rust prints them (exact round trip).

use std::fmt;
use std::sync::{Arc, OnceLock};

use super::features::{features, hand_linear, FEATURE_SET, INPUTS};
use super::tunables::{Tunable, Tunables};
use crate::rules::Position;

/// The format version written on a network's first line.
pub const FORMAT_VERSION: u32 = 1;

/// The most hidden units a network may have (the forward pass keeps them on
/// the stack).
pub const MAX_HIDDEN: usize = 128;

/// The network built into the binary, made by `supernova train` (see
/// [`tools::train`](crate::tools::train)); `EvalFile` loads another.
const EMBEDDED: &str = include_str!("networks/value.net");

/// The learned value network. See the module documentation.
#[derive(Clone, PartialEq)]
pub struct ValueNetwork {
    /// A label (the generation that made it).
    pub name: String,
    pub(crate) hidden: usize,
    pub(crate) output_bias: f32,
    pub(crate) linear: Vec<f32>,
    pub(crate) hidden_bias: Vec<f32>,
    pub(crate) output: Vec<f32>,
    /// Input-major: the `hidden` weights of input `i` at `i * hidden`.
    pub(crate) weights: Vec<f32>,
}

impl fmt::Debug for ValueNetwork {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            formatter,
            "ValueNetwork({}, {INPUTS}x{})",
            self.name, self.hidden
        )
    }
}

/// Why a network file could not be read.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NetworkError(pub String);

impl fmt::Display for NetworkError {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(formatter, "value network: {}", self.0)
    }
}

impl std::error::Error for NetworkError {}

impl ValueNetwork {
    /// A network with every weight zero (value 0 everywhere): the start of
    /// training.
    pub fn zeros(hidden: usize, name: &str) -> ValueNetwork {
        ValueNetwork {
            name: name.to_string(),
            hidden,
            output_bias: 0.0,
            linear: vec![0.0; INPUTS],
            hidden_bias: vec![0.0; hidden],
            output: vec![0.0; hidden],
            weights: vec![0.0; INPUTS * hidden],
        }
    }

    /// A network whose value equals the hand evaluation's with `tunables`
    /// (its linear path holds the hand weights; the hidden layer has small
    /// seeded weights into it and none out of it): where training starts.
    pub fn from_hand(tunables: &Tunables, hidden: usize, seed: u64, name: &str) -> ValueNetwork {
        let mut network = ValueNetwork::zeros(hidden, name);
        let (linear, bias) = hand_linear(tunables);
        network.linear = linear.to_vec();
        network.output_bias = bias;
        // A small deterministic pseudo-random start for the hidden weights.
        let mut state = seed ^ 0x9E37_79B9_7F4A_7C15;
        for weight in &mut network.weights {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let unit = (state >> 40) as f32 / (1u64 << 24) as f32;
            *weight = (unit - 0.5) * 0.2;
        }
        network.output = vec![0.01; hidden];
        network
    }

    /// The network built into the binary, parsed once.
    pub fn embedded() -> Arc<ValueNetwork> {
        static NETWORK: OnceLock<Arc<ValueNetwork>> = OnceLock::new();
        NETWORK
            .get_or_init(|| {
                Arc::new(ValueNetwork::parse(EMBEDDED).expect("the embedded network is valid"))
            })
            .clone()
    }

    /// Hidden units.
    pub fn hidden(&self) -> usize {
        self.hidden
    }

    /// The logit of the side to move's win probability, from features.
    ///
    /// The common layer sizes get a forward pass of their own, whose hidden
    /// sums the compiler keeps in registers (the built-in network has 16);
    /// the sums and their order are those of the general pass, so the value
    /// is the same to the bit.
    #[inline]
    pub(crate) fn logit(&self, inputs: &[f32; INPUTS]) -> f32 {
        match self.hidden {
            16 => self.logit_sized::<4>(inputs),
            32 => self.logit_sized::<8>(inputs),
            _ => self.logit_any(inputs),
        }
    }

    /// [`ValueNetwork::logit`] for a network of exactly `4 * CHUNKS` hidden
    /// units, whose sums are kept as chunks of four: each chunk is one
    /// vector multiply and add per input (left as a plain `[f32; 16]`, the
    /// compiler split the sums into one chunk of four and six of two, seven
    /// multiplies and adds per input where four do). Each sum still adds
    /// its terms in the same order, so the value is the same to the bit.
    #[inline]
    fn logit_sized<const CHUNKS: usize>(&self, inputs: &[f32; INPUTS]) -> f32 {
        let hidden = 4 * CHUNKS;
        let mut sums = [[0.0f32; 4]; CHUNKS];
        for (sum, bias) in sums.iter_mut().zip(self.hidden_bias.chunks_exact(4)) {
            sum.copy_from_slice(bias);
        }
        let mut logit = self.output_bias;
        // The inputs that are not zero, listed without a branch first: which
        // ones are zero changes from leaf to leaf, and a branch on each
        // input was mispredicted often.
        const { assert!(INPUTS <= 256, "input indices are bytes") };
        let mut active = [0u8; INPUTS];
        let mut count = 0;
        for (index, &input) in inputs.iter().enumerate() {
            active[count] = index as u8;
            count += usize::from(input != 0.0);
        }
        let weights = &self.weights[..INPUTS * hidden];
        let linear = &self.linear[..INPUTS];
        for &index in &active[..count] {
            let index = usize::from(index);
            let input = inputs[index];
            logit += input * linear[index];
            let row = &weights[index * hidden..(index + 1) * hidden];
            for (sum, weight) in sums.iter_mut().zip(row.chunks_exact(4)) {
                for lane in 0..4 {
                    sum[lane] += input * weight[lane];
                }
            }
        }
        for (sum, weight) in sums.iter().zip(self.output[..hidden].chunks_exact(4)) {
            for lane in 0..4 {
                logit += sum[lane].max(0.0) * weight[lane];
            }
        }
        logit
    }

    /// [`ValueNetwork::logit`] for any number of hidden units.
    fn logit_any(&self, inputs: &[f32; INPUTS]) -> f32 {
        let hidden = self.hidden;
        let mut sums = [0.0f32; MAX_HIDDEN];
        let sums = &mut sums[..hidden];
        sums.copy_from_slice(&self.hidden_bias);
        let mut logit = self.output_bias;
        for (index, &input) in inputs.iter().enumerate() {
            if input == 0.0 {
                continue;
            }
            logit += input * self.linear[index];
            let row = &self.weights[index * hidden..(index + 1) * hidden];
            for (sum, weight) in sums.iter_mut().zip(row) {
                *sum += input * weight;
            }
        }
        for (sum, weight) in sums.iter().zip(&self.output) {
            logit += sum.max(0.0) * weight;
        }
        logit
    }

    /// The value for the side to move, in (-1, 1): `tanh(learned_scale *
    /// logit / 2)`, or with `learned_blend` below 1 the tanh of a weighted
    /// mean of that argument and the hand evaluation's `score /
    /// eval_scale`.
    pub fn value(&self, position: &Position, tunables: &Tunables, threat: bool) -> f32 {
        let mut inputs = [0.0; INPUTS];
        let hand = features(position, tunables, threat, &mut inputs);
        let learned = self.logit(&inputs) * 0.5 * tunables[Tunable::LearnedScale];
        let blend = tunables[Tunable::LearnedBlend];
        if blend >= 1.0 {
            return learned.tanh();
        }
        (blend * learned + (1.0 - blend) * hand / tunables[Tunable::EvalScale]).tanh()
    }

    /// Reads a network from its text form.
    ///
    /// # Errors
    /// Names the line that is wrong: a missing or repeated key, a count that
    /// does not fit, a number that does not parse or is not finite, or a
    /// network made for another feature layout.
    pub fn parse(text: &str) -> Result<ValueNetwork, NetworkError> {
        let error = |message: String| NetworkError(message);
        let mut lines = text
            .lines()
            .map(|line| line.split('#').next().unwrap_or("").trim())
            .filter(|line| !line.is_empty());
        let mut next = |key: &str| -> Result<&str, NetworkError> {
            let line = lines
                .next()
                .ok_or_else(|| error(format!("missing line '{key}'")))?;
            let (found, rest) = line.split_once(' ').unwrap_or((line, ""));
            if found != key {
                return Err(error(format!(
                    "expected line '{key}', found '{}'",
                    excerpt(found)
                )));
            }
            Ok(rest.trim())
        };
        let whole = |key: &str, text: &str| -> Result<usize, NetworkError> {
            text.parse()
                .map_err(|_| error(format!("'{key}' needs a whole number")))
        };
        let version = next("supernova-value")?;
        if whole("supernova-value", version)? != FORMAT_VERSION as usize {
            return Err(error(format!(
                "format version {version}, expected {FORMAT_VERSION}"
            )));
        }
        let feature_set = whole("features", next("features")?)?;
        if feature_set != FEATURE_SET as usize {
            return Err(error(format!(
                "made for feature set {feature_set}, this engine has {FEATURE_SET}"
            )));
        }
        let inputs = whole("inputs", next("inputs")?)?;
        if inputs != INPUTS {
            return Err(error(format!("{inputs} inputs, expected {INPUTS}")));
        }
        let hidden = whole("hidden", next("hidden")?)?;
        if hidden == 0 || hidden > MAX_HIDDEN {
            return Err(error(format!(
                "{hidden} hidden units, expected 1 to {MAX_HIDDEN}"
            )));
        }
        let name = excerpt(next("name")?);
        let numbers = |key: &str, text: &str, count: usize| -> Result<Vec<f32>, NetworkError> {
            let values: Vec<f32> = text
                .split_whitespace()
                .map(|word| word.parse::<f32>().ok().filter(|value| value.is_finite()))
                .map(|value| value.map(flush_tiny))
                .collect::<Option<_>>()
                .ok_or_else(|| {
                    error(format!("'{key}' holds a word that is not a finite number"))
                })?;
            if values.len() != count {
                return Err(error(format!(
                    "'{key}' has {} numbers, expected {count}",
                    values.len()
                )));
            }
            Ok(values)
        };
        let output_bias = numbers("output_bias", next("output_bias")?, 1)?[0];
        let linear = numbers("linear", next("linear")?, INPUTS)?;
        let hidden_bias = numbers("hidden_bias", next("hidden_bias")?, hidden)?;
        let output = numbers("output", next("output")?, hidden)?;
        let mut weights = Vec::with_capacity(INPUTS * hidden);
        for _ in 0..INPUTS {
            weights.extend(numbers("weights", next("weights")?, hidden)?);
        }
        if let Some(line) = lines.next() {
            return Err(error(format!(
                "unexpected line after the weights: '{}'",
                excerpt(line)
            )));
        }
        Ok(ValueNetwork {
            name,
            hidden,
            output_bias,
            linear,
            hidden_bias,
            output,
            weights,
        })
    }

    /// The text form, which [`ValueNetwork::parse`] reads back exactly.
    pub fn write(&self) -> String {
        let join = |values: &[f32]| {
            values
                .iter()
                .map(|value| format!("{value:?}"))
                .collect::<Vec<_>>()
                .join(" ")
        };
        let mut text = format!(
            "supernova-value {FORMAT_VERSION}\nfeatures {FEATURE_SET}\ninputs {INPUTS}\nhidden {}\nname {}\n",
            self.hidden, self.name
        );
        text += &format!("output_bias {:?}\n", self.output_bias);
        text += &format!("linear {}\n", join(&self.linear));
        text += &format!("hidden_bias {}\n", join(&self.hidden_bias));
        text += &format!("output {}\n", join(&self.output));
        for row in self.weights.chunks(self.hidden) {
            text += &format!("weights {}\n", join(row));
        }
        text
    }
}

/// Weights smaller than this in magnitude are read as 0.
///
/// Training with weight decay leaves the weights of dead hidden units at
/// about 1e-38, at and below the smallest normal `f32`. They cannot change a
/// value (every sum they join is many orders of magnitude larger), but a
/// multiply or add on a subnormal float takes a microcode assist of about a
/// hundred cycles on x86: with 406 of them the built-in network spent four
/// fifths of its forward pass on one vector add. Any weight below this bound
/// times any input below 1e8 stays below 1e-22, far under a sum's last bit.
const TINY: f32 = 1e-30;

/// `value`, or 0 when it is smaller than [`TINY`] in magnitude: applied to
/// every number read and to every weight training writes.
pub(crate) fn flush_tiny(value: f32) -> f32 {
    if value.abs() < TINY {
        0.0
    } else {
        value
    }
}

/// At most 64 printable characters of a word, for error messages and names.
fn excerpt(text: &str) -> String {
    text.chars()
        .filter(|character| !character.is_control())
        .take(64)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::testing::position;

    fn small_network() -> ValueNetwork {
        let mut network = ValueNetwork::zeros(3, "test");
        network.output_bias = 0.25;
        for (index, weight) in network.linear.iter_mut().enumerate() {
            *weight = (index % 7) as f32 * 0.01 - 0.03;
        }
        for (index, weight) in network.weights.iter_mut().enumerate() {
            *weight = (index % 5) as f32 * 0.02 - 0.04;
        }
        network.hidden_bias = vec![0.1, -0.2, 0.3];
        network.output = vec![0.5, -0.5, 1.0 / 3.0];
        network
    }

    #[test]
    fn the_text_form_round_trips_exactly() {
        let network = small_network();
        let text = network.write();
        assert_eq!(ValueNetwork::parse(&text).unwrap(), network);
    }

    #[test]
    fn bad_files_are_refused_with_a_reason() {
        let text = small_network().write();
        let cases = [
            (String::new(), "missing line 'supernova-value'"),
            (text.replace("features 1", "features 9"), "feature set 9"),
            (text.replace("hidden 3", "hidden 0"), "hidden units"),
            (
                text.replace("output_bias 0.25", "output_bias NaN"),
                "finite",
            ),
            (
                text.replace("hidden_bias 0.1 ", "hidden_bias "),
                "expected 3",
            ),
            (format!("{text}weights 1 2 3\n"), "unexpected line"),
            (text.replace("name test\n", ""), "expected line 'name'"),
        ];
        for (bad, reason) in cases {
            let error = ValueNetwork::parse(&bad).unwrap_err();
            assert!(error.to_string().contains(reason), "{error} lacks {reason}");
        }
    }

    #[test]
    fn the_forward_pass_matches_a_dense_computation() {
        let network = small_network();
        let tunables = Tunables::default();
        let position = position(&[("r1b2", "g3y1", ""), ("y1b3", "", "g3")], 0);
        let mut inputs = [0.0; INPUTS];
        features(&position, &tunables, false, &mut inputs);
        let mut expected = network.output_bias;
        for hidden in 0..network.hidden {
            let mut sum = network.hidden_bias[hidden];
            for (index, input) in inputs.iter().enumerate() {
                sum += input * network.weights[index * network.hidden + hidden];
            }
            expected += sum.max(0.0) * network.output[hidden];
        }
        for (index, input) in inputs.iter().enumerate() {
            expected += input * network.linear[index];
        }
        assert!((network.logit(&inputs) - expected).abs() < 1e-4);
        let value = network.value(&position, &tunables, false);
        let scale = tunables[Tunable::LearnedScale];
        assert!((value - (expected * 0.5 * scale).tanh()).abs() < 1e-4);
    }

    #[test]
    fn the_sized_forward_passes_equal_the_general_one_to_the_bit() {
        let tunables = Tunables::default();
        let positions = [
            position(&[("r1b2", "g3y1", ""), ("y1b3", "", "g3")], 0),
            position(
                &[
                    ("r1b2", "g3y1", "b1"),
                    ("y1b3", "r2", "g3g1"),
                    ("g2", "y1", ""),
                ],
                1,
            ),
        ];
        for hidden in [16, 32] {
            let network = ValueNetwork::from_hand(&tunables, hidden, 7, "sized");
            for position in &positions {
                let mut inputs = [0.0; INPUTS];
                features(position, &tunables, false, &mut inputs);
                assert_eq!(
                    network.logit(&inputs).to_bits(),
                    network.logit_any(&inputs).to_bits(),
                    "{hidden} hidden units"
                );
            }
        }
    }

    #[test]
    fn the_hand_network_equals_the_hand_evaluation() {
        let mut tunables = Tunables::default();
        tunables.set_network(None);
        let mut network = ValueNetwork::from_hand(&tunables, 8, 1, "hand");
        network.output = vec![0.0; 8];
        for (systems, mover) in [
            (vec![("r1b2", "g3y1", ""), ("y1b3", "", "g3")], 0),
            (
                vec![
                    ("r1b2", "g3y1", ""),
                    ("y1b3", "", "g3"),
                    ("g2", "y1r3", "b1"),
                ],
                1,
            ),
            (vec![("r1b2", "g3g1", "y1y2"), ("y1b3", "b2", "g3r2")], 0),
        ] {
            let position = position(&systems, mover);
            for threat in [false, true] {
                let hand = crate::search::eval::value(&position, &tunables, threat);
                let learned = network.value(&position, &tunables, threat);
                assert!((hand - learned).abs() < 1e-4, "{hand} {learned}");
            }
        }
    }

    #[test]
    fn a_blend_goes_from_the_hand_evaluation_to_the_network() {
        let network = ValueNetwork::embedded();
        let mut tunables = Tunables::default();
        tunables.set_network(None);
        let position = position(
            &[
                ("r1b2", "g3y1", ""),
                ("y1b3", "b2", "g3r2"),
                ("g2", "y1r3", "b1"),
            ],
            0,
        );
        let hand = crate::search::eval::value(&position, &tunables, false);
        let full = network.value(&position, &tunables, false);
        tunables.set("learned_blend", 0.0).unwrap();
        assert!((network.value(&position, &tunables, false) - hand).abs() < 1e-5);
        tunables.set("learned_blend", 0.5).unwrap();
        let half = network.value(&position, &tunables, false);
        let expected = ((hand.atanh() + full.atanh()) / 2.0).tanh();
        assert!((half - expected).abs() < 1e-4, "{half} {expected}");
        assert!(half != hand && half != full);
    }

    #[test]
    fn tiny_weights_are_read_as_zero_and_change_no_value() {
        let mut tiny = small_network();
        tiny.weights[4] = 3.3e-38;
        tiny.weights[7] = -1.3e-40;
        tiny.linear[2] = 2e-31;
        let parsed = ValueNetwork::parse(&tiny.write()).unwrap();
        assert_eq!(parsed.weights[4], 0.0);
        assert_eq!(parsed.weights[7], 0.0);
        assert_eq!(parsed.linear[2], 0.0);
        assert_eq!(parsed.weights[5], tiny.weights[5]);
        let tunables = Tunables::default();
        let positions = [
            position(&[("r1b2", "g3y1", ""), ("y1b3", "", "g3")], 0),
            position(&[("r1b2", "g3y1", "b1"), ("y1b3", "r2", "g3g1")], 1),
        ];
        for position in positions {
            assert_eq!(
                parsed.value(&position, &tunables, false),
                tiny.value(&position, &tunables, false)
            );
        }
        let embedded = ValueNetwork::embedded();
        let mut all = embedded.weights.iter().chain(&embedded.linear);
        assert!(all.all(|weight| *weight == 0.0 || weight.abs() >= TINY));
    }

    #[test]
    fn the_embedded_network_loads() {
        let network = ValueNetwork::embedded();
        assert!(network.hidden() >= 1);
    }
}
