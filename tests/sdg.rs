//! SuperDuperGames records: the reader and writer on small inline
//! transcripts (always run), robustness against garbled input, and the
//! `replay` and `show` commands end to end, over the real archive in
//! `../shared/sdg` when it is present.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use supernova::notation::sdg::{parse_record, write_record, Header, RecordTurn};
use supernova::notation::turn::{format_turn, Style};
use supernova::notation::{hwpn, Board};
use supernova::record::{GameRecord, ReplayError, ShowError, Verdict};
use supernova::rules::{Action, Outcome, Player, Rules};

/// A short game with most of the format's quirks: a variant, abbreviated and
/// lower-case keywords, junk after pieces, an owner suffix on an attack, a
/// Gemini home confirmed with `*`, a one-line turn, tab comments that run on
/// (including a numbered list), a home named in another case.
const SHORT_GAME: &str = "\
Homeworlds Online (SDG# 424242)
Variants: \"Unrated, Hard time\"
Started: 2010.1.2, Ended: 2010.1.9
Participants: Bob (S), Alice (N)
Winner: Alice

1) Alice: Homeworld G2 Y1 R3
\tBob: Good luck!
1) this numbered line is part of the comment
and so is this one

2) Bob: Hom B3 Y3 G1 *

3) Alice: B R1! alice

4) Bob: Build G1 Bob

5) Alice: m R3 ALICE Bob

6) Bob: Sacrifice G1 Bob; Build G1 Bob

7) Alice: A G1S Bob

8) Bob: P

9) Alice:
attack G1 Bob n
";

/// The position before turn 7 of [`SHORT_GAME`].
const SHORT_GAME_TURN_7: &str = "Alice=y1g2:r1:/Bob=y3b3:r3:g1g1 0";

fn sdg_rules() -> Rules {
    "sdg".parse().unwrap()
}

fn short_game() -> GameRecord {
    GameRecord::parse_sdg(SHORT_GAME).unwrap()
}

/// Replaces turn `number`'s line(s) in [`SHORT_GAME`] and returns the record.
fn with_turn(number: u32, replacement: &str) -> GameRecord {
    let mut record = short_game();
    let index = number as usize - 1;
    let player = record.turns[index].player.clone();
    record.turns[index] = RecordTurn::from_text(number, &player, replacement).unwrap();
    GameRecord::parse_sdg(&record.to_sdg()).unwrap()
}

#[test]
fn header_and_turns_are_read() {
    let record = short_game();
    let header = &record.header;
    assert_eq!(header.game_number, 424242);
    assert_eq!(header.variants, ["Unrated", "Hard time"]);
    assert_eq!(header.started, "2010.1.2");
    assert_eq!(header.ended, "2010.1.9");
    assert_eq!(header.player_name(Player::First), Some("Alice"));
    assert_eq!(header.player_name(Player::Second), Some("Bob"));
    assert_eq!(header.player_of("alice"), Some(Player::First));
    assert_eq!(header.winner.as_deref(), Some("Alice"));
    assert_eq!(record.turns.len(), 9);
    assert_eq!(record.turns[0].comments.len(), 3);
    assert_eq!(
        record.turns[5].text(),
        "Sacrifice G1 Bob; Build G1 Bob",
        "the one-line form splits into steps"
    );
    assert_eq!(record.turns[5].steps.len(), 2);
    assert_eq!(record.turns[8].steps[0].text, "attack G1 Bob n");
    assert_eq!(record.turns[8].steps[0].line, Some(27));
    assert_eq!(record.turns[8].line, Some(26));
}

