//! Matches of three to six players in one process: the max-n search, the
//! greedy player and the random player, without the protocol in between.
//!
//! Each game seats the players in rotation (game `g` gives seat `s` to
//! player `(s + g) mod n`), plays until the victory condition decides the
//! game or the turn limit ends it, and prints one line. The winners share a
//! point; a draw or a game stopped at the turn limit shares it among the
//! players still in the game. Games can be saved as SDG records, which
//! `supernova replay` reads back.
//!
//! Engines in processes of their own play multi-player matches through
//! `supernova match` with three to six `--engine`s
//! ([`crate::tools::match_runner::run_multi_match`]).

use std::io::{self, Write};
use std::path::PathBuf;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::notation::multi::MultiBoard;
use crate::notation::sdg::Header;
use crate::record::multi::{record_turn, victory_variants};
use crate::record::GameRecord;
use crate::rules::multi::{MultiOutcome, MultiPosition, Seat, Seats, Victory};
use crate::rules::Rules;
use crate::search::multi::{greedy_turn, random_turn, MultiSearch, MultiSearchOptions};

/// Who plays a seat.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MultiPlayerKind {
    /// The max-n search with these options (its seed changes per turn).
    Search(MultiSearchOptions),
    /// Random legal turns.
    Random,
    /// One ply of lookahead by the hand evaluation ([`greedy_turn`]).
    Greedy,
}

/// The Evil seats of a Good-versus-Evil game of `count` players: half of
/// them (rounded down), drawn from `random`. Each game gets a fresh deal, so
/// that a match does not ask the same engines to be Evil every time.
pub fn deal_evil(count: usize, random: &mut impl Rng) -> Seats {
    let mut evil = Seats::EMPTY;
    while evil.len() < count / 2 {
        evil.insert(random.random_range(0..count as Seat));
    }
    evil
}

/// The players of a match from their kinds (`mcts`, `mcts-paranoid`,
/// `mcts-next`, `greedy`, `random`), each named by its kind; the searches
/// use `iterations` playouts, `seed` and one thread. `mcts-next` is the
/// search whose safety check looks at the next player only (as it once
/// did), to measure the check of the later players.
///
/// # Errors
/// Fewer than 3 or more than 6 players, or an unknown kind.
pub fn parse_players(
    kinds: &[String],
    iterations: u32,
    seed: u64,
) -> Result<Vec<(String, MultiPlayerKind)>, String> {
    parse_players_on(kinds, iterations, seed, 1)
}

/// [`parse_players`], the searches on `threads` threads each.
///
/// # Errors
/// As [`parse_players`].
pub fn parse_players_on(
    kinds: &[String],
    iterations: u32,
    seed: u64,
    threads: usize,
) -> Result<Vec<(String, MultiPlayerKind)>, String> {
    if !(3..=6).contains(&kinds.len()) {
        return Err(format!("expected 3 to 6 --player, not {}", kinds.len()));
    }
    let search = MultiSearchOptions {
        iterations,
        seed,
        threads,
        ..MultiSearchOptions::default()
    };
    kinds
        .iter()
        .map(|kind| match kind.as_str() {
            "mcts" => Ok((kind.clone(), MultiPlayerKind::Search(search))),
            "mcts-paranoid" => Ok((
                kind.clone(),
                MultiPlayerKind::Search(MultiSearchOptions {
                    paranoid: true,
                    ..search
                }),
            )),
            "mcts-next" => Ok((
                kind.clone(),
                MultiPlayerKind::Search(MultiSearchOptions {
                    later_safety: false,
                    ..search
                }),
            )),
            "random" => Ok((kind.clone(), MultiPlayerKind::Random)),
            "greedy" => Ok((kind.clone(), MultiPlayerKind::Greedy)),
            other => Err(format!(
                "unknown player {other:?}: expected mcts, mcts-paranoid, mcts-next, greedy or random"
            )),
        })
        .collect()
}

/// A multi-player match.
#[derive(Clone, Debug)]
pub struct MultiMatchConfig {
    /// The players, by name (3 to 6).
    pub players: Vec<(String, MultiPlayerKind)>,
    /// How many games.
    pub games: u32,
    /// The rule profile.
    pub rules: Rules,
    /// The victory condition ([`Victory::from_word`]'s; Good versus Evil
    /// deals fresh alignments every game, whatever Evil seats it names).
    pub victory: Victory,
    /// Turns before a game is stopped (counted over all players).
    pub max_turns: u32,
    /// Seed for the random players, the searches and the alignments.
    pub seed: u64,
    /// Where to write each game as an SDG record, if anywhere.
    pub record_dir: Option<PathBuf>,
}

/// The points of each player, in the order of the configuration.
#[derive(Clone, Debug, PartialEq)]
pub struct MultiMatchSummary {
    /// Points per player.
    pub points: Vec<f64>,
    /// Games decided on the board.
    pub decided: u32,
}

