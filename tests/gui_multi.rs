//! The GUI's multi-player page (`/multi`) end to end: `supernova gui` with
//! engines driven through the protocol's multi-player extension.
//!
//! - Bad input (seat counts of 7 and 2, an unknown seat, bad JSON, a
//!   malformed or illegal turn, a two-player or broken record) is refused
//!   with a clear error and the table is left as it was.
//! - Good vs Evil with a person: no state the page receives names another
//!   seat's alignment before the rules reveal it (the JSON is read whole),
//!   every engine is told its own alignment only (a logging wrapper records
//!   each engine's input), the record is refused until the game is over,
//!   and the saved record replays through `supernova replay`.
//! - In headless Chromium: a 4-player game, one person and three
//!   node-limited engines, the person creating a home and playing a build
//!   by clicking, the engines answering; Good vs Evil from the person's
//!   seat; a watched Sinister game of six engines, saved and replayed through
//!   the binary; a record from ../shared/sdg-multi reviewed turn by turn.
//!   Screenshots go to target/gui-screenshots/multi-*.png.
//! - A person builds turns by clicking on the board (a build, a trade and
//!   a discovery), in a 4-player game against three engines.
//! - An engine that stops answering (alive but silent past its time) or
//!   whose process dies in the middle of a game is dropped: its seat
//!   resigns with the reason shown, and the others, the person among them,
//!   play on.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

mod gui_support;

use gui_support::browser::{browser_tools, start_browser, Browser};
use gui_support::{http, parse, start_gui, Guard};

/// The table now.
fn table(port: u16) -> Value {
    let (status, body) = http(port, "GET", "/api/multi/state?since=0", "").expect("the state");
    assert_eq!(status, 200, "{body}");
    parse(&body)
}

/// The table once `accept` holds, within `limit`; every body seen on the
/// way is handed to `seen`.
fn table_when(
    port: u16,
    what: &str,
    limit: Duration,
    mut seen: impl FnMut(&str),
    accept: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + limit;
    loop {
        let (status, body) = http(port, "GET", "/api/multi/state?since=0", "").unwrap();
        assert_eq!(status, 200);
        seen(&body);
        let state = parse(&body);
        if accept(&state) {
            return state;
        }
        assert!(
            Instant::now() < deadline,
            "timed out waiting for {what}: {body}"
        );
        std::thread::sleep(Duration::from_millis(30));
    }
}

/// A `POST` to the multi-player API: the status and the reply.
fn post(port: u16, path: &str, body: &str) -> (u16, Value) {
    let (status, reply) = http(port, "POST", path, body).expect("the GUI answers");
    (status, parse(&reply))
}

/// What a refused command must leave as it was.
fn essentials(state: &Value) -> Value {
    json!([
        state["seats"],
        state["systems"],
        state["turns"],
        state["toMove"],
        state["position"],
        state["mode"],
        state["victory"]
    ])
}

/// Replays a saved record through the binary; its verdict line.
fn replays(record: &str, name: &str) -> String {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gui-multi");
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join(name);
    std::fs::write(&path, record).unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_supernova"))
        .arg("replay")
        .arg(&path)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(output.status.success(), "replay failed: {text}");
    assert!(
        text.contains("1 legal, 0 illegal"),
        "the saved record does not replay: {text}\n{record}"
    );
    text
}

