//! Fitting a network to training positions: a logistic loss, minimised by
//! Adam over shuffled mini-batches.
//!
//! The network's win probability is the logistic function of its logit
//! (its value is `tanh(logit / 2)`, the same number on [-1, 1]), and the
//! target is the mixed value target read as a probability, so the loss is
//! the cross-entropy of the two. The forward pass here gives the engine's
//! value (a test checks it against [`ValueNetwork`]'s own pass), so the
//! network is fitted to exactly the value it plays with. Details:
//! - one game in twenty is held out for validation, whole games, so that
//!   the positions of one game never judge a fit to their neighbours;
//! - mini-batches of 512 positions, whose gradient is summed in parallel
//!   over chunks of 64;
//! - Adam (β1 0.9, β2 0.999), with a learning rate that falls linearly
//!   towards a tenth over the epochs and a small weight decay (1e-5) on the hidden
//!   layer's input weights only (the linear path, which starts as the hand
//!   evaluation, is not pulled towards 0);
//! - weights that decay towards subnormal floats are written as 0
//!   ([`flush_tiny`]).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rayon::prelude::*;

use super::samples::Sample;
use super::TrainConfig;
use crate::search::network::flush_tiny;
use crate::search::{value_features, Tunables, ValueNetwork, VALUE_INPUTS};

/// Gradients (or Adam moments) of every parameter, in one flat vector:
/// output bias, linear, hidden bias, output, weights.
fn parameter_count(hidden: usize) -> usize {
    1 + VALUE_INPUTS + hidden + hidden + VALUE_INPUTS * hidden
}

/// Adds one sample's gradient of the logistic loss to `gradient`; returns
/// the loss and the predicted value.
fn accumulate(
    network: &ValueNetwork,
    inputs: &[f32; VALUE_INPUTS],
    target: f32,
    gradient: &mut [f32],
) -> (f32, f32) {
    let hidden = network.hidden;
    let mut sums = network.hidden_bias.clone();
    for (index, &input) in inputs.iter().enumerate() {
        if input != 0.0 {
            let row = &network.weights[index * hidden..(index + 1) * hidden];
            for (sum, weight) in sums.iter_mut().zip(row) {
                *sum += input * weight;
            }
        }
    }
    // The forward pass from the sums already made (`ValueNetwork::logit`
    // would make them again).
    let mut logit = network.output_bias;
    for (index, &input) in inputs.iter().enumerate() {
        logit += input * network.linear[index];
    }
    for (sum, weight) in sums.iter().zip(&network.output) {
        logit += sum.max(0.0) * weight;
    }
    let probability = 1.0 / (1.0 + (-logit).exp());
    let error = probability - target;
    let loss = -(target * probability.max(1e-7).ln()
        + (1.0 - target) * (1.0 - probability).max(1e-7).ln());
    let (bias, rest) = gradient.split_at_mut(1);
    let (linear, rest) = rest.split_at_mut(VALUE_INPUTS);
    let (hidden_bias, rest) = rest.split_at_mut(hidden);
    let (output, weights) = rest.split_at_mut(hidden);
    bias[0] += error;
    for (unit, sum) in sums.iter().enumerate() {
        output[unit] += error * sum.max(0.0);
    }
    let back: Vec<f32> = (0..hidden)
        .map(|unit| {
            if sums[unit] > 0.0 {
                error * network.output[unit]
            } else {
                0.0
            }
        })
        .collect();
    for (unit, &delta) in back.iter().enumerate() {
        hidden_bias[unit] += delta;
    }
    for (index, &input) in inputs.iter().enumerate() {
        if input != 0.0 {
            linear[index] += error * input;
            let row = &mut weights[index * hidden..(index + 1) * hidden];
            for (weight, &delta) in row.iter_mut().zip(&back) {
                *weight += delta * input;
            }
        }
    }
    (loss, 2.0 * probability - 1.0)
}

