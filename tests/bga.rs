//! Board Game Arena game logs, end to end: the sample log of
//! `../shared/bga/` (a real game, Babamots against ktblu) replays, shows,
//! analyses, annotates and loads in the GUI's Review as SDG records do,
//! is written back as SDG that replays the same, and broken or mutated
//! copies give an error naming the line, never a panic.
//!
//! What the sample must give is read off the log itself: 2 setup turns,
//! one turn a `ends their turn.` line (49), and ktblu's last turn, which
//! he conceded during; the systems left at the end are the homes and the
//! discovered systems the log never forgets (Alti, Cemori); Babamots' home
//! lost its red star to the Red catastrophe of line 284.

mod common;
mod gui_support;

use std::path::PathBuf;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use serde_json::json;
use supernova::record::{bga, GameRecord};
use supernova::rules::{Outcome, Player, Rules};

use common::{shared, supernova, text};

/// The sample log, or `None` (a visible skip) without the shared folder.
fn sample(test: &str) -> Option<(PathBuf, String)> {
    let path = shared("bga/babamots-ktblu.bga", test)?;
    let text = std::fs::read_to_string(&path).expect("the sample reads");
    Some((path, text))
}

/// A file in the temporary folder, named for this test run.
fn scratch_file(name: &str, bytes: &[u8]) -> PathBuf {
    let path = std::env::temp_dir().join(format!("supernova-bga-{}-{name}", std::process::id()));
    std::fs::write(&path, bytes).expect("the scratch file is written");
    path
}

/// The final position, read off the log by hand: Babamots' home keeps its
/// b3 star (the r1 went in the Red catastrophe) and y2, g1, g3; ktblu's home
/// holds Babamots' r1, r3 and g3 and ktblu's y1, y1 (lines 343 and 363) and
/// y3; Alti (b2) Babamots' y3, g1, g2; Cemori (g2) Babamots' g3; ktblu
/// conceded during his turn, so Babamots is to move.
const FINAL: &str = "Babamots=b3:y2g1g3:/ktblu=g2b3:r1r3g3:y1y1y3/Alti=b2:y3g1g2:/Cemori=g2:g3: 0";

/// The turn count the log gives: two setup turns, one per `ends their
/// turn.` line, and the last turn, which the concession cut short.
fn logged_turns(log: &str) -> usize {
    2 + log.matches(" ends their turn.").count() + 1
}

