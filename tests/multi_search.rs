//! The multi-player max-n search and `supernova multi-match`: the search takes
//! a win in one, and a three-player match runs end to end and writes records
//! that `supernova replay` accepts.

mod common;

use rand::rngs::SmallRng;
use rand::SeedableRng;
use supernova::notation::multi;
use supernova::rules::multi::Victory;
use supernova::rules::multi::{MultiAction, MultiOutcome, Seats};
use supernova::rules::{Action, Piece, Rules};
use supernova::search::multi::{greedy_turn, hidden, turns, MultiSearch, MultiSearchOptions};

#[test]
fn the_search_takes_a_sinister_win_in_one() {
    // Alice (0) can capture Bob's (1) only ship at home; Bob is her
    // Sinister target, so that capture wins at once.
    let board =
        multi::parse("players=3 A=r1y3:r3g3::/B=g2b1:r3:g1:/C=g1b2:::y3 0 victory=sinister")
            .unwrap();
    let rules = Rules::SDG;
    for seed in 1..=3 {
        let mut search = MultiSearch::new(MultiSearchOptions {
            iterations: 400,
            seed,
            ..MultiSearchOptions::default()
        });
        let turn = search.best_turn(&board.position, &rules);
        let capture = MultiAction::Capture {
            system: 1,
            ship: Piece::parse("g1").unwrap(),
            owner: 1,
        };
        assert!(turn.contains(&capture), "seed {seed}: {turn:?}");
        let mut after = board.clone();
        let played = after.play_actions(&rules, &turn).unwrap();
        assert_eq!(played.outcome, MultiOutcome::Win(Seats(1)));
    }
}

#[test]
fn the_search_returns_a_legal_setup() {
    let board = multi::parse("players=4 -/-/-/- 0").unwrap();
    let mut search = MultiSearch::new(MultiSearchOptions {
        iterations: 50,
        ..MultiSearchOptions::default()
    });
    let turn = search.best_turn(&board.position, &Rules::STANDARD);
    assert!(
        matches!(
            turn.as_slice(),
            [MultiAction::Plain(Action::Homeworld { .. })]
        ),
        "{turn:?}"
    );
    let mut after = board.clone();
    after.play_actions(&Rules::STANDARD, &turn).unwrap();
}

