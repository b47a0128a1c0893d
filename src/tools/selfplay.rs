//! Self-play: two players against each other from a set of openings, each
//! opening played twice with colours swapped, games in parallel.
//!
//! This is how strength is measured in-process (the match runner does the
//! same with engine processes): every game gives each side its own
//! [`Searcher`] with its own options and limits, typically one thread each,
//! while rayon runs several games at once. The rules layer's [`History`]
//! referees every game: a start-of-turn position that recurs
//! [`MatchSettings::repetitions`] times (the side to move included) draws
//! automatically, and so does the turn limit, so every game ends. A player
//! whose turn does not play legally forfeits, which a correct engine never
//! does.

use std::sync::atomic::AtomicBool;
use std::time::Duration;

use rand::rngs::SmallRng;
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rayon::prelude::*;

use super::match_runner::{parse_openings, DEFAULT_OPENINGS};
use super::stats::Tally;
use super::Ending;
use crate::rules::{Action, GameStatus, History, Outcome, Position, Repetition, Rules};
use crate::search::{Decision, PlayerKind, SearchLimits, SearchOptions, Searcher};

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
    /// The rules both players play by (their repetition rule and turn limit
    /// are replaced by the two fields below).
    pub rules: Rules,
    /// Turns after setup before the game is adjudicated a draw (0 = no limit).
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

impl MatchSettings {
    /// The rules the games are refereed and played by: `rules` with an
    /// automatic draw at `repetitions` occurrences and the turn limit.
    pub fn referee_rules(&self) -> Rules {
        Rules {
            repetition: Repetition::Automatic(self.repetitions.max(2)),
            max_turns: (self.max_turns > 0).then_some(self.max_turns),
            ..self.rules
        }
    }
}

/// One finished self-play game (not an SDG record: see
/// [`crate::record::GameRecord`] for those).
#[derive(Clone, Debug, PartialEq)]
pub struct SelfPlayGame {
    /// Which opening was played.
    pub opening: usize,
    /// Whether player A moved first (as player 0).
    pub a_first: bool,
    /// How it ended, by seat.
    pub ending: Ending,
    /// Every turn, the opening included (and a forfeited turn last).
    pub turns: Vec<Vec<Action>>,
    /// Why each turn after the opening was chosen.
    pub decisions: Vec<Decision>,
    /// Player A's score: 1, 0.5 or 0.
    pub score_a: f64,
}

impl SelfPlayGame {
    /// The result by seat.
    pub fn outcome(&self) -> Outcome {
        self.ending.outcome()
    }
}

/// The result of a match from player A's point of view.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MatchSummary {
    /// A's wins, losses and draws, with the statistics on them.
    pub tally: Tally,
    /// Every game, in opening order.
    pub games: Vec<SelfPlayGame>,
}

impl MatchSummary {
    /// A's score fraction.
    pub fn score(&self) -> f64 {
        self.tally.score()
    }

    /// A's Elo difference with a 95% confidence interval: (elo, low, high).
    pub fn elo(&self) -> (f64, f64, f64) {
        self.tally.elo_interval()
    }
}

/// `count` openings (the two setup turns), reproducible from `seed`: the
/// built-in openings of `supernova match` (positions/openings.txt, the
/// pairs of homeworlds people played most), shuffled by the seed and
/// repeated when more are asked for, so that deterministic engines still
/// play varied games. Empty if none is legal under `rules`.
pub fn openings(count: usize, seed: u64, rules: &Rules) -> Vec<Vec<Vec<Action>>> {
    let Ok(built_in) = parse_openings(DEFAULT_OPENINGS, rules) else {
        return Vec::new();
    };
    let mut pairs: Vec<Vec<Vec<Action>>> = built_in
        .iter()
        .map(|opening| opening.setup.iter().map(|&action| vec![action]).collect())
        .collect();
    let mut rng = SmallRng::seed_from_u64(seed);
    pairs.shuffle(&mut rng);
    if pairs.is_empty() {
        return Vec::new();
    }
    (0..count)
        .map(|index| pairs[index % pairs.len()].clone())
        .collect()
}

