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
use std::sync::atomic::{AtomicBool, Ordering};

use crate::notation::turn::{format_named_turn, format_turn, NamedTurn, Style};
use crate::notation::{hwpn, Board};
use crate::protocol::explain::sentence;
use crate::protocol::text::{decision_word, format_line, proof_word, result_text, value_text};
use crate::record::{GameRecord, ReplayedTurn};
use crate::rules::{Action, GameStatus, Outcome, Player, Position, Rules};
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

/// Why a turn is marked: the two exact blunders, and a large value drop
/// where no exact blunder was found (a turn is never marked twice).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MarkKind {
    /// A win at once existed and the turn did not take it.
    MissedWin,
    /// The turn lets the opponent win at once though a safe turn existed.
    AllowsLoss,
    /// The engine's value fell by [`VALUE_DROP`] or more over the turn,
    /// and the engine preferred another turn.
    ValueDrop,
}

/// What the engine thought of the turn played, against its own.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Judgement {
    /// The turn won the game.
    Wins,
    /// The engine would have played a turn to the same position.
    Agrees,
    /// The engine would have played this turn instead.
    Prefers(String),
}

/// What reviewing one turn of a record found: the data both `annotate`'s
/// text and the GUI's review marks are made from, so that the two never
/// disagree.
#[derive(Clone, Debug, PartialEq)]
pub struct TurnFinding {
    /// The turn's place in the replay, from 0 (the board before it is the
    /// replay's board `index`; the GUI's ply).
    pub index: usize,
    /// The site's turn number.
    pub number: u32,
    /// Who played it.
    pub mover: Player,
    /// The turn played, with the names the record gave its discoveries.
    pub played: String,
    /// A setup turn (homeworlds), which is not searched or judged.
    pub setup: bool,
    /// The engine's value before the turn, for the mover (0 for setup).
    pub before: f32,
    /// The value after it, for the mover: the negated value of the next
    /// search, or the game's result; `None` when not known.
    pub after: Option<f32>,
    /// Whether the engine agrees with the turn ([`Judgement::Wins`] for a
    /// setup turn, which is not judged).
    pub judgement: Judgement,
    /// The exact blunder, with the turn it is about in text: the win that
    /// was missed, or the opponent's winning reply.
    pub blunder: Option<(Blunder, String)>,
    /// Whether the value dropped by [`VALUE_DROP`] or more where the
    /// engine preferred another turn and no exact blunder was found.
    pub dropped: bool,
    /// The engine's turn from the position before, in text.
    pub better: String,
    /// Why the engine plays [`TurnFinding::better`]: its explanation
    /// sentence (`protocol::explain`).
    pub explanation: String,
}

impl TurnFinding {
    /// Why the turn is marked, if it is.
    pub fn kind(&self) -> Option<MarkKind> {
        match &self.blunder {
            Some((Blunder::MissedWin(_), _)) => Some(MarkKind::MissedWin),
            Some((Blunder::AllowsLoss(_), _)) => Some(MarkKind::AllowsLoss),
            None if self.dropped => Some(MarkKind::ValueDrop),
            None => None,
        }
    }
}

/// How a review ended: the replay's end, as `annotate` reports it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ReviewEnd {
    /// The first illegal turn of the record, where the replay stopped.
    pub illegal: Option<String>,
    /// The game's status after the last legal turn.
    pub status: GameStatus,
    /// Whether `stop` ended the review before the last turn.
    pub stopped: bool,
}

/// One reviewed turn whose finding waits for the next search: the value
/// after a turn is the opponent's value of the next position.
struct Pending {
    /// The finding, but for the value after the turn.
    finding: TurnFinding,
    /// Whether the engine would have played another turn.
    differs: bool,
}

