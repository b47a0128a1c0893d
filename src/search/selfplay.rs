//! Self-play: two players against each other from a set of openings, each
//! opening played twice with colours swapped, games in parallel.
//!
//! This is how strength is measured (and what a match runner on the command
//! line can reuse): every game gives each side its own [`Searcher`] with its
//! own options and limits, typically one thread each, while rayon runs
//! several games at once. Games are adjudicated as draws on a threefold
//! repetition of the start-of-turn position (including the side to move) and
//! after a turn cap, so every game ends. A player whose turn does not replay
//! legally loses, which a correct engine never does.

use std::collections::HashMap;
use std::sync::atomic::AtomicBool;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;

use super::players::{book_score, setup_actions};
use super::{Decision, PlayerKind, SearchLimits, SearchOptions, Searcher};
use crate::rules::{Action, Outcome, Player, Position, Rules};

/// One side of a match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchPlayer {
    /// A label for reports.
    pub name: String,
    /// The searcher's options (threads is usually 1).
    pub options: SearchOptions,
    /// Limits for each of its turns.
    pub limits: SearchLimits,
}

impl MatchPlayer {
    /// Parses a player description such as `mcts:ms=100`,
    /// `mcts:nodes=2000:cpuct=2.0` or `greedy`: a player kind, then
    /// `key=value` settings separated by `:`. Keys: `nodes`, `ms` (time per
    /// turn), `threads`, `hash` (MB), `seed`, or any tunable's name.
    ///
    /// # Errors
    /// Names the setting that is not understood.
    pub fn parse(text: &str) -> Result<MatchPlayer, String> {
        let mut parts = text.split(':');
        let kind: PlayerKind = parts.next().unwrap_or_default().parse()?;
        let mut options = SearchOptions {
            player: kind,
            ..SearchOptions::default()
        };
        let mut limits = SearchLimits::nodes(1_000);
        for part in parts {
            let (key, value) = part
                .split_once('=')
                .ok_or_else(|| format!("'{part}' in '{text}': expected key=value"))?;
            let number = |value: &str| -> Result<u64, String> {
                value
                    .parse()
                    .map_err(|_| format!("'{part}' in '{text}': expected a whole number"))
            };
            match key {
                "nodes" => limits = SearchLimits::nodes(number(value)?),
                "ms" => limits = SearchLimits::movetime(Duration::from_millis(number(value)?)),
                "threads" => options.threads = number(value)? as usize,
                "hash" => options.hash_mb = number(value)? as usize,
                "seed" => options.seed = number(value)?,
                _ => {
                    let value: f32 = value
                        .parse()
                        .map_err(|_| format!("'{part}' in '{text}': expected a number"))?;
                    options
                        .tunables
                        .set(key, value)
                        .map_err(|error| format!("'{part}' in '{text}': {error}"))?;
                }
            }
        }
        Ok(MatchPlayer {
            name: text.to_string(),
            options,
            limits,
        })
    }
}

/// How games are run and adjudicated.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatchSettings {
    /// The rules both players play by.
    pub rules: Rules,
    /// Turns (after the opening) before the game is adjudicated a draw.
    pub max_turns: u32,
    /// Occurrences of a start-of-turn position that draw the game.
    pub repetitions: u32,
    /// Games played at once.
    pub parallel_games: usize,
}

impl Default for MatchSettings {
    fn default() -> MatchSettings {
        MatchSettings {
            rules: Rules::STANDARD,
            max_turns: 200,
            repetitions: 3,
            parallel_games: 1,
        }
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameEnd {
    /// One player eliminated the other.
    Elimination,
    /// Both players were eliminated in the same turn: a draw.
    MutualElimination,
    /// A start-of-turn position occurred `repetitions` times: a draw.
    Repetition,
    /// The turn cap was reached: a draw.
    TurnCap,
    /// A player returned a turn that does not replay legally, and lost.
    IllegalTurn,
}

/// One finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Which opening was played.
    pub opening: usize,
    /// Whether player A moved first (as player 0).
    pub a_first: bool,
    /// The result by seat.
    pub outcome: Outcome,
    /// How it ended.
    pub end: GameEnd,
    /// Every turn, the opening included.
    pub turns: Vec<Vec<Action>>,
    /// Why each turn after the opening was chosen.
    pub decisions: Vec<Decision>,
    /// Player A's score: 1, 0.5 or 0.
    pub score_a: f32,
}

/// The result of a match from player A's point of view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchSummary {
    /// Games A won.
    pub wins: u32,
    /// Drawn games.
    pub draws: u32,
    /// Games A lost.
    pub losses: u32,
    /// Every game, in opening order.
    pub games: Vec<GameRecord>,
}

