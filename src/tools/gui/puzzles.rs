//! The Puzzles page's positions and their judge.
//!
//! The positions are the tactics suites of `positions/tactics/`, embedded
//! in the binary and read by the notation layer (HWPN with names); each
//! line's comment says where it comes from, and a line taken from an SDG
//! game is shown with that game and turn. Each suite has one goal, and the
//! person's answer (a whole turn, in any notation `/api/turn` reads) is
//! judged by the rules core and the exact checkers, never by the search:
//!
//! - win in one: the turn must eliminate the opponent (the rules' result);
//! - must defend: after the turn the opponent has no win at once
//!   ([`Solver`]);
//! - two-turn defence: the opponent cannot force a win within its next two
//!   turns ([`ThreatChecker::is_defence`], bounded by [`TWO_TURN_WORK`] and
//!   [`TWO_TURN_TIME`]; a check that runs out says so and judges nothing);
//! - material: no single reply takes [`SAFE`] or more net
//!   ([`crate::tools::material`], the suite's own judgement).
//!
//! A wrong answer comes with its refutation: the opponent's winning turn,
//! the first turn of its forced win, or the reply that takes the most.
//! Judging reads nothing of the GUI's state, so a puzzle answer never
//! changes the game on the board.

use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::game::Game;
use crate::notation::turn::{format_turn, Style};
use crate::notation::{hwpn, Board};
use crate::rules::{Outcome, Rules};
use crate::search::{Solver, ThreatBudget, ThreatChecker};
use crate::tools::material::{worst_reply, ELIMINATED, SAFE};

/// The work one two-turn judgement may spend: the person waits for it.
pub const TWO_TURN_WORK: u64 = 50_000_000;
/// The time one two-turn judgement may take; see [`TWO_TURN_WORK`].
pub const TWO_TURN_TIME: Duration = Duration::from_secs(5);

/// The suites, with their kind: (kind, file text).
const SUITES: [(Kind, &str); 4] = [
    (
        Kind::WinInOne,
        include_str!("../../../positions/tactics/win_in_1.txt"),
    ),
    (
        Kind::MustDefend,
        include_str!("../../../positions/tactics/must_defend.txt"),
    ),
    (
        Kind::TwoTurn,
        include_str!("../../../positions/tactics/two_turn.txt"),
    ),
    (
        Kind::Material,
        include_str!("../../../positions/tactics/one_turn_shots.txt"),
    ),
];

/// What a puzzle asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// Win this turn.
    WinInOne,
    /// A turn after which the opponent cannot win at once.
    MustDefend,
    /// A turn after which the opponent cannot force a win in two turns.
    TwoTurn,
    /// A turn that loses no material to one reply.
    Material,
}

impl Kind {
    /// The goal in words, for the person.
    pub fn goal(self) -> &'static str {
        match self {
            Kind::WinInOne => "win this turn",
            Kind::MustDefend => "find a turn after which the opponent cannot win at once",
            Kind::TwoTurn => "survive the next two turns",
            Kind::Material => "find the turn that does not lose material to one reply",
        }
    }
}

/// One puzzle, as the page lists it.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Puzzle {
    /// What it asks.
    pub kind: Kind,
    /// [`Kind::goal`].
    pub goal: &'static str,
    /// The position in HWPN, as the suite gives it (the page sets it up).
    pub position: String,
    /// `SDG game 608, turn 50` when the suite says it comes from one.
    pub source: Option<String>,
    /// The position, read.
    #[serde(skip)]
    pub board: Board,
}

/// Every puzzle of every suite, in suite order, read once.
pub fn all() -> &'static [Puzzle] {
    static PUZZLES: OnceLock<Vec<Puzzle>> = OnceLock::new();
    PUZZLES.get_or_init(read_all)
}

/// Reads every suite; a line that does not read is left out (a unit test
/// reads them all).
fn read_all() -> Vec<Puzzle> {
    SUITES
        .iter()
        .flat_map(|&(kind, text)| text.lines().filter_map(move |line| read_line(kind, line)))
        .collect()
}

/// One suite line as a puzzle; `None` for comments, blank lines and lines
/// that do not read.
fn read_line(kind: Kind, line: &str) -> Option<Puzzle> {
    let line = line.trim();
    if line.is_empty() || line.starts_with('#') {
        return None;
    }
    let (body, comment) = line.split_once('#').unwrap_or((line, ""));
    let board = hwpn::parse(body.trim()).ok()?;
    Some(Puzzle {
        kind,
        goal: kind.goal(),
        position: body.trim().to_string(),
        source: sdg_source(comment),
        board,
    })
}

/// The SDG game and turn a suite comment names: `game 608 turn 50 ...` or
/// `SDG game 1100, before turn 37 ...`; `None` for the engine's own games.
fn sdg_source(comment: &str) -> Option<String> {
    let words: Vec<&str> = comment
        .split(|character: char| character.is_whitespace() || character == ',')
        .filter(|word| !word.is_empty())
        .collect();
    let (game_at, turn_at) = match words.as_slice() {
        ["game", game, "turn", turn, ..] => (*game, *turn),
        ["SDG", "game", game, "before", "turn", turn, ..] => (*game, *turn),
        _ => return None,
    };
    let game: u32 = game_at.parse().ok()?;
    let turn: u32 = turn_at.parse().ok()?;
    Some(format!("SDG game {game}, turn {turn}"))
}

