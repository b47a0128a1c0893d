//! The GUI's Play page for learning, end to end in headless Chromium (the
//! WebDriver helpers of gui_support::browser): a level is chosen and the
//! engine answers at it (the engine, behind a wrapper that logs what it is
//! sent, is told the level through `UCI_LimitStrength` and `UCI_Elo`); Red
//! Alert warns at the start of a turn in danger and asks before a turn
//! that lets the engine win, which is then taken back, and at its
//! stronger setting before a turn that leaves a material shot and at the
//! start of a turn that has one left against the person; Tactical
//! Computer hints spend their tokens; a Second Turn Timewarp game gives the person
//! bonus turns, and its saved record says so and replays in `supernova
//! replay` with that turn order; Brain Transference swaps sides once. A
//! screenshot of each step goes to target/gui-screenshots/.
//!
//! Without `chromium` and `chromedriver` on PATH the test is skipped with a
//! message, unless CI=true, where it fails.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

mod gui_support;

use gui_support::browser::{browser_tools, start_browser, Browser};
use gui_support::{http, start_gui, state_when};

/// Player 0 to move; player 1's large red ship at player 0's home can
/// capture its only ship, a small green one: passing loses at once.
const IN_DANGER: &str = "r1b3:g1:r3/y2b1::g3 0";

/// From the one-turn-shots suite (positions/tactics/one_turn_shots.txt,
/// game-0005), player 0 to move: a third yellow built at Delos lets
/// player 1 sacrifice a yellow, bring two yellows in and fire a yellow
/// catastrophe there.
const BEFORE_A_SHOT: &str =
    "mcts=y1b2:r1r2r3g3:/shots=r1b3::y1y1y2g1g1g3/Delos=g3:r1r3r3y2y2:/Lebling=r2:r2: 0";

/// [`BEFORE_A_SHOT`] with the third yellow built at Delos, player 0 to
/// move again: doing nothing leaves player 1 the yellow catastrophe there.
const SHOT_LEFT: &str =
    "mcts=y1b2:r1r2r3g3:/shots=r1b3::y1y1y2g1g1g3/Delos=g3:r1r3r3y2y2y3:/Lebling=r2:r2: 0";

/// A folder of this test's own, removed when it ends.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Chooses the page's new-game settings and starts the game: `selects`
/// are (element id, value) pairs, `brain` the Brain Transference box.
fn new_game(browser: &Browser, selects: &[(&str, &str)], brain: bool) {
    let mut script = String::new();
    for (id, value) in selects {
        script.push_str(&format!(
            "document.getElementById('{id}').value = '{value}';"
        ));
    }
    script.push_str(&format!(
        "document.getElementById('brain-transference').checked = {brain}; return 'set'"
    ));
    browser.script(&script);
    browser.script("document.getElementById('message').textContent = ''; return 'cleared'");
    browser.click("#new-game");
    browser.wait_for(
        "a new game",
        "return document.getElementById('message').textContent.includes('new game') ? 'yes' : 'no'",
    );
}

/// Builds the person's setup by clicking and waits for the engine's.
fn setup_by_clicking(browser: &Browser) {
    for key in ["bank:b2", "bank:y1", "bank:g3"] {
        browser.click_choosable(key);
    }
    browser.wait_for(
        "the engine's setup",
        "return document.getElementById('status').dataset.length >= 2 && document.getElementById('status').textContent.includes('(you)') ? 'yes' : 'no'",
    );
}

/// Plays a turn typed in the page's box, and waits until it is played.
fn type_turn(browser: &Browser, text: &str) {
    let length = browser.status_number("length");
    browser.type_into("#turn-text", text);
    browser.click("#play-typed");
    browser.wait_for(
        "the typed build",
        &format!("return Number(document.getElementById('status').dataset.length) > {length} ? 'yes' : 'no'"),
    );
}

