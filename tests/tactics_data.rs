//! The tactics suite of `positions/tactics/`, derived from real games.
//!
//! `../shared/tactics/*.tsv` name positions by SDG game, turn and mover; this
//! test rebuilds the HWPN lines from the records in `../shared/sdg` and checks
//! that the committed files say exactly that (regenerate them with
//! `SUPERNOVA_WRITE_TACTICS=1 cargo test --release --test tactics_data`).
//! Independently of `../shared`, it checks with the rules core alone that
//! every win-in-1 position really has a winning turn.

mod common;

use std::path::Path;

use supernova::notation::hwpn;
use supernova::record::GameRecord;
use supernova::rules::{Outcome, Rules, TurnEnumerator};

const WIN_IN_1: &str = "positions/tactics/win_in_1.txt";
const MUST_DEFEND: &str = "positions/tactics/must_defend.txt";

/// One line per usable row: `HWPN # game G turn N mover NAME`. Rows whose
/// game does not replay (it breaks the rules earlier, see
/// positions/sdg-rejects.md) become comment lines saying so.
fn derive(tsv: &Path, sdg: &Path, need_ok_status: bool) -> (Vec<String>, Vec<String>) {
    let text = std::fs::read_to_string(tsv).unwrap();
    let mut lines = Vec::new();
    let mut skipped = Vec::new();
    for row in text.lines().skip(1) {
        let fields: Vec<&str> = row.split('\t').collect();
        if need_ok_status && fields.get(3) != Some(&"ok") {
            continue;
        }
        let (game, turn, mover) = (fields[0], fields[1], fields[2]);
        let record_text = std::fs::read_to_string(sdg.join(format!("{game}.raw"))).unwrap();
        let record = GameRecord::parse_sdg(&record_text).unwrap();
        match record.board_before(&Rules::SDG, turn.parse().unwrap()) {
            Ok(board) => lines.push(format!(
                "{} # game {game} turn {turn} mover {mover}",
                hwpn::write_board(&board)
            )),
            Err(error) => skipped.push(format!("# skipped game {game} turn {turn}: {error}")),
        }
    }
    (lines, skipped)
}

fn committed(path: &str) -> Vec<String> {
    let full = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(full)
        .unwrap_or_default()
        .lines()
        .filter(|line| !line.starts_with('#') && !line.trim().is_empty())
        .map(str::to_string)
        .collect()
}

#[test]
fn tactics_files_match_the_shared_records() {
    let (Some(tactics), Some(sdg)) = (
        common::shared("tactics", "tactics_files_match_the_shared_records"),
        common::shared("sdg", "tactics_files_match_the_shared_records"),
    ) else {
        return;
    };
    for (file, tsv, need_ok) in [
        (WIN_IN_1, "win_in_1.tsv", false),
        (MUST_DEFEND, "must_defend.tsv", true),
    ] {
        let (derived, skipped) = derive(&tactics.join(tsv), &sdg, need_ok);
        if std::env::var_os("SUPERNOVA_WRITE_TACTICS").is_some() {
            let header = format!(
                "# Derived from ../shared/tactics/{tsv} and the SDG records by tests/tactics_data.rs.\n\
                 # One position per line, in HWPN with names, before the named turn.\n{}\n",
                skipped.join("\n")
            );
            let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(file);
            std::fs::write(path, header + &derived.join("\n") + "\n").unwrap();
        }
        assert!(
            skipped.len() <= 5,
            "{file}: too many games do not replay: {skipped:?}"
        );
        assert_eq!(
            derived,
            committed(file),
            "{file} is out of date with ../shared/tactics/{tsv}"
        );
    }
}

#[test]
fn every_win_in_1_position_has_a_winning_turn() {
    let lines = committed(WIN_IN_1);
    assert!(
        lines.len() >= 300,
        "only {} win-in-1 positions",
        lines.len()
    );
    let mut enumerator = TurnEnumerator::default();
    for line in lines {
        let text = line.split('#').next().unwrap();
        let board = hwpn::parse(text).unwrap();
        let mover = board.position.side_to_move();
        let mut wins = 0;
        enumerator.for_each_turn(&board.position, &Rules::STANDARD, |_, _, outcome| {
            wins += (outcome == Outcome::Win(mover)) as usize;
        });
        assert!(wins > 0, "no winning turn: {line}");
    }
}
