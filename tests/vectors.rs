//! The edge-case test vectors T1–T12 of rules.md §16, each played under every
//! rule profile for which the table gives a result. Turns are written in the
//! homeworlds-cli phrasing the table uses.

use supernova::notation::{hwpn, Board};
use supernova::rules::{Outcome, Player, Rules};

/// What a vector expects under one profile.
enum Expect {
    /// Legal, with this resulting HWPN (names dropped) if given, and this outcome.
    Legal(Option<&'static str>, Outcome),
    /// Illegal.
    Illegal,
}

fn play(position: &str, turn: &str, rules: &Rules) -> Result<(Board, Outcome), String> {
    let mut board = hwpn::parse(position).map_err(|error| error.to_string())?;
    let before = board.clone();
    match board.play_turn_text(rules, turn) {
        Ok(played) => Ok((board, played.outcome)),
        Err(error) => {
            assert_eq!(
                board, before,
                "a failed turn must leave the board unchanged"
            );
            Err(error.to_string())
        }
    }
}

fn check(name: &str, position: &str, turn: &str, rules: Rules, expect: Expect) {
    let result = play(position, turn, &rules);
    match (expect, result) {
        (Expect::Legal(hwpn_text, outcome), Ok((board, actual))) => {
            if let Some(text) = hwpn_text {
                assert_eq!(
                    hwpn::write(&board.position, None),
                    text,
                    "{name} under {rules}"
                );
            }
            assert_eq!(actual, outcome, "{name} under {rules}");
        }
        (Expect::Illegal, Err(_)) => {}
        (Expect::Legal(..), Err(error)) => {
            panic!("{name} under {rules}: expected legal, got {error}")
        }
        (Expect::Illegal, Ok((board, _))) => panic!(
            "{name} under {rules}: expected illegal, got {}",
            hwpn::write(&board.position, None)
        ),
    }
}

const ONGOING: Outcome = Outcome::Ongoing;
const LL: [Rules; 2] = [Rules::STANDARD, Rules::SDG];

#[test]
fn t1_temporary_vacancy() {
    let position = "A=r1b3:g3:/B=y2b1::g3/X=g2:y1y2: 0";
    let turn = "sacrifice y2 at X; move g3 from A to Z (y2); move y1 from X to A";
    for rules in LL {
        check(
            "T1",
            position,
            turn,
            rules,
            Expect::Legal(Some("r1b3:y1:/y2b1::g3/y2:g3: 1"), ONGOING),
        );
    }
    check("T1", position, turn, Rules::CLI, Expect::Illegal);
    let reordered = "sacrifice y2 at X; move y1 from X to A; move g3 from A to Z (y2)";
    for rules in Rules::PROFILES {
        check(
            "T1 reordered",
            position,
            reordered,
            rules,
            Expect::Legal(Some("r1b3:y1:/y2b1::g3/y2:g3: 1"), ONGOING),
        );
    }
}

#[test]
fn t2_empty_sacrifice() {
    let position = "A=r1b3:g3:/B=y2b1::g3/X=g2:y1y2: 0";
    for rules in Rules::PROFILES {
        check(
            "T2",
            position,
            "sacrifice y2 at X",
            rules,
            Expect::Legal(Some("r1b3:g3:/y2b1::g3/g2:y1: 1"), ONGOING),
        );
    }
    // SDG records write the unused actions as passes.
    check(
        "T2 with passes",
        position,
        "Sacrifice Y2 X; Pass; Pass",
        Rules::SDG,
        Expect::Legal(None, ONGOING),
    );
}

#[test]
fn t3_mid_turn_catastrophe_opens_a_route() {
    let position = "A=y1b3:y2g3:/B=r2b1:r3:r1g3/X=b2:g1:/Y=y3:r1: 0";
    let turn = "sacrifice y2 at A; move r1 from Y to B; catastrophe red at B; move g1 from X to B";
    for rules in LL {
        check(
            "T3",
            position,
            turn,
            rules,
            Expect::Legal(Some("y1b3:g3:/b1:g1:g3 1"), ONGOING),
        );
    }
    check("T3", position, turn, Rules::CLI, Expect::Illegal);
    // With the catastrophe moved to the end, X and B are not connected.
    let moved = "sacrifice y2 at A; move r1 from Y to B; move g1 from X to B; catastrophe red at B";
    for rules in Rules::PROFILES {
        check("T3 moved", position, moved, rules, Expect::Illegal);
    }
}

#[test]
fn t4_catastrophe_at_own_home_then_reenter() {
    let position = "A=r1y3:g1g2:g1g3/B=y2b1::g3/X=b2:y1: 0";
    let turn = "catastrophe green at A; move y1 from X to A";
    for rules in LL {
        check(
            "T4",
            position,
            turn,
            rules,
            Expect::Legal(Some("r1y3:y1:/y2b1::g3 1"), ONGOING),
        );
    }
    check("T4", position, turn, Rules::CLI, Expect::Illegal);
    let guarded = "A=r1y3:g1g2:r2g1g3/B=y2b1::g3/X=b2:y1: 0";
    for rules in Rules::PROFILES {
        check(
            "T4 with an enemy r2",
            guarded,
            turn,
            rules,
            Expect::Legal(Some("r1y3:y1:r2/y2b1::g3 1"), ONGOING),
        );
    }
}

#[test]
fn t5_win_with_a_fatal_overpopulation_at_home() {
    let position = "A=r1y3:y1y2y2:/B=y2b1:r3:g3 0";
    for rules in LL {
        check(
            "T5",
            position,
            "capture g3 at B",
            rules,
            Expect::Legal(None, Outcome::Win(Player::First)),
        );
    }
    check(
        "T5",
        position,
        "capture g3 at B",
        Rules::CLI,
        Expect::Illegal,
    );
}

#[test]
fn t6_mutual_elimination() {
    let position = "A=r1b3:y3:y3g3/B=y2:y1y1:r1 0";
    let turn = "move y3 from A to B; catastrophe yellow at B";
    for rules in LL {
        check(
            "T6",
            position,
            turn,
            rules,
            Expect::Legal(None, Outcome::Draw),
        );
    }
    check("T6", position, turn, Rules::CLI, Expect::Illegal);
}

#[test]
fn t7_capture_uses_the_largest_ship() {
    let position = "A=r1y2:g3:/B=y3g1::y1/S=b2:r1y3:g3 0";
    for rules in Rules::PROFILES {
        check(
            "T7",
            position,
            "capture g3 at S",
            rules,
            Expect::Legal(Some("r1y2:g3:/y3g1::y1/b2:r1y3g3: 1"), ONGOING),
        );
    }
    // Without the y3 the r1 alone is too small.
    check(
        "T7 small",
        "A=r1y2:g3:/B=y3g1::y1/S=b2:r1:g3 0",
        "capture g3 at S",
        Rules::STANDARD,
        Expect::Illegal,
    );
}

#[test]
fn t8_one_catastrophe_kills_a_same_coloured_binary() {
    let position = "A=r1y3:g3:/B=b1b3:b2b2:g3 0";
    for rules in Rules::PROFILES {
        check(
            "T8",
            position,
            "catastrophe blue at B",
            rules,
            Expect::Legal(Some("r1y3:g3:/x 1"), Outcome::Win(Player::First)),
        );
    }
}

#[test]
fn t9_trade_to_the_same_colour() {
    for rules in Rules::PROFILES {
        check(
            "T9",
            "A=r1b3:g1y1:/B=y2b1::g3 0",
            "convert y1 to y1 at A",
            rules,
            Expect::Illegal,
        );
    }
}

#[test]
fn t10_build_size_is_forced() {
    let position = "A=r1g3:g2:/B=y2b1::g3 0";
    for rules in Rules::PROFILES {
        check("T10", position, "build g2 at A", rules, Expect::Illegal);
        check(
            "T10",
            position,
            "build g1 at A",
            rules,
            Expect::Legal(Some("r1g3:g1g2:/y2b1::g3 1"), ONGOING),
        );
    }
}

#[test]
fn t11_no_setup_pass() {
    for rules in [Rules::STANDARD, Rules::CLI] {
        check("T11", "-/- 0", "pass", rules, Expect::Illegal);
    }
    for rules in Rules::PROFILES {
        check(
            "T11 homeworld",
            "-/- 0",
            "homeworld r1 b3 g3",
            rules,
            Expect::Legal(Some("r1b3:g3:/- 1"), ONGOING),
        );
        // Once a homeworld exists, no profile accepts a setup pass.
        check("T11 late", "r1b3:g3:/- 1", "pass", rules, Expect::Illegal);
        check("T11 late", "-/r1b3::g3 0", "pass", rules, Expect::Illegal);
        // Setup turns do nothing but create.
        check("T11 empty", "-/- 0", "", rules, Expect::Illegal);
        check(
            "T11 pass then create",
            "-/- 0",
            "pass; homeworld r1 b3 g3",
            rules,
            Expect::Illegal,
        );
    }
}

/// SDG accepted a setup pass (T11's "other rules" column): under `sdg` the
/// other player creates first and the order of play follows, with seats
/// (home slots) unchanged.
#[test]
fn t11_setup_pass_under_sdg() {
    let rules = Rules::SDG;
    check(
        "T11 sdg",
        "-/- 0",
        "pass",
        rules,
        Expect::Legal(Some("-/- 1"), ONGOING),
    );
    check(
        "T11 sdg, passed back",
        "-/- 1",
        "pass",
        rules,
        Expect::Legal(Some("-/- 0"), ONGOING),
    );
    check(
        "T11 sdg, player 1 creates first",
        "-/- 1",
        "homeworld r1 b3 g3",
        rules,
        Expect::Legal(Some("-/r1b3::g3 0"), ONGOING),
    );
    check(
        "T11 sdg, player 0 creates second",
        "-/r1b3::g3 0",
        "homeworld y2 b1 g3",
        rules,
        Expect::Legal(Some("y2b1:g3:/r1b3::g3 1"), ONGOING),
    );
    // Player 1 created first, so player 1 moves first.
    check(
        "T11 sdg, first normal turn",
        "y2b1:g3:/r1b3::g3 1",
        "build g1 at Home1",
        rules,
        Expect::Legal(Some("y2b1:g3:/r1b3::g1g3 0"), ONGOING),
    );
}

#[test]
fn t12_gemini_home() {
    // A second home ship keeps the move from being a self-elimination.
    let position = "A=r2b2:y3g1:/B=y1b3::g3 0";
    for rules in Rules::PROFILES {
        check(
            "T12",
            position,
            "move y3 from A to Z (g2)",
            rules,
            Expect::Illegal,
        );
        check(
            "T12",
            position,
            "move y3 from A to Z (g1)",
            rules,
            Expect::Legal(Some("r2b2:g1:/y1b3::g3/g1:y3: 1"), ONGOING),
        );
        check(
            "T12",
            position,
            "move y3 from A to Z (g3)",
            rules,
            Expect::Legal(Some("r2b2:g1:/y1b3::g3/g3:y3: 1"), ONGOING),
        );
    }
    // Leaving the home empty is legal but a loss by default, illegal for the CLI.
    let alone = "A=r2b2:y3:/B=y1b3::g3 0";
    check(
        "T12 alone",
        alone,
        "move y3 from A to Z (g1)",
        Rules::STANDARD,
        Expect::Legal(None, Outcome::Win(Player::Second)),
    );
    check(
        "T12 alone",
        alone,
        "move y3 from A to Z (g1)",
        Rules::CLI,
        Expect::Illegal,
    );
}