#[test]
fn the_play_page_teaches_with_levels_and_handicaps() {
    let Some((chromium, chromedriver)) = browser_tools() else {
        return;
    };
    // The engine behind a wrapper that logs every line it is sent.
    let scratch =
        Scratch(std::env::temp_dir().join(format!("supernova-gui-learn-{}", std::process::id())));
    std::fs::create_dir_all(&scratch.0).unwrap();
    let log = scratch.0.join("engine-input.log");
    let wrapper = scratch.0.join("engine.sh");
    std::fs::write(
        &wrapper,
        format!(
            "#!/bin/sh\ntee -a '{}' | exec '{}' engine\n",
            log.display(),
            env!("CARGO_BIN_EXE_supernova")
        ),
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&wrapper)
        .status()
        .unwrap();
    let engine = wrapper.display().to_string();
    let (_gui, address, port) = start_gui(&["--engine", &engine]);
    let (_driver, browser) = start_browser(&chromium, &chromedriver);
    browser.open(&address);
    browser.wait_for(
        "the first state",
        "return document.getElementById('level').options.length === 7 ? 'yes' : 'no'",
    );
    choose_a_level(&browser, port, &log);
    red_alert(&browser, port);
    material_shot(&browser, port);
    shot_left_against_you(&browser, port);
    tactical_computer(&browser, port);
    timewarp(&browser, port, &scratch.0);
    brain_transference(&browser, port);
}

/// The level choice: the calibrated levels with their Elo, a middle one
/// by default; a game at the weakest, whose engine is told it.
fn choose_a_level(browser: &Browser, port: u16, log: &std::path::Path) {
    let levels = browser.script(
        "return [...document.getElementById('level').options].map(o => o.textContent).join('|')",
    );
    assert_eq!(
        levels,
        "cadet (Elo 870)|ensign (Elo 1070)|lieutenant (Elo 1430)|commander (Elo 1680)|captain (Elo 1840)|admiral (Elo 2000)|full (full strength)"
    );
    assert_eq!(
        browser.script("return document.getElementById('level').value"),
        "commander"
    );
    new_game(browser, &[("level", "cadet"), ("time", "nodes=300")], false);
    setup_by_clicking(browser);
    type_turn(browser, "Build G1 Home0");
    browser.wait_for(
        "the engine's answer",
        "return document.getElementById('status').dataset.length >= 4 && document.getElementById('status').textContent.includes('(you)') ? 'yes' : 'no'",
    );
    browser.screenshot("learn-01-level-cadet");
    let state = state_when(port, "the level", |state| state["level"] == "cadet");
    assert_eq!(state["length"], 4, "{state}");
    let sent = std::fs::read_to_string(log).unwrap();
    let limit = sent
        .find("setoption name UCI_LimitStrength value true")
        .unwrap_or_else(|| panic!("the level was not sent: {sent}"));
    let elo = sent
        .find("setoption name UCI_Elo value 870")
        .unwrap_or_else(|| panic!("the Elo was not sent: {sent}"));
    let go = sent[elo..].find("go nodes 300").map(|at| at + elo);
    assert!(limit < elo && go.is_some(), "{sent}");
}

/// Red Alert: the banner at the start of a turn in danger, the question
/// before a pass that loses, and the turn taken back.
fn red_alert(browser: &Browser, port: u16) {
    new_game(browser, &[("red-alert", "1"), ("time", "nodes=300")], false);
    browser.type_into("#hwpn", IN_DANGER);
    browser.click("#set-position");
    browser.wait_for(
        "the Red Alert banner",
        "return !document.getElementById('red-alert-banner').hidden && document.getElementById('red-alert-banner').textContent.includes('you are in danger') ? 'yes' : 'no'",
    );
    browser.screenshot("learn-02-red-alert-banner");
    browser.click("#pass-turn");
    browser.wait_for(
        "the Red Alert question",
        "return !document.getElementById('red-alert-dialog').hidden && document.getElementById('alert-text').textContent.includes('after this turn the opponent wins at once') ? 'yes' : 'no'",
    );
    browser.screenshot("learn-03-red-alert-question");
    let state = take_back_the_alert(browser, port);
    assert_eq!(state["length"], 0, "the pass was played: {state}");
    assert_eq!(state["handicaps"], "Red Alert", "{state}");
    browser.screenshot("learn-04-red-alert-taken-back");
}