#[test]
fn a_short_game_is_won_on_the_board() {
    let report = short_game().replay(&sdg_rules());
    assert_eq!(
        report.verdict,
        Verdict::Win {
            player: Player::First,
            name: "Alice".to_string()
        }
    );
    assert_eq!(report.agrees_with_record(), Some(true));
    assert_eq!(
        report.to_string(),
        "player 0 (Alice) wins on the board (record: Winner Alice)"
    );
    // A one-star home (`-`), an SDG handicap, plays the same way.
    let one_star = with_turn(2, "Homeworld B3 - G1");
    let walk = one_star.walk(&sdg_rules());
    assert_eq!(
        walk.outcome,
        Outcome::Win(Player::First),
        "{:?}",
        walk.illegal
    );
    assert_eq!(
        hwpn::write_board(&walk.turns[2].board),
        "Alice=y1g2:r3:/Bob=b3::g1 0"
    );
    // The standard rules want a Large starting ship.
    let report = short_game().replay(&Rules::STANDARD);
    let Verdict::Illegal(turn) = report.verdict else {
        panic!("standard rules accepted a small starting ship: {report}");
    };
    assert_eq!(turn.number, 2);
    assert_eq!(turn.text, "Hom B3 Y3 G1 *");
}

#[test]
fn walk_gives_the_board_before_each_turn() {
    let rules = sdg_rules();
    let record = short_game();
    let walk = record.walk(&rules);
    assert!(walk.illegal.is_none());
    assert_eq!(walk.turns.len(), 9);
    for (index, turn) in walk.turns.iter().enumerate() {
        assert_eq!(turn.number, index as u32 + 1);
        let mover = if index % 2 == 0 {
            Player::First
        } else {
            Player::Second
        };
        assert_eq!(turn.mover, mover);
        assert_eq!(turn.board.position.side_to_move(), mover);
        // Replaying the resolved actions from the board before gives the
        // board before the next turn.
        let mut board = turn.board.clone();
        let outcome = board.play_actions(&rules, &turn.actions).unwrap();
        assert_eq!(outcome, turn.outcome);
        let next = walk
            .turns
            .get(index + 1)
            .map_or(&walk.board.position, |next| &next.board.position);
        assert_eq!(&board.position, next);
    }
    assert_eq!(walk.outcome, Outcome::Win(Player::First));
    assert_eq!(
        hwpn::write_board(&walk.turns[6].board),
        SHORT_GAME_TURN_7,
        "homes are named after their players"
    );
    let board = record.board_before(&rules, 7).unwrap();
    assert_eq!(hwpn::write_board(&board), SHORT_GAME_TURN_7);
    assert_eq!(
        record.board_before(&rules, 10).unwrap().position,
        walk.board.position
    );
    assert_eq!(
        record.board_before(&rules, 11),
        Err(ShowError::OutOfRange {
            number: 11,
            last: 10
        })
    );
    assert!(matches!(
        record.board_before(&rules, 0),
        Err(ShowError::OutOfRange { .. })
    ));
}

#[test]
fn illegal_turns_are_reported_with_the_reason() {
    let rules = sdg_rules();
    // A pass during setup: the standard rules refuse it (R3.2).
    let record = with_turn(1, "Pass");
    let Verdict::Illegal(turn) = record.replay(&Rules::STANDARD).verdict else {
        panic!("a setup pass was accepted");
    };
    assert_eq!((turn.number, turn.text.as_str()), (1, "Pass"));
    assert_eq!(
        turn.reason.to_string(),
        "action 1 'Pass' is illegal: a setup turn must create a homeworld and do nothing else (R3.2)"
    );
    // SDG's bug: a setup pass after the other player has created, which
    // no profile accepts.
    let record = with_turn(2, "Pass");
    let Verdict::Illegal(turn) = record.replay(&rules).verdict else {
        panic!("a late setup pass was accepted");
    };
    assert_eq!((turn.number, turn.text.as_str()), (2, "Pass"));
    assert_eq!(
        turn.reason.to_string(),
        "action 1 'Pass' is illegal: a setup turn may be passed only while neither homeworld exists (R3.7): the other player has created theirs"
    );
    // Building the wrong size names the step.
    let Verdict::Illegal(turn) = with_turn(3, "Build R2 Alice").replay(&rules).verdict else {
        panic!("a wrong build size was accepted");
    };
    assert_eq!(turn.number, 3);
    assert!(
        turn.reason.to_string().contains("'Build R2 Alice'"),
        "{}",
        turn.reason
    );
    // An unknown system name.
    let Verdict::Illegal(turn) = with_turn(5, "Move R3 Alice Nowhere").replay(&rules).verdict
    else {
        panic!("an unknown system was accepted");
    };
    assert!(
        turn.reason.to_string().contains("Nowhere"),
        "{}",
        turn.reason
    );
    // A turn after the game is over on the board.
    let mut record = short_game();
    record
        .turns
        .push(RecordTurn::from_text(10, "Bob", "Pass").unwrap());
    let Verdict::Illegal(turn) = record.replay(&rules).verdict else {
        panic!("a turn after the end was accepted");
    };
    assert_eq!(turn.number, 10);
    assert!(matches!(turn.reason, ReplayError::GameOver(_)));
    // The wrong player moving.
    let mut record = short_game();
    record.turns[3].player = "Alice".to_string();
    let Verdict::Illegal(turn) = record.replay(&rules).verdict else {
        panic!("the wrong mover was accepted");
    };
    assert_eq!(turn.number, 4);
    assert!(matches!(turn.reason, ReplayError::WrongMover { .. }));
}