#[test]
fn a_three_player_match_runs_and_its_records_replay() {
    let dir = std::env::temp_dir().join(format!("supernova-multi-match-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let dir_text = dir.display().to_string();
    let output = common::supernova(&[
        "multi-match",
        "--player",
        "mcts",
        "--player",
        "random",
        "--player",
        "random",
        "--games",
        "2",
        "--iterations",
        "100",
        "--victory",
        "sinister",
        "--pgnout",
        &dir_text,
    ]);
    let text = common::text(&output);
    assert!(output.status.success(), "{text}");
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(
        lines[0].starts_with("Finished game 1 (mcts, random, random2): "),
        "{text}"
    );
    assert!(
        lines[1].starts_with("Finished game 2 (random, random2, mcts): "),
        "{text}"
    );
    assert!(lines[2].starts_with("Score after 2 games ("), "{text}");
    let mut records: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|entry| entry.unwrap().path().display().to_string())
        .collect();
    records.sort();
    assert_eq!(records.len(), 2);
    let mut arguments = vec!["replay"];
    arguments.extend(records.iter().map(String::as_str));
    let replay = common::supernova(&arguments);
    let replayed = common::text(&replay);
    assert!(
        replayed.ends_with("replayed 2 games: 2 legal, 0 illegal\n"),
        "{replayed}"
    );
    // A game the match decided is decided the same way on replay.
    for (line, record) in lines.iter().zip(&records) {
        let Some((_, rest)) = line.split_once("): ") else {
            continue;
        };
        let Some(winner) = rest
            .split_once(" {won on the board}")
            .map(|(winner, _)| winner)
        else {
            continue;
        };
        let replay_line = replayed
            .lines()
            .find(|replay_line| replay_line.starts_with(record.as_str()))
            .unwrap();
        assert!(
            replay_line.contains(&format!("({winner}) wins on the board")),
            "{line} / {replay_line}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_match_arguments_are_refused() {
    let output = common::supernova(&["multi-match", "--player", "mcts", "--player", "random"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("3 to 6"));
    let output = common::supernova(&[
        "multi-match",
        "--player",
        "mcts",
        "--player",
        "random",
        "--player",
        "wizard",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("wizard"));
}

#[test]
fn a_person_plays_against_two_searches_in_the_terminal() {
    let output = common::supernova_with_input(
        &[
            "multi-play",
            "--seat",
            "human",
            "--seat",
            "mcts",
            "--seat",
            "random",
            "--iterations",
            "50",
            "--victory",
            "sinister",
        ],
        b"homeworld r1 b3 g3\nboard\nbuild g1 Nowhere\nbuild g1 human_N\n",
    );
    let text = common::text(&output);
    assert!(output.status.success(), "{text}");
    assert!(text.contains("mcts_E (E) plays: Homeworld "), "{text}");
    assert!(text.contains("random_S (S) plays: Homeworld "), "{text}");
    assert!(
        text.contains("human_N (N)> players=3 human_N=r1b3:g3::/mcts_E="),
        "the board after the setups: {text}"
    );
    assert!(
        text.contains("error: action 1: 'Nowhere': expected a system name"),
        "{text}"
    );
    // The build was played: the engines moved again after it.
    assert_eq!(text.matches("mcts_E (E) plays: ").count(), 2, "{text}");
    // Good versus Evil needs secret alignments: refused.
    let output = common::supernova(&[
        "multi-play",
        "--seat",
        "human",
        "--seat",
        "mcts",
        "--seat",
        "mcts",
        "--victory",
        "good-evil",
    ]);
    assert_eq!(output.status.code(), Some(2));
}

#[test]
fn the_safety_check_sees_an_elimination_on_the_next_turn() {
    // B (1) to move has a G3 in A's (0) home, where A's red star lets it
    // capture: with one ship at home A is eliminated, with two it is not
    // (B has no red to sacrifice for a second capture, and no colour at
    // A's home reaches four pieces).
    let rules = Rules::STANDARD;
    let exposed = multi::parse("players=3 A=r1y3:b1:g3:/B=g2b1::y3:/C=g1b2:::y3 1").unwrap();
    assert!(turns::loses_next_turn(&exposed.position, &rules, 0, 3_000));
    assert!(!turns::loses_next_turn(&exposed.position, &rules, 2, 3_000));
    let covered = multi::parse("players=3 A=r1y3:b1b2:g3:/B=g2b1::y3:/C=g1b2:::y3 1").unwrap();
    assert!(!turns::loses_next_turn(&covered.position, &rules, 0, 3_000));
}

#[test]
fn greedy_takes_the_win_in_one_with_the_fewest_actions() {
    let board =
        multi::parse("players=3 A=r1y3:r3g3::/B=g2b1:r3:g1:/C=g1b2:::y3 0 victory=sinister")
            .unwrap();
    let turn = greedy_turn(&board.position, &Rules::SDG);
    assert_eq!(
        turn,
        vec![MultiAction::Capture {
            system: 1,
            ship: Piece::parse("g1").unwrap(),
            owner: 1,
        }]
    );
}

#[test]
fn hidden_alignments_are_dealt_consistently_with_what_is_known() {
    // Six players, three Evil (0, 3, 4); seat 4 is out, so its alignment
    // is revealed. Seat 0 searches: it knows it is Evil and that 4 is.
    let board = multi::parse(
        "players=6 a=r1y3:g3:::::/b=g2b1::g3::::/c=g1b2:::y3:::/d=y1b3::::g3::/x/f=y2b2::::::g3 0 victory=good-evil evil=034 out=4",
    )
    .unwrap();
    let mut random = SmallRng::seed_from_u64(9);
    let mut seen_three = false;
    for _ in 0..50 {
        let dealt = hidden::deal(&board.position, 0, &mut random);
        let Victory::GoodVersusEvil { evil } = dealt.victory() else {
            panic!("the victory condition stays Good versus Evil");
        };
        assert_eq!(evil.len(), 3, "{evil:?}");
        assert!(evil.contains(0) && evil.contains(4), "{evil:?}");
        seen_three |= evil.contains(3);
        assert_eq!(
            dealt.hash() == board.position.hash(),
            evil == Seats(0b11001)
        );
    }
    assert!(seen_three, "the third Evil seat is dealt among the unknown");
}

#[test]
fn a_greedy_match_against_the_search_runs_under_each_victory_condition() {
    for victory in ["last", "sinister", "good-evil"] {
        let output = common::supernova(&[
            "multi-match",
            "--player",
            "mcts",
            "--player",
            "greedy",
            "--player",
            "greedy",
            "--games",
            "1",
            "--iterations",
            "100",
            "--max-turns",
            "30",
            "--victory",
            victory,
        ]);
        let out = common::text(&output);
        assert!(output.status.success(), "{victory}: {out}");
        assert!(out.contains("Score after 1 games"), "{victory}: {out}");
    }
}