/// Applies one Adam step with `gradient` (already averaged).
fn adam_step(
    network: &mut ValueNetwork,
    gradient: &[f32],
    moments: &mut [f32],
    squares: &mut [f32],
    step: i32,
    learning_rate: f32,
) {
    const BETA1: f32 = 0.9;
    const BETA2: f32 = 0.999;
    const DECAY: f32 = 1e-5;
    let correction1 = 1.0 - BETA1.powi(step);
    let correction2 = 1.0 - BETA2.powi(step);
    let hidden = network.hidden;
    let mut parameters: Vec<&mut f32> = Vec::with_capacity(parameter_count(hidden));
    parameters.push(&mut network.output_bias);
    parameters.extend(network.linear.iter_mut());
    parameters.extend(network.hidden_bias.iter_mut());
    parameters.extend(network.output.iter_mut());
    parameters.extend(network.weights.iter_mut());
    let weights_start = 1 + VALUE_INPUTS + 2 * hidden;
    for (index, parameter) in parameters.into_iter().enumerate() {
        let mut grad = gradient[index];
        if index >= weights_start {
            grad += DECAY * *parameter;
        }
        moments[index] = BETA1 * moments[index] + (1.0 - BETA1) * grad;
        squares[index] = BETA2 * squares[index] + (1.0 - BETA2) * grad * grad;
        let moment = moments[index] / correction1;
        let square = squares[index] / correction2;
        // Decayed weights of dead units would sink to subnormal floats,
        // slow to compute with (see `flush_tiny`): they become 0.
        *parameter = flush_tiny(*parameter - learning_rate * moment / (square.sqrt() + 1e-8));
    }
}

/// What fitting achieved, for the report.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FitReport {
    /// Training positions.
    pub samples: usize,
    /// Validation loss before and after.
    pub loss_before: f32,
    /// Validation loss after fitting.
    pub loss_after: f32,
    /// How often the validation value's sign matched a decided game's
    /// result, before fitting.
    pub accuracy_before: f32,
    /// The same after fitting.
    pub accuracy_after: f32,
}

impl std::fmt::Display for FitReport {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            formatter,
            "{} positions, validation loss {:.4} -> {:.4}, accuracy {:.1}% -> {:.1}%",
            self.samples,
            self.loss_before,
            self.loss_after,
            100.0 * self.accuracy_before,
            100.0 * self.accuracy_after
        )
    }
}

/// One position ready to fit: the network's inputs and the target.
struct Example {
    /// The position's features.
    inputs: [f32; VALUE_INPUTS],
    /// The value target as a win probability, in [0, 1].
    target: f32,
    /// The sign of the game's result for the side to move (0 for a draw),
    /// against which the validation accuracy is counted.
    result: f32,
}

/// Fits `network` to the samples; one game in twenty is held out to report
/// the validation loss and accuracy.
pub(super) fn fit(
    config: &TrainConfig,
    mut network: ValueNetwork,
    samples: &[Sample],
    generation: u32,
) -> (ValueNetwork, FitReport) {
    let (validation, training) = prepare(config, samples);
    let (loss_before, accuracy_before) = measure(&network, &validation);
    let count = parameter_count(network.hidden);
    let mut moments = vec![0.0; count];
    let mut squares = vec![0.0; count];
    let mut order: Vec<usize> = (0..training.len()).collect();
    let mut rng = SmallRng::seed_from_u64(config.seed ^ generation as u64);
    let batch = 512;
    let mut step = 0;
    for epoch in 0..config.epochs {
        shuffle(&mut order, &mut rng);
        // The learning rate falls linearly to a tenth over the run.
        let progress = epoch as f32 / config.epochs.max(1) as f32;
        let learning_rate = config.learning_rate * (1.0 - 0.9 * progress);
        for chunk in order.chunks(batch) {
            let gradient = batch_gradient(&network, &training, chunk);
            step += 1;
            adam_step(
                &mut network,
                &gradient,
                &mut moments,
                &mut squares,
                step,
                learning_rate,
            );
        }
    }
    let (loss_after, accuracy_after) = measure(&network, &validation);
    let report = FitReport {
        samples: training.len() + validation.len(),
        loss_before,
        loss_after,
        accuracy_before,
        accuracy_after,
    };
    (network, report)
}

/// The samples as examples, split into the validation games (one in
/// twenty, by the game's number) and the training ones, each in the order
/// given.
fn prepare(config: &TrainConfig, samples: &[Sample]) -> (Vec<Example>, Vec<Example>) {
    let tunables = Tunables::default();
    let prepared: Vec<(Example, bool)> = samples
        .par_iter()
        .map(|sample| {
            let mut inputs = [0.0; VALUE_INPUTS];
            value_features(&sample.position, &tunables, sample.threat, &mut inputs);
            let mixed =
                config.result_weight * sample.result + (1.0 - config.result_weight) * sample.value;
            let validation = sample.game % 20 == 7;
            let example = Example {
                inputs,
                target: (mixed + 1.0) / 2.0,
                result: sample.result.signum(),
            };
            (example, validation)
        })
        .collect();
    let (validation, training): (Vec<_>, Vec<_>) = prepared
        .into_iter()
        .partition(|(_, validation)| *validation);
    let examples = |pairs: Vec<(Example, bool)>| pairs.into_iter().map(|(example, _)| example);
    (examples(validation).collect(), examples(training).collect())
}

