//! Writing an [`Explanation`] as one short plain sentence: the text of
//! `info string explain <sentence>` (protocol.md) and of `annotate`'s
//! better turns.
//!
//! The sentence is a rendering of the explanation's one fact and nothing
//! else: every turn it names is the last turn of the fact's line, replayed
//! on the board so that it reads with that board's system names, in SDG
//! form (`Attack G3 Home1`); several turns are joined with `, then `, since
//! a turn's own actions are joined with `; `. A line that does not replay
//! (it never should) is left out rather than written wrong.

use crate::engine::{win_probability, Explanation, Fact, Goal};
use crate::notation::turn::Style;
use crate::notation::Board;
use crate::rules::{Action, Rules};

use super::text::format_line;

/// Joins the turns of a line in a sentence.
const THEN: &str = ", then ";

/// The sentence for `explanation`, whose lines start on `board`.
pub fn sentence(board: &Board, rules: &Rules, explanation: &Explanation) -> String {
    let last = |line: &[Vec<Action>]| last_turn(board, rules, line);
    let expected = |line: &[Vec<Action>]| expected_text(board, rules, line, explanation);
    let text = match &explanation.fact {
        Fact::Setup => "sets up its home".to_string(),
        Fact::Win { win } => format!("takes the win: {}", last(win)),
        Fact::WinInTwo { turn, finish } => {
            let mut text = format!(
                "forces a win next turn: {}; every reply leaves a win at once",
                last(turn)
            );
            if let Some(finish) = finish {
                text.push_str(&format!(" (after a pass: {})", last(finish)));
            }
            text
        }
        Fact::ProvenWin { line } => format!("wins by force: {}", turns(board, rules, line)),
        Fact::Defends { threat, only, line } => {
            let lead = if *only { "the only safe turn: " } else { "" };
            format!(
                "{lead}defends against {}, which would win{}",
                last(threat),
                expected(line)
            )
        }
        Fact::DefendsPlan { plan, proven, line } => {
            let verb = if *proven {
                "defends"
            } else {
                "no check refutes it as a defence"
            };
            match plan {
                Some(plan) => format!(
                    "{verb} against {}, which would force a win in two{}",
                    last(plan),
                    expected(line)
                ),
                None => format!(
                    "{verb} against a forced win in two that the search's first choice allowed{}",
                    expected(line)
                ),
            }
        }
        Fact::DefendsShot {
            shot,
            captured,
            line,
        } => format!(
            "defends against {}, which would capture {}{}",
            last(shot),
            ships_text(*captured),
            expected(line)
        ),
        Fact::ForcedDraw => "every other turn loses at once: this one ends the game drawn".into(),
        Fact::NoSafeTurn { threat } => match threat {
            Some(threat) => format!(
                "no turn is safe: the opponent wins at once whatever it plays (after a pass: {})",
                last(threat)
            ),
            None => "no turn is safe: the opponent wins at once whatever it plays".to_string(),
        },
        Fact::ProvenLoss { line } => {
            format!(
                "the game is lost by force; it expects {}",
                turns(board, rules, line)
            )
        }
        Fact::BuildsTowards { goal, line } => format!(
            "builds towards {} next turn: {}",
            goal_text(*goal),
            turns(board, rules, line)
        ),
        Fact::Expected { line } => format!(
            "{} {}; win chance {}% before, {}% after",
            if line.len() > 1 { "expects" } else { "plays" },
            turns(board, rules, line),
            percent(explanation.before),
            percent(explanation.after)
        ),
    };
    if explanation.limited {
        format!("{text} (chosen among good turns at a limited strength)")
    } else {
        text
    }
}

/// The last turn of `line` as it reads where it is played.
fn last_turn(board: &Board, rules: &Rules, line: &[Vec<Action>]) -> String {
    let texts = format_line(board, rules, line, Style::Sdg);
    match (texts.len() == line.len(), texts.last()) {
        (true, Some(text)) => text.clone(),
        _ => "?".to_string(),
    }
}

/// The turns of `line`, joined with [`THEN`], as far as they play.
fn turns(board: &Board, rules: &Rules, line: &[Vec<Action>]) -> String {
    format_line(board, rules, line, Style::Sdg).join(THEN)
}

/// `; expects ...` for a line longer than the turn itself (which the
/// sentence has named already or need not), else nothing.
fn expected_text(
    board: &Board,
    rules: &Rules,
    line: &[Vec<Action>],
    explanation: &Explanation,
) -> String {
    if line.len() < 2 {
        return format!("; win chance {}% after it", percent(explanation.after));
    }
    format!(
        "; expects {}; win chance {}% after it",
        turns(board, rules, line),
        percent(explanation.after)
    )
}

/// A value as a whole percentage of win chance.
fn percent(value: f32) -> u32 {
    (win_probability(value).clamp(0.0, 1.0) * 100.0).round() as u32
}

/// `both large ships`, `a large ship and a medium ship`, `3 small ships`.
fn ships_text(captured: [u8; 3]) -> String {
    let sizes = ["small", "medium", "large"];
    if captured.iter().sum::<u8>() == 2 {
        if let Some(size) = captured.iter().position(|&count| count == 2) {
            return format!("both {} ships", sizes[size]);
        }
    }
    let parts: Vec<String> = (0..3)
        .rev()
        .filter(|&size| captured[size] > 0)
        .map(|size| match captured[size] {
            1 => format!("a {} ship", sizes[size]),
            count => format!("{count} {} ships", sizes[size]),
        })
        .collect();
    match parts.as_slice() {
        [] => "nothing".to_string(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// What a goal reads as.
fn goal_text(goal: Goal) -> String {
    match goal {
        Goal::Win => "a win".to_string(),
        Goal::Catastrophe {
            colour,
            at_their_home,
        } => {
            let place = if at_their_home {
                "at their home"
            } else {
                "on their ships"
            };
            format!("a {} catastrophe {place}", colour.word())
        }
        Goal::Capture { size } => {
            let size = ["small", "medium", "large"][(size.clamp(1, 3) - 1) as usize];
            format!("capturing a {size} ship")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn captured_ships_read_plainly() {
        assert_eq!(ships_text([0, 0, 2]), "both large ships");
        assert_eq!(ships_text([0, 1, 1]), "a large ship and a medium ship");
        assert_eq!(ships_text([3, 0, 0]), "3 small ships");
        assert_eq!(ships_text([1, 0, 0]), "a small ship");
    }
}
