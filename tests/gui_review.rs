//! Review's marks and variations: a reviewed SDG game (608, whose turn 31
//! threw away a win in one that turn 30 had walked into) shows `annotate`'s
//! blunders on the value graph and in the turn list, and selecting a marked
//! turn shows the engine's better turn and its sentence; a variation played
//! at an earlier position is listed apart, stepped through, shortened by
//! undo (which steps out of it after its first turn) and dropped, and the
//! main line is as it was. In headless Chromium (screenshots
//! `review-*.png` in target/gui-screenshots/) and through the HTTP API
//! alone, which also checks the record's handicap turns, that a new load
//! replaces the old review, and a game just played reviewed.
//!
//! Without `chromium` and `chromedriver` on PATH the browser test is
//! skipped with a message, unless CI=true, where it fails; without
//! ../shared/sdg the tests that need its record are skipped.

mod common;
mod gui_support;

use std::path::PathBuf;

use gui_support::browser::{browser_tools, start_browser, Browser};
use gui_support::{post_json as post, start_gui, state_when};
use serde_json::{json, Value};

/// The SDG record with the known blunders, if the shared records are here
/// (skipped visibly without them, an error under CI).
fn record_608() -> Option<PathBuf> {
    let path = common::shared("sdg/608.raw", "gui_review")?;
    Some(path.canonicalize().unwrap())
}

/// A record with a one-turn Timewarp for player 0 and a Brain Transference
/// swap after turn 4, as the GUI saves them.
const HANDICAP_RECORD: &str = include_str!("records/handicaps.sdg");

/// The state once the review of the shown game is done.
fn reviewed(port: u16) -> Value {
    state_when(port, "the review", |state| state["review"]["done"] == true)
}

/// Loads `record` for review (the load must succeed); the state once its
/// review is done.
fn load_and_review(port: u16, record: &str) -> Value {
    let (status, body) = post(port, "/api/load", &json!({ "record": record }));
    assert_eq!(status, 200, "{body}");
    reviewed(port)
}

/// The state once no variation is shown: the game's main line.
fn main_line(port: u16, what: &str) -> Value {
    state_when(port, what, |state| {
        state["review"]["variation"] == Value::Null
    })
}

