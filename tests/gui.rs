//! `supernova gui` end to end in a real browser: headless Chromium driven
//! over chromedriver's W3C WebDriver HTTP API (a small HTTP client on
//! std::net, in gui_support, with serde_json for the JSON). The page is
//! loaded; a short game is played against the engine by clicking pieces (a setup and a build) and by typing turns
//! (an illegal one, which the page explains, then a legal one), and taken
//! back; a game is played to its end by clicking (from a position set up
//! from HWPN, a capture that eliminates the engine: the status shows the
//! win, the list of turns the winning turn); a position is set up from HWPN
//! and analysed until the evaluation bar shows the engine's value; an SDG
//! record from ../shared/sdg is uploaded and stepped through with the
//! keyboard; two engines play each other. A screenshot of each step goes
//! to target/gui-screenshots/.
//!
//! The GUI's own API is checked beside the page: its answers are read as
//! JSON values by field, what the game refuses is explained, and a request
//! that is not its command's JSON object is refused without any change to
//! the state.
//!
//! Without `chromium` and `chromedriver` on PATH the test is skipped with a
//! message, unless CI=true, where it fails (.ci/run installs them).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;

use serde_json::{json, Value};

mod gui_support;

use gui_support::browser::{browser_tools, first_action, on_path, start_browser, text_at, Browser};
use gui_support::{http, parse, start_gui, state_when};

#[test]
fn the_page_plays_analyses_and_reviews_in_a_browser() {
    let in_ci = std::env::var("CI").is_ok_and(|value| value == "true");
    let Some((chromium, chromedriver)) = browser_tools() else {
        return;
    };
    let record = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/sdg/1048.raw");
    let record = record.canonicalize().ok();
    assert!(
        record.is_some() || !in_ci,
        "CI=true but ../shared/sdg/1048.raw is missing"
    );
    let (_gui, address, _) = start_gui(&[]);
    let (_driver, browser) = start_browser(&chromium, &chromedriver);

    // The page loads and shows the empty start.
    browser.open(&address);
    browser.wait_for(
        "the first state",
        "return document.getElementById('status').textContent.includes('turn 1') ? 'yes' : 'no'",
    );
    browser.screenshot("01-loaded");
    play_by_clicking_and_typing(&browser);
    play_to_the_end(&browser);
    analyse(&browser);
    match record {
        Some(record) => review(&browser, &record),
        None => eprintln!("skipping the review step: ../shared/sdg/1048.raw is missing"),
    }
    watch(&browser);
}

/// Play against the engine by clicking (a setup and a build) and by typing
/// (an illegal turn, which the page explains, then a legal one); choose a
/// ship and let go of it; take back a turn.
fn play_by_clicking_and_typing(browser: &Browser) {
    // Play against the engine: a new game, quick engine turns.
    browser.script("document.getElementById('time').value = 'nodes=300'; return 'set'");
    browser.click("#new-game");
    browser.wait_for(
        "a new game",
        "return document.getElementById('message').textContent.includes('new game') ? 'yes' : 'no'",
    );
    // The setup by clicking bank pieces: stars b2 and y1, ship g3.
    for key in ["bank:b2", "bank:y1", "bank:g3"] {
        browser.click_choosable(key);
    }
    browser.wait_for(
        "the engine's setup",
        "return document.getElementById('status').dataset.length >= 2 && document.getElementById('status').textContent.includes('(you)') ? 'yes' : 'no'",
    );
    assert!(browser
        .script("return document.querySelector('[data-system=\"Home0\"] [data-piece=\"g3\"][data-owner=\"0\"]') ? 'yes' : 'no'")
        .eq("yes"));
    browser.screenshot("02-setup-clicked");

    // A build by clicking: the bank piece, then the home.
    let (token, _) = first_action(browser, "Build");
    let words: Vec<&str> = token.split('.').collect();
    browser.click_choosable(&format!("bank:{}", words[1]));
    browser.click_choosable(&format!("sys:{}", words[2]));
    browser.wait_for(
        "the clicked turn and the engine's answer",
        "return document.getElementById('status').dataset.length >= 4 && document.getElementById('status').textContent.includes('(you)') ? 'yes' : 'no'",
    );
    let moves = browser.script("return document.getElementById('moves').textContent");
    assert!(moves.contains("Build"), "{moves}");
    browser.screenshot("03-build-clicked");

    // A typed turn that is illegal is explained, and changes nothing.
    browser.type_into("#turn-text", "Build R3 Home0");
    browser.click("#play-typed");
    browser.wait_for(
        "the explanation",
        "return document.getElementById('message').textContent.includes('cannot be played') ? 'yes' : 'no'",
    );
    assert_eq!(browser.status_number("length"), 4);
    browser.screenshot("04-illegal-typed");

    // A legal typed turn, in SDG form.
    let (_, text) = first_action(browser, "Trade");
    browser.type_into("#turn-text", &text);
    browser.click("#play-typed");
    browser.wait_for(
        "the typed turn and the engine's answer",
        "return document.getElementById('status').dataset.length >= 6 && document.getElementById('status').textContent.includes('(you)') ? 'yes' : 'no'",
    );
    browser.screenshot("05-typed-turn");

    // Choosing a ship highlights where it can go and what it can become;
    // Escape lets go of it.
    let ship = browser.script(
        "const s = document.querySelector('[data-kind=\"ship\"][data-owner=\"0\"].choosable'); return s ? s.dataset.key : ''",
    );
    assert!(ship.starts_with("ship:"), "no ship of player 0 to choose");
    browser.click_choosable(&ship);
    browser.wait_for(
        "targets for the chosen ship",
        "return document.querySelector('.selected') && document.querySelectorAll('.choosable').length > 0 && document.getElementById('chooser').children.length > 0 ? 'yes' : 'no'",
    );
    browser.screenshot("06-ship-chosen");
    browser.press('\u{E00C}');
    browser.wait_for(
        "the choice to be let go",
        "return document.querySelector('.selected') ? 'no' : 'yes'",
    );

    // Undo takes back the engine's turn and the person's.
    browser.click("#undo");
    browser.wait_for(
        "the undo",
        "return document.getElementById('status').dataset.length == 4 ? 'yes' : 'no'",
    );
}

