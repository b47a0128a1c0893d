//! The training positions: the self-play data files, read back, and the
//! positions of recorded games.
//!
//! The data format is in the parent module's documentation; a parse error
//! names the file and the line.

use std::fs;
use std::path::PathBuf;

use super::{generation_directory, io_error, is_held_out, TrainConfig};
use crate::notation::hwpn;
use crate::rules::{Outcome, Position};
use crate::search::{leaf_threat, Solver};

/// One training position, parsed.
#[derive(Clone, Debug)]
pub(super) struct Sample {
    /// The game's number, which chooses the validation fold (the games of
    /// different generations are numbered apart).
    pub(super) game: u32,
    /// The start-of-turn position.
    pub(super) position: Position,
    /// The game's result for the side to move (times the discount, once
    /// [`discount_results`] has run).
    pub(super) result: f32,
    /// The search's value for the side to move.
    pub(super) value: f32,
    /// Whether the opponent could win at once if the side to move passed.
    pub(super) threat: bool,
}

/// Reads the data of the generations a candidate of `generation` is fitted to.
pub(super) fn load_samples(config: &TrainConfig, generation: u32) -> Result<Vec<Sample>, String> {
    let first = generation.saturating_sub(config.window.max(1) - 1).max(1);
    let mut samples = Vec::new();
    for source in first..=generation {
        let directory = generation_directory(config, source);
        let Ok(entries) = fs::read_dir(&directory) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                path.file_name()
                    .and_then(|name| name.to_str())
                    .is_some_and(|name| name.starts_with("games-") && name.ends_with(".txt"))
            })
            .collect();
        paths.sort();
        for path in paths {
            let text = fs::read_to_string(&path).map_err(|error| io_error(&path, error))?;
            parse_samples(&text, source, &mut samples)
                .map_err(|error| format!("{}: {error}", path.to_string_lossy()))?;
        }
    }
    Ok(samples)
}

/// The positions of the real games that are not held out, in the order
/// played, with the game's result as the target.
pub(super) fn record_samples(config: &TrainConfig) -> Vec<Sample> {
    let mut samples = Vec::new();
    let mut solver = Solver::default();
    for record in &config.records {
        if is_held_out(record) || record.unsupported().is_some() {
            continue;
        }
        let walk = record.walk(&config.record_rules);
        let Outcome::Win(winner) = walk.outcome else {
            continue;
        };
        if walk.illegal.is_some() {
            continue;
        }
        let rules = record
            .rules(&config.record_rules)
            .unwrap_or(config.record_rules);
        for turn in &walk.turns {
            let position = turn.board.position;
            if position.in_setup() {
                continue;
            }
            let result = if position.side_to_move() == winner {
                1.0
            } else {
                -1.0
            };
            // An engine's record (`supernova match` writes one) gives the
            // mover's search value of each turn, and the previous mover's
            // value of its turn is, negated, one for this position (an
            // engine that reports no score leaves only that); a person's
            // record gives none.
            let value_of = |number: u32| {
                record
                    .turns
                    .iter()
                    .find(|recorded| recorded.number == number)
                    .and_then(|recorded| comment_value(&recorded.comments))
            };
            let searched = value_of(turn.number)
                .or_else(|| value_of(turn.number.wrapping_sub(1)).map(|value| -value));
            samples.push(Sample {
                game: record.header.game_number as u32,
                position,
                result,
                value: searched.unwrap_or(result),
                threat: leaf_threat(&mut solver, &position, &rules),
            });
        }
    }
    samples
}

/// The mover's search value, in [-1, 1], that a turn's comment gives in
/// the form `supernova match` writes (`{+0.29/9 0.512s}`: the protocol's
/// `cp` over 100, so +0.29 is a value of 0.029; `{+M2/0 0.004s}` for a
/// proven result), or `None` when no comment has one.
fn comment_value(comments: &[String]) -> Option<f32> {
    comments.iter().find_map(|line| {
        let inside = line.trim().strip_prefix('{')?.strip_suffix('}')?;
        let (score, _) = inside.split_once('/')?;
        if let Some(turns) = score.strip_prefix("+M") {
            turns.parse::<u32>().ok().map(|_| 1.0)
        } else if let Some(turns) = score.strip_prefix("-M") {
            turns.parse::<u32>().ok().map(|_| -1.0)
        } else {
            let hundredths: f32 = score.parse().ok()?;
            Some((hundredths / 10.0).clamp(-1.0, 1.0))
        }
    })
}

