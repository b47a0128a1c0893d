//! The engine's explanations end to end, through the real binary: every
//! `go` that plays a turn answers one `info string explain <sentence>` line
//! just before its `bestmove`, and the sentence says what is true of the
//! position (protocol.md, "Why a turn was played"); `Explain false` turns
//! it off without changing the turn.

mod engine_process;

use engine_process::Engine;

/// The lines of one `go nodes <nodes>` from `position`, up to `bestmove`.
fn search(engine: &mut Engine, position: &str, nodes: u64) -> Vec<String> {
    engine.send(&format!("position {position}"));
    engine.send(&format!("go nodes {nodes}"));
    engine.read_until(|line| line.starts_with("bestmove"))
}

/// The explanation line's sentence, asserting that it comes just before
/// `bestmove` and that it is the search's only one.
fn explanation(lines: &[String]) -> String {
    let [.., explain, bestmove] = lines else {
        panic!("too few lines: {lines:?}");
    };
    assert!(bestmove.starts_with("bestmove "), "{lines:?}");
    let sentence = explain
        .strip_prefix("info string explain ")
        .unwrap_or_else(|| panic!("no explanation before bestmove: {lines:?}"));
    let count = lines
        .iter()
        .filter(|line| line.starts_with("info string explain"))
        .count();
    assert_eq!(count, 1, "{lines:?}");
    sentence.to_string()
}

fn started() -> Engine {
    let mut engine = Engine::start();
    engine.send("setoption name Threads value 1");
    engine.send("setoption name Hash value 16");
    engine
}

#[test]
fn a_win_in_one_names_the_winning_turn() {
    let mut engine = started();
    let lines = search(&mut engine, "pos r1b3:g3:/y2b2:r3:g1 0", 2000);
    assert_eq!(lines.last().unwrap(), "bestmove capture.g1.Home1");
    assert_eq!(explanation(&lines), "takes the win: Attack G1 Home1");
    engine.quit();
}

#[test]
fn in_check_the_explanation_names_the_threat_it_defends_against() {
    let mut engine = started();
    let lines = search(&mut engine, "pos y1g2:r1:/y3g3:r3:b3 1", 2000);
    assert_eq!(lines.last().unwrap(), "bestmove build.b1.Home1");
    let sentence = explanation(&lines);
    assert!(
        sentence
            .starts_with("the only safe turn: defends against Attack B3 Home1, which would win"),
        "{sentence}"
    );
    engine.quit();
}

#[test]
fn a_two_turn_defence_names_the_plan_it_parries() {
    // From positions/tactics/two_turn.txt (SDG game 11380): the search's
    // first choice lets the opponent force a win in two.
    let mut engine = started();
    let position = "pos Cerulean=b2:r2y3:/Danner=r1b2::y1y1g3/Jiwun=g1:r3:/Jithree=g3:r1b1:r3/\
                    Wywun=y1::b1b3/Honeymaker=y2::r2/Highway=y3::b3/Sun=y3::r2r3b1b3 0";
    let lines = search(&mut engine, position, 3000);
    let sentence = explanation(&lines);
    assert!(
        lines.contains(&"info string decision two-turn-defence".to_string()),
        "{lines:?}"
    );
    assert!(
        sentence.starts_with("defends against Sacrifice B3 Highway; ")
            && sentence.contains("which would force a win in two"),
        "{sentence}"
    );
    engine.quit();
}

#[test]
fn a_quiet_position_gets_its_expected_line_and_values() {
    let mut engine = started();
    let lines = search(
        &mut engine,
        "startpos moves home.r1.b3.g3 home.y2.b1.g3",
        2000,
    );
    let sentence = explanation(&lines);
    let best = lines.last().unwrap();
    assert_eq!(best, "bestmove build.g1.Home0");
    assert!(
        sentence.starts_with("expects Build G1 Home0, then ") && sentence.contains("% after"),
        "{sentence}"
    );
    engine.quit();
}

#[test]
fn explain_false_drops_the_line_and_keeps_the_turn() {
    let mut engine = started();
    let position = "startpos moves home.r1.b3.g3 home.y2.b1.g3";
    engine.send("setoption name Seed value 3");
    let explained = search(&mut engine, position, 1500);
    engine.send("newgame");
    engine.send("setoption name Explain value false");
    let silent = search(&mut engine, position, 1500);
    assert!(
        !silent.iter().any(|line| line.contains("explain")),
        "{silent:?}"
    );
    assert_eq!(explained.last(), silent.last());
    engine.send("setoption name Explain value maybe");
    engine.send("isready");
    let replies = engine.read_until(|line| line == "readyok");
    assert!(
        replies
            .iter()
            .any(|line| line.starts_with("info string error") && line.contains("Explain")),
        "{replies:?}"
    );
    engine.quit();
}

#[test]
fn a_finished_game_has_no_explanation() {
    let mut engine = started();
    let lines = search(&mut engine, "pos r1b3:g3:/x 1", 100);
    assert_eq!(lines.last().unwrap(), "bestmove (none)");
    assert!(
        !lines.iter().any(|line| line.contains("explain")),
        "{lines:?}"
    );
    engine.quit();
}
