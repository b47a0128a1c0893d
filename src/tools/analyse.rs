//! `supernova analyse`: the engine's opinion of one position, and
//! `supernova annotate`: its opinion of every turn of a game, with exact
//! blunder checks. Both say why the engine's turn is better in the words of
//! the protocol's `info string explain` (`protocol::explain`): `analyse`
//! for its best turn, `annotate` for the better turn at each blunder and
//! each large value drop.
//!
//! Both call the [`Searcher`] directly (no protocol, no threads of their
//! own), so a node-limited analysis with one thread is reproducible. The
//! blunder checks do not rely on the search's judgement: they use the
//! search module's exact win-in-1 [`Solver`], so "this turn threw away a
//! win" and "this turn let the opponent win at once although a safe turn
//! existed" are statements of fact, not estimates.

use std::io::Write;
use std::str::FromStr;
use std::sync::atomic::AtomicBool;

use crate::notation::turn::{format_named_turn, format_turn, NamedTurn, Style};
use crate::notation::{hwpn, Board};
use crate::protocol::explain::sentence;
use crate::protocol::text::{decision_word, format_line, proof_word, result_text, value_text};
use crate::record::{GameRecord, ReplayedTurn};
use crate::rules::{Action, GameStatus, Outcome, Position, Rules};
use crate::search::{
    explain, win_probability, SearchLimits, SearchOptions, SearchResult, Searcher, Solver,
};

/// How turns are written in the tools' output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Notation {
    /// Protocol tokens: `build.g1.Home0`.
    Token,
    /// SDG one-line turns: `Build G1 Home0; Pass`, which `replay` accepts.
    Sdg,
    /// Lower-case words: `build g1 Home0`.
    Readable,
}

impl Notation {
    /// The turn style this notation prints with.
    pub fn style(self) -> Style {
        match self {
            Notation::Token => Style::Token,
            Notation::Sdg => Style::Sdg,
            Notation::Readable => Style::Readable,
        }
    }
}

impl FromStr for Notation {
    type Err = String;

    fn from_str(text: &str) -> Result<Notation, String> {
        match text.to_ascii_lowercase().as_str() {
            "token" => Ok(Notation::Token),
            "sdg" => Ok(Notation::Sdg),
            "readable" => Ok(Notation::Readable),
            _ => Err(format!(
                "unknown notation '{text}': expected token, sdg or readable"
            )),
        }
    }
}

/// A position to analyse, with the game that led to it (for repetition).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Subject {
    /// The board (position and names).
    pub board: Board,
    /// Hashes of the earlier start-of-turn positions of the game.
    pub history: Vec<u64>,
}

impl Subject {
    /// A position with no known history.
    pub fn position(board: Board) -> Subject {
        Subject {
            board,
            history: Vec::new(),
        }
    }

    /// The position before the site's turn `number` of a record (one past
    /// the last turn is the final position), with the game's history.
    ///
    /// # Errors
    /// The turn is out of range or an earlier turn is illegal.
    pub fn from_record(record: &GameRecord, rules: &Rules, number: u32) -> Result<Subject, String> {
        let board = record
            .board_before(rules, number)
            .map_err(|error| error.to_string())?;
        let walk = record.walk(rules);
        let played = walk
            .turns
            .iter()
            .take_while(|turn| turn.number < number)
            .count();
        let history = walk.history.earlier_hashes()[..played].to_vec();
        Ok(Subject { board, history })
    }
}

/// What to search with and how to print.
#[derive(Clone, Debug)]
pub struct AnalysisSettings {
    /// Search options (rules, player, threads, seed, multi-PV).
    pub options: SearchOptions,
    /// The limit for each search.
    pub limits: SearchLimits,
    /// How turns are written.
    pub notation: Notation,
}

/// Runs one search on a subject.
fn search(searcher: &mut Searcher, subject: &Subject, limits: &SearchLimits) -> SearchResult {
    let stop = AtomicBool::new(false);
    searcher.search(
        &subject.board.position,
        &subject.history,
        limits,
        &stop,
        |_| {},
    )
}