/// Plays one game: `seats[0]` is player 0 (moves first). Returns the game
/// with `score_a` from `seats[0]`'s point of view. Opening turns that do
/// not play are dropped from the first one that fails.
pub fn play_game(
    seats: [&MatchPlayer; 2],
    opening: &[Vec<Action>],
    settings: &MatchSettings,
) -> SelfPlayGame {
    let rules = settings.referee_rules();
    let mut history = match History::new(Position::start()) {
        Ok(history) => history,
        Err(_) => unreachable!("the start position is at the start of a turn"),
    };
    for turn in opening {
        if history.play(&rules, turn).is_err() {
            break;
        }
    }
    let mut searchers = seats.map(|seat| {
        let mut options = seat.options.clone();
        options.rules = rules;
        Searcher::new(options)
    });
    let stop = AtomicBool::new(false);
    let mut decisions = Vec::new();
    let mut forfeited_turn = None;
    let ending = loop {
        if let GameStatus::Over(result) = history.status(&rules) {
            break Ending::Result(result);
        }
        let side = history.position().side_to_move();
        let seat = side.index();
        let result = searchers[seat].search(
            history.position(),
            history.earlier_hashes(),
            &seats[seat].limits,
            &stop,
            |_| {},
        );
        decisions.push(result.decision);
        if let Err(error) = history.play(&rules, &result.best_turn) {
            forfeited_turn = Some(result.best_turn);
            break Ending::Forfeit {
                loser: side,
                reason: format!("returned a turn that does not play: {error}"),
            };
        }
    };
    let mut turns = history.turns().to_vec();
    turns.extend(forfeited_turn);
    SelfPlayGame {
        opening: 0,
        a_first: true,
        score_a: ending.first_player_points(),
        ending,
        turns,
        decisions,
    }
}

/// Plays every opening twice (A first, then B first), `parallel_games` at
/// a time, calling `on_game` as each game ends (from worker threads).
pub fn run_match(
    a: &MatchPlayer,
    b: &MatchPlayer,
    openings: &[Vec<Vec<Action>>],
    settings: &MatchSettings,
    on_game: impl Fn(&SelfPlayGame) + Sync,
) -> MatchSummary {
    let jobs: Vec<(usize, bool)> = (0..openings.len())
        .flat_map(|opening| [(opening, true), (opening, false)])
        .collect();
    let play = |&(opening, a_first): &(usize, bool)| -> SelfPlayGame {
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
    let games: Vec<SelfPlayGame> = match rayon::ThreadPoolBuilder::new()
        .num_threads(settings.parallel_games.max(1))
        .build()
    {
        Ok(pool) => pool.install(|| jobs.par_iter().map(play).collect()),
        Err(_) => jobs.iter().map(play).collect(),
    };
    let mut summary = MatchSummary::default();
    for game in &games {
        summary.tally.add(game.score_a);
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
    fn games_are_refereed_by_the_history() {
        let random = MatchPlayer::parse("random:seed=5").unwrap();
        let settings = MatchSettings {
            max_turns: 6,
            ..MatchSettings::default()
        };
        let rules = settings.referee_rules();
        assert_eq!(rules.repetition, Repetition::Automatic(3));
        assert_eq!(rules.max_turns, Some(6));
        let opening = &openings(1, 3, &Rules::STANDARD)[0];
        let game = play_game([&random, &random], opening, &settings);
        // Replaying the turns on a history gives the same ending.
        let mut history = History::new(Position::start()).unwrap();
        for turn in &game.turns {
            history.play(&rules, turn).unwrap();
        }
        let Ending::Result(result) = game.ending else {
            panic!("a random player never forfeits: {game:?}");
        };
        assert_eq!(history.status(&rules), GameStatus::Over(result));
        assert!(history.turns_after_setup() <= 6);
        assert_eq!(game.score_a, game.ending.first_player_points());
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