/// Reviews every turn of a record and hands each turn's finding to `each`
/// in order, as soon as the value after the turn is known: the engine's
/// value before the turn, its preferred turn, the exact blunder checks,
/// the large value drops ([`VALUE_DROP`]) and the engine's better turn
/// with the sentence that says why. `stop` ends the review early (between
/// turns, and the search under way), so that a caller in another thread
/// can cancel it.
///
/// # Errors
/// What `each` returns.
pub fn review(
    record: &GameRecord,
    settings: &AnalysisSettings,
    stop: &AtomicBool,
    mut each: impl FnMut(&TurnFinding) -> std::io::Result<()>,
) -> std::io::Result<ReviewEnd> {
    let rules = settings.options.rules;
    let style = settings.notation.style();
    let walk = record.walk(&rules);
    let mut searcher = Searcher::new(settings.options.clone());
    let mut solver = Solver::default();
    let mut pending: Option<Pending> = None;
    // The start-of-turn hashes before each turn, for the search's repetitions.
    let hashes = walk.history.earlier_hashes();
    for (index, turn) in walk.turns.iter().enumerate() {
        if stop.load(Ordering::Relaxed) {
            return Ok(ReviewEnd {
                illegal: None,
                status: walk.status,
                stopped: true,
            });
        }
        let board = &turn.board;
        // The played turn keeps the names the record gave its discoveries.
        let played = format_named_turn(board, &rules, &turn.actions, &turn.names, style);
        if board.position.in_setup() {
            flush(&mut each, pending.take(), None)?;
            each(&TurnFinding {
                index,
                number: turn.number,
                mover: turn.mover,
                played,
                setup: true,
                before: 0.0,
                after: None,
                judgement: Judgement::Wins,
                blunder: None,
                dropped: false,
                better: String::new(),
                explanation: String::new(),
            })?;
            continue;
        }
        let subject = Subject {
            board: board.clone(),
            history: hashes[..index].to_vec(),
        };
        let result = searcher.search(
            &board.position,
            &subject.history,
            &settings.limits,
            stop,
            |_| {},
        );
        flush(&mut each, pending.take(), Some(-result.value))?;
        let better = format_turn(board, &rules, &result.best_turn, style);
        let played_hash = result_hash(&board.position, &turn.actions, &rules);
        let preferred_hash = result_hash(&board.position, &result.best_turn, &rules);
        let differs = played_hash.is_none() || played_hash != preferred_hash;
        let wins = turn.outcome == Outcome::Win(turn.mover);
        let judgement = if wins {
            Judgement::Wins
        } else if !differs {
            Judgement::Agrees
        } else {
            Judgement::Prefers(better.clone())
        };
        let blunder =
            check_turn(&board.position, &turn.actions, &rules, &mut solver).map(|blunder| {
                let text = blunder_turn(&blunder, turn, &rules, style);
                (blunder, text)
            });
        let explanation = explain(&board.position, &rules, &settings.options.tunables, &result);
        pending = Some(Pending {
            finding: TurnFinding {
                index,
                number: turn.number,
                mover: turn.mover,
                played,
                setup: false,
                before: result.value,
                after: None,
                judgement,
                blunder,
                dropped: false,
                better,
                explanation: sentence(board, &rules, &explanation),
            },
            differs: differs && !wins,
        });
    }
    let end_value = match (&pending, walk.status) {
        (Some(last), GameStatus::Over(result)) => Some(match result.outcome {
            Outcome::Win(winner) if winner == last.finding.mover => 1.0,
            Outcome::Win(_) => -1.0,
            _ => 0.0,
        }),
        _ => None,
    };
    flush(&mut each, pending.take(), end_value)?;
    Ok(ReviewEnd {
        illegal: walk.illegal.map(|illegal| illegal.to_string()),
        status: walk.status,
        stopped: false,
    })
}

/// Hands on a pending turn's finding once the value after it is known
/// (`after`, for its mover; `None` when not known): a drop of
/// [`VALUE_DROP`] or more where the engine preferred another turn, and no
/// exact blunder was found, marks it.
fn flush(
    each: &mut impl FnMut(&TurnFinding) -> std::io::Result<()>,
    pending: Option<Pending>,
    after: Option<f32>,
) -> std::io::Result<()> {
    let Some(Pending {
        mut finding,
        differs,
    }) = pending
    else {
        return Ok(());
    };
    finding.after = after;
    finding.dropped = after.is_some_and(|after| {
        differs && finding.blunder.is_none() && finding.before - after >= VALUE_DROP
    });
    each(&finding)
}

