//! Multi-player Homeworlds: the 47 real three- and four-player SDG records
//! replayed end to end through the binary, the victory conditions and
//! resignations on small inline games, a seeded random playout over thousands
//! of 3-to-6-player games (piece conservation, hash and notation round trips,
//! SDG records written and read back), and the two-player case checked against
//! the two-player position.

mod common;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use supernova::notation::multi::{self, MultiBoard};
use supernova::notation::sdg::Header;
use supernova::notation::turn::Style;
use supernova::record::multi::{record_turn, resignation_comment, victory_variants};
use supernova::record::{GameRecord, Verdict};
use supernova::rules::legality::PieceCounts;
use supernova::rules::multi::{MultiAction, MultiOutcome, MultiPosition, Seat, Seats, Victory};
use supernova::rules::{Action, ActionList, Outcome, Piece, Player, Position, Rules, TurnState};

/// What `supernova replay --rules sdg` says of each record in
/// `../shared/sdg-multi`: 27 games won on the board, each by the record's
/// `Winner:`, and 20 that end off the board (resignations, time-outs).
/// `positions/README.md` ("Multi-player rules") explains the replay.
const EXPECTED: [(&str, &str); 47] = [
    ("1044", "unfinished"),
    ("1184", "unfinished"),
    ("12240", "seat 0 (MadWuher) wins on the board"),
    ("13004", "unfinished"),
    ("13828", "unfinished"),
    ("13860", "seat 3 (PottyTroll) wins on the board"),
    ("14016", "unfinished"),
    ("1456", "unfinished"),
    ("15088", "unfinished"),
    ("15308", "seat 3 (zoltar) wins on the board"),
    ("1532", "seat 3 (Lexicon) wins on the board"),
    ("16636", "seat 1 (AdamBadura) wins on the board"),
    ("16664", "seat 1 (zoltar) wins on the board"),
    ("16852", "unfinished"),
    ("16972", "unfinished"),
    ("1708", "seat 0 (ts52) wins on the board"),
    ("17612", "seat 0 (zara2stra) wins on the board"),
    ("18136", "seat 0 (zoltar) wins on the board"),
    ("1940", "unfinished"),
    ("19836", "seat 0 (lorgar) wins on the board"),
    ("21016", "seat 0 (daselva) wins on the board"),
    ("21108", "unfinished"),
    ("21112", "seat 1 (jsb) wins on the board"),
    ("2136", "unfinished"),
    ("21932", "seat 2 (Uglyfoot) wins on the board"),
    ("23856", "unfinished"),
    ("24148", "unfinished"),
    ("24800", "unfinished"),
    ("30392", "seat 3 (Draw5PlayAll) wins on the board"),
    ("30436", "seat 0 (Felix) wins on the board"),
    ("3080", "seat 2 (jeep) wins on the board"),
    ("30932", "unfinished"),
    ("32620", "unfinished"),
    ("32752", "seat 1 (Trydnt) wins on the board"),
    ("33160", "seat 1 (wil) wins on the board"),
    ("33296", "seat 0 (wil) wins on the board"),
    ("36396", "seat 0 (capi3101) wins on the board"),
    ("4052", "unfinished"),
    ("4124", "seat 1 (antihero) wins on the board"),
    ("684", "unfinished"),
    ("7460", "unfinished"),
    ("7500", "seat 2 (Jesse) wins on the board"),
    ("7752", "seat 0 (mneme) wins on the board"),
    ("816", "seat 0 (MatrixFrog) wins on the board"),
    ("8484", "seat 2 (Uglyfoot) wins on the board"),
    ("8496", "seat 2 (Pensator) wins on the board"),
    ("936", "seat 2 (istari) wins on the board"),
];