/// Plays the match, printing a line per game and a summary.
///
/// # Errors
/// Writing the output or a record failed.
pub fn run(config: &MultiMatchConfig, out: &mut dyn Write) -> io::Result<MultiMatchSummary> {
    let count = config.players.len();
    let mut points = vec![0.0; count];
    let mut decided = 0;
    let mut random = SmallRng::seed_from_u64(config.seed);
    let names = unique_names(&config.players);
    for game in 0..config.games {
        let seats: Vec<usize> = (0..count)
            .map(|seat| (seat + game as usize) % count)
            .collect();
        let victory = match config.victory {
            Victory::GoodVersusEvil { .. } => Victory::GoodVersusEvil {
                evil: deal_evil(count, &mut random),
            },
            victory => victory,
        };
        let seat_names: Vec<&str> = seats.iter().map(|&player| names[player].as_str()).collect();
        let position = MultiPosition::start(count, victory)
            .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error.to_string()))?;
        let mut board = MultiBoard::new(position);
        for (seat, name) in seat_names.iter().enumerate() {
            board.set_name(seat as Seat, *name);
        }
        let mut header = Header::multi_player(u64::from(game) + 1, &seat_names);
        header.variants = victory_variants(victory, count);
        let mut record = GameRecord {
            header,
            turns: Vec::new(),
        };
        let mut turns = 0;
        while board.position.outcome() == MultiOutcome::Ongoing && turns < config.max_turns {
            let mover = board.position.side_to_move();
            let before = board.clone();
            let actions = match config.players[seats[mover as usize]].1 {
                MultiPlayerKind::Search(options) => {
                    let options = MultiSearchOptions {
                        seed: options.seed ^ random.random::<u64>(),
                        ..options
                    };
                    MultiSearch::new(options).best_turn(&board.position, &config.rules)
                }
                MultiPlayerKind::Random => {
                    let mut copy = board.position.clone();
                    random_turn(&mut copy, &config.rules, &mut random)
                }
                MultiPlayerKind::Greedy => greedy_turn(&board.position, &config.rules),
            };
            let played = match board.play_actions(&config.rules, &actions) {
                Ok(played) => played,
                Err(_) => board
                    .play_actions(&config.rules, &[])
                    .map_err(|error| io::Error::other(format!("no legal end of turn: {error}")))?,
            };
            turns += 1;
            if let Ok(turn) = record_turn(
                turns,
                seat_names[mover as usize],
                &before,
                &config.rules,
                &played.actions,
                &played.names,
            ) {
                record.turns.push(turn);
            }
        }
        let outcome = board.position.outcome();
        let sharing: Vec<Seat> = match outcome {
            MultiOutcome::Win(winners) => {
                decided += 1;
                winners.iter().collect()
            }
            _ => board.position.in_game().iter().collect(),
        };
        for &seat in &sharing {
            points[seats[seat as usize]] += 1.0 / sharing.len() as f64;
        }
        let result = match outcome {
            MultiOutcome::Win(_) => {
                let winners: Vec<&str> = sharing
                    .iter()
                    .map(|&seat| seat_names[seat as usize])
                    .collect();
                record.header.winner = Some(winners.join(", "));
                format!("{} {{won on the board}}", winners.join(" and "))
            }
            MultiOutcome::Draw => "draw {everyone left was eliminated together}".to_string(),
            MultiOutcome::Ongoing => format!("unfinished {{turn limit {}}}", config.max_turns),
        };
        writeln!(
            out,
            "Finished game {} ({}): {result} after {turns} turns",
            game + 1,
            seat_names.join(", ")
        )?;
        if let Some(dir) = &config.record_dir {
            std::fs::create_dir_all(dir)?;
            std::fs::write(
                dir.join(format!("game-{:04}.sdg", game + 1)),
                record.to_sdg(),
            )?;
        }
    }
    let scores: Vec<String> = names
        .iter()
        .zip(&points)
        .map(|(name, points)| format!("{name} {points:.1}"))
        .collect();
    writeln!(
        out,
        "Score after {} games ({decided} decided on the board): {}",
        config.games,
        scores.join(", ")
    )?;
    out.flush()?;
    Ok(MultiMatchSummary { points, decided })
}

/// Player names made unique with a number (`random`, `random2`).
fn unique_names(players: &[(String, MultiPlayerKind)]) -> Vec<String> {
    let mut names: Vec<String> = Vec::new();
    for (name, _) in players {
        let mut unique = name.clone();
        let mut number = 2;
        while names
            .iter()
            .any(|other| other.eq_ignore_ascii_case(&unique))
        {
            unique = format!("{name}{number}");
            number += 1;
        }
        names.push(unique);
    }
    names
}