impl MatchSummary {
    /// A's score fraction.
    pub fn score(&self) -> f64 {
        let games = (self.wins + self.draws + self.losses).max(1) as f64;
        (self.wins as f64 + 0.5 * self.draws as f64) / games
    }

    /// A's Elo difference with a 95% confidence interval.
    pub fn elo(&self) -> (f64, f64, f64) {
        elo_interval(self.wins, self.draws, self.losses)
    }
}

/// Elo difference and 95% interval from win/draw/loss counts, from the
/// score's normal approximation (per-game variance of the observed results).
pub fn elo_interval(wins: u32, draws: u32, losses: u32) -> (f64, f64, f64) {
    let games = (wins + draws + losses) as f64;
    if games == 0.0 {
        return (0.0, f64::NEG_INFINITY, f64::INFINITY);
    }
    let score = (wins as f64 + 0.5 * draws as f64) / games;
    let variance = (wins as f64 * (1.0 - score).powi(2)
        + draws as f64 * (0.5 - score).powi(2)
        + losses as f64 * score.powi(2))
        / games;
    let margin = 1.96 * (variance / games).sqrt();
    let elo = |score: f64| -> f64 {
        let clamped = score.clamp(1e-6, 1.0 - 1e-6);
        -400.0 * (1.0 / clamped - 1.0).log10()
    };
    (elo(score), elo(score - margin), elo(score + margin))
}

/// `count` openings (the two setup turns), reproducible from `seed`: pairs
/// of homeworlds the setup book rates near its best, so that deterministic
/// engines still play varied games.
pub fn openings(count: usize, seed: u64, rules: &Rules) -> Vec<Vec<Vec<Action>>> {
    let start = Position::start();
    let first_choices = good_setups(&start, rules, 3);
    let mut pairs = Vec::new();
    for first in first_choices {
        let mut after = start;
        after.apply_unchecked(rules, first);
        if after.end_turn(rules).is_err() {
            continue;
        }
        for second in good_setups(&after, rules, 3) {
            pairs.push(vec![vec![first], vec![second]]);
        }
    }
    let mut rng = SmallRng::seed_from_u64(seed);
    pairs.shuffle(&mut rng);
    if pairs.is_empty() {
        return Vec::new();
    }
    (0..count)
        .map(|index| pairs[index % pairs.len()].clone())
        .collect()
}

/// Homeworlds within `margin` of the book's best score here.
fn good_setups(position: &Position, rules: &Rules, margin: i32) -> Vec<Action> {
    let actions = setup_actions(position, rules);
    let best = actions
        .iter()
        .map(|&action| book_score(position, action))
        .max()
        .unwrap_or(0);
    actions
        .into_iter()
        .filter(|&action| book_score(position, action) >= best - margin)
        .collect()
}

/// Plays one game: `seats[0]` is player 0 (moves first). Returns the record
/// with `score_a` from `seats[0]`'s point of view.
pub fn play_game(
    seats: [&MatchPlayer; 2],
    opening: &[Vec<Action>],
    settings: &MatchSettings,
) -> GameRecord {
    let rules = settings.rules;
    let mut position = Position::start();
    let mut turns: Vec<Vec<Action>> = Vec::new();
    for turn in opening {
        let mut next = position;
        let legal = turn
            .iter()
            .all(|&action| next.try_apply(&rules, action).is_ok());
        if !legal || next.end_turn(&rules).is_err() {
            break;
        }
        position = next;
        turns.push(turn.clone());
    }
    let mut searchers = seats.map(|seat| {
        let mut options = seat.options.clone();
        options.rules = rules;
        Searcher::new(options)
    });
    let stop = AtomicBool::new(false);
    let mut history: Vec<u64> = Vec::new();
    let mut counts: HashMap<u64, u32> = HashMap::new();
    counts.insert(position.hash(), 1);
    let mut played = 0;
    let mut decisions = Vec::new();
    let finish =
        |outcome: Outcome, end: GameEnd, turns: Vec<Vec<Action>>, decisions: Vec<Decision>| {
            let score_a = match outcome {
                Outcome::Win(Player::First) => 1.0,
                Outcome::Win(Player::Second) => 0.0,
                _ => 0.5,
            };
            GameRecord {
                opening: 0,
                a_first: true,
                outcome,
                end,
                turns,
                decisions,
                score_a,
            }
        };
    loop {
        if !position.in_setup() && played >= settings.max_turns {
            return finish(Outcome::Draw, GameEnd::TurnCap, turns, decisions);
        }
        let side = position.side_to_move();
        let seat = side.index();
        let result =
            searchers[seat].search(&position, &history, &seats[seat].limits, &stop, |_| {});
        history.push(position.hash());
        decisions.push(result.decision);
        let mut next = position;
        let legal = result
            .best_turn
            .iter()
            .all(|&action| next.try_apply(&rules, action).is_ok());
        let outcome = if legal {
            next.end_turn(&rules).ok()
        } else {
            None
        };
        let Some(outcome) = outcome else {
            turns.push(result.best_turn);
            return finish(
                Outcome::Win(side.opponent()),
                GameEnd::IllegalTurn,
                turns,
                decisions,
            );
        };
        position = next;
        turns.push(result.best_turn);
        match outcome {
            Outcome::Win(_) => return finish(outcome, GameEnd::Elimination, turns, decisions),
            Outcome::Draw => return finish(outcome, GameEnd::MutualElimination, turns, decisions),
            Outcome::Ongoing => {}
        }
        if !position.in_setup() {
            played += 1;
            let count = counts.entry(position.hash()).or_insert(0);
            *count += 1;
            if *count >= settings.repetitions {
                return finish(Outcome::Draw, GameEnd::Repetition, turns, decisions);
            }
        }
    }
}

