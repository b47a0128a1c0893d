//! Turning engine values into protocol text: `info` replies, principal
//! variations as turn tokens, the `d` board display, results.
//!
//! These are shared by the protocol loop and the command-line tools, so that
//! a person reading `supernova play` and a GUI reading `d` see one format.

use super::reply::{Info, Score};
use crate::engine::{win_probability, winning_turn, Candidate, Decision, Proof, SearchInfo};
use crate::notation::turn::{format_turn, Style};
use crate::notation::{hwpn, Board};
use crate::rules::{
    Action, EndReason, GameResult, GameStatus, Outcome, PieceSet, Player, Repetition, Rules, Slot,
    HOME_SLOTS,
};

/// Writes a sequence of turns played one after the other from `board`, each
/// on the board the previous one left; stops early at a turn that does not
/// play (a stale line from the tree).
pub fn format_line(
    board: &Board,
    rules: &Rules,
    turns: &[Vec<Action>],
    style: Style,
) -> Vec<String> {
    let mut working = board.clone();
    let mut texts = Vec::with_capacity(turns.len());
    for turn in turns {
        let text = format_turn(&working, rules, turn, style);
        if working.play_actions(rules, turn).is_err() {
            break;
        }
        texts.push(text);
        if working.position.outcome() != Outcome::Ongoing {
            break;
        }
    }
    texts
}

/// The score as the protocol prints it: `cp` is the value in [-1, 1] times
/// 1000, so that GUIs expecting centipawns show a sensible range.
pub fn centipawns(value: f32) -> i64 {
    (value.clamp(-1.0, 1.0) * 1000.0).round() as i64
}

/// The word for a proven result.
pub fn proof_word(proof: Proof) -> &'static str {
    match proof {
        Proof::Win => "win",
        Proof::Loss => "loss",
        Proof::Draw => "draw",
    }
}

/// The word for why a turn was chosen.
pub fn decision_word(decision: Decision) -> &'static str {
    match decision {
        Decision::Search => "search",
        Decision::ImmediateWin => "immediate-win",
        Decision::ForcedWinInTwo => "forced-win-in-two",
        Decision::OnlySafeTurn => "only-safe-turn",
        Decision::ForcedDraw => "forced-draw",
        Decision::SafetyFallback => "safety-fallback",
        Decision::NoSafeTurn => "no-safe-turn",
        Decision::NoSafeTurnFound => "no-safe-turn-found",
        Decision::TwoTurnDefence => "two-turn-defence",
        Decision::UnrefutedTurn => "unrefuted-turn",
        Decision::Setup => "setup",
        Decision::Greedy => "greedy",
        Decision::Random => "random",
        Decision::GameOver => "game-over",
        Decision::LimitedStrength => "limited-strength",
    }
}

/// How the `info` lines of a search are written.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct InfoStyle {
    /// Add `wdl W D L` (the `UCI_ShowWDL` option).
    pub show_wdl: bool,
}

/// The win probability in per mille, the protocol's one unit for it (the
/// `winprob` of `info` and of `eval`).
pub fn per_mille(win_probability: f32) -> u64 {
    (win_probability.clamp(0.0, 1.0) * 1000.0).round() as u64
}

/// Win, draw and loss chances in per mille for a value and its proof. The
/// search keeps one value per line, not a separate draw estimate, so an
/// unproven line is a win or a loss in the proportion of its win
/// probability, and only a proven draw has a draw chance.
pub fn win_draw_loss(win_probability: f32, proof: Option<Proof>) -> [u64; 3] {
    match proof {
        Some(Proof::Win) => [1000, 0, 0],
        Some(Proof::Draw) => [0, 1000, 0],
        Some(Proof::Loss) => [0, 0, 1000],
        None => {
            let win = per_mille(win_probability);
            [win, 0, 1000 - win]
        }
    }
}

/// A proven line made whole: the turns that still play, then, if the game
/// is not over after them, the win in one that ends it (the tree proves a
/// leaf by such a win without storing it). Returns the line and UCI's mate
/// score for it: the number of turns the side to move plays in the line,
/// positive when it wins, negative when it loses (`-1`: whatever it plays
/// now, the game is lost by the opponent's next turn at the latest); or
/// `None` for the score when the line does not reach the proven end.
pub fn proven_line(
    board: &Board,
    rules: &Rules,
    proof: Proof,
    turns: &[Vec<Action>],
) -> (Vec<Vec<Action>>, Option<i64>) {
    let mover = board.position.side_to_move();
    let mut position = board.position;
    let mut line = Vec::with_capacity(turns.len() + 1);
    let mut outcome = Outcome::Ongoing;
    for turn in turns {
        let mut next = position;
        let played = turn
            .iter()
            .all(|&action| next.try_apply(rules, action).is_ok());
        let Some(ended) = played.then(|| next.end_turn(rules).ok()).flatten() else {
            break;
        };
        position = next;
        line.push(turn.clone());
        outcome = ended;
        if outcome != Outcome::Ongoing {
            break;
        }
    }
    if outcome == Outcome::Ongoing && proof != Proof::Draw {
        if let Some(win) = winning_turn(&position, rules) {
            let mut next = position;
            let played = win
                .iter()
                .all(|&action| next.try_apply(rules, action).is_ok());
            if let Some(ended) = played.then(|| next.end_turn(rules).ok()).flatten() {
                line.push(win);
                outcome = ended;
            }
        }
    }
    // The side to move's turns in the line, the last one included.
    let turns = (line.len() as i64 + 1) / 2;
    let score = match (proof, outcome) {
        (Proof::Win, Outcome::Win(winner)) if winner == mover => Some(turns),
        (Proof::Loss, Outcome::Win(winner)) if winner != mover => Some(-turns),
        _ => None,
    };
    (line, score)
}