/// Play a game to its end by clicking: a capture that eliminates the engine.
fn play_to_the_end(browser: &Browser) {
    // Play a game to its end by clicking: set up from HWPN a position where
    // the person (player 0) has a large red ship at player 1's home, beside
    // player 1's only ship, a small green one; clicking that ship captures it
    // and eliminates player 1.
    browser.type_into("#hwpn", "r1b3:g3:/y2b1:r3:g1 0");
    browser.click("#set-position");
    browser.wait_for(
        "the position to be set up",
        "return document.getElementById('message').textContent.includes('position set') && document.getElementById('status').dataset.length == 0 && document.getElementById('status').textContent.includes('(you)') ? 'yes' : 'no'",
    );
    browser.click_choosable("ship:Home1:1:g1");
    // The capture is the turn's one action, so the turn ends by itself;
    // where the page still offers the end of the turn, it is clicked.
    browser.wait_for(
        "the end of the game or of the turn",
        "return document.getElementById('status').textContent.includes('game over') || !document.getElementById('end-turn').disabled ? 'yes' : 'no'",
    );
    if browser.script("return document.getElementById('end-turn').disabled ? 'no' : 'yes'") == "yes"
    {
        browser.click("#end-turn");
    }
    browser.wait_for(
        "the game over, won by player 0",
        "return document.getElementById('status').textContent.includes('game over: 1-0') ? 'yes' : 'no'",
    );
    let status = browser.script("return document.getElementById('status').textContent");
    assert!(status.ends_with("game over: 1-0 elimination"), "{status}");
    assert_eq!(browser.status_number("length"), 1);
    assert_eq!(browser.status_number("ply"), 1);
    let last_turn = browser.script(
        "const items = document.querySelectorAll('#moves li'); return items.length + '|' + items[items.length - 1].className + '|' + items[items.length - 1].textContent",
    );
    let mut parts = last_turn.splitn(3, '|');
    let (count, class, text) = (
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
        parts.next().unwrap_or_default(),
    );
    assert_eq!(count, "1", "{last_turn}");
    assert!(
        class.split_whitespace().any(|class| class == "p0"),
        "{last_turn}"
    );
    assert!(
        text.to_lowercase().contains("attack g1 home1"),
        "{last_turn}"
    );
    // Player 1's ship is gone from the board, and nothing is offered.
    assert_eq!(
        browser.script("return document.querySelector('[data-kind=\"ship\"][data-owner=\"1\"]') || document.querySelector('.choosable') ? 'yes' : 'no'"),
        "no"
    );
    assert!(browser
        .script("return document.getElementById('resign').disabled ? 'yes' : 'no'")
        .eq("yes"));
    browser.screenshot("07-game-won");
}