/// Analyses one position and writes the report.
///
/// # Errors
/// Only a failed write.
pub fn analyse(
    subject: &Subject,
    settings: &AnalysisSettings,
    output: &mut dyn Write,
) -> std::io::Result<()> {
    let rules = settings.options.rules;
    let style = settings.notation.style();
    let board = &subject.board;
    writeln!(output, "position: {}", hwpn::write_board(board))?;
    let outcome = board.position.outcome();
    if outcome != Outcome::Ongoing {
        let result = match outcome {
            Outcome::Win(player) => format!("player {} has won", player.index()),
            _ => "a draw by mutual elimination".to_string(),
        };
        writeln!(output, "the game is over: {result}")?;
        return Ok(());
    }
    writeln!(
        output,
        "to move: player {}",
        board.position.side_to_move().index()
    )?;
    let mut searcher = Searcher::new(settings.options.clone());
    let result = search(&mut searcher, subject, &settings.limits);
    let info = &result.info;
    writeln!(
        output,
        "best: {}",
        format_turn(board, &rules, &result.best_turn, style)
    )?;
    writeln!(
        output,
        "{}",
        value_text(result.value, result.win_probability())
    )?;
    if let Some(proof) = info.proof {
        writeln!(output, "proven: {} for the side to move", proof_word(proof))?;
    }
    writeln!(output, "decision: {}", decision_word(result.decision))?;
    let explanation = explain(&board.position, &rules, &settings.options.tunables, &result);
    writeln!(output, "why: {}", sentence(board, &rules, &explanation))?;
    let principal = if info.principal_variation.is_empty() {
        vec![result.best_turn.clone()]
    } else {
        info.principal_variation.clone()
    };
    writeln!(output, "principal variation:")?;
    for (index, text) in format_line(board, &rules, &principal, style)
        .iter()
        .enumerate()
    {
        writeln!(output, "  {}. {text}", index + 1)?;
    }
    if settings.options.multi_pv > 1 && !info.candidates.is_empty() {
        writeln!(output, "candidates:")?;
        for (index, candidate) in info.candidates.iter().enumerate() {
            writeln!(
                output,
                "  {}. {}  ({}, {} visits{})",
                index + 1,
                format_turn(board, &rules, &candidate.turn, style),
                value_text(candidate.value, candidate.win_probability()),
                candidate.visits,
                candidate
                    .proof
                    .map(|proof| format!(", proven {}", proof_word(proof)))
                    .unwrap_or_default()
            )?;
        }
    }
    writeln!(
        output,
        "nodes {}, time {} ms, {} nodes/s",
        info.iterations,
        info.elapsed.as_millis(),
        info.nodes_per_second.round() as u64
    )?;
    Ok(())
}

/// Whether the side to move has a turn that does not let the opponent win
/// at once (a win, a draw, or a turn the opponent cannot win after). Exact.
pub fn has_safe_turn(position: &Position, rules: &Rules, solver: &mut Solver) -> bool {
    if !solver.threatened(position, rules) {
        let mut passed = *position;
        if passed.end_turn(rules).is_ok() {
            return true;
        }
    }
    let mover = position.side_to_move();
    position
        .legal_turns(rules)
        .iter()
        .any(|turn| match turn.outcome {
            Outcome::Win(player) => player == mover,
            Outcome::Draw => true,
            Outcome::Ongoing => !solver.can_win(&turn.result, rules),
        })
}

/// An exact verdict on one played turn.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Blunder {
    /// A win at once existed (these actions) and the turn did not take it.
    MissedWin(Vec<Action>),
    /// After the turn the opponent can win at once (with these actions),
    /// though a safe turn existed.
    AllowsLoss(Vec<Action>),
}

/// Checks one turn played from `before` for the two exact blunders.
pub fn check_turn(
    before: &Position,
    actions: &[Action],
    rules: &Rules,
    solver: &mut Solver,
) -> Option<Blunder> {
    if before.in_setup() {
        return None;
    }
    let mover = before.side_to_move();
    let mut after = *before;
    for &action in actions {
        after.try_apply(rules, action).ok()?;
    }
    let outcome = after.end_turn(rules).ok()?;
    if outcome == Outcome::Win(mover) {
        return None;
    }
    if let Some(win) = solver.find_win(before, rules) {
        return Some(Blunder::MissedWin(win));
    }
    if outcome == Outcome::Ongoing {
        if let Some(reply) = solver.find_win(&after, rules) {
            if has_safe_turn(before, rules, solver) {
                return Some(Blunder::AllowsLoss(reply));
            }
        }
    }
    None
}

/// A value drop, in [-1, 1] for the mover, from the engine's value before
/// a turn to its value after it, that `annotate` marks as a mistake: half
/// the range, a quarter of the win probability.
pub const VALUE_DROP: f32 = 0.5;