#[test]
fn the_real_multi_player_records_replay_through_the_binary() {
    let Some(folder) = common::shared("sdg-multi", "multi-player records") else {
        return;
    };
    let mut files: Vec<String> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "raw"))
        .map(|path| path.display().to_string())
        .collect();
    files.sort();
    assert_eq!(files.len(), 47, "the folder holds the 47 records");
    let mut arguments = vec!["replay", "--rules", "sdg"];
    arguments.extend(files.iter().map(String::as_str));
    let output = common::supernova(&arguments);
    let text = common::text(&output);
    assert!(output.status.success(), "{text}");
    assert!(
        text.ends_with("replayed 47 games: 47 legal, 0 illegal\n"),
        "{text}"
    );
    for (game, verdict) in EXPECTED {
        let line = text
            .lines()
            .find(|line| line.contains(&format!("/{game}.raw: ")))
            .unwrap_or_else(|| panic!("no line for game {game}"));
        let said = line.split(".raw: ").nth(1).unwrap();
        assert!(said.starts_with(verdict), "game {game}: {line}");
        // A result on the board names the record's winner.
        if let Some(name) = verdict.split(['(', ')']).nth(1) {
            assert!(
                line.ends_with(&format!("(record: Winner {name})")),
                "{line}"
            );
        }
    }
}

const SINISTER_GAME: &str = "\
Homeworlds Online (SDG# 990001)
Variants: \"Sinister\"
Started: 2010.1.2, Ended: 2010.1.9
Participants: Bob (S), Alice (N), Carol (E)
Winner: Alice

1) Alice: Homeworld G2 Y1 R3

2) Carol: Homeworld B3 Y2 G3

3) Bob: Homeworld B3 Y3 G1

4) Alice: Build R1 Alice
";

/// Plays `texts` (one turn each, in turn order) on an empty map.
fn play(players: usize, victory: Victory, rules: &Rules, texts: &[&str]) -> MultiBoard {
    let mut board = MultiBoard::new(MultiPosition::start(players, victory).unwrap());
    for text in texts {
        board
            .play_turn_text(rules, text)
            .unwrap_or_else(|error| panic!("{text}: {error}"));
    }
    board
}

#[test]
fn three_players_share_a_bank_of_four_copies() {
    let rules = Rules::SDG;
    let board = play(
        3,
        Victory::LastManStanding,
        &rules,
        &["homeworld g3 g3 g3", "homeworld g3 y1 b3"],
    );
    // Four copies each: the first player's three g3 leave one.
    assert_eq!(board.position.bank().count(Piece::parse("g3").unwrap()), 0);
    assert_eq!(board.position.bank().len(), 48 - 6);
    let mut third = board.clone();
    let error = third
        .play_turn_text(&rules, "homeworld g3 y2 b2")
        .unwrap_err();
    assert!(error.to_string().contains("bank"), "{error}");
    // Seats move in order and then the first seat again.
    third.play_turn_text(&rules, "homeworld r2 y2 b2").unwrap();
    assert_eq!(third.position.side_to_move(), 0);
    assert_eq!(
        multi::write_board(&third),
        "players=3 Home0=g3g3:g3::/Home1=y1g3::b3:/Home2=r2y2:::b2 0"
    );
}

/// Three homes, then Alice (0) raids: the victims are Bob (1), whose home
/// has one small ship, and Carol (2).
fn raid(victory: Victory, capture_text: &str) -> (MultiBoard, Result<MultiOutcome, String>) {
    let rules = Rules::SDG;
    let mut board = multi::parse(&format!(
        "players=3 A=r1y3:r3g3::/B=g2b1:r3:g1:/C=g1b2:::y3 0 victory={}",
        match victory {
            Victory::Sinister => "sinister",
            Victory::GoodVersusEvil { .. } => "good-evil evil=0",
            Victory::LastManStanding => "last",
        }
    ))
    .unwrap();
    let result = board
        .play_turn_text(&rules, capture_text)
        .map(|turn| turn.outcome)
        .map_err(|error| error.to_string());
    (board, result)
}

