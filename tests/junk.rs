//! Bad input never panics: every text parser gets thousands of random and
//! mutated strings and must answer with a value or an error, and a failed
//! turn must leave the board unchanged.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use supernova::notation::{cli, hwpn, turn};
use supernova::rules::{Player, Rules};

const SEEDS: [&str; 6] = [
    "r1b3:g3:/y2b1::g3/b2:r1:r1 0",
    "Sam=y1b3:r1g3:/Dave=r2y1::g1b3/Fritz=b2:y3g1:/Delos=b3:r1: 1 turn=y2",
    "Sam (0, y1b3) r1g3- | Dave (1, r2y1) -g1b3 | Delos (b3) r1-",
    "sacrifice y2 at X; move g3 from A to Z (y2); move y1 from X to A",
    "sac.y3.Home0,move.g1.Delos.Home1,cat.Home1.g,disc.y1.Home0.b2.New",
    "Homeworld G3 B2 R3 *; Attack B1N Cobalt; Catastrophe Lorem G; Pass",
];

fn random_text(rng: &mut SmallRng) -> String {
    const ALPHABET: &[char] = &[
        'r', 'y', 'g', 'b', '1', '2', '3', '4', '0', ':', '/', '-', 'x', ' ', '=', '(', ')', ',',
        '|', ';', '.', '\n', '\t', 'é', '∅', 'A', 'Z', '_', '#', '*', 't', 'u', 'n', 'p', 'l', 'y',
        '9',
    ];
    if rng.random_bool(0.5) {
        let length = rng.random_range(0..40);
        (0..length)
            .map(|_| ALPHABET[rng.random_range(0..ALPHABET.len())])
            .collect()
    } else {
        let mut chars: Vec<char> = SEEDS[rng.random_range(0..SEEDS.len())].chars().collect();
        for _ in 0..rng.random_range(1..5) {
            let index = rng.random_range(0..=chars.len());
            match rng.random_range(0..3) {
                0 if index < chars.len() => {
                    chars.remove(index);
                }
                1 => chars.insert(index, ALPHABET[rng.random_range(0..ALPHABET.len())]),
                _ => chars.truncate(index),
            }
        }
        chars.into_iter().collect()
    }
}

#[test]
fn parsers_never_panic_and_failed_turns_change_nothing() {
    let mut rng = SmallRng::seed_from_u64(2026);
    let start = hwpn::parse("A=r1b3:g3:/B=y2b1::g3/X=g2:y1y2:/Y=b1:r1r1g1: 0").unwrap();
    let mut errors = 0;
    for _ in 0..20_000 {
        let text = random_text(&mut rng);
        if let Err(error) = hwpn::parse(&text) {
            assert!(!error.to_string().is_empty());
            errors += 1;
        }
        let _ = cli::parse(&text, Player::First);
        let _ = turn::parse_turn(&text);
        for rules in Rules::PROFILES {
            let mut board = start.clone();
            if board.play_turn_text(&rules, &text).is_err() {
                assert_eq!(board, start, "a failed turn changed the board: {text:?}");
            }
        }
    }
    assert!(
        errors > 10_000,
        "the junk was too tame: only {errors} errors"
    );
}

#[test]
fn system_names_are_bounded() {
    use supernova::notation::names::MAX_NAME_CHARS;
    use supernova::notation::{hwpn, Board};
    use supernova::rules::Rules;
    let long = "a".repeat(MAX_NAME_CHARS + 1);
    let fits = "a".repeat(MAX_NAME_CHARS);
    assert!(hwpn::parse(&format!("{long}=r1b3:g3:/y2b1::g3 0")).is_err());
    assert!(hwpn::parse(&format!("{fits}=r1b3:g3:/y2b1::g3 0")).is_ok());
    let mut board: Board = hwpn::parse("y1b3:g3:/y2b1::g3 0").unwrap();
    let token = format!("disc.g3.Home0.b2.{long}");
    assert!(board.play_turn_text(&Rules::STANDARD, &token).is_err());
    let token = format!("disc.g3.Home0.b2.{fits}");
    assert!(board.play_turn_text(&Rules::STANDARD, &token).is_ok());
}