/// Plays every opening twice (A first, then B first), `parallel_games` at
/// a time, calling `on_game` as each game ends (from worker threads).
pub fn run_match(
    a: &MatchPlayer,
    b: &MatchPlayer,
    openings: &[Vec<Vec<Action>>],
    settings: &MatchSettings,
    on_game: impl Fn(&GameRecord) + Sync,
) -> MatchSummary {
    let jobs: Vec<(usize, bool)> = (0..openings.len())
        .flat_map(|opening| [(opening, true), (opening, false)])
        .collect();
    let play = |&(opening, a_first): &(usize, bool)| -> GameRecord {
        let seats = if a_first { [a, b] } else { [b, a] };
        let mut record = play_game(seats, &openings[opening], settings);
        record.opening = opening;
        record.a_first = a_first;
        if !a_first {
            record.score_a = 1.0 - record.score_a;
        }
        on_game(&record);
        record
    };
    let games: Vec<GameRecord> = match rayon::ThreadPoolBuilder::new()
        .num_threads(settings.parallel_games.max(1))
        .build()
    {
        Ok(pool) => pool.install(|| jobs.par_iter().map(play).collect()),
        Err(_) => jobs.iter().map(play).collect(),
    };
    let mut summary = MatchSummary::default();
    for game in &games {
        if game.score_a == 1.0 {
            summary.wins += 1;
        } else if game.score_a == 0.0 {
            summary.losses += 1;
        } else {
            summary.draws += 1;
        }
    }
    summary.games = games;
    summary
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn player_descriptions_parse() {
        let player = MatchPlayer::parse("mcts:ms=100:cpuct=2").unwrap();
        assert_eq!(player.options.player, PlayerKind::Mcts);
        assert_eq!(player.limits.movetime, Some(Duration::from_millis(100)));
        assert_eq!(player.options.tunables.get("cpuct"), Some(2.0));
        assert_eq!(
            MatchPlayer::parse("greedy").unwrap().options.player,
            PlayerKind::Greedy
        );
        assert!(MatchPlayer::parse("mcts:cpuct")
            .unwrap_err()
            .contains("key=value"));
        assert!(MatchPlayer::parse("mcts:speed=3")
            .unwrap_err()
            .contains("speed"));
        assert!(MatchPlayer::parse("alphazero").is_err());
    }

    #[test]
    fn elo_of_an_even_score_is_zero() {
        let (elo, low, high) = elo_interval(10, 10, 10);
        assert!(elo.abs() < 1e-9);
        assert!(low < 0.0 && high > 0.0);
        let (better, _, _) = elo_interval(30, 0, 10);
        assert!(better > 150.0);
    }

    #[test]
    fn openings_are_legal_and_reproducible() {
        let rules = Rules::STANDARD;
        let first = openings(10, 7, &rules);
        assert_eq!(first, openings(10, 7, &rules));
        assert_eq!(first.len(), 10);
        for opening in &first {
            let mut position = Position::start();
            for turn in opening {
                for &action in turn {
                    position.try_apply(&rules, action).unwrap();
                }
                position.end_turn(&rules).unwrap();
            }
            assert!(!position.in_setup());
        }
    }
}