/// Scales each sample's result by `discount` to the power of the turns left
/// in its game. A game's samples are consecutive and in the order played
/// (as the data files and the record walk give them).
pub(super) fn discount_results(samples: &mut [Sample], discount: f32) {
    let mut factor = 1.0;
    let mut game = None;
    for sample in samples.iter_mut().rev() {
        if game != Some(sample.game) {
            game = Some(sample.game);
            factor = 1.0;
        }
        sample.result *= factor;
        factor *= discount;
    }
}

/// Parses data lines (the format is in the parent module's documentation).
fn parse_samples(text: &str, generation: u32, samples: &mut Vec<Sample>) -> Result<(), String> {
    for (index, line) in text.lines().enumerate() {
        if line.starts_with('#') || line.trim().is_empty() {
            continue;
        }
        let bad = || format!("line {}: expected GAME HWPN RESULT VALUE THREAT", index + 1);
        let fields: Vec<&str> = line.split('\t').collect();
        let [game, position, result, value, threat] = fields[..] else {
            return Err(bad());
        };
        let board =
            hwpn::parse(position).map_err(|error| format!("line {}: {error}", index + 1))?;
        let game: u32 = game.parse().map_err(|_| bad())?;
        samples.push(Sample {
            // Games of different generations never share a validation fold.
            game: game.wrapping_add(generation.wrapping_mul(1_000_003)),
            position: board.position,
            result: result.parse().map_err(|_| bad())?,
            value: value.parse().map_err(|_| bad())?,
            threat: threat == "1",
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn data_lines_parse_and_bad_lines_are_named() {
        let mut samples = Vec::new();
        let text = "# comment\n3\tr1b3:g3:/y2b1::g3 0\t1\t0.250\t0\n";
        parse_samples(text, 1, &mut samples).unwrap();
        assert_eq!(samples.len(), 1);
        assert_eq!(samples[0].result, 1.0);
        assert_eq!(samples[0].value, 0.25);
        assert!(!samples[0].threat);
        let error = parse_samples("1\tr1b3:g3:/y2b1::g3 0\t1\n", 1, &mut samples).unwrap_err();
        assert!(error.contains("line 1"), "{error}");
        let error = parse_samples("1\tnonsense\t1\t0\t0\n", 1, &mut samples).unwrap_err();
        assert!(error.contains("line 1"), "{error}");
    }

    #[test]
    fn engine_records_give_the_search_value_of_each_turn() {
        let lines = |text: &[&str]| text.iter().map(|line| line.to_string()).collect::<Vec<_>>();
        assert_eq!(comment_value(&lines(&["\t{+0.29/9 0.512s}"])), Some(0.029));
        assert_eq!(comment_value(&lines(&["\t{-3.50/12 0.100s}"])), Some(-0.35));
        assert_eq!(comment_value(&lines(&["\t{+M2/0 0.004s}"])), Some(1.0));
        assert_eq!(comment_value(&lines(&["\t{-M1/0 0.004s}"])), Some(-1.0));
        assert_eq!(comment_value(&lines(&["\t{+10.00/0 0.000s}"])), Some(1.0));
        // No score (an engine that sent no `info`), a person's comment, none.
        assert_eq!(comment_value(&lines(&["\t{0.039s}"])), None);
        assert_eq!(comment_value(&lines(&["\tgood move/bad"])), None);
        assert_eq!(comment_value(&[]), None);
    }

    #[test]
    fn results_are_discounted_by_the_turns_left_in_each_game() {
        let position = hwpn::parse("r1b3:g3:/y2b1::g3 0").unwrap().position;
        let sample = |game, result| Sample {
            game,
            position,
            result,
            value: 0.0,
            threat: false,
        };
        let mut samples = vec![
            sample(1, 1.0),
            sample(1, -1.0),
            sample(1, 1.0),
            sample(2, -1.0),
        ];
        discount_results(&mut samples, 0.5);
        let results: Vec<f32> = samples.iter().map(|sample| sample.result).collect();
        assert_eq!(results, [0.25, -0.5, 1.0, -1.0]);
    }
}