#[test]
fn victory_conditions_decide_the_same_capture_differently() {
    // Alice captures Bob's only ship at home: Bob is eliminated.
    let (board, result) = raid(Victory::Sinister, "attack g1e B");
    assert_eq!(
        result,
        Ok(MultiOutcome::Win(Seats(1))),
        "Bob was her target"
    );
    assert_eq!(board.position.out(), Seats(0b010));
    let (board, result) = raid(Victory::LastManStanding, "attack g1e B");
    assert_eq!(result, Ok(MultiOutcome::Ongoing), "Carol still stands");
    assert_eq!(board.position.side_to_move(), 2, "Bob's turn is skipped");
    let (_, result) = raid(Victory::GoodVersusEvil { evil: Seats(1) }, "attack g1e B");
    assert_eq!(
        result,
        Ok(MultiOutcome::Win(Seats(1))),
        "an Evil player wins by eliminating anyone"
    );
    // The owner mark is needed only when the piece is ambiguous; a wrong
    // mark names nobody's ship.
    let (_, result) = raid(Victory::LastManStanding, "attack g1 B");
    assert_eq!(result, Ok(MultiOutcome::Ongoing));
    let (_, result) = raid(Victory::LastManStanding, "attack g1s B");
    assert!(result.unwrap_err().contains("no such enemy ship"));
}

#[test]
fn sinister_targets_move_on_and_good_wins_when_evil_is_gone() {
    let rules = Rules::SDG;
    // Carol (2) eliminates Bob (1), Alice's target: nobody wins, and
    // Alice's target becomes Carol.
    let mut position =
        multi::parse("players=3 A=r1y3:r3g3::/B=g2b1::g1:r3/C=g1b2:::y3 2 victory=sinister")
            .unwrap()
            .position;
    assert_eq!(position.next_in_game(0), Some(1));
    let capture = MultiAction::Capture {
        system: 1,
        ship: Piece::parse("g1").unwrap(),
        owner: 1,
    };
    position.try_apply(&rules, capture).unwrap();
    assert_eq!(position.end_turn(&rules), Ok(MultiOutcome::Ongoing));
    assert_eq!(position.next_in_game(0), Some(2));
    // Good versus Evil: Carol (Good) eliminates Bob, the only Evil player,
    // and the Good players left share the win.
    let mut position = multi::parse(
        "players=3 A=r1y3:r3g3::/B=g2b1::g1:r3/C=g1b2:::y3 2 victory=good-evil evil=1",
    )
    .unwrap()
    .position;
    position.try_apply(&rules, capture).unwrap();
    assert_eq!(
        position.end_turn(&rules),
        Ok(MultiOutcome::Win(Seats(0b101)))
    );
}

#[test]
fn self_elimination_and_mutual_elimination() {
    // Bob (1) moves his only home ship away: under sdg rules he is out and
    // the game goes on; under rules that forbid it the turn is illegal.
    let text = "players=3 A=r1y3:r3g3::/B=g2b3::y1:/C=g1b2:::y3/D=r1::g1: 1";
    let mut board = multi::parse(text).unwrap();
    let turn = board.play_turn_text(&Rules::SDG, "move y1 B D").unwrap();
    assert_eq!(turn.outcome, MultiOutcome::Ongoing);
    assert_eq!(board.position.out(), Seats(0b010));
    // Bob's empty home fades once he is out (SDG 13860).
    assert!(!board.position.system(1).exists());
    let mut board = multi::parse(text).unwrap();
    let error = board
        .play_turn_text(&Rules::CLI, "move y1 B D")
        .unwrap_err();
    assert!(error.to_string().contains("eliminate the mover"), "{error}");
    // The last two players eliminated together: a draw.
    let mut board = multi::parse("players=3 A=r1y3:y3::y3g3/x/C=y2:y1y1::r1 0 out=1").unwrap();
    let turn = board
        .play_turn_text(&Rules::SDG, "move y3 A C; catastrophe C yellow")
        .unwrap();
    assert_eq!(turn.outcome, MultiOutcome::Draw);
}