/// [`SHORT_GAME`] with a setup pass first, as in SDG game 9340: Alice (N)
/// passes, so Bob creates first and also moves first; the seats stay.
const PASSED_SETUP: &str = "\
Homeworlds Online (SDG# 424243)
Started: 2010.1.2, Ended: 2010.1.9
Participants: Bob (S), Alice (N)
Winner: Bob

1) Alice: Pass
\tAlice: go ahead, you set up first

2) Bob: Homeworld B3 Y3 G3

3) Alice: Homeworld G2 Y1 R3

4) Bob: Build G1 Bob

5) Alice: Pass

6) Bob: Build G1 Bob

7) Alice: Pass

8) Bob: Trade G1 R1 Bob

9) Alice: Pass

10) Bob: Move G3 Bob Alice

11) Alice: Pass

12) Bob: Sacrifice R1 Bob; Attack R3 Alice
";

#[test]
fn a_setup_pass_lets_the_other_player_create_and_move_first() {
    let rules = sdg_rules();
    let record = GameRecord::parse_sdg(PASSED_SETUP).unwrap();
    let walk = record.walk(&rules);
    assert!(walk.illegal.is_none(), "{:?}", walk.illegal);
    let movers: Vec<Player> = walk.turns.iter().map(|turn| turn.mover).collect();
    assert_eq!(
        movers[..4],
        [Player::First, Player::Second, Player::First, Player::Second]
    );
    // Seats do not change: Bob (player 1) creates first, in home slot 1.
    assert_eq!(hwpn::write_board(&walk.turns[1].board), "-/- 1");
    assert_eq!(hwpn::write_board(&walk.turns[2].board), "-/Bob=y3b3::g3 0");
    assert_eq!(
        hwpn::write_board(&walk.turns[3].board),
        "Alice=y1g2:r3:/Bob=y3b3::g3 1",
        "the first to create moves first"
    );
    let report = record.replay(&rules);
    assert_eq!(
        report.verdict,
        Verdict::Win {
            player: Player::Second,
            name: "Bob".to_string()
        }
    );
    assert_eq!(report.agrees_with_record(), Some(true));
    // The standard rules stop at the pass.
    let Verdict::Illegal(turn) = record.replay(&Rules::STANDARD).verdict else {
        panic!("the standard rules accepted a setup pass");
    };
    assert_eq!(turn.number, 1);
}

