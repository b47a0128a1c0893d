//! `supernova play` with a level and the rulebook's handicaps, end to end
//! through the binary with piped input, and `supernova replay` of a
//! record played with a Second Turn Timewarp.

mod common;

use common::text;

fn play_session(arguments: &[&str], input: &str) -> String {
    let arguments: Vec<&str> = std::iter::once("play")
        .chain(arguments.iter().copied())
        .collect();
    let output = common::supernova_with_input(&arguments, input.as_bytes());
    let out = text(&output);
    assert!(
        output.status.success(),
        "{out}{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

/// Player 0 to move; player 1's large red ship at player 0's home can
/// capture its only ship, a small green one: passing loses at once.
const IN_DANGER: &str = "r1b3:g1:r3/y2b1::g3 0";

#[test]
fn play_at_a_level_until_the_engine_answers() {
    let out = play_session(
        &["--level", "cadet", "--nodes", "2000"],
        "homeworld r1 b3 g3\nbuild g1 Home0\nquit\n",
    );
    assert!(out.contains("Level: cadet (Elo 870)."), "{out}");
    assert!(out.contains("You play: Build G1 Home0"), "{out}");
    let after_build = &out[out.find("You play: Build G1 Home0").unwrap()..];
    assert!(after_build.contains("Supernova plays: "), "{out}");
    // A level that does not exist is refused with the list of levels.
    let output = common::supernova(&["play", "--level", "grandmaster"]);
    assert!(!output.status.success());
    let error = String::from_utf8_lossy(&output.stderr);
    assert!(
        error.contains("unknown level 'grandmaster'") && error.contains("commander (Elo 1680)"),
        "{error}"
    );
    // --help lists every level with its calibrated Elo.
    let help = text(&common::supernova(&["play", "--help"]));
    for level in [
        "cadet (Elo 870)",
        "ensign (Elo 1070)",
        "lieutenant (Elo 1430)",
        "commander (Elo 1680)",
        "captain (Elo 1840)",
        "admiral (Elo 2000)",
        "full (full strength)",
    ] {
        assert!(help.contains(level), "{level}: {help}");
    }
}

#[test]
fn a_timewarp_gives_the_person_bonus_turns_in_a_row() {
    let out = play_session(
        &["--timewarp", "2", "--nodes", "50"],
        "homeworld r1 b3 g3\nbuild g1 Home0\nbuild g1 Home0\nbuild g1 Home0\nquit\n",
    );
    assert!(out.contains("Handicaps: Timewarp 2 for player 0."), "{out}");
    // After both setups the person plays three turns in a row (two bonus
    // turns and the ordinary first), and only then the engine.
    let setup = out
        .find("Supernova plays: Homeworld")
        .expect("the engine's setup");
    let builds: Vec<usize> = out
        .match_indices("You play: Build G1 Home0")
        .map(|(at, _)| at)
        .collect();
    assert_eq!(builds.len(), 3, "{out}");
    assert!(setup < builds[0], "{out}");
    let engine_turns: Vec<usize> = out
        .match_indices("Supernova plays: ")
        .map(|(at, _)| at)
        .collect();
    assert_eq!(engine_turns.len(), 2, "{out}");
    assert!(engine_turns[1] > builds[2], "{out}");
    // Undo takes back the last of the person's turns only.
    let out = play_session(
        &["--timewarp", "1", "--nodes", "50"],
        "homeworld r1 b3 g3\nbuild g1 Home0\nundo\nboard\nquit\n",
    );
    assert!(out.contains("Undone."), "{out}");
    assert_eq!(out.matches("Supernova plays: ").count(), 1, "{out}");
    let bad = common::supernova(&["play", "--timewarp", "4"]);
    assert!(String::from_utf8_lossy(&bad.stderr).contains("expected 1 to 3 bonus turns"));
}

#[test]
fn red_alert_warns_and_asks_before_a_losing_turn() {
    let out = play_session(
        &["--position", IN_DANGER, "--red-alert", "1", "--nodes", "50"],
        "pass\nno\nquit\n",
    );
    assert!(
        out.contains(
            "Red Alert: you are in danger. If you do nothing, the opponent wins at once with"
        ),
        "{out}"
    );
    assert!(
        out.contains("Red Alert: after this turn the opponent wins at once with"),
        "{out}"
    );
    assert!(
        out.contains("Turn not played: it is still your turn."),
        "{out}"
    );
    assert!(!out.contains("You play: Pass"), "{out}");
    // Answered yes, the turn is played; without Red Alert nobody asks.
    let out = play_session(
        &["--position", IN_DANGER, "--red-alert", "1", "--nodes", "50"],
        "pass\nyes\n",
    );
    assert!(out.contains("You play: Pass"), "{out}");
    let out = play_session(&["--position", IN_DANGER, "--nodes", "50"], "pass\n");
    assert!(!out.contains("Red Alert"), "{out}");
    assert!(out.contains("You play: Pass"), "{out}");
}

/// From the one-turn-shots suite (positions/tactics/one_turn_shots.txt,
/// game-0005), player 0 to move: a third yellow built at Delos lets
/// player 1 sacrifice a yellow, bring two yellows in and fire a yellow
/// catastrophe there.
const BEFORE_A_SHOT: &str =
    "mcts=y1b2:r1r2r3g3:/shots=r1b3::y1y1y2g1g1g3/Delos=g3:r1r3r3y2y2:/Lebling=r2:r2: 0";

#[test]
fn the_stronger_red_alert_warns_of_a_material_shot() {
    let out = play_session(
        &[
            "--position",
            BEFORE_A_SHOT,
            "--red-alert",
            "2",
            "--nodes",
            "50",
        ],
        "build y3 Delos\nno\nquit\n",
    );
    assert!(
        out.contains("Red Alert: after this turn the opponent can take material: Sacrifice Y2 shots; Move Y1 shots Lebling; Move Y1 Lebling Delos; Catastrophe Delos Yellow would destroy your Y3, Y2 and Y2. End the turn anyway?"),
        "{out}"
    );
    assert!(
        out.contains("Turn not played: it is still your turn."),
        "{out}"
    );
    // The weaker setting warns only of wins, and this turn allows none.
    let out = play_session(
        &[
            "--position",
            BEFORE_A_SHOT,
            "--red-alert",
            "1",
            "--nodes",
            "50",
        ],
        "build y3 Delos\nquit\n",
    );
    assert!(!out.contains("Red Alert: "), "{out}");
    assert!(out.contains("You play: Build Y3 Delos"), "{out}");
}

#[test]
fn tactical_computer_tokens_run_out_and_brain_transference_swaps_once() {
    let out = play_session(&["--hints", "1", "--nodes", "50"], "hint\nhint\nquit\n");
    assert!(out.contains("Tactical Computer tokens left: 0"), "{out}");
    assert!(
        out.contains("error: no Tactical Computer tokens left"),
        "{out}"
    );
    assert_eq!(out.matches("hint: ").count(), 1, "{out}");
    let out = play_session(
        &["--brain-transference", "--nodes", "50"],
        "homeworld r1 b3 g3\nswap\nswap\nquit\n",
    );
    assert!(
        out.contains("Brain Transference: you now play player 1; the engine takes player 0"),
        "{out}"
    );
    assert!(
        out.contains("error: Brain Transference was already used in this game"),
        "{out}"
    );
    // After the swap the engine plays player 0's next turn.
    let swapped = &out[out.find("Brain Transference: you now").unwrap()..];
    assert!(swapped.contains("Supernova plays: "), "{out}");
    let out = play_session(&["--nodes", "50"], "swap\nquit\n");
    assert!(
        out.contains("error: Brain Transference is not one of this game's handicaps"),
        "{out}"
    );
}

#[test]
fn a_timewarp_record_replays_with_its_turn_order() {
    let record = "Homeworlds Online (SDG# 1)\n\
        Variants: \"Timewarp 2 for player 1, Red Alert\"\n\
        Started: 2026.01.01, Ended: 2026.01.01\n\
        Participants: Junior (S), Senior (N)\n\
        Winner:\n\n\
        1) Senior: Homeworld R1 B3 G3\n\n\
        2) Junior: Homeworld Y2 B1 G3\n\n\
        3) Junior: Build G1 Junior\n\n\
        4) Junior: Build G1 Junior\n\n\
        5) Senior: Build G1 Senior\n\n\
        6) Junior: Build G2 Junior\n";
    let directory = std::env::temp_dir().join(format!("supernova-timewarp-{}", std::process::id()));
    std::fs::create_dir_all(&directory).unwrap();
    let path = directory.join("timewarp.sdg");
    std::fs::write(&path, record).unwrap();
    let output = common::supernova(&["replay", path.to_str().unwrap()]);
    let out = text(&output);
    assert!(output.status.success(), "{out}");
    assert!(out.contains("unfinished"), "{out}");
    assert!(out.contains("1 legal, 0 illegal"), "{out}");
    // Without the variant the same turns break strict alternation.
    let plain = record.replace("Timewarp 2 for player 1, ", "");
    std::fs::write(&path, plain).unwrap();
    let output = common::supernova(&["replay", path.to_str().unwrap()]);
    let out = text(&output);
    assert!(out.contains("illegal turn 3"), "{out}");
    std::fs::remove_dir_all(&directory).unwrap();
}
