//! The GUI's engine client keeps each engine turn's explanation (the
//! `info string explain` line of its search) and the state's turn list
//! carries it as `explanation`, `null` for the person's turns.

mod gui_support;

use gui_support::{http, start_gui, state_when};
use serde_json::{json, Value};

fn play(port: u16, turn: &str) {
    let body = json!({ "turn": turn }).to_string();
    let (status, answer) = http(port, "POST", "/api/turn", &body).unwrap();
    assert_eq!(status, 200, "{answer}");
}

#[test]
fn each_engine_turn_carries_its_explanation() {
    let (_gui, _, port) = start_gui(&[]);
    play(port, "home.r1.b3.g3");
    let state = state_when(port, "the engine's setup", |state| {
        state["length"] == 2 && state["yourTurn"] == true
    });
    assert_eq!(state["turns"][0]["explanation"], Value::Null, "{state}");
    assert_eq!(state["turns"][1]["explanation"], json!("sets up its home"));
    play(port, "pass");
    let state = state_when(port, "the engine's first turn", |state| {
        state["length"] == 4 && state["yourTurn"] == true
    });
    assert_eq!(state["turns"][2]["explanation"], Value::Null, "{state}");
    let sentence = state["turns"][3]["explanation"]
        .as_str()
        .unwrap_or_else(|| panic!("no explanation: {state}"));
    // The sentence is about the turn the engine played.
    let played = state["turns"][3]["sdg"].as_str().unwrap();
    assert!(sentence.contains(played), "{played}: {sentence}");
    // A new game starts with no explanations.
    let (status, _) = http(port, "POST", "/api/new", &json!({ "side": 0 }).to_string()).unwrap();
    assert_eq!(status, 200);
    let state = state_when(port, "a new game", |state| state["length"] == 0);
    assert_eq!(state["turns"], json!([]));
}