/// Analyse a set-up position until the evaluation bar shows the engine's
/// value.
fn analyse(browser: &Browser) {
    // Analyse a position set up from HWPN: player 0 has more ships, but no
    // win the search proves within seconds (the analysis must keep growing).
    browser.click("[data-mode=\"analyse\"]");
    browser.type_into("#hwpn", "r1b3:g3y1g2:/y2b2::g3y1 0");
    browser.click("#set-position");
    browser.wait_for(
        "live analysis",
        "const s = document.getElementById('analysis-stats'); return Number(s.dataset.updates) >= 2 && Number(s.dataset.nodes) > 0 ? 'yes' : 'no'",
    );
    let first_nodes =
        browser.script("return document.getElementById('analysis-stats').dataset.nodes");
    browser.wait_for(
        "the bar to move to player 0's side",
        "return Number(document.getElementById('evalbar').dataset.value) > 550 ? 'yes' : 'no'",
    );
    browser.wait_for(
        "more nodes",
        &format!("return Number(document.getElementById('analysis-stats').dataset.nodes) > {first_nodes} ? 'yes' : 'no'"),
    );
    let lines = browser.script("return document.getElementById('analysis-lines').textContent");
    assert!(lines.contains("P0 "), "{lines}");
    browser.screenshot("08-analysis");
    browser.click("#analyse");
}

/// Review an SDG record: upload it, step with the keyboard, and have the
/// engine evaluate every position for the graph.
fn review(browser: &Browser, record: &Path) {
    browser.upload("#record-file", record);
    browser.wait_for(
        "the record",
        "return document.getElementById('status').textContent.startsWith('review') && Number(document.getElementById('status').dataset.length) > 10 ? 'yes' : 'no'",
    );
    browser.script("document.activeElement.blur(); return 'ok'");
    for _ in 0..3 {
        browser.press('\u{E014}');
    }
    browser.wait_for(
        "three steps",
        "return document.getElementById('status').dataset.ply == 3 ? 'yes' : 'no'",
    );
    browser.screenshot("09-review-turn-3");
    browser.press('\u{E010}');
    browser.wait_for(
        "the last turn",
        "const s = document.getElementById('status').dataset; return s.ply == s.length ? 'yes' : 'no'",
    );
    browser.click("#scan");
    browser.wait_for(
        "the evaluation graph",
        "const line = document.querySelector('#graph polyline'); return line && line.getAttribute('points').split(' ').length == Number(document.getElementById('status').dataset.length) + 1 ? 'yes' : 'no'",
    );
    browser.screenshot("10-review-end-graph");
}

/// Watch two engines play each other.
fn watch(browser: &Browser) {
    // Watch two engines play.
    browser.click("[data-mode=\"watch\"]");
    browser.click("#new-game");
    browser.wait_for(
        "engines playing each other",
        "return document.getElementById('status').textContent.startsWith('watch') && Number(document.getElementById('status').dataset.length) >= 6 ? 'yes' : 'no'",
    );
    browser.screenshot("11-watch");
}

/// Posts a command to the GUI; its status and its answer.
fn post(port: u16, path: &str, request: &Value) -> (u16, Value) {
    let (status, body) = http(port, "POST", path, &request.to_string()).unwrap();
    (status, parse(&body))
}

#[test]
fn bad_input_gets_a_message_and_leaves_the_game_intact() {
    let (_gui, _, port) = start_gui(&[]);
    let (status, body) = post(port, "/api/turn", &json!({ "turn": "home.r1.b3.g3" }));
    assert_eq!(status, 200, "{body}");
    assert_eq!(body, json!({ "ok": true }));
    // The engine answers the setup.
    let before = state_when(port, "the engine's setup", |state| {
        state["length"] == 2 && state["yourTurn"] == true
    });
    let hwpn = text_at(&before, "/board/hwpn");
    // The game saved as an SDG record replays under the rules.
    let (status, record) = http(port, "GET", "/api/record", "").unwrap();
    assert_eq!(status, 200, "{record}");
    let path = std::env::temp_dir().join(format!("supernova-gui-test-{}.sdg", std::process::id()));
    std::fs::write(&path, &record).unwrap();
    let replay = Command::new(env!("CARGO_BIN_EXE_supernova"))
        .args(["replay", path.to_str().unwrap()])
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&path);
    let replayed = String::from_utf8_lossy(&replay.stdout);
    assert!(
        replayed.contains("1 legal, 0 illegal"),
        "{record}\n{replayed}"
    );
    refusals_are_explained(port);
    malformed_requests_change_nothing(port);
    other_pages_and_broken_uploads_change_nothing(port);
    let after = state_when(port, "the same game", |_| true);
    assert_eq!(text_at(&after, "/board/hwpn"), hwpn);
    assert_eq!(after["length"], 2, "{after}");
}