/// The `info` replies for a search state: one, or one per candidate
/// (`multipv k`) when several candidates are reported, each with its whole
/// expected line. A proven win or loss whose line reaches the end is scored
/// `mate N`; any other line `cp`.
pub fn search_infos(
    board: &Board,
    rules: &Rules,
    info: &SearchInfo,
    style: InfoStyle,
) -> Vec<Info> {
    let line = |value: f32, proof: Option<Proof>, multipv: usize, turns: &[Vec<Action>]| {
        let win_probability = win_probability(value);
        let mut score = Score::Centipawns(centipawns(value));
        let mut turns = turns.to_vec();
        if let Some(proof @ (Proof::Win | Proof::Loss)) = proof {
            let (whole, mate) = proven_line(board, rules, proof, &turns);
            if let Some(mate) = mate {
                score = Score::Mate(mate);
                turns = whole;
            }
        }
        Info {
            depth: Some(info.average_depth.round() as u64),
            seldepth: Some(info.max_depth as u64),
            multipv: Some(multipv as u64),
            score: Some(score),
            winprob: Some(per_mille(win_probability)),
            wdl: style
                .show_wdl
                .then(|| win_draw_loss(win_probability, proof)),
            nodes: Some(info.iterations),
            nps: Some(info.nodes_per_second.round() as u64),
            hashfull: Some(info.hash_full as u64),
            time: Some(info.elapsed.as_millis() as u64),
            pv: format_line(board, rules, &turns, Style::Token),
        }
    };
    let principal = if info.principal_variation.is_empty() {
        vec![info.best_turn.clone()]
    } else {
        info.principal_variation.clone()
    };
    if info.candidates.len() <= 1 {
        return vec![line(info.value, info.proof, 1, &principal)];
    }
    info.candidates
        .iter()
        .enumerate()
        .map(|(index, candidate): (usize, &Candidate)| {
            let turns = if index == 0 && candidate.turn == info.best_turn {
                &principal
            } else if candidate.line.is_empty() {
                std::slice::from_ref(&candidate.turn)
            } else {
                &candidate.line
            };
            line(candidate.value, candidate.proof, index + 1, turns)
        })
        .collect()
}

/// The text of the `info string` that announces a finished game:
/// `result <score> <reason>`.
pub fn result_string(result: &GameResult) -> String {
    format!("result {} {}", result.score(), result.reason.word())
}

/// A set of pieces as words (`g1 g3 b3`), or `-` when empty.
pub fn pieces_text(set: PieceSet) -> String {
    if set.is_empty() {
        return "-".to_string();
    }
    set.copies()
        .map(|piece| piece.to_string())
        .collect::<Vec<_>>()
        .join(" ")
}