/// Answers the Red Alert question with "take it back" and returns the
/// state once the person's turn is offered again.
fn take_back_the_alert(browser: &Browser, port: u16) -> serde_json::Value {
    browser.click("#alert-back");
    browser.wait_for(
        "the question to close",
        "return document.getElementById('red-alert-dialog').hidden ? 'yes' : 'no'",
    );
    std::thread::sleep(Duration::from_millis(300));
    state_when(port, "the position", |state| state["yourTurn"] == true)
}

/// The stronger Red Alert: before a turn that leaves a one-turn material
/// shot, the question names the reply and what it takes; the turn is
/// taken back.
fn material_shot(browser: &Browser, port: u16) {
    new_game(browser, &[("red-alert", "2"), ("time", "nodes=300")], false);
    browser.type_into("#hwpn", BEFORE_A_SHOT);
    browser.click("#set-position");
    state_when(port, "the position", |state| {
        state["yourTurn"] == true && state["redAlertLevel"] == 2
    });
    browser.type_into("#turn-text", "build y3 Delos");
    browser.click("#play-typed");
    browser.wait_for(
        "the Red Alert question",
        "return !document.getElementById('red-alert-dialog').hidden && document.getElementById('alert-text').textContent.includes('can take material') ? 'yes' : 'no'",
    );
    browser.screenshot("learn-04b-red-alert-material-shot");
    assert_eq!(
        browser.script("return document.getElementById('alert-text').textContent"),
        "Red Alert: after this turn the opponent can take material: Sacrifice Y2 shots; Move Y1 shots Lebling; Move Y1 Lebling Delos; Catastrophe Delos Yellow would destroy your Y3, Y2 and Y2. End the turn anyway?"
    );
    let state = take_back_the_alert(browser, port);
    assert_eq!(state["length"], 0, "the build was played: {state}");
    assert_eq!(state["handicaps"], "Red Alert 2", "{state}");
}

/// The stronger Red Alert at the start of a turn: where the position
/// leaves nothing in reach there is no banner; where doing nothing leaves
/// a material shot, the banner names the opponent's reply and what it
/// takes, and a turn that moves the ships out of reach is played without
/// a question.
fn shot_left_against_you(browser: &Browser, port: u16) {
    new_game(browser, &[("red-alert", "2"), ("time", "nodes=300")], false);
    browser.type_into("#hwpn", BEFORE_A_SHOT);
    browser.click("#set-position");
    let quiet = state_when(port, "the quiet position", |state| {
        state["message"] == "position set" && state["yourTurn"] == true
    });
    assert_eq!(quiet["redAlertLevel"], 2, "{quiet}");
    assert_eq!(quiet["redAlert"], serde_json::Value::Null, "{quiet}");
    // The page has drawn that state once it says so: until then a redraw
    // would write the position into the box over what is typed next.
    browser.wait_for(
        "the page to show the position",
        "return document.getElementById('message').textContent.includes('position set') ? 'yes' : 'no'",
    );
    browser.type_into("#hwpn", SHOT_LEFT);
    browser.click("#set-position");
    browser.wait_for(
        "the Red Alert banner",
        "return !document.getElementById('red-alert-banner').hidden && document.getElementById('red-alert-banner').textContent.includes('your ships are in danger') ? 'yes' : 'no'",
    );
    browser.screenshot("learn-04c-red-alert-shot-left");
    assert_eq!(
        browser.script("return document.getElementById('red-alert-banner').textContent"),
        "Red Alert: your ships are in danger. If you do nothing, the opponent can take material: Sacrifice Y2 shots; Move Y1 shots Lebling; Move Y1 Lebling Delos; Catastrophe Delos Yellow would destroy your Y3, Y2 and Y2"
    );
    // Moving the large yellow out leaves two yellows at Delos: one
    // brought in makes three, no catastrophe, and the turn is played
    // without a question.
    type_turn(browser, "Move Y3 Delos Lebling");
    let state = state_when(port, "the engine's answer", |state| {
        state["length"] == 2 && state["yourTurn"] == true
    });
    assert_eq!(state["handicaps"], "Red Alert 2", "{state}");
}