#[test]
fn unfinished_and_skipped_games() {
    let rules = sdg_rules();
    let mut record = short_game();
    record.turns.truncate(6);
    let report = record.replay(&rules);
    assert_eq!(report.verdict, Verdict::Unfinished);
    assert_eq!(report.agrees_with_record(), None);
    assert_eq!(report.to_string(), "unfinished (record: Winner Alice)");

    let sinister = SHORT_GAME.replace("Unrated, Hard time", "Sinister");
    let report = GameRecord::parse_sdg(&sinister).unwrap().replay(&rules);
    assert!(
        matches!(&report.verdict, Verdict::Skipped(reason) if reason.contains("Sinister")),
        "{report}"
    );
    // A third player goes to the multi-player replay (tests/multi.rs):
    // Carol (E) never moves, so she left the game when the record first
    // skipped her, and Alice wins on the board as before.
    let three = SHORT_GAME.replace("Bob (S), Alice (N)", "Bob (S), Alice (N), Carol (E)");
    let report = GameRecord::parse_sdg(&three).unwrap().replay(&rules);
    assert!(
        matches!(&report.verdict, Verdict::MultiWin { names, .. } if names == &["Alice"]),
        "{report}"
    );
}

#[test]
fn the_site_ignored_extra_words() {
    let rules = sdg_rules();
    // A discovery name with a space keeps its first word, as on the site.
    let record = with_turn(5, "Discover R3 Alice B3 New Zed");
    let walk = record.walk(&rules);
    assert!(walk.turns.len() > 5, "{:?}", walk.illegal);
    assert!(walk.turns[5].board.slot("new").is_ok());
    // `Pass Catastrophe X G` was only a pass.
    let record = with_turn(4, "Pass Catastrophe Bob G");
    assert_eq!(record.walk(&rules).turns[3].actions, [Action::Pass]);
}

#[test]
fn parse_errors_name_the_line_and_token() {
    let cases = [
        ("Homeworlds Online (SDG# 424242)", "Homeworlds Offline", 1),
        ("Started: 2010.1.2", "Begun: 2010.1.2", 3),
        ("Bob (S), Alice (N)", "Bob (Q), Alice (N)", 4),
        ("4) Bob: Build G1 Bob", "4) Bob: Bild G1 Bob", 16),
        ("5) Alice: m R3 ALICE Bob", "5) Alice: m Q3 ALICE Bob", 18),
        ("6) Bob:", "7) Bob:", 20),
        ("2) Bob: Hom", "3) Bob: Hom", 12),
    ];
    for (from, to, line) in cases {
        let text = SHORT_GAME.replace(from, to);
        let error = GameRecord::parse_sdg(&text).unwrap_err();
        assert_eq!(error.line, Some(line), "{to}: {error}");
        assert!(!error.expected.is_empty());
        assert!(
            error.to_string().starts_with(&format!("line {line}: '")),
            "{error}"
        );
    }
    let error = GameRecord::parse_sdg("").unwrap_err();
    assert_eq!(error.line, Some(1));
}

/// A game played by the engine, saved with the writer and read back.
#[test]
fn writer_round_trip_gives_back_the_same_game() {
    let rules = sdg_rules();
    let mut board = Board::default();
    let mut header = Header::two_player(7, "Engine", "Other");
    header.started = "2025.1.1".into();
    header.ended = "2025.1.2".into();
    let mut turns = Vec::new();
    let mut positions = Vec::new();
    // Setup turns, then the first legal turn each time, with a rotating
    // choice so that discoveries, sacrifices and catastrophes come up.
    let setups = [
        vec![Action::Homeworld {
            star: supernova::rules::Piece::parse("g2").unwrap(),
            second_star: supernova::rules::Piece::parse("y1"),
            ship: supernova::rules::Piece::parse("r3").unwrap(),
        }],
        vec![Action::Homeworld {
            star: supernova::rules::Piece::parse("b3").unwrap(),
            second_star: supernova::rules::Piece::parse("y2"),
            ship: supernova::rules::Piece::parse("g3").unwrap(),
        }],
    ];
    for number in 1..=40u32 {
        let actions = match setups.get(number as usize - 1) {
            Some(actions) => actions.clone(),
            None => {
                let legal = board.position.legal_turns(&rules);
                let ongoing: Vec<_> = legal
                    .iter()
                    .filter(|turn| turn.outcome == Outcome::Ongoing)
                    .collect();
                let Some(turn) = ongoing.get((number as usize * 7919) % ongoing.len().max(1))
                else {
                    break;
                };
                turn.actions.clone()
            }
        };
        let mover = board.position.side_to_move();
        let text = format_turn(&board, &rules, &actions, Style::Sdg);
        let name = header.player_name(mover).unwrap().to_string();
        turns.push(RecordTurn::from_text(number, &name, &text).unwrap());
        board.play_actions(&rules, &actions).unwrap();
        if number <= 2 {
            board.names.set(mover.index() as u8, name);
        }
        positions.push(board.position);
    }
    let text = write_record(&header, &turns);
    let record = GameRecord::parse_sdg(&text).unwrap();
    assert_eq!(record.header, header);
    assert_eq!(record.turns.len(), turns.len());
    let walk = record.walk(&rules);
    assert!(walk.illegal.is_none(), "{:?}\n{text}", walk.illegal);
    let replayed: Vec<_> = walk
        .turns
        .iter()
        .skip(1)
        .map(|turn| turn.board.position)
        .chain([walk.board.position])
        .collect();
    assert_eq!(replayed, positions);
    // And the written text is stable.
    assert_eq!(record.to_sdg(), text);
}