/// The mean loss over the validation examples, and the share of those of
/// decided games whose value has the result's sign.
fn measure(network: &ValueNetwork, validation: &[Example]) -> (f32, f32) {
    let mut scratch = vec![0.0; parameter_count(network.hidden)];
    let mut loss = 0.0;
    let (mut right, mut decided) = (0, 0);
    for example in validation {
        let (sample_loss, value) =
            accumulate(network, &example.inputs, example.target, &mut scratch);
        loss += sample_loss;
        if example.result != 0.0 {
            decided += 1;
            if value * example.result > 0.0 {
                right += 1;
            }
        }
    }
    (
        loss / validation.len().max(1) as f32,
        right as f32 / decided.max(1) as f32,
    )
}

/// The mean gradient over the training examples of one mini-batch, summed
/// in parallel over parts of 64.
fn batch_gradient(network: &ValueNetwork, training: &[Example], batch: &[usize]) -> Vec<f32> {
    let count = parameter_count(network.hidden);
    let gradient = batch
        .par_chunks(64)
        .map(|part| {
            let mut gradient = vec![0.0; count];
            for &index in part {
                let example = &training[index];
                accumulate(network, &example.inputs, example.target, &mut gradient);
            }
            gradient
        })
        .reduce(
            || vec![0.0; count],
            |mut total, part| {
                for (sum, value) in total.iter_mut().zip(part) {
                    *sum += value;
                }
                total
            },
        );
    let scale = 1.0 / batch.len() as f32;
    gradient.iter().map(|value| value * scale).collect()
}

/// A seeded Fisher-Yates shuffle.
fn shuffle(order: &mut [usize], rng: &mut SmallRng) {
    for index in (1..order.len()).rev() {
        let other = rng.random_range(0..=index);
        order.swap(index, other);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::notation::hwpn;

    #[test]
    fn the_gradient_matches_finite_differences() {
        let tunables = Tunables::default();
        let mut network = ValueNetwork::from_hand(&tunables, 4, 3, "test");
        network.output = vec![0.3, -0.2, 0.5, 0.1];
        let board = hwpn::parse("r1b2:g3y1:/y1b3::g3/g2:r1:b1 1").unwrap();
        let mut inputs = [0.0; VALUE_INPUTS];
        value_features(&board.position, &tunables, false, &mut inputs);
        let target = 0.8;
        let mut gradient = vec![0.0; parameter_count(4)];
        let (_, predicted) = accumulate(&network, &inputs, target, &mut gradient);
        // The training forward pass is the engine's.
        let expected = 2.0 / (1.0 + (-network.logit(&inputs)).exp()) - 1.0;
        assert!(
            (predicted - expected).abs() < 1e-5,
            "{predicted} {expected}"
        );
        let loss = |network: &ValueNetwork| {
            let mut scratch = vec![0.0; parameter_count(4)];
            accumulate(network, &inputs, target, &mut scratch).0
        };
        let epsilon = 1e-3;
        // The output bias, a linear weight, a hidden bias and a weight.
        let hidden_weight = inputs.iter().position(|&input| input != 0.0).unwrap() * 4 + 2;
        type Accessor = fn(&mut ValueNetwork, usize) -> &mut f32;
        let checks: [(usize, Accessor, usize); 3] = [
            (0, |network, _| &mut network.output_bias, 0),
            (
                1 + VALUE_INPUTS + 8 + hidden_weight,
                |network, index| &mut network.weights[index],
                hidden_weight,
            ),
            (
                1 + VALUE_INPUTS + 4 + 2,
                |network, index| &mut network.output[index],
                2,
            ),
        ];
        for (flat, parameter, index) in checks {
            let mut plus = network.clone();
            *parameter(&mut plus, index) += epsilon;
            let mut minus = network.clone();
            *parameter(&mut minus, index) -= epsilon;
            let numeric = (loss(&plus) - loss(&minus)) / (2.0 * epsilon);
            assert!(
                (numeric - gradient[flat]).abs() < 2e-2 * numeric.abs().max(0.05),
                "parameter {flat}: numeric {numeric}, analytic {}",
                gradient[flat]
            );
        }
    }
}