/// The bank as `type(count)` words, such as `r1(2) r2(3)`, or `empty`.
pub fn bank_text(bank: PieceSet) -> String {
    if bank.is_empty() {
        return "empty".to_string();
    }
    bank.types()
        .map(|piece| format!("{piece}({})", bank.count(piece)))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A rules profile with its history settings, for display.
pub fn rules_text(rules: &Rules) -> String {
    let repetition = match rules.repetition {
        Repetition::Off => "no repetition rule".to_string(),
        Repetition::Claim(count) => format!("draw claimable at {count} repetitions"),
        Repetition::Automatic(count) => format!("automatic draw at {count} repetitions"),
    };
    let limit = match rules.max_turns {
        Some(limit) => format!("draw after {limit} turns"),
        None => "no turn limit".to_string(),
    };
    format!("{} ({repetition}, {limit})", rules.name)
}

/// The game status in words.
pub fn status_text(status: &GameStatus) -> String {
    match status {
        GameStatus::Ongoing {
            repetitions,
            claimable,
        } => {
            let mut text = "ongoing".to_string();
            if *repetitions > 1 {
                text.push_str(&format!(", position seen {repetitions} times"));
            }
            if *claimable {
                text.push_str(", the side to move may claim a draw by repetition");
            }
            text
        }
        GameStatus::Over(result) => format!("over: {}", result_text(result)),
    }
}

/// A finished game's result in words: `player 1 wins by elimination (0-1)`,
/// `draw by repetition (1/2-1/2)`.
pub fn result_text(result: &GameResult) -> String {
    let who = match result.outcome {
        Outcome::Win(player) => format!("player {} wins", player.index()),
        _ => "draw".to_string(),
    };
    let how = match result.reason {
        EndReason::Elimination => "by elimination",
        EndReason::MutualElimination => "by mutual elimination",
        EndReason::Repetition => "by repetition",
        EndReason::RepetitionClaim => "by a claimed repetition",
        EndReason::TurnLimit => "at the turn limit",
    };
    format!("{who} {how} ({})", result.score())
}

/// A readable picture of the board: each system with its name, stars and
/// ships by owner, then the bank and the side to move.
pub fn board_text(board: &Board) -> String {
    let position = &board.position;
    let mut rows: Vec<[String; 4]> = Vec::new();
    let mut slots: Vec<Slot> = (0..HOME_SLOTS as Slot).collect();
    slots.extend(
        position
            .occupied_slots()
            .filter(|&slot| slot as usize >= HOME_SLOTS),
    );
    for slot in slots {
        let system = position.system(slot);
        let label = if (slot as usize) < HOME_SLOTS {
            let player = Player::BOTH[slot as usize];
            if !position.home_created(player) {
                format!(
                    "{} (home of player {}, not created)",
                    board.name(slot),
                    slot
                )
            } else if !system.exists() {
                format!("{} (home of player {}, destroyed)", board.name(slot), slot)
            } else {
                format!("{} (home of player {})", board.name(slot), slot)
            }
        } else {
            board.name(slot).to_string()
        };
        if !system.exists() {
            rows.push([label, String::new(), String::new(), String::new()]);
            continue;
        }
        rows.push([
            label,
            format!("stars {}", pieces_text(system.stars)),
            format!("player 0: {}", pieces_text(system.ships[0])),
            format!("player 1: {}", pieces_text(system.ships[1])),
        ]);
    }
    let widths: Vec<usize> = (0..3)
        .map(|column| rows.iter().map(|row| row[column].len()).max().unwrap_or(0))
        .collect();
    let mut text = String::new();
    for row in &rows {
        let mut line = String::new();
        for (column, cell) in row.iter().enumerate() {
            if column < 3 {
                line.push_str(&format!("{cell:<width$}   ", width = widths[column]));
            } else {
                line.push_str(cell);
            }
        }
        text.push_str(line.trim_end());
        text.push('\n');
    }
    text.push_str(&format!("bank: {}\n", bank_text(position.bank())));
    let phase = if position.in_setup() { " (setup)" } else { "" };
    text.push_str(&format!(
        "to move: player {}{phase}\n",
        position.side_to_move().index()
    ));
    text.push_str(&format!("hwpn: {}\n", hwpn::write_board(board)));
    text
}

/// A score in words for the tools: the value for the side to move and the
/// win probability.
pub fn value_text(value: f32, win_probability: f32) -> String {
    // Adding zero turns -0.0 into 0.0, so an even position never reads "-0.000".
    let value = value + 0.0;
    format!(
        "value {value:+.3}, win probability {:.1}%",
        win_probability * 100.0
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_proven_line_is_completed_and_counted_in_the_movers_turns() {
        let rules = Rules::STANDARD;
        // Player 0 captures player 1's last home ship: the tree may prove
        // this without storing the turn, so the line is completed.
        let board = hwpn::parse("r1b3:g3:/y2b2:r3:g1 0").unwrap();
        let (line, mate) = proven_line(&board, &rules, Proof::Win, &[]);
        assert_eq!(mate, Some(1));
        assert_eq!(
            format_line(&board, &rules, &line, Style::Token),
            ["capture.g1.Home1"]
        );
        // A "proof" the line contradicts gives no mate score.
        assert_eq!(proven_line(&board, &rules, Proof::Loss, &[]).1, None);
        // Player 1 loses whatever it plays: by its own sacrifice, or after a pass.
        let board = hwpn::parse("r1b3:g3:/r1:r3:r1 1").unwrap();
        let pass: Vec<Action> = Vec::new();
        let (line, mate) = proven_line(&board, &rules, Proof::Loss, &[pass]);
        assert_eq!((line.len(), mate), (2, Some(-1)));
    }

    #[test]
    fn win_draw_loss_follows_the_proof_or_the_win_probability() {
        assert_eq!(win_draw_loss(0.75, None), [750, 0, 250]);
        assert_eq!(win_draw_loss(0.75, Some(Proof::Draw)), [0, 1000, 0]);
        assert_eq!(win_draw_loss(0.2, Some(Proof::Win)), [1000, 0, 0]);
        assert_eq!(win_draw_loss(2.0, None), [1000, 0, 0]);
    }
}
