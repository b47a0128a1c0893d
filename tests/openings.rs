//! The openings of `supernova match` and the setup book, against the SDG
//! records they come from: positions/openings.txt is exactly what `supernova
//! openings` prints from ../shared/sdg, the book's table is exactly what the
//! records give, no opening leaves a side without yellow and blue, and the book
//! never chooses such a home, for either side and against every possible
//! opponent setup.

mod common;

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::AtomicBool;

use supernova::rules::{Action, Position, Rules};
use supernova::search::{
    book_score, has_yellow_or_blue, setup_actions, Decision, PlayerKind, SearchLimits,
    SearchOptions, Searcher, PLAYED_SETUPS,
};
use supernova::tools::match_runner::{parse_openings, DEFAULT_OPENINGS};
use supernova::tools::openings;

/// The committed openings file.
const OPENINGS_FILE: &str = include_str!("../positions/openings.txt");

/// The SDG record files, as paths relative to the crate root (so that the
/// command in the file's header reads `../shared/sdg/*.raw`), sorted.
fn record_files(test: &str) -> Option<Vec<PathBuf>> {
    let folder = common::shared("sdg", test)?;
    let mut files: Vec<PathBuf> = std::fs::read_dir(&folder)
        .expect("the sdg folder is readable")
        .map(|entry| entry.expect("a folder entry").file_name())
        .filter(|name| name.to_string_lossy().ends_with(".raw"))
        .map(|name| PathBuf::from("../shared/sdg").join(name))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "{test}: no .raw records in {}",
        folder.display()
    );
    Some(files)
}

#[test]
fn the_committed_openings_are_what_the_records_give() {
    let Some(files) = record_files("the_committed_openings_are_what_the_records_give") else {
        return;
    };
    let output = Command::new(common::binary())
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("openings")
        .arg("--count")
        .arg("64")
        .args(&files)
        .output()
        .expect("the binary runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let printed = common::text(&output);
    assert!(
        printed == OPENINGS_FILE,
        "positions/openings.txt is out of date: regenerate it with\n    \
         supernova openings --count 64 ../shared/sdg/*.raw > positions/openings.txt\n\
         printed:\n{printed}"
    );
}

#[test]
fn the_book_table_is_what_the_records_give() {
    let Some(files) = record_files("the_book_table_is_what_the_records_give") else {
        return;
    };
    let records = supernova::record::GameRecord::read_files(&files).unwrap();
    let gathered = openings::gather(&records);
    assert_eq!(
        gathered.setups, PLAYED_SETUPS,
        "src/search/played_setups.rs is out of date: regenerate its rows with\n    \
         supernova openings --setups ../shared/sdg/*.raw"
    );
}

#[test]
fn every_opening_is_legal_and_gives_both_sides_yellow_or_blue() {
    let openings = parse_openings(DEFAULT_OPENINGS, &Rules::STANDARD).unwrap();
    assert_eq!(DEFAULT_OPENINGS, OPENINGS_FILE);
    assert_eq!(openings.len(), 64);
    let mut texts: Vec<&str> = openings
        .iter()
        .map(|opening| opening.text.as_str())
        .collect();
    texts.sort();
    texts.dedup();
    assert_eq!(texts.len(), openings.len(), "an opening is listed twice");
    for opening in &openings {
        for setup in opening.setup {
            assert!(
                has_yellow_or_blue(setup),
                "{}: {setup:?} has no yellow and no blue",
                opening.text
            );
        }
    }
}

#[test]
fn the_openings_command_refuses_bad_input_clearly() {
    let missing = common::supernova(&["openings", "/nonexistent/game.raw"]);
    assert_eq!(missing.status.code(), Some(2));
    let error = String::from_utf8_lossy(&missing.stderr);
    assert!(
        error.contains("/nonexistent/game.raw: cannot read"),
        "{error}"
    );
    let junk = std::env::temp_dir().join(format!("supernova-openings-{}.raw", std::process::id()));
    std::fs::write(&junk, "not a record\n").unwrap();
    let output = common::supernova(&["openings", junk.to_str().unwrap()]);
    let _ = std::fs::remove_file(&junk);
    assert_eq!(output.status.code(), Some(2));
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(error.starts_with("error: "), "{error}");
    assert!(!error.contains("panicked"), "{error}");
    let zero = common::supernova(&["openings", "--count", "0", "x.raw"]);
    assert_eq!(zero.status.code(), Some(2));
}

/// The position after `setup`, with the other player to create.
fn after(setup: Action, rules: &Rules) -> Position {
    let mut position = Position::start();
    position.try_apply(rules, setup).unwrap();
    position.end_turn(rules).unwrap();
    position
}

/// Checks that in `position` every setup without yellow or blue scores
/// below every setup with one, so the book (which takes a best score)
/// never chooses it, whatever the seed.
fn check_book(position: &Position, rules: &Rules) {
    let actions = setup_actions(position, rules);
    assert!(!actions.is_empty());
    let (with, without): (Vec<Action>, Vec<Action>) = actions
        .into_iter()
        .partition(|&action| has_yellow_or_blue(action));
    let lowest_with = with
        .iter()
        .map(|&action| book_score(position, action))
        .min()
        .expect("some setup has yellow or blue");
    for action in without {
        assert!(
            book_score(position, action) < lowest_with,
            "{}: {action:?} scores {} against {lowest_with}",
            rules.name,
            book_score(position, action)
        );
    }
}

#[test]
fn the_book_never_scores_a_home_without_yellow_or_blue_above_one_with() {
    for rules in [Rules::STANDARD, Rules::CLI, Rules::SDG] {
        let start = Position::start();
        check_book(&start, &rules);
        let first_setups = setup_actions(&start, &rules);
        assert!(first_setups.len() >= 312, "{}", first_setups.len());
        for setup in first_setups {
            check_book(&after(setup, &rules), &rules);
        }
    }
}

/// The engine's own setup turn (the greedy player's: the book, no search).
fn engine_setup(position: &Position, rules: &Rules, player: PlayerKind, seed: u64) -> Action {
    let options = SearchOptions {
        player,
        seed,
        rules: *rules,
        hash_mb: 1,
        ..SearchOptions::default()
    };
    let stop = AtomicBool::new(false);
    let result =
        Searcher::new(options).search(position, &[], &SearchLimits::nodes(1), &stop, |_| {});
    assert_eq!(result.decision, Decision::Setup);
    match result.best_turn.as_slice() {
        [action] => *action,
        other => panic!("not one homeworld action: {other:?}"),
    }
}

#[test]
fn the_engine_never_creates_a_home_without_yellow_or_blue() {
    let rules = Rules::STANDARD;
    let start = Position::start();
    for player in [PlayerKind::Greedy, PlayerKind::Mcts] {
        for seed in 0..4 {
            let setup = engine_setup(&start, &rules, player, seed);
            assert!(
                has_yellow_or_blue(setup),
                "{player:?} seed {seed}: {setup:?}"
            );
        }
    }
    for opponent in setup_actions(&start, &rules) {
        let position = after(opponent, &rules);
        let setup = engine_setup(&position, &rules, PlayerKind::Greedy, 0);
        assert!(has_yellow_or_blue(setup), "after {opponent:?}: {setup:?}");
    }
}