#[test]
fn the_sample_replays_every_turn_to_the_logged_result() {
    let Some((path, log)) = sample("the_sample_replays_every_turn_to_the_logged_result") else {
        return;
    };
    let output = supernova(&["replay", path.to_str().unwrap()]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(
        out.contains("unfinished (record: Winner Babamots, result 1-0 ktblu concedes the game)"),
        "{out}"
    );
    assert!(
        out.contains("replayed 1 games: 1 legal, 0 illegal"),
        "{out}"
    );
    let record = GameRecord::read_file(&path).unwrap();
    assert_eq!(record.turns.len(), logged_turns(&log));
    assert_eq!(record.header.player_name(Player::First), Some("Babamots"));
    assert_eq!(record.header.player_name(Player::Second), Some("ktblu"));
    assert_eq!(record.header.winner.as_deref(), Some("Babamots"));
    assert_eq!(record.header.started, "6/29/2022");
    assert_eq!(record.header.ended, "7/2/2022");
    let result = record.recorded_result().expect("the result is recorded");
    assert_eq!(result.outcome, Outcome::Win(Player::First));
    let walk = record.walk(&Rules::STANDARD);
    assert!(walk.illegal.is_none(), "{:?}", walk.illegal);
    assert_eq!(walk.turns.len(), record.turns.len());
    assert_eq!(supernova::notation::hwpn::write_board(&walk.board), FINAL);
}

#[test]
fn restarts_discoveries_and_fades_are_read_as_the_log_says() {
    let Some((_, log)) = sample("restarts_discoveries_and_fades_are_read_as_the_log_says") else {
        return;
    };
    let record = bga::parse(&log).unwrap();
    let turn = |number: usize| record.turns[number - 1].text();
    // ktblu's second turn: a build and a trade taken back (lines 20-26).
    assert_eq!(turn(6), "Trade Y1 R1 ktblu");
    // Babamots' discovery of a g2 Alti was taken back; the b2 one stands,
    // its move (line 74) and the discovery one action.
    assert_eq!(turn(15), "Discover R2 Babamots B2 Alti");
    assert_eq!(record.turns[14].steps[0].line, Some(74));
    // A trade at Ewarop taken back, the one at Cemori kept (lines 219-227).
    assert_eq!(turn(32), "Sacrifice B1 ktblu; Trade R2 Y2 Cemori");
    // A sacrifice's unused action is padded with a pass, as SDG pads it.
    assert_eq!(turn(46), "Sacrifice R2 Gabrit; Attack G3 ktblu; Pass");
    // The catastrophe is an action of ktblu's turn.
    assert_eq!(
        turn(38),
        "Move R1 Ewarop Babamots; Catastrophe Babamots Red"
    );
    // Dioj fades in turn 24 (line 153), and the board has it no more.
    let walk = record.walk(&Rules::STANDARD);
    assert!(walk.turns[23].board.slot("Dioj").is_ok());
    assert!(walk.turns[24].board.slot("Dioj").is_err());
}

#[test]
fn show_analyse_and_annotate_take_the_log() {
    let Some((path, _)) = sample("show_analyse_and_annotate_take_the_log") else {
        return;
    };
    let file = path.to_str().unwrap();
    let output = supernova(&["show", "--game", file, "--turn", "53"]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(text(&output).trim(), FINAL);
    let output = supernova(&["show", "--game", file, "--turn", "3"]);
    assert_eq!(
        text(&output).trim(),
        "Babamots=r1b3:g3:/ktblu=g2b3::y3 0",
        "{output:?}"
    );
    let output = supernova(&["analyse", "--game", file, "--turn", "20", "--nodes", "200"]);
    assert!(output.status.success(), "{output:?}");
    let out = text(&output);
    assert!(
        out.starts_with("position: Babamots=r1b3:r3g1:/ktblu=g2b3::r1y2y3g2/"),
        "{out}"
    );
    let output = supernova(&["annotate", file, "--nodes", "30"]);
    let out = text(&output);
    assert!(output.status.success(), "{output:?}");
    assert!(out.starts_with("1) Babamots: Homeworld R1 B3 G3"), "{out}");
    assert!(out.contains("\n52) ktblu: Build Y1 ktblu  ["), "{out}");
}

#[test]
fn the_sdg_written_back_replays_to_the_same_position() {
    let Some((path, _)) = sample("the_sdg_written_back_replays_to_the_same_position") else {
        return;
    };
    let output = supernova(&["replay", "--sdg", path.to_str().unwrap()]);
    assert!(output.status.success(), "{output:?}");
    let sdg = text(&output);
    assert!(sdg.starts_with("Homeworlds Online (SDG# 0)\n"), "{sdg}");
    assert!(sdg.contains("Participants: ktblu (S), Babamots (N)\nWinner: Babamots\n"));
    assert!(
        sdg.contains("\n15) Babamots: Discover R2 Babamots B2 Alti\n"),
        "{sdg}"
    );
    assert!(sdg.ends_with("\n52) ktblu: Build Y1 ktblu\n\tReferee: 1-0 ktblu concedes the game\n"));
    let written = scratch_file("written.sdg", sdg.as_bytes());
    let again = supernova(&["replay", written.to_str().unwrap()]);
    assert!(
        text(&again)
            .contains("unfinished (record: Winner Babamots, result 1-0 ktblu concedes the game)"),
        "{}",
        text(&again)
    );
    let shown = supernova(&["show", "--game", written.to_str().unwrap(), "--turn", "53"]);
    assert_eq!(text(&shown).trim(), FINAL);
    // The record read back is the log's, turn for turn.
    let from_log = GameRecord::read_file(&path).unwrap();
    let from_sdg = GameRecord::parse_text(&sdg).unwrap();
    let texts = |record: &GameRecord| -> Vec<String> {
        record.turns.iter().map(|turn| turn.text()).collect()
    };
    assert_eq!(texts(&from_log), texts(&from_sdg));
    assert_eq!(from_log.header, from_sdg.header);
    // --sdg writes one record.
    let two = supernova(&[
        "replay",
        "--sdg",
        path.to_str().unwrap(),
        path.to_str().unwrap(),
    ]);
    assert!(!two.status.success());
    assert!(String::from_utf8_lossy(&two.stderr).contains("--sdg writes one record"));
    let _ = std::fs::remove_file(written);
}

/// Runs `replay` on `log` and returns its output; it must fail cleanly.
fn replay_error(name: &str, log: &str) -> String {
    let path = scratch_file(name, log.as_bytes());
    let output = supernova(&["replay", path.to_str().unwrap()]);
    let _ = std::fs::remove_file(&path);
    let out = format!(
        "{}{}",
        text(&output),
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(!output.status.success(), "{name}: {out}");
    assert!(!out.contains("panicked"), "{name}: {out}");
    out
}

/// The sample with line `number` (from 1) replaced by `line`.
fn with_line(log: &str, number: usize, line: &str) -> String {
    let mut lines: Vec<&str> = log.split('\n').collect();
    lines[number - 1] = line;
    lines.join("\n")
}

#[test]
fn broken_logs_name_the_line_and_why() {
    let Some((_, log)) = sample("broken_logs_name_the_line_and_why") else {
        return;
    };
    let cases = [
        (
            "no-ship",
            with_line(&log, 99, "Babamots moves a r1 ship from Alti to Bleb."),
            "line 99: 'Babamots moves a r1 ship from Alti to Bleb.': the mover has no such ship there",
        ),
        (
            "unforgotten",
            with_line(&log, 153, ""),
            "line 152: 'ktblu moves a r1 ship from Dioj to Ewarop.': Dioj fades here on the board",
        ),
        (
            "false-fade",
            with_line(&log, 153, "Ewarop is forgotten."),
            "line 153: 'Ewarop is forgotten.': Ewarop is still in play on the board",
        ),
        (
            "catastrophe",
            with_line(&log, 284, "ktblu triggers a Blue catastrophe in Homeworld Babamots."),
            "line 284: 'ktblu triggers a Blue catastrophe in Homeworld Babamots.': that colour is not overpopulated there",
        ),
        (
            "mover",
            with_line(&log, 8, "ktblu builds a g1 ship in Homeworld ktblu."),
            "line 8: 'ktblu builds a g1 ship in Homeworld ktblu.': it is Babamots's turn",
        ),
        (
            "winner",
            with_line(&log, 367, "The end of the game: ktblu wins!"),
            "line 367: 'The end of the game: ktblu wins!': ktblu conceded",
        ),
        (
            "third",
            with_line(
                &log,
                7,
                "Zed establishes a homeworld with a g3 ship at y1 and b2 binary stars.",
            ),
            "line 7: 'Zed establishes a homeworld with a g3 ship at y1 and b2 binary stars.': a third player, Zed: only two-player logs are read",
        ),
        (
            "junk",
            with_line(&log, 40, "Babamots juggles a g1 ship."),
            "line 40: 'Babamots juggles a g1 ship.': expected a line of a BGA Homeworlds log",
        ),
        (
            "discovery",
            with_line(&log, 74, "Babamots ends their turn."),
            "line 74: 'Babamots ends their turn.': expected the move into Alti that the discovery on line 73 announced",
        ),
    ];
    for (name, broken, expected) in cases {
        let out = replay_error(name, &broken);
        assert!(
            out.contains(expected),
            "{name}: expected {expected:?} in {out}"
        );
    }
}

#[test]
fn short_logs_end_as_their_last_line_says() {
    let setup = "Move 1 :1/2/2024 9:00:00 AM\n\
        Ann establishes a homeworld with a g3 ship at r1 and b2 binary stars.\n\
        Bob establishes a homeworld with a y3 ship at g2 and b3 binary stars.\n";
    let tie = GameRecord::parse_text(&format!("{setup}End of game (tie)\n")).unwrap();
    assert_eq!(tie.header.winner, None);
    let result = tie.recorded_result().unwrap();
    assert_eq!(
        (result.outcome, result.reason.as_str()),
        (Outcome::Draw, "tie")
    );
    let won = GameRecord::parse_text(&format!("{setup}The end of the game: Bob wins!")).unwrap();
    assert_eq!(won.header.winner.as_deref(), Some("Bob"));
    assert_eq!(won.recorded_result().unwrap().reason, "off the board");
    // Bob sacrifices his only ship at home: Ann wins on the board, and the
    // verdict must say so.
    let eliminated = format!(
        "{setup}Ann builds a g1 ship in Homeworld Ann.\nAnn ends their turn.\n\
        Bob sacrifices a y3 ship in Homeworld Bob.\nBob ends their turn.\n"
    );
    let won =
        GameRecord::parse_text(&format!("{eliminated}The end of the game: Ann wins!")).unwrap();
    assert_eq!(won.recorded_result().unwrap().reason, "elimination");
    assert_eq!(won.turns[3].text(), "Sacrifice Y3 Bob; Pass; Pass; Pass");
    let report = won.replay(&Rules::STANDARD);
    assert_eq!(report.agrees_with_record(), Some(true), "{report}");
    let error =
        GameRecord::parse_text(&format!("{eliminated}The end of the game: Bob wins!")).unwrap_err();
    assert_eq!(
        error.to_string(),
        "line 8: 'The end of the game: Bob wins!': the board has Ann winning"
    );
    let error = GameRecord::parse_text(&format!(
        "{eliminated}Ann builds a g1 ship in Homeworld Ann."
    ))
    .unwrap_err();
    assert!(
        error.to_string().starts_with("line 8: ")
            && error
                .to_string()
                .ends_with("the game is over on the board: Ann has won"),
        "{error}"
    );
    // One homeworld is not a game.
    let error = GameRecord::parse_text(&setup[..setup.rfind("Bob").unwrap()]).unwrap_err();
    assert!(
        error.to_string().contains("expected two players"),
        "{error}"
    );
    // An SDG record and text that is neither still go to the SDG reader.
    assert!(!bga::looks_like_bga(
        "Homeworlds Online (SDG# 5)\nMove 1 :x\n"
    ));
    let error = GameRecord::parse_text("this is not a record").unwrap_err();
    assert!(
        error.to_string().contains("Homeworlds Online (SDG# N)"),
        "{error}"
    );
}

/// One seeded mutation of the log's bytes, and what it was.
fn mutate(log: &str, random: &mut SmallRng) -> (Vec<u8>, String) {
    let mut lines: Vec<String> = log.split('\n').map(str::to_string).collect();
    let count = lines.len();
    match random.random_range(0..6) {
        0 => {
            let index = random.random_range(0..count);
            lines.remove(index);
            (
                lines.join("\n").into_bytes(),
                format!("line {} dropped", index + 1),
            )
        }
        1 => {
            let (first, second) = (random.random_range(0..count), random.random_range(0..count));
            lines.swap(first, second);
            (
                lines.join("\n").into_bytes(),
                format!("lines {} and {} swapped", first + 1, second + 1),
            )
        }
        2 => {
            let cut = random.random_range(0..log.len());
            (log.as_bytes()[..cut].to_vec(), format!("cut at byte {cut}"))
        }
        3 => {
            // A piece word (g1, r3) of some line becomes another piece.
            let index = random.random_range(0..count);
            let pieces = [
                "r1", "r2", "r3", "y1", "y2", "y3", "g1", "g2", "g3", "b1", "b2", "b3",
            ];
            let words: Vec<String> = lines[index]
                .split(' ')
                .map(|word| {
                    if pieces.contains(&word) {
                        pieces[random.random_range(0..pieces.len())].to_string()
                    } else {
                        word.to_string()
                    }
                })
                .collect();
            lines[index] = words.join(" ");
            (
                lines.join("\n").into_bytes(),
                format!("pieces of line {} changed", index + 1),
            )
        }
        4 => {
            let mut bytes = log.as_bytes().to_vec();
            let at = random.random_range(0..bytes.len());
            let junk: Vec<u8> = (0..random.random_range(1..8))
                .map(|_| random.random())
                .collect();
            bytes.splice(at..at, junk.iter().copied());
            (bytes, format!("junk {junk:?} at byte {at}"))
        }
        _ => {
            let index = random.random_range(0..count);
            let copy = lines[index].clone();
            lines.insert(index, copy);
            (
                lines.join("\n").into_bytes(),
                format!("line {} doubled", index + 1),
            )
        }
    }
}

#[test]
fn mutated_logs_never_panic_and_errors_name_a_line() {
    let Some((_, log)) = sample("mutated_logs_never_panic_and_errors_name_a_line") else {
        return;
    };
    let mut random = SmallRng::seed_from_u64(2026);
    let (mut errors, mut records) = (0, 0);
    for round in 0..400 {
        let (bytes, what) = mutate(&log, &mut random);
        let lines = bytes.split(|&byte| byte == b'\n').count();
        let read = std::panic::catch_unwind(|| GameRecord::parse_bytes(&bytes))
            .unwrap_or_else(|_| panic!("round {round}: {what}: the reader panicked"));
        match read {
            Err(error) => {
                errors += 1;
                let line = error
                    .line
                    .unwrap_or_else(|| panic!("{what}: no line in {error}"));
                assert!((1..=lines + 1).contains(&line), "{what}: {error}");
                assert!(
                    error.to_string().starts_with(&format!("line {line}: ")),
                    "{error}"
                );
            }
            Ok(record) => {
                records += 1;
                // What the reader accepted, the replay accepts, and its SDG
                // reads back to the same final position.
                let walk = record.walk(&Rules::STANDARD);
                assert!(walk.illegal.is_none(), "{what}: {:?}", walk.illegal);
                let again = GameRecord::parse_sdg(&record.to_sdg())
                    .unwrap_or_else(|error| panic!("{what}: {error}"));
                assert_eq!(again.walk(&Rules::STANDARD).board, walk.board, "{what}");
            }
        }
    }
    eprintln!("{errors} mutated logs refused, {records} read");
    // Both kinds occur: the mutations break some logs and spare others.
    assert!(
        errors > 100 && records > 40,
        "{errors} errors, {records} records"
    );
    // A few through the binary, which must fail cleanly on broken ones.
    let mut random = SmallRng::seed_from_u64(7);
    for round in 0..12 {
        let (bytes, what) = mutate(&log, &mut random);
        if GameRecord::parse_bytes(&bytes).is_ok() {
            continue;
        }
        let path = scratch_file(&format!("mutated-{round}.bga"), &bytes);
        let output = supernova(&["replay", path.to_str().unwrap()]);
        let _ = std::fs::remove_file(&path);
        let out = text(&output);
        assert_eq!(output.status.code(), Some(2), "{what}: {out}");
        assert!(out.contains(": line "), "{what}: {out}");
    }
}

#[test]
fn the_gui_reviews_the_log() {
    let Some((_, log)) = sample("the_gui_reviews_the_log") else {
        return;
    };
    let (_gui, _, port) = gui_support::start_gui(&[]);
    let request = json!({ "record": log }).to_string();
    let (status, body) = gui_support::http(port, "POST", "/api/load", &request).unwrap();
    assert_eq!(status, 200, "{body}");
    let state = gui_support::state_when(port, "the loaded log", |state| state["mode"] == "review");
    assert_eq!(state["length"], 52, "{state}");
    assert_eq!(state["message"], "loaded 52 turns", "{state}");
    assert_eq!(
        state["playerNames"],
        json!(["Babamots", "ktblu"]),
        "{state}"
    );
}