/// Annotates every turn of a record ([`review`]'s findings, written as
/// text): the engine's value before the turn, its preferred turn where it
/// differs, the exact blunder checks and the large value drops
/// ([`VALUE_DROP`]); each blunder and drop gets the engine's better turn
/// and the sentence that says why (the explanation the protocol's `info
/// string explain` writes). Returns the number of exact blunders found.
///
/// # Errors
/// A failed write.
pub fn annotate(
    record: &GameRecord,
    settings: &AnalysisSettings,
    output: &mut dyn Write,
) -> std::io::Result<usize> {
    let mut blunders = [0usize; 2];
    let mut mistakes = [0usize; 2];
    let name = |player: Player| record.header.player_name(player).unwrap_or("?");
    let end = review(record, settings, &AtomicBool::new(false), |finding| {
        if finding.blunder.is_some() {
            blunders[finding.mover.index()] += 1;
        }
        if finding.dropped {
            mistakes[finding.mover.index()] += 1;
        }
        writeln!(output, "{}", finding_text(finding, name(finding.mover)))
    })?;
    if let Some(illegal) = &end.illegal {
        writeln!(output, "the replay stops: {illegal}")?;
    }
    if let GameStatus::Over(result) = end.status {
        writeln!(output, "the game ends: {}", result_text(&result))?;
    }
    let names = Player::BOTH.map(name);
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

/// `annotate`'s lines for one turn: the turn with the engine's value and
/// judgement, then for a marked turn the blunder or the drop and the
/// better turn.
fn finding_text(finding: &TurnFinding, name: &str) -> String {
    let number = finding.number;
    let played = &finding.played;
    if finding.setup {
        return format!("{number}) {name}: {played}  (setup)");
    }
    let mut line = format!(
        "{number}) {name}: {played}  [{}]",
        value_text(finding.before, win_probability(finding.before))
    );
    match &finding.judgement {
        Judgement::Wins => line.push_str("  wins the game"),
        Judgement::Agrees => line.push_str("  engine agrees"),
        Judgement::Prefers(turn) => line.push_str(&format!("  engine prefers: {turn}")),
    }
    if let Some((blunder, turn)) = &finding.blunder {
        line.push_str(&format!(
            "\n    ?? blunder: {}",
            blunder_words(blunder, turn)
        ));
    }
    if let (true, Some(after)) = (finding.dropped, finding.after) {
        line.push_str(&format!(
            "\n    ? value drop: win probability {:.1}% before, {:.1}% after",
            win_probability(finding.before) * 100.0,
            win_probability(after) * 100.0
        ));
    }
    if finding.kind().is_some() {
        line.push_str(&format!(
            "\n    {}",
            better_text(&finding.better, &finding.explanation)
        ));
    }
    line
}

/// `better: <why>` when the sentence names the turn (a win, an expected
/// line), else `better: <turn>: <why>`.
pub fn better_text(turn: &str, why: &str) -> String {
    if why.contains(turn) {
        format!("better: {why}")
    } else {
        format!("better: {turn}: {why}")
    }
}

/// What an exact blunder did, in words, with the turn it is about (the
/// missed win, or the opponent's winning reply).
pub fn blunder_words(blunder: &Blunder, turn: &str) -> String {
    match blunder {
        Blunder::MissedWin(_) => format!("throws away a win; this turn won at once: {turn}"),
        Blunder::AllowsLoss(_) => format!(
            "walks into an immediate loss although a safe turn existed; the opponent wins with: {turn}"
        ),
    }
}

/// The turn an exact blunder of `turn` is about, in text: the missed win
/// from the board before, or the opponent's reply from the board after.
fn blunder_turn(blunder: &Blunder, turn: &ReplayedTurn, rules: &Rules, style: Style) -> String {
    let board = &turn.board;
    match blunder {
        Blunder::MissedWin(win) => format_turn(board, rules, win, style),
        Blunder::AllowsLoss(reply) => {
            let mut after = board.clone();
            let mut played = NamedTurn::new(&turn.actions);
            played.names.clone_from(&turn.names);
            match played.replay(&mut after, rules) {
                Ok(()) => format_turn(&after, rules, reply, style),
                Err(_) => "?".to_string(),
            }
        }
    }
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

    /// `annotate`'s golden record of blunders: turn 4 drops the value,
    /// turn 6 walks into a loss, turn 7 throws the win away.
    const BLUNDERS: &str = include_str!("../../tests/golden/blunders.sdg");

    #[test]
    fn the_findings_are_annotates_lines() {
        let record = GameRecord::parse_sdg(BLUNDERS).unwrap();
        let settings = AnalysisSettings {
            options: SearchOptions::default(),
            limits: SearchLimits {
                nodes: Some(300),
                ..SearchLimits::default()
            },
            notation: Notation::Sdg,
        };
        let mut findings = Vec::new();
        let end = review(&record, &settings, &AtomicBool::new(false), |finding| {
            findings.push(finding.clone());
            Ok(())
        })
        .unwrap();
        assert!(!end.stopped);
        let marked: Vec<(u32, MarkKind)> = findings
            .iter()
            .filter_map(|finding| Some((finding.number, finding.kind()?)))
            .collect();
        assert_eq!(
            marked,
            [
                (4, MarkKind::ValueDrop),
                (6, MarkKind::AllowsLoss),
                (7, MarkKind::MissedWin)
            ]
        );
        assert_eq!(findings.len(), 7);
        let missed = &findings[6];
        assert_eq!(missed.explanation, "takes the win: Attack B3 Bob");
        assert_eq!(missed.index, 6);
        assert_eq!(missed.before, 1.0);
        let dropped = &findings[3];
        assert!(dropped.before - dropped.after.unwrap() >= VALUE_DROP);
        // annotate writes the same findings.
        let mut text = Vec::new();
        annotate(&record, &settings, &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        for finding in &findings {
            assert!(
                text.contains(&finding_text(finding, finding_name(finding))),
                "{text}"
            );
        }
        // A stopped review stops at once.
        let stopped = review(&record, &settings, &AtomicBool::new(true), |_| Ok(())).unwrap();
        assert!(stopped.stopped);
    }

    /// The record's name of a finding's mover.
    fn finding_name(finding: &TurnFinding) -> &'static str {
        match finding.mover {
            Player::First => "Alice",
            Player::Second => "Bob",
        }
    }

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