#[test]
fn bad_input_is_refused_and_changes_nothing() {
    let (_gui, _, port) = start_gui(&[]);
    let (status, reply) = post(
        port,
        "/api/multi/new",
        r#"{"seats": ["person", "engine1", "engine1"], "nodes": 100}"#,
    );
    assert_eq!(status, 200, "{reply}");
    let before = table_when(
        port,
        "the person's setup turn",
        Duration::from_secs(30),
        |_| {},
        |state| state["yourTurn"] == true,
    );
    assert_eq!(before["players"], 3);
    let refusals = [
        (
            "/api/multi/new",
            r#"{"seats": ["person","engine1","engine1","engine1","engine1","engine1","engine1"]}"#,
            "3 to 6 seats, not 7",
        ),
        (
            "/api/multi/new",
            r#"{"seats": ["person","engine1"]}"#,
            "3 to 6 seats, not 2",
        ),
        (
            "/api/multi/new",
            r#"{"seats": ["person","robot","engine1"]}"#,
            "unknown seat",
        ),
        (
            "/api/multi/new",
            r#"{"seats": ["person","engine1","engine1"], "victory": "chaos"}"#,
            "unknown victory",
        ),
        (
            "/api/multi/new",
            r#"{"seats": ["person","engine1","engine1"], "nodes": 5, "movetime": 5}"#,
            "not both",
        ),
        (
            "/api/multi/new",
            r#"{"seats": ["person","person","engine1"], "victory": "good-evil"}"#,
            "at most one person",
        ),
        ("/api/multi/new", r#"{"seats": "#, "bad request"),
        ("/api/multi/turn", r#"{"turn": "build.q9.Nowhere"}"#, "q9"),
        (
            "/api/multi/turn",
            r#"{"turn": "build.g1.Home0"}"#,
            "action 1",
        ),
        ("/api/multi/turn", r#"{"turn": 3}"#, "bad request"),
        (
            "/api/multi/load",
            r#"{"record": "not a record at all"}"#,
            "not a record",
        ),
        ("/api/multi/goto", r#"{"ply": -1}"#, "bad request"),
    ];
    for (path, body, expected) in refusals {
        let (status, reply) = post(port, path, body);
        assert_eq!(status, 400, "{path} {body}: {reply}");
        let error = reply["error"].as_str().unwrap_or_default();
        assert!(error.contains(expected), "{path} {body}: {error}");
        assert_eq!(
            essentials(&table(port)),
            essentials(&before),
            "{path} {body}"
        );
    }
    // A two-player record belongs to the main page's Review.
    let two_player = "Homeworlds Online (SDG# 1)\nStarted: 2005.10.17, Ended: 2005.10.25\nParticipants: alice (N), bob (S)\nWinner: bob\n\n1) alice: Homeworld B1 G2 Y3\n\n2) bob: Homeworld B3 Y1 G3\n";
    let (status, reply) = post(
        port,
        "/api/multi/load",
        &json!({ "record": two_player }).to_string(),
    );
    assert_eq!(status, 400);
    assert!(
        reply["error"]
            .as_str()
            .unwrap()
            .contains("a record of 2 players"),
        "{reply}"
    );
    assert_eq!(essentials(&table(port)), essentials(&before));
    // An engine's turn is not the person's to play.
    let (status, _) = post(port, "/api/multi/turn", r#"{"turn": "home.r1.b2.g3"}"#);
    assert_eq!(status, 200);
    // Whether an engine is to move or the person again, a second home is
    // refused.
    let (status, reply) = post(port, "/api/multi/turn", r#"{"turn": "home.r1.b2.g3"}"#);
    assert_eq!(status, 400, "{reply}");
}

/// A wrapper engine that logs its input to `directory`, then runs this
/// program's engine.
fn logging_engine(directory: &Path) -> PathBuf {
    std::fs::create_dir_all(directory).unwrap();
    let script = directory.join("engine.sh");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ntee -a \"{}/input-$$.log\" | exec \"{}\" engine\n",
            directory.display(),
            env!("CARGO_BIN_EXE_supernova")
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&script, permissions).unwrap();
    script
}

/// The alignment fields and the board text's `evil=` seats of a state.
fn revealed(state: &Value) -> (Vec<Option<String>>, String) {
    let alignments = state["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat["alignment"].as_str().map(str::to_string))
        .collect();
    let evil = state["position"]
        .as_str()
        .unwrap()
        .split(' ')
        .find_map(|word| word.strip_prefix("evil="))
        .unwrap_or_default()
        .to_string();
    (alignments, evil)
}

#[test]
fn good_versus_evil_keeps_the_others_alignments_secret() {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gui-multi-logs");
    let _ = std::fs::remove_dir_all(&directory);
    let script = logging_engine(&directory);
    let (_gui, _, port) = start_gui(&["--engine", script.to_str().unwrap()]);
    let (status, reply) = post(
        port,
        "/api/multi/new",
        r#"{"seats": ["person", "engine1", "engine1", "engine1"], "victory": "good-evil", "nodes": 60, "seed": 7}"#,
    );
    assert_eq!(status, 200, "{reply}");
    let mut bodies: Vec<String> = Vec::new();
    table_when(
        port,
        "the person's turn",
        Duration::from_secs(30),
        |_| {},
        |state| state["yourTurn"] == true,
    );
    let (status, _) = post(port, "/api/multi/turn", r#"{"turn": "home.r1.b2.g3"}"#);
    assert_eq!(status, 200);
    let (status, reply) = http(port, "GET", "/api/multi/record", "").unwrap();
    assert_eq!(status, 409, "the record names the Evil seats: {reply}");
    table_when(
        port,
        "the person's second turn",
        Duration::from_secs(60),
        |body| bodies.push(body.to_string()),
        |state| state["yourTurn"] == true,
    );
    let (status, _) = post(port, "/api/multi/resign", "{}");
    assert_eq!(status, 200);
    let end = table_when(
        port,
        "the end of the game",
        Duration::from_secs(240),
        |body| bodies.push(body.to_string()),
        |state| !state["result"].is_null(),
    );
    // At the end every alignment is shown, and two of four seats are Evil.
    let (alignments, _) = revealed(&end);
    let truth: Vec<String> = alignments
        .into_iter()
        .map(|a| a.expect("revealed at the end"))
        .collect();
    assert_eq!(
        truth.iter().filter(|a| *a == "evil").count(),
        2,
        "{truth:?}"
    );
    // Before that, the page knew only its own seat and the seats out.
    let mut checked = 0;
    for body in &bodies {
        let state = parse(body);
        if !state["result"].is_null() {
            continue;
        }
        let (alignments, evil) = revealed(&state);
        for (seat, alignment) in alignments.iter().enumerate() {
            let out = state["seats"][seat]["inGame"] == false;
            if seat == 0 || out {
                assert_eq!(alignment.as_deref(), Some(truth[seat].as_str()), "{body}");
            } else {
                assert_eq!(*alignment, None, "seat {seat} revealed in {body}");
            }
            let named = evil.contains(char::from(b'0' + seat as u8));
            assert!(
                !named || (out && truth[seat] == "evil"),
                "evil={evil} in {body}"
            );
        }
        let hidden: Vec<usize> = (1..4)
            .filter(|&seat| state["seats"][seat]["inGame"] == true)
            .collect();
        assert_eq!(
            body.matches("\"alignment\":\"").count(),
            4 - hidden.len(),
            "{body}"
        );
        checked += 1;
    }
    assert!(checked > 3, "too few states seen: {checked}");
    // Each engine was told its own alignment and nobody else's.
    let mut logs = 0;
    for entry in std::fs::read_dir(&directory).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|extension| extension != "log") {
            continue;
        }
        let log = std::fs::read_to_string(&path).unwrap();
        let told: Vec<&str> = log
            .lines()
            .filter_map(|line| line.strip_prefix("setoption name Alignment value "))
            .collect();
        let seed: u64 = log
            .lines()
            .find_map(|line| line.strip_prefix("setoption name Seed value "))
            .and_then(|value| value.parse().ok())
            .expect("a seed per seat");
        let seat = (seed - 1) as usize % 8;
        assert_eq!(told, vec![truth[seat].as_str()], "{}", path.display());
        for line in log.lines().filter(|line| line.starts_with("position pos")) {
            if let Some(field) = line.split(' ').find_map(|word| word.strip_prefix("evil=")) {
                for digit in field.chars() {
                    let other = digit.to_digit(10).unwrap() as usize;
                    assert_eq!(truth[other], "evil", "{line}");
                    assert_eq!(end["seats"][other]["inGame"], false, "{line}");
                }
            }
        }
        logs += 1;
    }
    assert_eq!(logs, 3, "one log per engine seat");
    // The finished game's record replays, its Evil seats named.
    let (status, record) = http(port, "GET", "/api/multi/record", "").unwrap();
    assert_eq!(status, 200, "{record}");
    assert!(record.contains("Good vs Evil"), "{record}");
    replays(&record, "good-evil.sdg");
}

/// Waits for the page's status to include `text`.
fn status_includes(browser: &Browser, what: &str, text: &str) {
    browser.wait_for(
        what,
        &format!("return document.getElementById('status').textContent.includes('{text}') ? 'yes' : 'no'"),
    );
}

/// The number of turns the page shows.
fn page_turns(browser: &Browser) -> usize {
    browser.status_number("turns")
}

/// A GUI and a headless Chromium on its multi-player page (the guards,
/// the browser and the GUI's port); `None` without Chromium.
fn open_page() -> Option<(Guard, Guard, Browser, u16)> {
    let (chromium, chromedriver) = browser_tools()?;
    let (gui, address, port) = start_gui(&[]);
    let (driver, browser) = start_browser(&chromium, &chromedriver);
    browser.open(&format!("{address}multi"));
    status_includes(&browser, "the page", "no game yet");
    Some((gui, driver, browser, port))
}

/// Starts a game with the seats and limit set on the page and waits for
/// the person's setup turn to be offered.
fn start_a_new_game(browser: &Browser) {
    browser.click("#new-game");
    status_includes(browser, "the person's setup turn", "your turn");
    browser.wait_for(
        "the setup's choices",
        "return document.getElementById('choices').dataset.turn == '0' ? 'yes' : 'no'",
    );
}

/// Starts a game with the seats and limit set on the page, creates the
/// person's home (R1 B2, a G3) in the first seat, and waits for the
/// engines' homes and the person's next choices.
fn new_game_with_a_home(browser: &Browser) {
    start_a_new_game(browser);
    browser.script(
        "document.getElementById('home-star1').value = 'r1'; document.getElementById('home-star2').value = 'b2'; document.getElementById('home-ship').value = 'g3'; return 'set'",
    );
    browser.click("#create-home");
    your_turn_after(browser, 4);
    browser.wait_for(
        "the choices after the homes",
        "return document.getElementById('choices').dataset.turn == '4' ? 'yes' : 'no'",
    );
}

/// As [`new_game_with_a_home`], the home made by clicks in the bank: its
/// two stars (the second, then the first: either order), then its ship.
/// The setup turn lists no buttons, and ends with the home.
fn new_game_with_a_clicked_home(browser: &Browser) {
    start_a_new_game(browser);
    assert_eq!(
        browser.script("return String(document.querySelectorAll('#choices button').length)"),
        "0"
    );
    browser.click_choosable("bank:b2");
    browser.click_choosable("bank:r1");
    browser.screenshot("multi-06b-clicking-a-home");
    assert_eq!(
        browser.script("return document.getElementById('pending').textContent"),
        " [bank:b2 → bank:r1]"
    );
    browser.click_choosable("bank:g3");
    your_turn_after(browser, 4);
    browser.wait_for(
        "the choices after the homes",
        "return document.getElementById('choices').dataset.turn == '4' ? 'yes' : 'no'",
    );
}

#[test]
fn four_players_good_evil_watch_and_review_in_a_browser() {
    let Some((_gui, _driver, browser, port)) = open_page() else {
        return;
    };

    // Four seats: the person at N, three engines.
    browser.script("document.getElementById('nodes').value = '200'; return 'set'");
    new_game_with_a_home(&browser);
    assert_eq!(table(port)["systems"][0]["stars"], json!(["r1", "b2"]));
    browser.screenshot("multi-01-four-homes");

    // A malformed turn is explained and changes nothing.
    browser.type_into("#turn-text", "build q9 Nowhere");
    browser.click("#play-typed");
    browser.wait_for(
        "the error",
        "return document.getElementById('message').classList.contains('error') ? 'yes' : 'no'",
    );
    assert_eq!(page_turns(&browser), 4);

    // A build by clicking, then the engines answer.
    browser.wait_for(
        "a build to click",
        "return [...document.querySelectorAll('#choices button')].some(b => b.textContent.startsWith('Build')) ? 'yes' : 'no'",
    );
    browser.script("[...document.querySelectorAll('#choices button')].find(b => b.textContent.startsWith('Build')).click(); return 'ok'");
    browser.wait_for(
        "the end of the turn to be offered",
        "return !document.getElementById('end-turn').disabled ? 'yes' : 'no'",
    );
    browser.click("#end-turn");
    browser.wait_for(
        "the engines' answers",
        "return Number(document.getElementById('status').dataset.turns) == 8 && document.getElementById('status').textContent.includes('your turn') ? 'yes' : 'no'",
    );
    let state = table(port);
    assert!(
        state["turns"][4]["text"]
            .as_str()
            .unwrap()
            .starts_with("Build"),
        "{}",
        state["turns"]
    );
    assert_eq!(state["seats"].as_array().unwrap().len(), 4);
    browser.screenshot("multi-02-four-players");

    // Good vs Evil from the person's seat: only the person's alignment.
    browser.script("document.getElementById('victory').value = 'good-evil'; return 'set'");
    browser.click("#new-game");
    browser.wait_for(
        "the Good vs Evil game",
        "return document.getElementById('message').textContent.includes('Good vs Evil') && document.getElementById('status').textContent.includes('your turn') ? 'yes' : 'no'",
    );
    browser.wait_for(
        "the person's alignment",
        "const badges = document.querySelectorAll('#seats [data-alignment]'); return badges.length == 1 && badges[0].closest('li').dataset.seat == '0' ? 'yes' : 'no'",
    );
    browser.wait_for(
        "the choices of the new game",
        "return document.getElementById('choices').dataset.turn == '0' ? 'yes' : 'no'",
    );
    browser.script(
        "document.getElementById('home-star1').value = 'y1'; document.getElementById('home-star2').value = 'b3'; document.getElementById('home-ship').value = 'g3'; return 'set'",
    );
    browser.click("#create-home");
    browser.wait_for(
        "the engines' homes",
        "return Number(document.getElementById('status').dataset.turns) == 4 ? 'yes' : 'no'",
    );
    let state = table(port);
    let told = state["seats"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|seat| !seat["alignment"].is_null())
        .count();
    assert_eq!(told, 1, "{}", state["seats"]);
    browser.screenshot("multi-03-good-evil");

    // Six engines play a Sinister game to its end.
    browser.script("const s = document.getElementById('seat-count'); s.value = '6'; s.dispatchEvent(new Event('change')); document.getElementById('victory').value = 'sinister'; document.getElementById('nodes').value = '100'; return 'set'");
    browser.click("#watch");
    let state = table_when(
        port,
        "the watched game",
        Duration::from_secs(30),
        |_| {},
        |state| {
            state["players"] == 6
                && state["victory"] == "sinister"
                && state["turns"].as_array().unwrap().len() >= 6
        },
    );
    let targets: Vec<Value> = state["seats"]
        .as_array()
        .unwrap()
        .iter()
        .map(|seat| seat["target"].clone())
        .collect();
    let next: Vec<Value> = (0..6).map(|seat| json!((seat + 1) % 6)).collect();
    assert_eq!(targets, next, "each player's target is the next");
    browser.wait_for(
        "forty turns on the page",
        "return Number(document.getElementById('status').dataset.turns) >= 40 ? 'yes' : 'no'",
    );
    browser.screenshot("multi-04-six-engines");
    let (status, record) = http(port, "GET", "/api/multi/record", "").unwrap();
    assert_eq!(status, 200, "{record}");
    assert!(record.contains("Sinister"), "{record}");
    replays(&record, "six-engines.sdg");

    // Three engines play a Sinister game to its end (or the turn limit).
    browser.script("const s = document.getElementById('seat-count'); s.value = '3'; s.dispatchEvent(new Event('change')); document.getElementById('victory').value = 'sinister'; return 'set'");
    browser.click("#watch");
    let end = table_when(
        port,
        "the end of the watched game",
        Duration::from_secs(300),
        |_| {},
        |state| state["players"] == 3 && !state["result"].is_null(),
    );
    status_includes(&browser, "the result", "game over");
    browser.screenshot("multi-05-watched-end");
    let (status, record) = http(port, "GET", "/api/multi/record", "").unwrap();
    assert_eq!(status, 200, "{record}");
    let verdict = replays(&record, "watched.sdg");
    if end["result"].as_str().unwrap().ends_with("won") {
        assert!(
            !verdict.contains("unfinished") && record.contains("Winner: "),
            "{verdict}"
        );
    }

    // A record from ../shared/sdg-multi, stepped through.
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/sdg-multi/1044.raw");
    let Ok(path) = path.canonicalize() else {
        eprintln!("skipping the review: ../shared/sdg-multi/1044.raw is missing");
        return;
    };
    browser.upload("#record-file", &path);
    status_includes(&browser, "the record", "review");
    browser.script("document.activeElement.blur(); return 'ok'");
    for _ in 0..3 {
        browser.press('\u{E014}');
    }
    browser.wait_for(
        "three steps",
        "return document.getElementById('status').dataset.shown == 3 ? 'yes' : 'no'",
    );
    let state = table(port);
    assert_eq!(state["mode"], "review");
    assert_eq!(state["seats"][0]["name"], "JunkMan");
    let created = state["systems"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|system| {
            system["home"].is_number() && !system["stars"].as_array().unwrap().is_empty()
        })
        .count();
    assert_eq!(created, 3, "three homes before turn 4");
    browser.click("#last");
    browser.wait_for(
        "the last turn",
        "const s = document.getElementById('status').dataset; return s.shown == s.turns ? 'yes' : 'no'",
    );
    browser.click("#first");
    for _ in 0..20 {
        browser.press('\u{E014}');
    }
    browser.wait_for(
        "turn 20",
        "return document.getElementById('status').dataset.shown == 20 ? 'yes' : 'no'",
    );
    browser.screenshot("multi-06-review");
}

/// Clicks `keys` on the page in turn, each once it glows, then ends the
/// turn; waits for the engines to answer (the person to move again with
/// `turns` turns played).
fn play_by_clicks(browser: &Browser, keys: &[&str], turns: usize) {
    for key in keys {
        browser.click_choosable(key);
    }
    browser.wait_for(
        "the end of the turn to be offered",
        "return !document.getElementById('end-turn').disabled && document.getElementById('pending').textContent != '' ? 'yes' : 'no'",
    );
    browser.click("#end-turn");
    your_turn_after(browser, turns);
}

#[test]
fn a_person_builds_turns_by_clicking_on_the_board() {
    let Some((_gui, _driver, browser, port)) = open_page() else {
        return;
    };
    browser.script("document.getElementById('nodes').value = '100'; return 'set'");
    new_game_with_a_clicked_home(&browser);
    let state = table(port);
    assert_eq!(state["players"], 4);
    let home = state["systems"][0]["name"].as_str().unwrap().to_string();
    assert_eq!(
        state["turns"][0]["text"], "Homeworld R1 B2 G3",
        "{}",
        state["turns"]
    );
    assert_eq!(state["systems"][0]["stars"], json!(["r1", "b2"]));

    // Nothing glows before a click but what starts an action: an engine's
    // ship is no target for a person without a red ship there.
    let glowing = browser.script(
        "return [...document.querySelectorAll('.choosable')].map(e => e.dataset.key).join(' ')",
    );
    assert!(glowing.contains(&format!("ship:{home}:0:g3")), "{glowing}");
    assert!(glowing.contains("bank:g1"), "{glowing}");
    assert!(!glowing.contains(":1:"), "{glowing}");

    // Build: the bank's G1, then the home.
    play_by_clicks(&browser, &["bank:g1", &format!("sys:{home}")], 8);
    let state = table(port);
    assert_eq!(
        state["turns"][4]["text"],
        format!("Build G1 {home}"),
        "{}",
        state["turns"]
    );
    assert_eq!(state["systems"][0]["ships"][0], json!(["g1", "g3"]));

    // Trade: the G1, then a yellow piece of the bank; the screenshot shows
    // the chosen ship and the pieces it may become.
    browser.click_choosable(&format!("ship:{home}:0:g1"));
    browser.wait_for(
        "the trade targets",
        "return document.querySelector('[data-key=\"bank:y1\"].choosable') && document.querySelector('.selected') ? 'yes' : 'no'",
    );
    browser.screenshot("multi-07-clicking-a-trade");
    // Escape drops the half-made action; clicking again chooses it.
    browser.press('\u{E00C}');
    browser.wait_for(
        "the selection dropped",
        "return document.querySelector('.selected') ? 'no' : 'yes'",
    );
    play_by_clicks(&browser, &[&format!("ship:{home}:0:g1"), "bank:y1"], 12);
    let state = table(port);
    assert_eq!(
        state["turns"][8]["text"],
        format!("Trade G1 Y1 {home}"),
        "{}",
        state["turns"]
    );

    // Discover: the Y1, then a size-3 star of the bank (r1 and b2 stand at
    // home, so a size 3 is a system apart).
    browser.click_choosable(&format!("ship:{home}:0:y1"));
    let star = browser.script(
        "const s = [...document.querySelectorAll('#bank .choosable')].map(e => e.dataset.key).find(k => k.endsWith('3')); return s || ''",
    );
    assert!(
        star.starts_with("bank:"),
        "no size-3 star to discover: {star}"
    );
    play_by_clicks(&browser, &[&star], 16);
    let state = table(port);
    let text = state["turns"][12]["text"].as_str().unwrap();
    assert!(
        text.starts_with(&format!("Discover Y1 {home} {}", star[5..].to_uppercase())),
        "{text}"
    );
    let colony = state["systems"]
        .as_array()
        .unwrap()
        .iter()
        .find(|system| system["home"].is_null() && system["ships"][0] == json!(["y1"]));
    assert!(
        colony.is_some(),
        "the discovered system: {}",
        state["systems"]
    );
    browser.screenshot("multi-08-after-clicked-turns");
}

/// A wrapper engine (a shell script in `directory`) that hands its input
/// to this program's engine until its `go`-th `go`, where it does `then`
/// instead: `sleep 20` stops answering while alive, `exit 3` dies.
fn failing_engine(directory: &Path, name: &str, go: usize, then: &str) -> PathBuf {
    std::fs::create_dir_all(directory).unwrap();
    let script = directory.join(name);
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh\ncount=0\nwhile IFS= read -r line; do\n  case \"$line\" in go*) count=$((count+1)); if [ \"$count\" -ge {go} ]; then {then}; fi;; esac\n  printf '%s\\n' \"$line\"\ndone | \"{}\" engine\n",
            env!("CARGO_BIN_EXE_supernova")
        ),
    )
    .unwrap();
    let mut permissions = std::fs::metadata(&script).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut permissions, 0o755);
    std::fs::set_permissions(&script, permissions).unwrap();
    script
}

#[test]
fn an_engine_that_stops_answering_is_dropped_and_the_game_goes_on() {
    let directory = Path::new(env!("CARGO_TARGET_TMPDIR")).join("gui-multi-failing");
    let good = format!("{} engine", env!("CARGO_BIN_EXE_supernova"));
    let silent = failing_engine(&directory, "silent.sh", 2, "sleep 20");
    let (_gui, _, port) = start_gui(&["--engine", &good, "--engine", silent.to_str().unwrap()]);
    let (status, reply) = post(
        port,
        "/api/multi/new",
        r#"{"seats": ["engine1", "engine2", "engine1", "engine1"], "nodes": 50, "margin": 1500, "seed": 3}"#,
    );
    assert_eq!(status, 200, "{reply}");
    let mut messages = Vec::new();
    let dropped = table_when(
        port,
        "the silent engine to be dropped",
        Duration::from_secs(60),
        |body| {
            messages.push(
                parse(body)["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
            )
        },
        |state| !state["seats"][1]["dropped"].is_null(),
    );
    let seat = &dropped["seats"][1];
    assert_eq!(
        seat["dropped"], "stopped answering (no bestmove within 1.5 s)",
        "{seat}"
    );
    assert_eq!(seat["inGame"], false, "{seat}");
    assert_eq!(seat["resigned"], true, "{seat}");
    assert!(
        messages
            .iter()
            .chain([dropped["message"].as_str().unwrap().to_string()].iter())
            .any(|message| message.contains("engine2_E stopped answering")),
        "{messages:?}"
    );
    // It was dropped at its second turn, after its home: four homes and
    // the first player's second turn.
    let turns = dropped["turns"].as_array().unwrap().len();
    assert_eq!(turns, 5, "{}", dropped["turns"]);
    // The others play on without it.
    let later = table_when(
        port,
        "the game to go on",
        Duration::from_secs(60),
        |_| {},
        |state| state["turns"].as_array().unwrap().len() >= turns + 6 || !state["result"].is_null(),
    );
    assert!(
        later["turns"].as_array().unwrap()[turns..]
            .iter()
            .all(|turn| turn["seat"] != 1),
        "{}",
        later["turns"]
    );
    let (status, record) = http(port, "GET", "/api/multi/record", "").unwrap();
    assert_eq!(status, 200, "{record}");
    replays(&record, "silent-engine.sdg");

    // An engine whose process dies in the middle of a game, at a table
    // with a person: the person gets the turn back.
    let dying = failing_engine(&directory, "dying.sh", 2, "exit 3");
    let (_gui, _, port) = start_gui(&["--engine", &good, "--engine", dying.to_str().unwrap()]);
    let (status, reply) = post(
        port,
        "/api/multi/new",
        r#"{"seats": ["person", "engine2", "engine1", "engine1"], "nodes": 50, "seed": 4}"#,
    );
    assert_eq!(status, 200, "{reply}");
    table_when(
        port,
        "the person's setup turn",
        Duration::from_secs(30),
        |_| {},
        |state| state["yourTurn"] == true,
    );
    let (status, reply) = post(port, "/api/multi/turn", r#"{"turn": "home.r1.b2.g3"}"#);
    assert_eq!(status, 200, "{reply}");
    table_when(
        port,
        "the person's second turn",
        Duration::from_secs(30),
        |_| {},
        |state| state["yourTurn"] == true && state["turns"].as_array().unwrap().len() == 4,
    );
    let (status, reply) = post(port, "/api/multi/turn", r#"{"turn": "pass"}"#);
    assert_eq!(status, 200, "{reply}");
    let back = table_when(
        port,
        "the person's third turn",
        Duration::from_secs(30),
        |_| {},
        |state| state["yourTurn"] == true && state["turns"].as_array().unwrap().len() > 4,
    );
    let seat = &back["seats"][1];
    assert!(
        seat["dropped"]
            .as_str()
            .unwrap_or_default()
            .starts_with("stopped answering (exited"),
        "{seat}"
    );
    assert_eq!(seat["inGame"], false, "{seat}");
    assert_eq!(
        back["turns"].as_array().unwrap().len(),
        7,
        "{}",
        back["turns"]
    );
}

/// Waits until `turns` turns are played and the person is to move again.
fn your_turn_after(browser: &Browser, turns: usize) {
    browser.wait_for(
        &format!("the engines' answers to turn {turns}"),
        &format!("return Number(document.getElementById('status').dataset.turns) == {turns} && document.getElementById('status').textContent.includes('your turn') ? 'yes' : 'no'"),
    );
}
