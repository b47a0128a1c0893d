//! The GUI's Puzzles page end to end in headless Chromium (the WebDriver
//! helpers of gui_support::browser): the first win-in-one puzzle, from an
//! SDG game, is answered with the Pass button (judged, not played: it does
//! not win) and then solved by clicking its winning actions in the legal
//! actions list and ending the turn; a material puzzle is failed with the
//! turn the engine once played, and the page shows the reply that takes
//! the material; progress survives a reload (local storage). Screenshots go
//! to target/gui-screenshots/.
//!
//! Without `chromium` and `chromedriver` on PATH the test is skipped with a
//! message, unless CI=true, where it fails.

mod gui_support;

use gui_support::browser::{browser_tools, start_browser, Browser};
use gui_support::start_gui;
use supernova::notation::hwpn;
use supernova::notation::turn::{format_turn, Style};
use supernova::rules::Rules;
use supernova::search::Solver;

/// The first lines of the win-in-one and one-turn-shots suites.
const WIN_IN_ONE: &str = include_str!("../positions/tactics/win_in_1.txt");
const SHOTS: &str = include_str!("../positions/tactics/one_turn_shots.txt");

/// The first position line of a suite: (HWPN, comment).
fn first_line(suite: &str) -> (&str, &str) {
    let line = suite
        .lines()
        .find(|line| !line.trim().is_empty() && !line.starts_with('#'))
        .unwrap();
    let (body, comment) = line.split_once('#').unwrap();
    (body.trim(), comment)
}

/// Waits until the board shows `position` (the HWPN box follows it).
fn wait_for_position(browser: &Browser, position: &str) {
    browser.wait_for(
        "the puzzle's position",
        &format!(
            "return document.getElementById('hwpn').value === {} && document.querySelector('#choices button') ? 'yes' : 'no'",
            serde_json::to_string(position).unwrap()
        ),
    );
}

/// A screenshot of the page from its top, where the board and the puzzle
/// panel are.
fn shot(browser: &Browser, name: &str) {
    browser.script("window.scrollTo(0, 0); return 'scrolled'");
    browser.screenshot(name);
}

/// The text of an element.
fn text(browser: &Browser, id: &str) -> String {
    browser.script(&format!(
        "return document.getElementById('{id}').textContent"
    ))
}

#[test]
fn a_puzzle_is_solved_by_clicking_and_another_failed_with_its_refutation() {
    let Some((chromium, chromedriver)) = browser_tools() else {
        return;
    };
    let (_gui, address, _port) = start_gui(&[]);
    let (_driver, browser) = start_browser(&chromium, &chromedriver);
    browser.open(&address);
    browser.script("localStorage.clear(); return 'cleared'");
    browser.open(&address);
    browser.wait_for(
        "the first state",
        "return document.getElementById('status').textContent ? 'yes' : 'no'",
    );
    browser.click("#puzzles-mode");
    let (position, _) = first_line(WIN_IN_ONE);
    wait_for_position(&browser, position);
    assert!(text(&browser, "puzzle-goal").contains("win this turn"));
    assert_eq!(
        browser.script("return [...document.querySelectorAll('#modes button.active')].map(b => b.textContent).join()"),
        "Puzzles"
    );
    // The engine's analysis, which would give the answer away, is off.
    assert_eq!(
        browser.script("return document.getElementById('analyse').checked ? 'on' : 'off'"),
        "off"
    );
    assert_eq!(
        text(&browser, "puzzle-source"),
        "From SDG game 608, turn 50"
    );
    shot(&browser, "puzzle-shown");

    // The Pass button answers the puzzle with a pass, judged like any
    // other turn and not played: here it does not win.
    browser.wait_for(
        "the Pass button",
        "return document.getElementById('pass-turn').disabled ? 'no' : 'yes'",
    );
    browser.click("#pass-turn");
    browser.wait_for(
        "the pass's verdict",
        "return document.getElementById('puzzle-verdict').className === 'failed' ? 'yes' : 'no'",
    );
    assert_eq!(
        text(&browser, "puzzle-verdict"),
        "Not quite: Pass does not win this turn"
    );
    assert_eq!(text(&browser, "puzzle-mark"), "you failed this one");
    wait_for_position(&browser, position);
    shot(&browser, "puzzle-passed");

    // The winning turn, clicked action by action in the legal actions list.
    let board = hwpn::parse(position).unwrap();
    let rules = Rules::STANDARD;
    let win = Solver::default().find_win(&board.position, &rules).unwrap();
    let tokens = format_turn(&board, &rules, &win, Style::Token);
    for token in tokens.split(',') {
        let selector = format!("#choices button[data-token=\"{token}\"]");
        browser.wait_for(
            &format!("{token} to be offered"),
            &format!("return document.querySelector('{selector}') ? 'yes' : 'no'"),
        );
        browser.click(&selector);
        // A turn with nothing left to do ends by itself, and is judged.
        browser.wait_for(
            &format!("{token} to be taken"),
            &format!("return document.getElementById('selection').textContent.includes('{token}') || document.getElementById('puzzle-verdict').className ? 'yes' : 'no'"),
        );
    }
    let ended = browser.script(
        "if (document.getElementById('puzzle-verdict').className) return 'by itself'; document.getElementById('end-turn').click(); return 'clicked'",
    );
    assert!(!ended.is_empty());
    browser.wait_for(
        "the verdict",
        "return document.getElementById('puzzle-verdict').className === 'solved' ? 'yes' : 'no'",
    );
    assert!(text(&browser, "puzzle-verdict").contains("wins the game"));
    assert_eq!(text(&browser, "puzzle-mark"), "you solved this one");
    // The answer was judged, not played: the board still shows the puzzle.
    wait_for_position(&browser, position);
    shot(&browser, "puzzle-solved");

    // A material puzzle, failed with the turn the engine played in its game.
    browser.script(
        "const kind = document.getElementById('puzzle-kind'); kind.value = 'material'; kind.dispatchEvent(new Event('change')); return 'set'",
    );
    let (position, comment) = first_line(SHOTS);
    wait_for_position(&browser, position);
    assert!(text(&browser, "puzzle-goal").contains("does not lose material"));
    let played = comment
        .split_once("played ")
        .and_then(|(_, rest)| rest.split_whitespace().next())
        .unwrap();
    browser.type_into("#turn-text", played);
    browser.click("#play-typed");
    browser.wait_for(
        "the verdict",
        "return document.getElementById('puzzle-verdict').className === 'failed' ? 'yes' : 'no'",
    );
    assert!(
        text(&browser, "puzzle-verdict").contains("one reply takes 8.5"),
        "{}",
        text(&browser, "puzzle-verdict")
    );
    let refutation = text(&browser, "puzzle-refutation");
    assert!(refutation.starts_with("Refutation: "), "{refutation}");
    assert!(refutation.contains("Sacrifice"), "{refutation}");
    shot(&browser, "puzzle-failed");

    // Progress is kept in the browser: after a reload the failed mark and
    // the solved count are still there.
    browser.open(&address);
    browser.wait_for(
        "the first state",
        "return document.getElementById('status').textContent ? 'yes' : 'no'",
    );
    browser.click("#puzzles-mode");
    wait_for_position(&browser, position);
    assert_eq!(text(&browser, "puzzle-mark"), "you failed this one");
    assert!(text(&browser, "puzzle-progress").starts_with("1 solved of "));
}