/// What the game refuses is explained, and told to the person.
fn refusals_are_explained(port: u16) {
    for (path, request, expected) in [
        (
            "/api/turn",
            json!({ "turn": "build.r3.Home0" }),
            "cannot be played",
        ),
        (
            "/api/turn",
            json!({ "turn": "fly me to the moon" }),
            "cannot be played",
        ),
        ("/api/turn", json!({ "turn": "" }), "expected a turn"),
        (
            "/api/choices",
            json!({ "actions": ["move.g9.Home0.Home1"] }),
            "action 1",
        ),
        (
            "/api/position",
            json!({ "position": "r1b3:g3:/y2b1 7" }),
            "bad position",
        ),
        (
            "/api/load",
            json!({ "record": "this is not a record" }),
            "expected",
        ),
        ("/api/scan", json!({ "nodes": 0 }), "expected nodes"),
        ("/api/new", json!({ "side": 2 }), "expected side"),
        (
            "/api/new",
            json!({ "timeControl": { "movetime": 0 } }),
            "expected a movetime",
        ),
    ] {
        let (status, answer) = post(port, path, &request);
        assert_eq!(status, 400, "{path} {request}: {answer}");
        let message = text_at(&answer, "/error");
        assert!(message.contains(expected), "{path} {request}: {message}");
    }
}

/// A request that is not the command's JSON object changes nothing at all,
/// not even the message: the state's version stays.
fn malformed_requests_change_nothing(port: u16) {
    let version = state_when(port, "the state", |_| true)["version"].clone();
    for (path, body, expected) in [
        ("/api/turn", "build.g1.Home0", "bad request"),
        ("/api/turn", "{\"turn\": ", "EOF while parsing"),
        ("/api/turn", "{}", "missing field `turn`"),
        ("/api/turn", "{\"turn\": 7}", "invalid type"),
        ("/api/goto", "", "missing field `ply`"),
        ("/api/goto", "{\"ply\": -1}", "invalid value"),
        (
            "/api/mode",
            "{\"mode\": \"sleep\"}",
            "unknown variant `sleep`",
        ),
        ("/api/undo", "{\"turns\": 2}", "unknown field `turns`"),
        (
            "/api/new",
            "{\"timeControl\": {\"hours\": 1}}",
            "unknown variant `hours`",
        ),
        ("/api/choices", "\"build.g1.Home0\"", "invalid type"),
        ("/api/nonsense", "", "no such command"),
    ] {
        let (status, answer) = http(port, "POST", path, body).unwrap();
        assert_eq!(status, 400, "{path} {body}: {answer}");
        let message = text_at(&parse(&answer), "/error");
        assert!(message.contains(expected), "{path} {body}: {message}");
    }
    let unchanged = state_when(port, "the same state", |_| true);
    assert_eq!(unchanged["version"], version, "{unchanged}");
}

/// Another site's page, a huge upload and a dropped connection change
/// nothing.
fn other_pages_and_broken_uploads_change_nothing(port: u16) {
    // Another site's page may not change the game.
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "POST /api/new HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nOrigin: http://example.com\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 403"), "{answer}");
    // A huge upload is refused before it is read.
    let huge = "x".repeat(2 << 20);
    let (status, answer) = http(port, "POST", "/api/load", &huge).unwrap();
    assert_eq!(status, 413, "{answer}");
    assert!(
        text_at(&parse(&answer), "/error").contains("larger than"),
        "{answer}"
    );
    // A page that drops its connection mid-request changes nothing.
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    write!(
        stream,
        "POST /api/turn HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{{\"turn\": \"build"
    )
    .unwrap();
    drop(stream);
}

#[test]
fn an_engine_that_dies_pauses_the_game_with_a_message() {
    // `true` starts, reads nothing and exits at once: a crash on the first turn.
    let Some(crasher) = on_path("true") else {
        eprintln!("skipping: no `true` program on PATH");
        return;
    };
    let crasher = crasher.display().to_string();
    let (_gui, _, port) = start_gui(&["--engine", &crasher]);
    let (status, body) = post(port, "/api/turn", &json!({ "turn": "home.r1.b3.g3" }));
    assert_eq!(status, 200, "{body}");
    let state = state_when(port, "the crash report", |state| state["paused"] == true);
    let message = text_at(&state, "/message");
    assert!(message.contains("engine 1"), "{message}");
    assert!(message.contains("the game is kept"), "{message}");
    assert_eq!(state["length"], 1, "{state}");
    assert_eq!(state["messageIsError"], true, "{state}");
    // Resuming restarts the engine, which dies again: still a message, no panic.
    let (status, _) = post(port, "/api/resume", &json!({}));
    assert_eq!(status, 200);
    state_when(port, "the second crash", |state| state["paused"] == true);
    let (status, _) = http(port, "GET", "/", "").unwrap();
    assert_eq!(status, 200);
}