/// Every line of every input must give a result or an error, never a panic.
#[test]
fn garbled_input_never_panics() {
    let rules = sdg_rules();
    let exercise = |text: &str| {
        if let Ok(record) = GameRecord::parse_sdg(text) {
            let report = record.replay(&rules);
            let _ = report.to_string();
            let _ = record.to_sdg();
            let last = record.turns.len() as u32 + 1;
            if let Ok(board) = record.board_before(&rules, last / 2 + 1) {
                let _ = hwpn::write_board(&board);
            }
        }
    };
    let mut rng = SmallRng::seed_from_u64(20250101);
    let mut sources = vec![SHORT_GAME.to_string()];
    if let Some(directory) = common::shared("sdg", "garbled_input_never_panics (real files)") {
        let mut files = archive_files(&directory);
        files.retain(|_| rng.random_range(0..30) == 0);
        sources.extend(files.iter().map(|path| read_lossy(path)));
    }
    for source in &sources {
        let bytes = source.as_bytes();
        for _ in 0..12 {
            let cut = rng.random_range(0..=bytes.len());
            exercise(&String::from_utf8_lossy(&bytes[..cut]));
        }
        for _ in 0..12 {
            let mut garbled = bytes.to_vec();
            for _ in 0..rng.random_range(1..8) {
                let index = rng.random_range(0..garbled.len());
                garbled[index] = match rng.random_range(0..4) {
                    0 => rng.random(),
                    1 => b"\t\n;*-() 0123RYGBrygb"[rng.random_range(0..20)],
                    2 => 0xC3,
                    _ => b' ',
                };
            }
            exercise(&String::from_utf8_lossy(&garbled));
        }
        let mut lines: Vec<&str> = source.lines().collect();
        for _ in 0..6 {
            if lines.len() > 1 {
                let from = rng.random_range(0..lines.len());
                let to = rng.random_range(0..lines.len());
                lines.swap(from, to);
                let drop = rng.random_range(0..lines.len());
                lines.remove(drop);
            }
            exercise(&lines.join("\n"));
        }
    }
    // Token soup: a valid header and setup, then random commands made of
    // SDG words, pieces (some with junk) and names, so that the replay
    // itself meets nonsense.
    let verbs = [
        "Homeworld",
        "H",
        "Build",
        "B",
        "Trade",
        "T",
        "Move",
        "M",
        "Discover",
        "D",
        "Attack",
        "A",
        "Sacrifice",
        "S",
        "Catastrophe",
        "C",
        "Pass",
        "P",
        "fly",
        "\t",
        "2) Bob:",
    ];
    let arguments = [
        "G1", "G2", "G3", "Y1", "Y2!", "R3*", "B1N", "b3", "r2", "g9", "é", "Alice", "Bob",
        "alice", "Delos", "Zed", "-", "*", "n", "Green", "red", ";",
    ];
    let header = SHORT_GAME.split("\n\n").next().unwrap();
    for _ in 0..300 {
        let mut text = format!("{header}\n\n1) Alice: Homeworld G2 Y1 R3\n\n2) Bob: H B3 Y3 G3\n");
        for number in 3..rng.random_range(3..30) {
            let player = if number % 2 == 1 { "Alice" } else { "Bob" };
            text.push_str(&format!("\n{number}) {player}:"));
            for step in 0..rng.random_range(1..4) {
                text.push_str(if step == 0 { " " } else { "\n" });
                text.push_str(verbs[rng.random_range(0..verbs.len())]);
                for _ in 0..rng.random_range(0..5) {
                    text.push(' ');
                    text.push_str(arguments[rng.random_range(0..arguments.len())]);
                }
            }
            text.push('\n');
        }
        exercise(&text);
    }
    for _ in 0..300 {
        let length = rng.random_range(0..400);
        let bytes: Vec<u8> = (0..length).map(|_| rng.random()).collect();
        exercise(&String::from_utf8_lossy(&bytes));
        exercise(&format!("{header}\n\n{}", String::from_utf8_lossy(&bytes)));
    }
}