/// The marks' (record turn number, kind) pairs.
fn marks(state: &Value) -> Vec<(u64, String)> {
    state["review"]["marks"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mark| {
            (
                mark["number"].as_u64().unwrap(),
                mark["kind"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

/// The turns of the state, in SDG form.
fn turns(state: &Value) -> Vec<String> {
    sdg_turns(&state["turns"])
}

/// A list of turns of the state's JSON, in SDG form.
fn sdg_turns(list: &Value) -> Vec<String> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|turn| turn["sdg"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn the_review_marks_the_blunders_and_keeps_the_main_line_under_a_variation() {
    let Some(record) = record_608() else { return };
    let text = std::fs::read_to_string(record).unwrap();
    let (_gui, _, port) = start_gui(&[]);
    let state = load_and_review(port, &text);
    let found = marks(&state);
    // annotate's exact blunders: turn 30 walks into a loss, turn 31 misses
    // the win in one; turn 49 walks into a loss too.
    for blunder in [(30, "allowsLoss"), (31, "missedWin"), (49, "allowsLoss")] {
        assert!(
            found.contains(&(blunder.0, blunder.1.to_string())),
            "{found:?}"
        );
    }
    let missed = &state["review"]["marks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|mark| mark["number"] == 31)
        .unwrap();
    assert_eq!(missed["ply"], 30);
    assert!(missed["explanation"]
        .as_str()
        .unwrap()
        .starts_with("takes the win: Sacrifice Y3 Emerald"));
    assert_eq!(state["review"]["total"], state["length"]);
    assert_eq!(state["review"]["variation"], Value::Null);
    let main = turns(&state);

    // A turn at the board before turn 11 starts a variation there.
    let (status, _) = post(port, "/api/goto", &json!({ "ply": 10 }));
    assert_eq!(status, 200);
    let (status, body) = post(port, "/api/turn", &json!({ "turn": "pass" }));
    assert_eq!(status, 200, "{body}");
    let state = state_when(port, "the variation", |state| {
        state["review"]["variation"] != Value::Null
    });
    assert_eq!(state["length"], 11);
    assert_eq!(state["review"]["variation"]["branch"], 10);
    assert_eq!(sdg_turns(&state["review"]["variation"]["main"]), main);
    // The main line's review is kept: it is not reviewed again.
    assert_eq!(marks(&state), found);
    // An illegal turn changes nothing.
    let (status, _) = post(port, "/api/turn", &json!({ "turn": "build.r9.Nowhere" }));
    assert_eq!(status, 400);
    let after = state_when(port, "the refusal", |state| state["length"] == 11);
    assert_eq!(after["review"]["variation"]["branch"], 10);

    // Dropped, the main line is back as it was, at the branch.
    let (status, _) = post(port, "/api/review/drop", &json!({}));
    assert_eq!(status, 200);
    let state = main_line(port, "the main line");
    assert_eq!(turns(&state), main);
    assert_eq!(state["ply"], 10);
    assert_eq!(marks(&state), found);
    // Nothing to drop now: refused, and nothing changes.
    let (status, _) = post(port, "/api/review/drop", &json!({}));
    assert_eq!(status, 400);
    let (status, _) = post(port, "/api/review/drop", &json!({ "ply": "x" }));
    assert_eq!(status, 400);
    assert_eq!(turns(&state_when(port, "the game", |_| true)), main);
}

#[test]
fn a_record_shows_its_handicap_turns_and_a_new_load_replaces_the_review() {
    let (_gui, _, port) = start_gui(&[]);
    let state = load_and_review(port, HANDICAP_RECORD);
    let events: Vec<(u64, &str)> = state["review"]["events"]
        .as_array()
        .unwrap()
        .iter()
        .map(|event| {
            (
                event["ply"].as_u64().unwrap(),
                event["kind"].as_str().unwrap(),
            )
        })
        .collect();
    assert_eq!(events, [(3, "bonus"), (3, "swap")], "{state}");
    assert_eq!(state["review"]["total"], 5);

    // A game played in Analyse, then reviewed, is reviewed as played.
    let (status, _) = post(port, "/api/new", &json!({ "mode": "analyse" }));
    assert_eq!(status, 200);
    for turn in ["home.r1.b3.g3", "home.y1.b2.g3", "build.g1.Home0"] {
        let (status, body) = post(port, "/api/turn", &json!({ "turn": turn }));
        assert_eq!(status, 200, "{body}");
    }
    let (status, _) = post(port, "/api/mode", &json!({ "mode": "review" }));
    assert_eq!(status, 200);
    let state = reviewed(port);
    assert_eq!(state["review"]["total"], 3, "{state}");
    assert_eq!(state["review"]["analysed"], 3, "{state}");
    assert_eq!(state["review"]["events"], json!([]), "{state}");
    // Outside Review there is no review.
    let (status, _) = post(port, "/api/mode", &json!({ "mode": "analyse" }));
    assert_eq!(status, 200);
    let state = state_when(port, "analyse", |state| state["mode"] == "analyse");
    assert_eq!(state["review"], Value::Null);
}

#[test]
fn the_review_looks_as_hard_as_chosen_among_the_offered_depths() {
    let (_gui, _, port) = start_gui(&[]);
    let state = load_and_review(port, HANDICAP_RECORD);
    assert_eq!(state["review"]["nodes"], 2000, "{state}");
    assert_eq!(
        state["review"]["depths"],
        json!([500, 2000, 10000, 50000]),
        "{state}"
    );
    // A depth not offered is refused, and the review stays as it was.
    for request in [
        json!({ "nodes": 1234 }),
        json!({ "nodes": "deep" }),
        json!({}),
    ] {
        let (status, answer) = post(port, "/api/review/depth", &request);
        assert_eq!(status, 400, "{request}: {answer}");
    }
    let (_, answer) = post(port, "/api/review/depth", &json!({ "nodes": 1234 }));
    assert!(
        answer["error"].as_str().is_some_and(|error| error
            .contains("expected a review depth of 500, 2000, 10000, 50000 nodes a turn, not 1234")),
        "{answer}"
    );
    assert_eq!(reviewed(port)["review"]["nodes"], 2000);
    // A chosen depth reviews the game again at it, and stays for the next
    // game reviewed.
    let (status, body) = post(port, "/api/review/depth", &json!({ "nodes": 500 }));
    assert_eq!(status, 200, "{body}");
    let state = state_when(port, "the review at 500 nodes", |state| {
        state["review"]["nodes"] == 500 && state["review"]["done"] == true
    });
    assert_eq!(state["review"]["analysed"], 5, "{state}");
    assert_eq!(
        state["message"], "the review looks 500 nodes a turn",
        "{state}"
    );
    assert_eq!(
        load_and_review(port, HANDICAP_RECORD)["review"]["nodes"],
        500
    );
}

#[test]
fn the_page_marks_the_blunders_and_plays_and_drops_a_variation() {
    let Some((chromium, chromedriver)) = browser_tools() else {
        return;
    };
    let Some(record) = record_608() else { return };
    let (_gui, address, port) = start_gui(&[]);
    let (_driver, browser) = start_browser(&chromium, &chromedriver);
    browser.open_page(&address);
    browser.upload("#record-file", &record);
    wait_until(&browser, "the review to finish", &[REVIEW_DONE]);
    // The marks on the graph and in the list.
    let kinds = browser.script(
        "return [...document.querySelectorAll('#graph .graph-mark')].map(m => m.dataset.ply + ':' + m.dataset.kind).join(' ')",
    );
    assert!(kinds.contains("29:allowsLoss"), "{kinds}");
    assert!(kinds.contains("30:missedWin"), "{kinds}");
    let item = browser.script(
        "const li = document.querySelector('#moves > li[data-ply=\"30\"]'); return li.className + ' | ' + li.textContent",
    );
    assert!(item.contains("marked mark-missedWin"), "{item}");
    assert!(item.contains("??"), "{item}");

    // Selecting the marked turn shows the better turn and why.
    browser.click("#moves > li[data-ply=\"30\"]");
    wait_until(
        &browser,
        "the mark of turn 31",
        &["document.getElementById('review-mark').textContent.includes('turn 31')"],
    );
    let shown = browser.text_of("review-mark");
    assert!(shown.contains("throws away a win"), "{shown}");
    assert!(
        shown.contains("better: takes the win: Sacrifice Y3 Emerald"),
        "{shown}"
    );
    shot(&browser, "review-01-marks");
    let main = list_text(&browser);

    // A variation at the board before turn 11: two passes.
    browser.click("#moves > li[data-ply=\"9\"]");
    wait_until(&browser, "ply 10", &[&at_ply(10)]);
    for (count, ply) in [(1, 11), (2, 12)] {
        play_pass(
            &browser,
            "the variation's turn",
            &[&variation_turns(count), &at_ply(ply)],
        );
    }
    // The main line is still listed in full, with the variation apart.
    assert_eq!(main_items(&browser), main);
    shot(&browser, "review-02-variation");
    // Stepped back and forth through the variation.
    browser.click("#back");
    wait_until(&browser, "a step back", &[&at_ply(11)]);
    assert_eq!(
        browser.script("return document.querySelector('#variation-turns li.current').textContent"),
        "Aaron: Pass"
    );
    browser.click("#forward");
    wait_until(&browser, "a step forward", &[&at_ply(12)]);
    // Undo inside the variation takes back its last turn only: the main
    // line is still there in full, and the pass is played again.
    browser.click("#undo");
    wait_until(
        &browser,
        "the variation's last turn taken back",
        &[&variation_turns(1), &at_ply(11)],
    );
    assert_eq!(main_items(&browser), main);
    let state = state_when(port, "the shorter variation", |state| state["length"] == 11);
    assert_eq!(
        state["review"]["variation"]["main"]
            .as_array()
            .unwrap()
            .len(),
        main.len(),
        "{state}"
    );
    shot(&browser, "review-02b-variation-undone");
    play_pass(
        &browser,
        "the variation's turn again",
        &[&variation_turns(2), &at_ply(12)],
    );

    // Dropped: the main line, whole, at the branch.
    browser.click("#drop-variation");
    wait_until(&browser, "the main line", &[NO_VARIATION, &at_ply(10)]);
    assert_eq!(list_text(&browser), main);
    let state = main_line(port, "the main line");
    assert_eq!(state["length"].as_u64().unwrap() as usize, main.len());
    shot(&browser, "review-03-dropped");

    // Undo of a variation's only turn steps out of it, back to the game at
    // the branch.
    play_pass(&browser, "a variation of one turn", &[&variation_turns(1)]);
    browser.click("#undo");
    wait_until(&browser, "the game again", &[NO_VARIATION, &at_ply(10)]);
    assert_eq!(list_text(&browser), main);
    let state = main_line(port, "the game again");
    assert_eq!(state["length"].as_u64().unwrap() as usize, main.len());

    // The review's depth, chosen on the page.
    assert_eq!(
        browser.script("return [...document.getElementById('review-nodes').options].map(o => o.value).join() + ' ' + document.getElementById('review-nodes').value"),
        "500,2000,10000,50000 2000"
    );
    browser.script(
        "const nodes = document.getElementById('review-nodes'); nodes.value = '500'; nodes.dispatchEvent(new Event('change')); return 'set'",
    );
    state_when(port, "the review at 500 nodes", |state| {
        state["review"]["nodes"] == 500
    });
    wait_until(
        &browser,
        "the review done at 500 nodes",
        &[
            REVIEW_DONE,
            "document.getElementById('review-status').textContent.includes('(500 nodes a turn)')",
        ],
    );
    shot(&browser, "review-04-depth");
}

/// The page's condition that the review is done (its status box says so).
const REVIEW_DONE: &str = "document.getElementById('review-status')?.dataset.done === 'true'";

/// The page's condition that no variation is shown.
const NO_VARIATION: &str = "!document.getElementById('variation')";

/// The page's condition that the board shows the position at `ply`.
fn at_ply(ply: u64) -> String {
    format!("document.getElementById('status').dataset.ply == {ply}")
}

/// The page's condition that the variation lists `count` turns.
fn variation_turns(count: usize) -> String {
    format!("document.querySelectorAll('#variation-turns li').length === {count}")
}

/// Waits until every one of the page's `conditions` (JavaScript
/// expressions) holds; fails with `what` otherwise.
fn wait_until(browser: &Browser, what: &str, conditions: &[&str]) {
    browser.wait_for(
        what,
        &format!("return {} ? 'yes' : 'no'", conditions.join(" && ")),
    );
}

/// Types a pass and plays it, as a person does, and waits until the
/// page's `conditions` hold.
fn play_pass(browser: &Browser, what: &str, conditions: &[&str]) {
    browser.type_into("#turn-text", "Pass");
    browser.click("#play-typed");
    wait_until(browser, what, conditions);
}

/// The texts of the turn list's items matching `selector`, without the
/// marks' signs.
fn item_texts(browser: &Browser, selector: &str) -> Vec<String> {
    let joined = browser.script(&format!(
        "return [...document.querySelectorAll('{selector}')].map(li => li.firstChild.textContent).join('\\n')"
    ));
    joined.lines().map(str::to_string).collect()
}

/// The turn list's items, without the marks' signs.
fn list_text(browser: &Browser) -> Vec<String> {
    item_texts(browser, "#moves > li")
}

/// The main line's items while a variation is shown.
fn main_items(browser: &Browser) -> Vec<String> {
    item_texts(browser, "#moves > li[data-ply]")
}

/// A screenshot of the page with the turns panel in view.
fn shot(browser: &Browser, name: &str) {
    browser.script("document.getElementById('moves-panel').scrollIntoView(); return 'scrolled'");
    browser.screenshot(name);
}