/// One annotated turn whose line waits for the next search: the value
/// after a turn is the opponent's value of the next position.
struct Pending {
    /// The turn's line, with its exact blunder if any.
    line: String,
    /// Who played it.
    mover: usize,
    /// The engine's value before it, for the mover.
    before: f32,
    /// Whether the engine would have played another turn.
    differs: bool,
    /// Whether an exact blunder was found (a value drop is not marked twice).
    blunder: bool,
    /// `better: ...`, the engine's turn and its explanation.
    better: String,
}

/// Annotates every turn of a record: the engine's value before the turn,
/// its preferred turn where it differs, the exact blunder checks and the
/// large value drops ([`VALUE_DROP`]); each blunder and drop gets the
/// engine's better turn and the sentence that says why (the explanation
/// the protocol's `info string explain` writes). Returns the number of
/// exact blunders found.
///
/// # Errors
/// A failed write.
pub fn annotate(
    record: &GameRecord,
    settings: &AnalysisSettings,
    output: &mut dyn Write,
) -> std::io::Result<usize> {
    let rules = settings.options.rules;
    let style = settings.notation.style();
    let walk = record.walk(&rules);
    let mut searcher = Searcher::new(settings.options.clone());
    let mut solver = Solver::default();
    let mut blunders = [0usize; 2];
    let mut mistakes = [0usize; 2];
    let mut pending: Option<Pending> = None;
    // The start-of-turn hashes before each turn, for the search's repetitions.
    let hashes = walk.history.earlier_hashes();
    for (index, turn) in walk.turns.iter().enumerate() {
        let ReplayedTurn {
            board,
            actions,
            names: discovery_names,
            number,
            mover,
            ..
        } = turn;
        // The played turn keeps the names the record gave its discoveries.
        let played_text = format_named_turn(board, &rules, actions, discovery_names, style);
        let name = record.header.player_name(*mover).unwrap_or("?");
        if board.position.in_setup() {
            flush(output, pending.take(), None, &mut mistakes)?;
            writeln!(output, "{number}) {name}: {played_text}  (setup)")?;
            continue;
        }
        let subject = Subject {
            board: board.clone(),
            history: hashes[..index].to_vec(),
        };
        let result = search(&mut searcher, &subject, &settings.limits);
        flush(output, pending.take(), Some(-result.value), &mut mistakes)?;
        let mut line = format!(
            "{number}) {name}: {played_text}  [{}]",
            value_text(result.value, result.win_probability())
        );
        let played_hash = result_hash(&board.position, actions, &rules);
        let preferred_hash = result_hash(&board.position, &result.best_turn, &rules);
        let differs = played_hash.is_none() || played_hash != preferred_hash;
        if turn.outcome == Outcome::Win(*mover) {
            line.push_str("  wins the game");
        } else if !differs {
            line.push_str("  engine agrees");
        } else {
            line.push_str(&format!(
                "  engine prefers: {}",
                format_turn(board, &rules, &result.best_turn, style)
            ));
        }
        let verdict = check_turn(&board.position, actions, &rules, &mut solver);
        if let Some(blunder) = &verdict {
            blunders[mover.index()] += 1;
            line.push_str(&blunder_text(blunder, turn, &rules, style));
        }
        let explanation = explain(&board.position, &rules, &settings.options.tunables, &result);
        pending = Some(Pending {
            line,
            mover: mover.index(),
            before: result.value,
            differs: differs && turn.outcome != Outcome::Win(*mover),
            blunder: verdict.is_some(),
            better: better_text(
                &format_turn(board, &rules, &result.best_turn, style),
                &sentence(board, &rules, &explanation),
            ),
        });
    }
    let end_value = match (&pending, walk.status) {
        (Some(last), GameStatus::Over(result)) => Some(match result.outcome {
            Outcome::Win(winner) if winner.index() == last.mover => 1.0,
            Outcome::Win(_) => -1.0,
            _ => 0.0,
        }),
        _ => None,
    };
    flush(output, pending.take(), end_value, &mut mistakes)?;
    if let Some(illegal) = &walk.illegal {
        writeln!(output, "the replay stops: {illegal}")?;
    }
    if let GameStatus::Over(result) = walk.status {
        writeln!(output, "the game ends: {}", result_text(&result))?;
    }
    let names: Vec<&str> = crate::rules::Player::BOTH
        .iter()
        .map(|&player| record.header.player_name(player).unwrap_or("?"))
        .collect();
    writeln!(
        output,
        "value drops: {} ({}: {}, {}: {})",
        mistakes[0] + mistakes[1],
        names[0],
        mistakes[0],
        names[1],
        mistakes[1]
    )?;
    writeln!(
        output,
        "blunders: {} ({}: {}, {}: {})",
        blunders[0] + blunders[1],
        names[0],
        blunders[0],
        names[1],
        blunders[1]
    )?;
    Ok(blunders[0] + blunders[1])
}

