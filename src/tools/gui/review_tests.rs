//! The review's marks and handicap turns, from records.

use super::*;

#[test]
fn the_marks_are_annotates_findings() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/sdg/608.raw");
    let Ok(text) = std::fs::read_to_string(path) else {
        eprintln!("skipping: {path} is missing");
        return;
    };
    let record = GameRecord::parse_sdg(&text).unwrap();
    let settings = AnalysisSettings {
        options: SearchOptions::default(),
        limits: SearchLimits {
            nodes: Some(1000),
            ..SearchLimits::default()
        },
        notation: Notation::Sdg,
    };
    let mut marks = Vec::new();
    let stop = AtomicBool::new(false);
    analyse::review(&record, &settings, &stop, |finding| {
        marks.extend(mark(finding));
        Ok(())
    })
    .unwrap();
    // annotate's blunders of this record at 1000 nodes: turn 30 walks into
    // the loss, turn 31 throws the win away, turn 49 walks into a loss.
    let kinds: Vec<(u32, &str)> = marks.iter().map(|mark| (mark.number, mark.kind)).collect();
    assert!(kinds.contains(&(30, "allowsLoss")), "{kinds:?}");
    assert!(kinds.contains(&(31, "missedWin")), "{kinds:?}");
    let missed = marks.iter().find(|mark| mark.number == 31).unwrap();
    assert_eq!(missed.ply, 30);
    assert!(missed
        .explanation
        .starts_with("takes the win: Sacrifice Y3 Emerald"));
    assert!(missed.better.ends_with("Catastrophe MatrixFrog Red"));
    assert!(missed.text.starts_with("throws away a win"));
    assert_eq!(missed.before, 1000);
}

/// A record with a one-turn Timewarp for player 0 and a Brain Transference
/// swap after turn 4, as the GUI saves them.
const HANDICAP_RECORD: &str = include_str!("../../../tests/records/handicaps.sdg");

#[test]
fn the_handicaps_turns_are_marked() {
    let record = GameRecord::parse_sdg(HANDICAP_RECORD).unwrap();
    let (game, note) = Game::from_record(HANDICAP_RECORD).unwrap();
    assert_eq!(note, None);
    let found: Vec<(usize, &str)> = events(&record, &game)
        .iter()
        .map(|event| (event.ply, event.kind))
        .collect();
    // Turn 4 is Alice's bonus turn, and the players swap after it.
    assert_eq!(found, [(3, "bonus"), (3, "swap")]);
    // Without the timewarp, a turn in a row is not a bonus turn.
    let plain = GameRecord::parse_sdg(&HANDICAP_RECORD.replace("Timewarp 1 for player 0, ", ""));
    assert_eq!(
        events(&plain.unwrap(), &game)
            .iter()
            .map(|event| event.kind)
            .collect::<Vec<_>>(),
        ["swap"]
    );
}
