//! The gate: a candidate network against the best one so far, in batches
//! of every opening with both colours, decided by an SPRT (its bounds, and
//! why each batch searches more nodes, are in the parent module's
//! documentation).

use std::sync::Arc;

use super::{openings, player_options, TrainConfig};
use crate::rules::Action;
use crate::search::{SearchLimits, SearchOptions, ValueNetwork};
use crate::tools::selfplay::{run_match, MatchPlayer, MatchSettings};
use crate::tools::stats::{Sprt, SprtVerdict, Tally};

/// The candidate against the best: batches of every opening twice, until
/// the SPRT (elo0 0, elo1 20, alpha and beta 0.05) decides or the budget
/// of games is spent.
pub(super) fn gate(
    config: &TrainConfig,
    generation: u32,
    candidate: &Arc<ValueNetwork>,
    best: Option<Arc<ValueNetwork>>,
) -> (Tally, SprtVerdict) {
    let sprt = Sprt {
        elo0: 0.0,
        elo1: 20.0,
        alpha: 0.05,
        beta: 0.05,
    };
    let openings: Vec<Vec<Vec<Action>>> = openings()
        .into_iter()
        .map(|setup| setup.iter().map(|&action| vec![action]).collect())
        .collect();
    let settings = MatchSettings {
        max_turns: config.max_turns,
        parallel_games: rayon::current_num_threads(),
        ..MatchSettings::default()
    };
    let mut tally = Tally::default();
    let mut batch = 0u64;
    while (tally.games() as usize) < config.gate_games {
        let nodes = config.gate_nodes + batch * config.gate_nodes / 8;
        let player = |network: Option<Arc<ValueNetwork>>, name: &str| MatchPlayer {
            name: name.to_string(),
            options: SearchOptions {
                multi_pv: 1,
                ..player_options(network)
            },
            limits: SearchLimits::nodes(nodes),
        };
        let room = (config.gate_games - tally.games() as usize).div_ceil(2);
        let used = &openings[..room.min(openings.len())];
        let summary = run_match(
            &player(Some(candidate.clone()), &format!("gen-{generation}")),
            &player(best.clone(), "best"),
            used,
            &settings,
            |_| {},
        );
        for game in &summary.games {
            tally.add(game.score_a);
        }
        let verdict = sprt.verdict(&tally);
        if verdict != SprtVerdict::Continue {
            return (tally, verdict);
        }
        batch += 1;
    }
    (tally, SprtVerdict::Continue)
}