#[test]
fn resignations_and_skipped_turns_in_records() {
    let rules = Rules::SDG;
    // Carol resigns after turn 3; Bob eliminates Alice... the last two play
    // on. Here the record simply ends: unfinished.
    let mut text = SINISTER_GAME.to_string();
    text.push_str("\tSYSTEM: Carol resigns.\n\n5) Bob: Pass\n\n6) Alice: Pass\n");
    let record = GameRecord::parse_sdg(&text).unwrap();
    let report = record.replay(&rules);
    assert_eq!(report.verdict, Verdict::Unfinished, "{report}");
    let walk = record.walk_multi(&rules);
    assert_eq!(walk.board.position.resigned(), Seats(0b010));
    assert!(walk.skipped.is_empty());
    // A second resignation leaves one player: decided off the board.
    let mut text = text.clone();
    text.push_str("\tSYSTEM: Bob resigns.\n");
    let record = GameRecord::parse_sdg(&text).unwrap();
    let walk = record.walk_multi(&rules);
    assert_eq!(walk.board.position.outcome(), MultiOutcome::Win(Seats(1)));
    assert!(walk.board.position.decided_by_resignation());
    assert_eq!(record.replay(&rules).verdict, Verdict::Unfinished);
    // A turn after that is refused, saying why.
    let after = text.clone() + "\n7) Alice: Pass\n";
    let report = GameRecord::parse_sdg(&after).unwrap().replay(&rules);
    assert_eq!(
        report.to_string(),
        "illegal turn 7 \"Pass\": the game was already over (Alice had won by resignation) (record: Winner Alice)"
    );
    // A turn the record gives to a later player: the ones in between lose
    // their turn (SDG's turn order after an elimination was faulty).
    let skipping =
        SINISTER_GAME.to_string() + "\n5) Bob: Pass\n\n6) Alice: Pass\n\n7) Carol: Pass\n";
    let record = GameRecord::parse_sdg(&skipping).unwrap();
    let walk = record.walk_multi(&rules);
    assert!(walk.illegal.is_none(), "{:?}", walk.illegal);
    assert_eq!(walk.skipped, [(5, 2)]);
    assert!(walk.board.position.out().is_empty(), "Carol plays later");
    // A record naming an unknown resigning player is an error, not a panic.
    let bad = SINISTER_GAME.to_string() + "\tSYSTEM: Dave resigns.\n";
    let report = GameRecord::parse_sdg(&bad).unwrap().replay(&rules);
    assert!(matches!(report.verdict, Verdict::Illegal(_)), "{report}");
    // A variant that is not understood is skipped with its name.
    let odd = SINISTER_GAME.replace("Sinister", "Team play");
    let report = GameRecord::parse_sdg(&odd).unwrap().replay(&rules);
    assert!(
        matches!(&report.verdict, Verdict::Skipped(reason) if reason.contains("Team play")),
        "{report}"
    );
}

/// One system as text for comparing the two position types: its slot, its
/// stars and its two fleets.
fn system_text(
    slot: impl std::fmt::Display,
    stars: impl std::fmt::Display,
    first: impl std::fmt::Display,
    second: impl std::fmt::Display,
) -> String {
    format!("{slot}:{stars}:{first}:{second}")
}

/// The same map in both position types, written as text for comparison:
/// each system's stars and two fleets, sorted.
fn two_player_text(position: &Position) -> (Vec<String>, usize, Outcome) {
    let mut systems: Vec<String> = position
        .occupied_slots()
        .map(|slot| {
            let system = position.system(slot);
            system_text(slot, system.stars, system.ships[0], system.ships[1])
        })
        .collect();
    systems.sort();
    let outcome = position.outcome();
    let side = if outcome == Outcome::Ongoing {
        position.side_to_move().index()
    } else {
        9
    };
    (systems, side, outcome)
}

fn multi_as_two_player_text(position: &MultiPosition) -> (Vec<String>, usize, Outcome) {
    let mut systems: Vec<String> = position
        .occupied_slots()
        .map(|slot| {
            let system = position.system(slot);
            system_text(slot, system.stars, system.ships[0], system.ships[1])
        })
        .collect();
    systems.sort();
    let outcome = match position.outcome() {
        MultiOutcome::Ongoing => Outcome::Ongoing,
        MultiOutcome::Draw => Outcome::Draw,
        MultiOutcome::Win(seats) => {
            Outcome::Win(Player::BOTH[seats.iter().next().unwrap() as usize])
        }
    };
    let side = if outcome == Outcome::Ongoing {
        position.side_to_move() as usize
    } else {
        9
    };
    (systems, side, outcome)
}

fn to_multi(action: Action, mover: usize) -> MultiAction {
    match action {
        Action::Capture { system, ship } => MultiAction::Capture {
            system,
            ship,
            owner: 1 - mover as Seat,
        },
        other => MultiAction::Plain(other),
    }
}

