//! The playing levels against people's blunders: the measurement (ignored,
//! run by hand) of how often people and levels leave material to a
//! one-turn shot, with the definition the levels' rule uses
//! ([`supernova::engine::strength::exposure`]); the rule's own test is in
//! the module.

use std::collections::BTreeMap;
use std::path::PathBuf;

use supernova::engine::strength::{exposure, HANG};
use supernova::record::GameRecord;
use supernova::rules::{Action, Outcome, Position, Rules, TurnEnumerator};
use supernova::search::material::{ELIMINATED, SHOT};

/// How much more the worst reply to `turn` takes than the worst reply to
/// the least exposed of the first [`ALTERNATIVES`] legal turns, if at least
/// [`HANG`] (stopping once one leaves [`SHOT`] less): a lower bound of the
/// excess over the least exposed legal turn, since listing every turn's
/// every reply takes minutes a game.
fn hanging(position: &Position, rules: &Rules, turn: &[Action]) -> Option<f32> {
    let played = exposure(position, rules, turn)?;
    if played < HANG {
        return None;
    }
    let mut least = played;
    let mut turns = Vec::new();
    TurnEnumerator::default().for_each_turn(position, rules, |actions, _, outcome| {
        if outcome == Outcome::Ongoing {
            turns.push(actions.to_vec());
        }
    });
    for alternative in turns.into_iter().take(ALTERNATIVES) {
        if let Some(exposed) = exposure(position, rules, &alternative) {
            least = least.min(exposed);
            if played - least >= SHOT {
                break;
            }
        }
    }
    (played - least >= HANG).then_some(played - least)
}

/// The alternative turns a measured turn is compared with.
const ALTERNATIVES: usize = 48;

/// Counts of turns and of turns that hang material, by phase.
#[derive(Default)]
struct Tally {
    turns: [u32; 3],
    hung: [u32; 3],
    large: [u32; 3],
}

fn phase(number: u32) -> usize {
    match number {
        0..=20 => 0,
        21..=50 => 1,
        _ => 2,
    }
}

/// The blunder rates of the players in a directory of SDG records
/// (`LEVELS_RECORDS`, default ../shared/sdg; every `LEVELS_EVERY`th record),
/// all people together, or by player name with `LEVELS_BY_NAME=1`.
#[test]
#[ignore = "a measurement: minutes over the SDG records"]
fn blunder_rates_in_records() {
    let directory = std::env::var("LEVELS_RECORDS").unwrap_or("../shared/sdg".to_string());
    let every: usize = std::env::var("LEVELS_EVERY")
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(1);
    let by_name = std::env::var("LEVELS_BY_NAME").is_ok_and(|value| value == "1");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&directory)
        .expect("the records directory")
        .map(|entry| entry.unwrap().path())
        .filter(|path| {
            path.extension()
                .is_some_and(|extension| extension == "raw" || extension == "sdg")
        })
        .collect();
    files.sort();
    let mut tallies: BTreeMap<String, Tally> = BTreeMap::new();
    for path in files.iter().step_by(every.max(1)) {
        let Ok(record) = GameRecord::read_file(path) else {
            continue;
        };
        let Ok(rules) = record.rules(&"sdg".parse().unwrap()) else {
            continue;
        };
        let walk = record.walk(&rules);
        for turn in &walk.turns {
            let position = turn.board.position;
            if position.in_setup() {
                continue;
            }
            let name = if by_name {
                record
                    .header
                    .player_name(turn.mover)
                    .unwrap_or("?")
                    .to_string()
            } else {
                "people".to_string()
            };
            let tally = tallies.entry(name).or_default();
            let index = phase(turn.number);
            tally.turns[index] += 1;
            if let Some(excess) = hanging(&position, &rules, &turn.actions) {
                tally.hung[index] += 1;
                if excess >= SHOT || excess >= ELIMINATED / 2.0 {
                    tally.large[index] += 1;
                }
            }
        }
    }
    println!("player: turns, hangs (> small ship net), large (a large ship net or home) per 100 turns; by turn number 1-20 / 21-50 / 51+");
    for (name, tally) in &tallies {
        let total: u32 = tally.turns.iter().sum();
        let rate =
            |counts: &[u32; 3]| 100.0 * counts.iter().sum::<u32>() as f64 / total.max(1) as f64;
        let phases: Vec<String> = (0..3)
            .map(|index| {
                format!(
                    "{}/{}/{}",
                    tally.turns[index], tally.hung[index], tally.large[index]
                )
            })
            .collect();
        println!(
            "{name}: {total} turns, hangs {:.2}, large {:.2} per 100 (turns/hangs/large by phase: {})",
            rate(&tally.hung),
            rate(&tally.large),
            phases.join(" ")
        );
    }
}