/// `better: <why>` when the sentence names the turn (a win, an expected
/// line), else `better: <turn>: <why>`.
fn better_text(turn: &str, why: &str) -> String {
    if why.contains(turn) {
        format!("better: {why}")
    } else {
        format!("better: {turn}: {why}")
    }
}

/// The `?? blunder: ...` text of an exact blunder of `turn`.
fn blunder_text(blunder: &Blunder, turn: &ReplayedTurn, rules: &Rules, style: Style) -> String {
    let board = &turn.board;
    match blunder {
        Blunder::MissedWin(win) => format!(
            "\n    ?? blunder: throws away a win; this turn won at once: {}",
            format_turn(board, rules, win, style)
        ),
        Blunder::AllowsLoss(reply) => {
            let mut after = board.clone();
            let mut played = NamedTurn::new(&turn.actions);
            played.names.clone_from(&turn.names);
            let reply_text = match played.replay(&mut after, rules) {
                Ok(()) => format_turn(&after, rules, reply, style),
                Err(_) => "?".to_string(),
            };
            format!(
                "\n    ?? blunder: walks into an immediate loss although a safe turn existed; the opponent wins with: {reply_text}"
            )
        }
    }
}

/// Writes a pending turn's line once the value after it is known (`after`,
/// for its mover; `None` when not known): an exact blunder, or a drop of
/// [`VALUE_DROP`] or more where the engine preferred another turn, gets the
/// engine's better turn and why.
fn flush(
    output: &mut dyn Write,
    pending: Option<Pending>,
    after: Option<f32>,
    mistakes: &mut [usize; 2],
) -> std::io::Result<()> {
    let Some(pending) = pending else {
        return Ok(());
    };
    let mut line = pending.line;
    let dropped = after.filter(|&after| {
        pending.differs && !pending.blunder && pending.before - after >= VALUE_DROP
    });
    if let Some(after) = dropped {
        mistakes[pending.mover] += 1;
        line.push_str(&format!(
            "\n    ? value drop: win probability {:.1}% before, {:.1}% after",
            win_probability(pending.before) * 100.0,
            win_probability(after) * 100.0
        ));
    }
    if pending.blunder || dropped.is_some() {
        line.push_str(&format!("\n    {}", pending.better));
    }
    writeln!(output, "{line}")
}

/// The hash of the position after a turn, if it plays.
fn result_hash(position: &Position, actions: &[Action], rules: &Rules) -> Option<u64> {
    let mut after = *position;
    for &action in actions {
        after.try_apply(rules, action).ok()?;
    }
    after.end_turn(rules).ok()?;
    Some(after.hash())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blunders_are_exact() {
        let rules = Rules::STANDARD;
        // Player 0 has a large red at player 1's home, whose only ship is small.
        let board = hwpn::parse("r1b3:g3:/y2b2:r3:g1 0").unwrap();
        let mut solver = Solver::default();
        let win = solver
            .find_win(&board.position, &rules)
            .expect("a capture wins");
        assert_eq!(check_turn(&board.position, &win, &rules, &mut solver), None);
        assert!(matches!(
            check_turn(&board.position, &[], &rules, &mut solver),
            Some(Blunder::MissedWin(_))
        ));
        // Player 0 to move with an enemy large red next to a lone small home ship:
        // passing loses; moving the red away... is not possible, but the capture
        // threat can be met, so passing is a blunder only if a safe turn exists.
        let threatened = hwpn::parse("r1b3:g1:r3/y2b2::g3 0").unwrap();
        assert!(solver.threatened(&threatened.position, &rules));
        let verdict = check_turn(&threatened.position, &[], &rules, &mut solver);
        let safe = has_safe_turn(&threatened.position, &rules, &mut solver);
        assert_eq!(verdict.is_some(), safe);
    }
}