#[test]
fn two_players_play_exactly_the_two_player_game() {
    let mut rng = SmallRng::seed_from_u64(10);
    let mut actions = ActionList::default();
    let mut multi_actions = Vec::new();
    for game in 0..150 {
        let rules = if game % 2 == 0 {
            Rules::SDG
        } else {
            Rules::STANDARD
        };
        let mut two = Position::start();
        let mut many = MultiPosition::start(2, Victory::LastManStanding).unwrap();
        for _ in 0..80 {
            if two.outcome() != Outcome::Ongoing && !two.in_setup() {
                break;
            }
            loop {
                two.legal_actions(&rules, &mut actions);
                many.legal_actions(&rules, &mut multi_actions);
                let mover = two.side_to_move().index();
                // The two generators agree on what is legal.
                for &action in actions.as_slice() {
                    assert!(
                        many.check(&rules, to_multi(action, mover)).is_ok(),
                        "{action:?}"
                    );
                }
                for &action in &multi_actions {
                    assert!(two.check(&rules, action.action()).is_ok(), "{action:?}");
                }
                let can_end = two.turn_state() != TurnState::Start || !two.in_setup();
                if actions.is_empty() || can_end && rng.random_bool(0.4) {
                    break;
                }
                let action = actions.as_slice()[rng.random_range(0..actions.len())];
                two.try_apply(&rules, action).unwrap();
                many.try_apply(&rules, to_multi(action, mover)).unwrap();
                // Mid-turn only the map compares: results come at the end.
                assert_eq!(two_player_text(&two).0, multi_as_two_player_text(&many).0);
            }
            let ended = (two.clone().end_turn(&rules), many.clone().end_turn(&rules));
            match ended {
                (Ok(_), Ok(_)) => {
                    two.end_turn(&rules).unwrap();
                    many.end_turn(&rules).unwrap();
                }
                (Err(a), Err(b)) => {
                    assert_eq!(a, b);
                    break;
                }
                other => panic!("the two positions disagree on ending the turn: {other:?}"),
            }
            let (two_text, many_text) = (two_player_text(&two), multi_as_two_player_text(&many));
            if two_text.2 == Outcome::Ongoing {
                assert_eq!(two_text, many_text);
            } else {
                // The loser's emptied home fades in the multi-player game
                // (its owner is out); the results agree.
                assert_eq!((two_text.1, two_text.2), (many_text.1, many_text.2));
            }
        }
    }
}

/// Counts every piece on the map by hand, independently of `bank()`.
fn pieces_on_map(position: &MultiPosition) -> [u32; 12] {
    let mut counts = [0; 12];
    for slot in position.occupied_slots() {
        let system = position.system(slot);
        for piece in system.stars.copies() {
            counts[piece.index()] += 1;
        }
        for fleet in &system.ships[..position.players()] {
            for piece in fleet.copies() {
                counts[piece.index()] += 1;
            }
        }
    }
    counts
}

fn check_invariants(board: &MultiBoard) {
    let position = &board.position;
    let map = pieces_on_map(position);
    let bank = position.bank();
    for piece in Piece::ALL {
        assert_eq!(
            map[piece.index()] + bank.count(piece),
            position.copies() as u32,
            "{piece} is conserved: {}",
            multi::write_board(board)
        );
    }
    for slot in position.occupied_slots() {
        let system = position.system(slot);
        if position.is_home(slot) {
            assert!(system.stars.len() <= 2);
        } else {
            assert_eq!(system.stars.len(), 1);
            assert!(!system.all_ships().is_empty(), "empty systems fade");
        }
    }
}

fn check_round_trips(board: &MultiBoard) {
    let text = multi::write_board(board);
    let again = multi::parse(&text).unwrap_or_else(|error| panic!("{text}: {error}"));
    assert_eq!(again.position, board.position, "{text}");
    assert_eq!(again.position.hash(), board.position.hash(), "{text}");
    assert_eq!(multi::write_board(&again), text);
    // The unnamed form is the same position with the other systems in a
    // new order: equal, with the same hash.
    let plain = multi::parse(&multi::write(&board.position, None)).unwrap();
    assert_eq!(plain.position, board.position);
    assert_eq!(plain.position.hash(), board.position.hash());
}