/// The page's answer to a puzzle.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AnswerRequest {
    /// The puzzle's index in [`all`].
    pub puzzle: usize,
    /// The turn, in any notation `/api/turn` reads.
    pub turn: String,
}

/// The judgement of an answer.
#[derive(Debug, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Verdict {
    /// Whether the goal is met; `None` when the check ran out of time.
    pub solved: Option<bool>,
    /// The judgement in words.
    pub text: String,
    /// The opponent's reply that shows a wrong answer wrong, in SDG form.
    pub refutation: Option<String>,
}

/// Judges `text` as the answer to `puzzle`.
///
/// # Errors
/// The turn cannot be read or is not legal in the puzzle's position.
pub fn judge(puzzle: &Puzzle, text: &str) -> Result<Verdict, String> {
    let rules = Rules::STANDARD;
    let mut game = Game::new(puzzle.board.clone(), rules)?;
    game.play_text(text)?;
    let mover = puzzle.board.position.side_to_move();
    let turn = game
        .turns()
        .last()
        .map(|played| played.sdg.clone())
        .unwrap_or_default();
    match game.result().map(|(outcome, _)| outcome) {
        Some(Outcome::Win(winner)) if winner == mover => {
            return Ok(solved(format!("{turn} wins the game")));
        }
        Some(_) => return Ok(failed(format!("{turn} loses the game"), None)),
        None => {}
    }
    let after = game.board();
    let mut solver = Solver::default();
    let win = solver.find_win(&after.position, &rules);
    let win_text = win.map(|win| format_turn(after, &rules, &win, Style::Sdg));
    match puzzle.kind {
        Kind::WinInOne => Ok(failed(
            format!("{turn} does not win this turn"),
            win_text.or_else(|| material_refutation(after, &rules)),
        )),
        Kind::MustDefend => Ok(match win_text {
            Some(win) => failed(format!("after {turn} the opponent wins at once"), Some(win)),
            None => solved(format!("after {turn} the opponent has no win at once")),
        }),
        Kind::TwoTurn => Ok(judge_two_turn(&turn, after, &rules, win_text)),
        Kind::Material => Ok(judge_material(&turn, after, &rules)),
    }
}

/// The two-turn defence's judgement of `turn`, played to `after`.
fn judge_two_turn(turn: &str, after: &Board, rules: &Rules, win: Option<String>) -> Verdict {
    if let Some(win) = win {
        return failed(format!("after {turn} the opponent wins at once"), Some(win));
    }
    let budget = ThreatBudget {
        deadline: Some(Instant::now() + TWO_TURN_TIME),
        ..ThreatBudget::work(TWO_TURN_WORK)
    };
    let mut checker = ThreatChecker::default();
    match checker.forced_win_in_two(&after.position, rules, budget) {
        None => Verdict {
            solved: None,
            text: format!("{turn}: the two-turn check ran out of time, so it is not judged"),
            refutation: None,
        },
        Some(false) => solved(format!(
            "after {turn} the opponent cannot force a win within two turns"
        )),
        Some(true) => {
            let plan = checker
                .winning_plan(&after.position, rules, budget)
                .map(|plan| format_turn(after, rules, &plan, Style::Sdg));
            failed(
                format!("after {turn} the opponent can force a win within two turns"),
                plan,
            )
        }
    }
}

/// The material puzzle's judgement of `turn`, played to `after`.
fn judge_material(turn: &str, after: &Board, rules: &Rules) -> Verdict {
    let (swing, reply) = worst_reply(&after.position, rules);
    if swing < SAFE {
        return solved(format!("no reply to {turn} takes material"));
    }
    failed(
        format!("after {turn} one reply takes {}", worth_text(swing)),
        Some(format_turn(after, rules, &reply, Style::Sdg)),
    )
}

/// The reply to `after` that takes the most material, when it takes any.
fn material_refutation(after: &Board, rules: &Rules) -> Option<String> {
    let (swing, reply) = worst_reply(&after.position, rules);
    (swing > 0.0).then(|| format_turn(after, rules, &reply, Style::Sdg))
}

/// A swing in words: `5.5 (a large ship's worth, net)` or `the game`.
fn worth_text(swing: f32) -> String {
    if swing >= ELIMINATED {
        "the game".to_string()
    } else {
        format!("{swing} net (small ship 1, medium 2.5, large 5.5)")
    }
}

/// A solved verdict.
fn solved(text: String) -> Verdict {
    Verdict {
        solved: Some(true),
        text,
        refutation: None,
    }
}

/// A failed verdict with its refutation.
fn failed(text: String, refutation: Option<String>) -> Verdict {
    Verdict {
        solved: Some(false),
        text,
        refutation,
    }
}

/// The page's list of puzzles.
#[derive(Serialize)]
pub struct ListReply {
    /// [`all`].
    pub puzzles: &'static [Puzzle],
}

/// The answer to `POST /api/puzzle/answer`: the verdict, or why the turn
/// was not judged.
pub fn answer(request: &AnswerRequest) -> Result<Verdict, String> {
    let puzzle = all().get(request.puzzle).ok_or_else(|| {
        format!(
            "no such puzzle: {} (there are {})",
            request.puzzle,
            all().len()
        )
    })?;
    judge(puzzle, &request.turn)
}

#[cfg(test)]
#[path = "puzzles_tests.rs"]
mod tests;
