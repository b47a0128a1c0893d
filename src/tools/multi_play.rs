//! A multi-player game in the terminal: people at some seats, the max-n
//! search, the greedy or the random player at the others.
//!
//! People type turns in any form the two-player `play` reads (SDG,
//! homeworlds-cli or token phrasing); a capture names its owner's seat
//! after the piece (`attack g3e Home1`). `board` prints the position,
//! `help` the commands, `quit` (or the end of the input) stops.

use std::io::{self, BufRead, Write};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use crate::notation::multi::{format_turn, seat_mark, write_board, MultiBoard};
use crate::notation::turn::Style;
use crate::rules::multi::{MultiOutcome, MultiPosition, Seat, Victory};
use crate::rules::Rules;
use crate::search::multi::{greedy_turn, random_turn, MultiSearch};

use super::multi_match::MultiPlayerKind;

/// Who sits where and under which rules.
#[derive(Clone, Debug)]
pub struct MultiPlaySettings {
    /// Each seat's name and player; `None` is a person at the terminal.
    pub seats: Vec<(String, Option<MultiPlayerKind>)>,
    /// The rule profile.
    pub rules: Rules,
    /// The victory condition.
    pub victory: Victory,
    /// Seed for the computer players.
    pub seed: u64,
}

/// The seats from their kinds: `human`, `mcts`, `greedy` or `random`, each named by
/// its kind and seat mark (`human_N`, `mcts_E`), which name their homes.
///
/// # Errors
/// Fewer than 3 or more than 6 seats, or an unknown kind.
pub fn parse_seats(
    kinds: &[String],
    iterations: u32,
    seed: u64,
) -> Result<Vec<(String, Option<MultiPlayerKind>)>, String> {
    let computers: Vec<String> = kinds
        .iter()
        .map(|kind| {
            if kind == "human" {
                "random".to_string()
            } else {
                kind.clone()
            }
        })
        .collect();
    let parsed = super::multi_match::parse_players(&computers, iterations, seed)?;
    Ok(kinds
        .iter()
        .zip(parsed)
        .enumerate()
        .map(|(seat, (kind, (_, player)))| {
            let name = format!("{kind}_{}", seat_mark(seat as Seat, kinds.len()));
            (name, (kind != "human").then_some(player))
        })
        .collect())
}

/// The victory condition by name ([`Victory::from_word`]): `last` or
/// `sinister`. Good versus Evil is refused: its alignments are secret, and
/// the players at a shared terminal would all see them.
///
/// # Errors
/// `good-evil`, or a name that is no victory condition.
pub fn parse_victory(text: &str) -> Result<Victory, String> {
    match Victory::from_word(text)? {
        Victory::GoodVersusEvil { .. } => Err(
            "victory good-evil: not in the terminal, where every player would see the secret alignments"
                .to_string(),
        ),
        victory => Ok(victory),
    }
}
const HELP: &str = "Type a turn (such as: homeworld r1 b3 g3; build g1 Home0; attack g3e Home1), or: board, help, quit";

/// Plays until the game is decided, a person types `quit`, or the input
/// ends; returns the result so far.
///
/// # Errors
/// Reading the input or writing the output failed, or the settings name
/// fewer than 2 or more than 6 seats.
pub fn run(
    settings: &MultiPlaySettings,
    input: &mut dyn BufRead,
    out: &mut dyn Write,
) -> io::Result<MultiOutcome> {
    let players = settings.seats.len();
    let position = MultiPosition::start(players, settings.victory)
        .map_err(|error| io::Error::new(io::ErrorKind::InvalidInput, error.to_string()))?;
    let mut board = MultiBoard::new(position);
    for (seat, (name, _)) in settings.seats.iter().enumerate() {
        board.set_name(seat as Seat, name.as_str());
    }
    let mut random = SmallRng::seed_from_u64(settings.seed);
    writeln!(out, "{HELP}")?;
    while board.position.outcome() == MultiOutcome::Ongoing {
        let mover = board.position.side_to_move();
        let (name, player) = &settings.seats[mover as usize];
        let mark = seat_mark(mover, players);
        match player {
            Some(kind) => {
                let actions = match kind {
                    MultiPlayerKind::Search(options) => {
                        let mut options = *options;
                        options.seed ^= random.random::<u64>();
                        MultiSearch::new(options).best_turn(&board.position, &settings.rules)
                    }
                    MultiPlayerKind::Random => {
                        let mut copy = board.position.clone();
                        random_turn(&mut copy, &settings.rules, &mut random)
                    }
                    MultiPlayerKind::Greedy => greedy_turn(&board.position, &settings.rules),
                };
                let before = board.clone();
                let played = board
                    .play_actions(&settings.rules, &actions)
                    .or_else(|_| board.play_actions(&settings.rules, &[]))
                    .map_err(|error| io::Error::other(format!("{name} found no turn: {error}")))?;
                let text = format_turn(
                    &before,
                    &settings.rules,
                    &played.actions,
                    &played.names,
                    Style::Sdg,
                );
                writeln!(out, "{name} ({mark}) plays: {text}")?;
            }
            None => {
                write!(out, "{name} ({mark})> ")?;
                out.flush()?;
                let mut line = String::new();
                if input.read_line(&mut line)? == 0 {
                    writeln!(out)?;
                    return Ok(board.position.outcome());
                }
                match line.trim() {
                    "" => {}
                    "quit" => return Ok(board.position.outcome()),
                    "help" => writeln!(out, "{HELP}")?,
                    "board" => writeln!(out, "{}", write_board(&board))?,
                    text => {
                        if let Err(error) = board.play_turn_text(&settings.rules, text) {
                            writeln!(out, "error: {error}")?;
                        }
                    }
                }
            }
        }
    }
    let outcome = board.position.outcome();
    match outcome {
        MultiOutcome::Win(winners) => {
            let names: Vec<&str> = winners
                .iter()
                .map(|seat| settings.seats[seat as usize].0.as_str())
                .collect();
            writeln!(out, "{} won", names.join(" and "))?;
        }
        MultiOutcome::Draw => writeln!(out, "draw: everyone left was eliminated together")?,
        MultiOutcome::Ongoing => {}
    }
    writeln!(out, "{}", write_board(&board))?;
    Ok(outcome)
}