fn archive_files(directory: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(directory)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "raw"))
        .collect();
    files.sort();
    files
}

fn read_lossy(path: &Path) -> String {
    String::from_utf8_lossy(&std::fs::read(path).unwrap()).into_owned()
}

fn game_number(path: &str) -> u64 {
    Path::new(path.trim())
        .file_stem()
        .and_then(|stem| stem.to_str())
        .and_then(|stem| stem.parse().ok())
        .unwrap_or_else(|| panic!("not a game file: {path}"))
}

#[test]
fn real_records_survive_write_and_read() {
    let Some(directory) = common::shared("sdg", "real_records_survive_write_and_read") else {
        return;
    };
    for path in archive_files(&directory) {
        let text = read_lossy(&path);
        let (header, turns) =
            parse_record(&text).unwrap_or_else(|error| panic!("{}: {error}", path.display()));
        let written = write_record(&header, &turns);
        let (header_again, turns_again) = parse_record(&written).unwrap();
        assert_eq!(header, header_again, "{}", path.display());
        assert_eq!(turns.len(), turns_again.len(), "{}", path.display());
        for (turn, again) in turns.iter().zip(&turns_again) {
            assert_eq!(turn.number, again.number, "{}", path.display());
            assert_eq!(turn.player, again.player, "{}", path.display());
            assert_eq!(turn.text(), again.text(), "{}", path.display());
            let actions: Vec<_> = turn.steps.iter().map(|step| &step.action).collect();
            let actions_again: Vec<_> = again.steps.iter().map(|step| &step.action).collect();
            assert_eq!(actions, actions_again, "{}", path.display());
            assert_eq!(turn.comments, again.comments, "{}", path.display());
        }
    }
}

/// Runs the built binary.
fn supernova(arguments: &[&str]) -> Output {
    Command::new(common::binary())
        .args(arguments)
        .output()
        .expect("the supernova binary runs")
}

/// The rejected games listed in positions/sdg-rejects.md: game -> turn.
fn listed_rejects() -> BTreeMap<u64, u32> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("positions/sdg-rejects.md");
    let text = std::fs::read_to_string(path).unwrap();
    text.lines()
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let game = cells.get(1)?.parse().ok()?;
            let turn = cells.get(2)?.parse().ok()?;
            Some((game, turn))
        })
        .collect()
}