/// Tactical Computer: a hint shown with the engine's explanation, and a
/// token spent.
fn tactical_computer(browser: &Browser, port: u16) {
    new_game(
        browser,
        &[("red-alert", "0"), ("tokens", "2"), ("time", "nodes=300")],
        false,
    );
    setup_by_clicking(browser);
    assert_eq!(
        browser.script("return document.getElementById('hint').dataset.tokens"),
        "2"
    );
    browser.click("#hint");
    browser.wait_for(
        "the hint",
        "return document.getElementById('hint-text').textContent.includes('Tactical Computer suggests: ') && document.getElementById('hint').dataset.tokens === '1' && document.querySelector('#hint-text .explanation') ? 'yes' : 'no'",
    );
    browser.screenshot("learn-05-hint");
    let state = state_when(port, "the token spent", |state| state["tokens"] == 1);
    assert!(state["hint"].is_string(), "{state}");
    let why = state["hintExplanation"].as_str().unwrap_or_default();
    assert!(
        !why.is_empty(),
        "the hint comes with the engine's explanation: {state}"
    );
    assert_eq!(
        browser.script("return document.querySelector('#hint-text .explanation').textContent"),
        why
    );
    assert_eq!(state["length"], 2, "a hint plays no turn: {state}");
}

/// Second Turn Timewarp: three turns in a row for the person after the
/// setup, in the game, the saved record and `supernova replay`.
fn timewarp(browser: &Browser, port: u16, scratch: &std::path::Path) {
    new_game(
        browser,
        &[("tokens", ""), ("timewarp", "2"), ("time", "nodes=300")],
        false,
    );
    setup_by_clicking(browser);
    // Two bonus turns and the ordinary first, without overpopulating.
    for text in ["Build G1 Home0", "Trade G1 Y1 Home0", "Build G1 Home0"] {
        type_turn(browser, text);
    }
    browser.wait_for(
        "the engine's first turn after the bonus turns",
        "return document.getElementById('status').dataset.length >= 6 && document.getElementById('status').textContent.includes('(you)') ? 'yes' : 'no'",
    );
    browser.screenshot("learn-06-timewarp");
    let state = state_when(port, "the timewarp game", |state| state["length"] == 6);
    let movers: Vec<u64> = state["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|turn| turn["mover"].as_u64().unwrap())
        .collect();
    assert_eq!(movers, [0, 1, 0, 0, 0, 1], "{state}");
    let (status, record) = http(port, "GET", "/api/record", "").unwrap();
    assert_eq!(status, 200, "{record}");
    assert!(
        record.contains("Variants: \"Timewarp 2 for player 0\""),
        "{record}"
    );
    assert!(record.contains("5) Home0: Build"), "{record}");
    let path = scratch.join("timewarp.sdg");
    std::fs::write(&path, &record).unwrap();
    let replay = Command::new(env!("CARGO_BIN_EXE_supernova"))
        .args(["replay", path.to_str().unwrap()])
        .output()
        .unwrap();
    let replayed = String::from_utf8_lossy(&replay.stdout);
    assert!(
        replayed.contains("1 legal, 0 illegal") && replayed.contains("unfinished"),
        "{record}\n{replayed}"
    );
    // Loaded for review, the game shows its handicap.
    browser.type_into("#record-text", &record);
    browser.click("#load-record");
    browser.wait_for(
        "the review",
        "return document.getElementById('game-handicaps').textContent.includes('Timewarp 2 for player 0') ? 'yes' : 'no'",
    );
    browser.screenshot("learn-07-timewarp-review");
}

/// Brain Transference: the sides change once, and the engine plays the
/// person's old side.
fn brain_transference(browser: &Browser, port: u16) {
    browser.click("[data-mode=\"play\"]");
    new_game(browser, &[("timewarp", "0"), ("time", "nodes=300")], true);
    setup_by_clicking(browser);
    browser.click("#swap");
    browser.wait_for(
        "the engine's turn for player 0",
        "return document.getElementById('status').dataset.length >= 3 && document.getElementById('status').textContent.includes('player 1 to move (you)') ? 'yes' : 'no'",
    );
    browser.screenshot("learn-08-swapped");
    let state = state_when(port, "the swap", |state| state["human"] == 1);
    assert_eq!(state["canSwap"], false, "{state}");
    assert_eq!(state["turns"][2]["mover"], 0, "{state}");
    assert!(browser
        .script("return document.getElementById('swap').disabled ? 'yes' : 'no'")
        .eq("yes"));
    let (_, record) = http(port, "GET", "/api/record", "").unwrap();
    assert!(
        record.contains("Brain Transference: the players change sides after this turn"),
        "{record}"
    );
}

/// Posts a command to the GUI; its status and its answer's text.
fn post(port: u16, path: &str, body: &str) -> (u16, String) {
    http(port, "POST", path, body).unwrap()
}

#[test]
fn bad_levels_and_handicaps_are_refused_and_change_nothing() {
    let (_gui, _, port) = start_gui(&[]);
    let before = state_when(port, "the first state", |_| true);
    let refused = [
        (
            "/api/new",
            r#"{"level": "grandmaster"}"#,
            "unknown level 'grandmaster'",
        ),
        (
            "/api/new",
            r#"{"mode": "play", "handicaps": {"timewarp": 4}}"#,
            "expected 1 to 3 bonus turns",
        ),
        (
            "/api/new",
            r#"{"mode": "play", "handicaps": {"redAlert": 3}}"#,
            "expected Red Alert 0",
        ),
        (
            "/api/new",
            r#"{"mode": "play", "handicaps": {"tokens": 6}}"#,
            "expected 0 to 5 Tactical Computer tokens",
        ),
        (
            "/api/new",
            r#"{"mode": "play", "handicaps": {"bonus": 1}}"#,
            "unknown field `bonus`",
        ),
        ("/api/hint", "", "no Tactical Computer tokens left"),
        (
            "/api/swap",
            "",
            "Brain Transference is not one of this game's handicaps",
        ),
    ];
    // A game whose hints are rationed to none.
    let (status, body) = post(
        port,
        "/api/new",
        r#"{"mode": "play", "level": "ensign", "handicaps": {"tokens": 0}}"#,
    );
    assert_eq!(status, 200, "{body}");
    let game = state_when(port, "the new game", |state| state["level"] == "ensign");
    assert_eq!(game["tokens"], 0, "{game}");
    assert_eq!(game["handicaps"], "Tactical Computer 0", "{game}");
    for (path, body, expected) in refused {
        let (status, answer) = post(port, path, body);
        assert_eq!(status, 400, "{path} {body}: {answer}");
        assert!(answer.contains(expected), "{path} {body}: {answer}");
        let after = state_when(port, "the same game", |_| true);
        for field in ["level", "handicaps", "tokens", "length", "human"] {
            assert_eq!(after[field], game[field], "{path} {body}: {field}");
        }
    }
    // Red Alert's question is only for the person's turn, in their game.
    let (status, answer) = post(port, "/api/check", r#"{"turn": "pass", "extra": 1}"#);
    assert_eq!(status, 400, "{answer}");
    assert_ne!(before["version"], game["version"]);
}