#[test]
fn random_games_of_three_to_six_players_keep_every_invariant() {
    let mut rng = SmallRng::seed_from_u64(2026);
    let mut list = Vec::new();
    let (mut finished, mut turns_played) = (0, 0);
    for game in 0..2000u64 {
        let players = 3 + (game % 4) as usize;
        let victory = match game % 3 {
            0 => Victory::LastManStanding,
            1 => Victory::Sinister,
            _ => {
                let mut evil = Seats::EMPTY;
                while evil.len() < players / 2 {
                    evil.insert(rng.random_range(0..players as Seat));
                }
                Victory::GoodVersusEvil { evil }
            }
        };
        let rules = if game % 5 == 4 {
            Rules::STANDARD
        } else {
            Rules::SDG
        };
        let names: Vec<String> = (0..players).map(|seat| format!("P{seat}")).collect();
        let mut board = MultiBoard::new(MultiPosition::start(players, victory).unwrap());
        for (seat, name) in names.iter().enumerate() {
            board.set_name(seat as Seat, name.as_str());
        }
        let mut header =
            Header::multi_player(game, &names.iter().map(String::as_str).collect::<Vec<_>>());
        header.variants = victory_variants(victory, players);
        let mut record = GameRecord {
            header,
            turns: Vec::new(),
        };
        let start = board.clone();
        for number in 1..=60u32 {
            if board.position.outcome() != MultiOutcome::Ongoing {
                finished += 1;
                break;
            }
            let before = board.clone();
            let mover = board.position.side_to_move();
            let mut actions = Vec::new();
            let mut names_given = Vec::new();
            loop {
                board.position.legal_actions(&rules, &mut list);
                let state = board.position.turn_state();
                let can_end = state != TurnState::Start || board.position.created().contains(mover);
                if list.is_empty() || can_end && rng.random_bool(0.35) {
                    break;
                }
                // Prefer real actions over passes so that games go somewhere.
                let action = list[rng.random_range(0..list.len())];
                let name = matches!(action, MultiAction::Plain(Action::Discover { .. }))
                    .then(|| format!("S{number}x{}", actions.len()));
                board.apply(&rules, action, name.as_deref()).unwrap();
                actions.push(action);
                names_given.push(name);
                check_invariants(&board);
            }
            let mut ended = board.clone();
            if ended.position.end_turn(&rules).is_err() {
                // The rules forbid this self-elimination: pass instead.
                board = before.clone();
                actions = vec![MultiAction::Plain(Action::Pass)];
                names_given = vec![None];
                ended = board.clone();
                ended.position.apply_unchecked(&rules, actions[0]);
                ended.position.end_turn(&rules).unwrap();
            }
            board = ended;
            turns_played += 1;
            check_invariants(&board);
            check_round_trips(&board);
            // The turn's text plays back to the same position, in both forms.
            for style in [Style::Token, Style::Sdg] {
                let text = multi::format_turn(&before, &rules, &actions, &names_given, style);
                let mut replayed = before.clone();
                replayed
                    .play_turn_text(&rules, &text)
                    .unwrap_or_else(|error| panic!("{text}: {error}"));
                assert_eq!(replayed.position, board.position, "{text}");
            }
            let mut turn = record_turn(
                number,
                &names[mover as usize],
                &before,
                &rules,
                &actions,
                &names_given,
            )
            .unwrap();
            // Now and then a player still in the game resigns.
            if board.position.outcome() == MultiOutcome::Ongoing && rng.random_bool(0.02) {
                let in_game: Vec<Seat> = board.position.in_game().iter().collect();
                let seat = in_game[rng.random_range(0..in_game.len())];
                board.position.resign(seat).unwrap();
                turn.comments
                    .push(resignation_comment(&names[seat as usize]));
                check_round_trips(&board);
            }
            record.turns.push(turn);
        }
        // The record this game wrote reads back and replays to the same end.
        let text = record.to_sdg();
        let read = GameRecord::parse_sdg(&text).unwrap_or_else(|error| panic!("{error}\n{text}"));
        let walk = read.walk_multi(&rules);
        assert!(walk.illegal.is_none(), "{:?}\n{text}", walk.illegal);
        assert!(walk.skipped.is_empty());
        assert_eq!(walk.board.position, board.position, "{text}");
        assert_eq!(walk.board.position.outcome(), board.position.outcome());
        assert_ne!(start.position, board.position);
    }
    assert!(
        finished > 100,
        "{finished} games ended: the playout reaches the end game"
    );
    assert!(turns_played > 25_000, "{turns_played} turns");
}