#[test]
fn replay_of_the_archive_rejects_exactly_the_listed_games() {
    let Some(directory) = common::shared(
        "sdg",
        "replay_of_the_archive_rejects_exactly_the_listed_games",
    ) else {
        return;
    };
    let files = archive_files(&directory);
    let mut arguments = vec!["replay".to_string(), "--rules".into(), "sdg".into()];
    arguments.extend(files.iter().map(|path| path.display().to_string()));
    let arguments: Vec<&str> = arguments.iter().map(String::as_str).collect();
    let output = supernova(&arguments);
    let stdout = String::from_utf8(output.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();
    let mut rejected = BTreeMap::new();
    let mut judged = 0;
    let mut unfinished = 0;
    for line in &lines[..lines.len() - 1] {
        let (file, verdict) = line.split_once(".raw: ").expect("FILE: verdict");
        let game = game_number(&format!("{file}.raw"));
        if let Some(rest) = verdict.strip_prefix("illegal turn ") {
            let turn: u32 = rest.split(' ').next().unwrap().parse().unwrap();
            rejected.insert(game, turn);
        } else if let Some((winner, record)) =
            verdict.split_once(" wins on the board (record: Winner ")
        {
            judged += 1;
            let name = winner
                .split_once('(')
                .and_then(|(_, name)| name.strip_suffix(')'))
                .unwrap();
            let record = record.strip_suffix(')').unwrap();
            assert!(
                name.eq_ignore_ascii_case(record),
                "{line}: the board and the record disagree"
            );
        } else if verdict.starts_with("unfinished (record: Winner ") {
            unfinished += 1;
        } else {
            panic!("unexpected line: {line}");
        }
    }
    assert_eq!(
        rejected,
        listed_rejects(),
        "positions/sdg-rejects.md is out of date"
    );
    // Every record SDG accepted replays, setup passes included:
    // only SDG's real bugs are rejected, and every game decided on the
    // board names the record's winner (checked line by line above).
    assert!(
        rejected.len() <= 4,
        "{} archive games rejected: {rejected:?}",
        rejected.len()
    );
    assert!(judged >= 379, "only {judged} games decided on the board");
    assert_eq!(judged + unfinished + rejected.len(), files.len());
    assert_eq!(
        lines.last().copied(),
        Some(
            format!(
                "replayed {} games: {} legal, {} illegal",
                files.len(),
                judged + unfinished,
                rejected.len()
            )
            .as_str()
        )
    );
    let expected_status = if rejected.is_empty() { 0 } else { 1 };
    assert_eq!(output.status.code(), Some(expected_status));
}

fn temporary_file(name: &str, text: &str) -> PathBuf {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn replay_command_reports_and_sets_the_exit_status() {
    let good = temporary_file("sdg-good.raw", SHORT_GAME);
    let good = good.to_str().unwrap();
    let output = supernova(&["replay", "--rules", "sdg", good]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert_eq!(
        stdout,
        format!(
            "{good}: player 0 (Alice) wins on the board (record: Winner Alice)\n\
             replayed 1 games: 1 legal, 0 illegal\n"
        )
    );
    assert_eq!(output.status.code(), Some(0));

    // The default rules are the standard ones, which reject the small ship.
    let output = supernova(&["replay", good]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout.contains(": illegal turn 2 \"Hom B3 Y3 G1 *\": action 1 'Hom B3 Y3 G1 *' is illegal: the starting ship must be Large (R3.3)"),
        "{stdout}"
    );
    assert!(stdout.ends_with("replayed 1 games: 0 legal, 1 illegal\n"));
    assert_eq!(output.status.code(), Some(1));

    let missing = supernova(&["replay", "--rules", "sdg", good, "/nonexistent/game.raw"]);
    assert_eq!(missing.status.code(), Some(2));
    let stderr = String::from_utf8(missing.stderr).unwrap();
    assert!(stderr.contains("/nonexistent/game.raw"), "{stderr}");

    let broken = temporary_file("sdg-broken.raw", &SHORT_GAME.replace("m R3", "fly R3"));
    let output = supernova(&["replay", "--rules", "sdg", broken.to_str().unwrap()]);
    assert_eq!(output.status.code(), Some(2));
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("line 18: 'fly'"), "{stdout}");

    let usage = supernova(&["replay", "--rules", "nonsense", good]);
    assert_eq!(usage.status.code(), Some(2));
}

#[test]
fn show_prints_the_position_before_a_turn() {
    let good = temporary_file("sdg-show.raw", SHORT_GAME);
    let good = good.to_str().unwrap();
    let output = supernova(&["show", "--game", good, "--turn", "7", "--rules", "sdg"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(
        String::from_utf8(output.stdout).unwrap(),
        format!("{SHORT_GAME_TURN_7}\n")
    );
    let output = supernova(&["show", "--game", good, "--turn", "1", "--rules", "sdg"]);
    assert_eq!(String::from_utf8(output.stdout).unwrap(), "-/- 0\n");

    let output = supernova(&["show", "--game", good, "--turn", "99", "--rules", "sdg"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(
        stderr.contains("turn 99 is out of range: expected 1 to 10"),
        "{stderr}"
    );

    // Under the standard rules the replay stops at turn 2.
    let output = supernova(&["show", "--game", good, "--turn", "7"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8(output.stderr).unwrap();
    assert!(stderr.contains("illegal turn 2"), "{stderr}");

    if let Some(directory) = common::shared("sdg", "show_prints_the_position_before_a_turn (real)")
    {
        let path = directory.join("1016.raw");
        let output = supernova(&[
            "show",
            "--game",
            path.to_str().unwrap(),
            "--turn",
            "30",
            "--rules",
            "sdg",
        ]);
        assert_eq!(
            String::from_utf8(output.stdout).unwrap(),
            "ts52=g2b1:r1y2y3b2:/TwoShort=y3b1::g1g3/Bluestar=b2::r1y1y1/Garden=g3:b1:g1g2b2/Endor=g3:y1y2b3:/Monkeywrench=y3::g1g2 1\n"
        );
    }
}

/// `annotate` prints each played turn with the names the record gave its
/// discoveries, not the default names (game 1008's `Clampett` is not
/// printed as `Delos`).
#[test]
fn annotate_prints_the_records_discovery_names() {
    let record = with_turn(5, "Discover R3 Alice B3 Vega");
    let path = temporary_file("sdg-annotate-names.raw", &record.to_sdg());
    let output = supernova(&[
        "annotate",
        path.to_str().unwrap(),
        "--rules",
        "sdg",
        "--nodes",
        "50",
    ]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(
        stdout
            .lines()
            .any(|line| line.starts_with("5) Alice: Discover R3 Alice B3 Vega  [")),
        "{stdout}"
    );
    assert!(!stdout.contains("Delos"), "{stdout}");
}

/// A record that breaks the default (standard) rules only where
/// SuperDuperGames allowed more says so, and suggests `--rules sdg`
/// (game 632's small starting ship).
#[test]
fn records_that_need_the_sdg_rules_say_so() {
    let good = temporary_file("sdg-needs-rules.raw", SHORT_GAME);
    let good = good.to_str().unwrap();
    for arguments in [
        &["analyse", "--game", good, "--turn", "5", "--nodes", "50"][..],
        &["show", "--game", good, "--turn", "5"],
    ] {
        let output = supernova(arguments);
        assert_eq!(output.status.code(), Some(2));
        let stderr = String::from_utf8(output.stderr).unwrap();
        assert!(
            stderr.contains("starting ship must be Large") && stderr.contains("--rules sdg"),
            "{arguments:?}: {stderr}"
        );
    }
    let output = supernova(&["replay", good]);
    let stdout = String::from_utf8(output.stdout).unwrap();
    assert!(stdout.contains("--rules sdg"), "{stdout}");
    // A turn that no rules accept suggests nothing.
    let broken = temporary_file(
        "sdg-needs-nothing.raw",
        &SHORT_GAME
            .replace("Hom B3 Y3 G1 *", "Hom B3 Y3 G3")
            .replace("3) Alice: B R1! alice", "3) Alice: B R2 alice"),
    );
    for rules in ["standard", "sdg"] {
        let output = supernova(&["replay", "--rules", rules, broken.to_str().unwrap()]);
        let stdout = String::from_utf8(output.stdout).unwrap();
        assert!(stdout.contains("illegal turn 3"), "{stdout}");
        assert!(!stdout.contains("--rules"), "{stdout}");
    }
}
