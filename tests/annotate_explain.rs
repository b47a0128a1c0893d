//! `annotate` gives each blunder it finds (a missed win in one, walking
//! into a loss in one, a large value drop) the engine's better turn and
//! the sentence that says why, as `info string explain` would.

mod common;

use common::{shared, supernova, text};

fn golden(name: &str) -> String {
    format!("{}/tests/golden/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The line after the first line that starts with `start`.
fn after<'a>(lines: &[&'a str], start: &str, offset: usize) -> &'a str {
    let index = lines
        .iter()
        .position(|line| line.starts_with(start))
        .unwrap_or_else(|| panic!("no line starts with {start}: {lines:?}"));
    lines[index + offset]
}

#[test]
fn each_blunder_gets_the_better_turn_and_why() {
    let output = supernova(&["annotate", &golden("blunders.sdg"), "--nodes", "300"]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    // Walking into a loss in one: the defence, and the threat it parries.
    assert!(after(&lines, "6) Bob: Pass", 1).contains("?? blunder: walks into"));
    assert_eq!(
        after(&lines, "6) Bob: Pass", 2),
        "    better: Build B1 Bob: the only safe turn: defends against Attack B3 Bob, which would win; win chance 17% after it"
    );
    // A missed win in one: the win.
    assert!(after(&lines, "7) Alice: Pass", 1).contains("?? blunder: throws away a win"));
    assert_eq!(
        after(&lines, "7) Alice: Pass", 2),
        "    better: takes the win: Attack B3 Bob"
    );
    // Bob's first pass lets Alice's large red in: the value falls from
    // even to a proven loss, and the engine's turn says what it expects.
    assert!(
        after(&lines, "4) Bob: Pass", 1).starts_with("    ? value drop: win probability 49"),
        "{out}"
    );
    assert!(
        after(&lines, "4) Bob: Pass", 2).starts_with("    better: expects Trade B3 R3 Bob, then "),
        "{out}"
    );
    // Turns that lose nothing get no better turn.
    assert!(!after(&lines, "3) Alice:", 1).contains("better"), "{out}");
    assert!(
        out.ends_with("value drops: 1 (Alice: 0, Bob: 1)\nblunders: 2 (Alice: 1, Bob: 1)\n"),
        "{out}"
    );
}

#[test]
fn a_real_sdg_game_has_its_missed_win_explained() {
    let Some(record) = shared(
        "sdg/608.raw",
        "a_real_sdg_game_has_its_missed_win_explained",
    ) else {
        return;
    };
    let output = supernova(&["annotate", record.to_str().unwrap(), "--nodes", "1000"]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    let lines: Vec<&str> = out.lines().collect();
    // Turn 31: Aaron's catastrophe left MatrixFrog's home standing; a
    // second catastrophe there won at once.
    let missed = after(&lines, "31) Aaron:", 1);
    assert!(missed.contains("?? blunder: throws away a win"), "{out}");
    let better = after(&lines, "31) Aaron:", 2);
    assert!(
        better.starts_with("    better: takes the win: Sacrifice Y3 Emerald; ")
            && better.ends_with("Catastrophe MatrixFrog Red"),
        "{out}"
    );
    // Every blunder has its better turn on the next line.
    for (index, line) in lines.iter().enumerate() {
        if line.contains("?? blunder") || line.contains("? value drop") {
            assert!(lines[index + 1].starts_with("    better: "), "{out}");
        }
    }
}

#[test]
fn analyse_says_why_its_best_turn() {
    let output = supernova(&["analyse", "y1g2:r1:/y3g3:r3:b3 1", "--nodes", "1000"]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(
        out.contains("\nwhy: the only safe turn: defends against Attack B3 Home1, which would win"),
        "{out}"
    );
}