#[test]
fn junk_text_is_an_error_never_a_panic() {
    let mut rng = SmallRng::seed_from_u64(7);
    let alphabet: Vec<char> = "players=3456 rygb123:/-x=_ 0turnvictorysinisteroutby.;,é\tEWNS"
        .chars()
        .collect();
    let board = multi::parse("players=3 A=r1y3:r3g3::/B=g2b1:r3:g1:/C=g1b2:::y3 0").unwrap();
    for _ in 0..20_000 {
        let length = rng.random_range(0..40);
        let text: String = (0..length)
            .map(|_| alphabet[rng.random_range(0..alphabet.len())])
            .collect();
        let _ = multi::parse(&text);
        let _ = multi::parse(&format!("players=3 {text}"));
        let _ = board.clone().play_turn_text(&Rules::SDG, &text);
        let record = format!(
            "Homeworlds Online (SDG# 1)\nStarted: 1\nParticipants: A (N), B (E), C (S)\nWinner: A\n\n1) A: {text}\n"
        );
        if let Ok(record) = GameRecord::parse_sdg(&record) {
            let _ = record.replay(&Rules::SDG);
        }
    }
    // Seat marks and counts out of range are refused with a reason.
    assert!(multi::parse("players=3 -/-/- 3").is_err());
    assert!(multi::parse("players=3 -/-/- 0 out=7").is_err());
    assert!(multi::parse("players=3 r1r1r1r1r1:::/-/- 0").is_err());
}

#[test]
fn show_prints_a_multi_player_position() {
    // An inline record, always available.
    let dir = std::env::temp_dir().join(format!("supernova-multi-show-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("sinister.sdg");
    std::fs::write(&path, SINISTER_GAME).unwrap();
    let path_text = path.display().to_string();
    let output = common::supernova(&[
        "show", "--rules", "sdg", "--game", &path_text, "--turn", "5",
    ]);
    assert!(output.status.success(), "{output:?}");
    assert_eq!(
        common::text(&output),
        "players=3 Alice=y1g2:r1r3::/Carol=y2b3::g3:/Bob=y3b3:::g1 1 victory=sinister\n"
    );
    let output = common::supernova(&[
        "show", "--rules", "sdg", "--game", &path_text, "--turn", "9",
    ]);
    assert_eq!(output.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&output.stderr).contains("out of range"));
    let _ = std::fs::remove_dir_all(&dir);
    // A real record, when the archive is there.
    let Some(folder) = common::shared("sdg-multi", "multi-player show") else {
        return;
    };
    let game = folder.join("684.raw").display().to_string();
    let output = common::supernova(&["show", "--rules", "sdg", "--game", &game, "--turn", "20"]);
    assert_eq!(
        common::text(&output),
        "players=4 zevzimra=g2b3:y3g1g1g2:::/rootbeer=y3b1::g2g3::/Aaron=r1y2:::g2g3:/istari=r3b3::::g1g3/Waves=b3:::g1g3:/Switzerland=y2::g1g2:: 3 victory=sinister\n"
    );
}

/// Every victory name reads back as the condition it names, and any other
/// word is refused with the accepted names in the message.
#[test]
fn victory_names_read_back() {
    use supernova::rules::multi::{Seats, Victory};
    for victory in [
        Victory::LastManStanding,
        Victory::Sinister,
        Victory::GoodVersusEvil { evil: Seats::EMPTY },
    ] {
        assert_eq!(Victory::from_word(victory.word()), Ok(victory));
    }
    let error = Victory::from_word("Sinister").unwrap_err();
    assert!(error.contains("last, sinister or good-evil"), "{error}");
    assert!(Victory::from_word("").is_err());
}
