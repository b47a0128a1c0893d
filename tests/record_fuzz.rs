//! A seeded fuzzer for the SDG record reader and the replay: real records
//! from `../shared/sdg` (and two inline games, so that it runs without
//! them), mutated at the byte, word and line level, are read, replayed under
//! the `sdg` and `standard` rules, written back and shown. Every input must
//! give a record or an error, never a panic; errors quote bounded, escaped
//! excerpts; a record that reads is written back to a text that reads the
//! same.
//!
//! Each input finishes in bounded work: inputs are at most a little over
//! [`MAX_RECORD_BYTES`] (the reader refuses larger texts and lines longer
//! than [`MAX_LINE_BYTES`] before any other work), and reading and replaying
//! are linear in the input. Some inputs are the shapes a quadratic reader
//! would choke on (thousands of spare words on one turn line), so a
//! regression makes this test slow rather than wrong; nothing here measures
//! time.
//!
//! Files are read as bytes, so some inputs are bytes that are not UTF-8
//! (0xFF, alone, in runs, or as a whole file): the reader's bounds must
//! count the file's bytes, not the three bytes of each U+FFFD that replaces
//! one, and every error but the one for a record too long names its line,
//! in records cut off anywhere (without a final newline) as well.
//!
//! The default run is short (a few seconds). A long run, by hand:
//! `SUPERNOVA_RECORD_FUZZ=200000 SUPERNOVA_RECORD_FUZZ_SEED=7 cargo test
//! --release --test record_fuzz` (inputs and seed; the seed defaults to
//! 2025).

mod common;

use std::path::PathBuf;

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use supernova::notation::error::{excerpt, EXCERPT_CHARS};
use supernova::notation::hwpn;
use supernova::notation::sdg::{
    parse_record, parse_record_bytes, read_record_text, RecordTurn, Step, MAX_LINE_BYTES,
    MAX_RECORD_BYTES,
};
use supernova::record::GameRecord;
use supernova::rules::Rules;

/// Inputs in the default run.
const DEFAULT_INPUTS: usize = 10_000;

/// Two small games, so that the fuzzer has material without `../shared`.
const INLINE_GAMES: [&str; 2] = [
    "\
Homeworlds Online (SDG# 424242)
Variants: \"Unrated, Hard time\"
Started: 2010.1.2, Ended: 2010.1.9
Participants: Bob (S), Alice (N)
Winner: Alice

1) Alice: Homeworld G2 Y1 R3
\tBob: Good luck!
1) this numbered line is part of the comment

2) Bob: Hom B3 Y3 G1 *

3) Alice: B R1! alice

4) Bob: Build G1 Bob

5) Alice: Discover R3 Alice B3 Far Away

6) Bob: Sacrifice G1 Bob; Build G1 Bob

7) Alice: Move R3 Far Bob

8) Bob: P

9) Alice:
attack G1 Bob n
",
    "\
Homeworlds Online (SDG# 424243)
Started: 2010.1.2, Ended: 2010.1.9
Participants: Bob (S), Alice (N)
Winner: Bob

1) Alice: Pass

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

12) Bob: Sacrifice R1 Bob; Attack R3 Alice; Pass
Catastrophe Alice G
",
];

/// Words a mutation inserts: SDG verbs and abbreviations, pieces with and
/// without junk, names, separators, and bytes a terminal would act on.
const WORDS: [&str; 36] = [
    "Homeworld",
    "H",
    "Build",
    "B",
    "Trade",
    "Move",
    "M",
    "Discover",
    "Attack",
    "A",
    "Sacrifice",
    "Sac",
    "Catastrophe",
    "Cat",
    "Pass",
    "P",
    "G1",
    "Y2!",
    "R3*",
    "B1N",
    "g9",
    "-",
    "*",
    ";",
    "(n)",
    "Alice",
    "Bob",
    "Delos",
    "Far",
    "é",
    "\u{1b}]0;title\u{7}",
    "\u{202e}",
    "\t",
    "0)",
    "2) Bob:",
    "Green",
];

struct Fuzzer {
    rng: SmallRng,
    sources: Vec<String>,
}

impl Fuzzer {
    fn word(&mut self) -> &'static str {
        WORDS[self.rng.random_range(0..WORDS.len())]
    }

    fn source(&mut self) -> String {
        let index = self.rng.random_range(0..self.sources.len());
        self.sources[index].clone()
    }

    /// One mutated input; a few kinds are chosen at random and stacked.
    fn input(&mut self) -> String {
        let mut text = self.source();
        for _ in 0..self.rng.random_range(1..4) {
            text = match self.rng.random_range(0..10) {
                0 => self.flip_bytes(&text),
                1 => self.insert_words(&text),
                2 => self.shuffle_lines(&text),
                3 => self.splice(&text),
                4 => self.cut(&text),
                5 => self.spare_words(&text),
                6 => self.renumber(&text),
                7 => self.blow_up(&text),
                8 => self.comment_soup(&text),
                _ => self.insert_words(&text),
            };
        }
        // Stacked mutations may grow past the bound: keep each input at
        // most a few bytes over the reader's limit.
        let mut end = text
            .len()
            .min(MAX_RECORD_BYTES + self.rng.random_range(0..8));
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text
    }

    fn flip_bytes(&mut self, text: &str) -> String {
        let mut bytes = text.as_bytes().to_vec();
        if bytes.is_empty() {
            return String::new();
        }
        for _ in 0..self.rng.random_range(1..10) {
            let index = self.rng.random_range(0..bytes.len());
            bytes[index] = match self.rng.random_range(0..4) {
                0 => self.rng.random(),
                1 => {
                    let bytes = b"\t\n\r;*-() 0123RYGBrygb:";
                    bytes[self.rng.random_range(0..bytes.len())]
                }
                2 => 0xC3,
                _ => 0x1B,
            };
        }
        String::from_utf8_lossy(&bytes).into_owned()
    }

    fn lines(text: &str) -> Vec<String> {
        text.split('\n').map(str::to_string).collect()
    }

    fn insert_words(&mut self, text: &str) -> String {
        let mut lines = Self::lines(text);
        for _ in 0..self.rng.random_range(1..6) {
            let index = self.rng.random_range(0..lines.len());
            let mut words: Vec<String> = lines[index].split(' ').map(str::to_string).collect();
            let at = self.rng.random_range(0..=words.len());
            words.insert(at, self.word().to_string());
            lines[index] = words.join(" ");
        }
        lines.join("\n")
    }

    fn shuffle_lines(&mut self, text: &str) -> String {
        let mut lines = Self::lines(text);
        for _ in 0..self.rng.random_range(1..4) {
            let from = self.rng.random_range(0..lines.len());
            let to = self.rng.random_range(0..lines.len());
            match self.rng.random_range(0..3) {
                0 => lines.swap(from, to),
                1 if lines.len() > 1 => {
                    lines.remove(from);
                }
                _ => {
                    let copy = lines[from].clone();
                    lines.insert(to, copy);
                }
            }
        }
        lines.join("\n")
    }

    /// Lines of another record in the middle of this one.
    fn splice(&mut self, text: &str) -> String {
        let other = Self::lines(&self.source());
        let mut lines = Self::lines(text);
        let from = self.rng.random_range(0..other.len());
        let count = self.rng.random_range(1..6).min(other.len() - from);
        let at = self.rng.random_range(0..=lines.len());
        for (offset, line) in other[from..from + count].iter().enumerate() {
            lines.insert(at + offset, line.clone());
        }
        lines.join("\n")
    }

    fn cut(&mut self, text: &str) -> String {
        let mut end = self.rng.random_range(0..=text.len());
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text[..end].to_string()
    }

    /// Many spare words after a command: the shape that was quadratic.
    fn spare_words(&mut self, text: &str) -> String {
        let mut lines = Self::lines(text);
        let turn_lines: Vec<usize> = (0..lines.len())
            .filter(|&index| lines[index].contains(") ") && lines[index].contains(':'))
            .collect();
        let index = match turn_lines.is_empty() {
            true => self.rng.random_range(0..lines.len()),
            false => turn_lines[self.rng.random_range(0..turn_lines.len())],
        };
        let count = self.rng.random_range(1..3_000);
        let word = self.word();
        for _ in 0..count {
            lines[index].push(' ');
            lines[index].push_str(word);
        }
        lines.join("\n")
    }

    fn renumber(&mut self, text: &str) -> String {
        let mut lines = Self::lines(text);
        let index = self.rng.random_range(0..lines.len());
        if let Some((number, rest)) = lines[index].split_once(") ") {
            if number.bytes().all(|byte| byte.is_ascii_digit()) {
                let new: u64 = match self.rng.random_range(0..3) {
                    0 => self.rng.random_range(0..5),
                    1 => u64::MAX,
                    _ => number.parse::<u64>().unwrap_or(0) + 1,
                };
                lines[index] = format!("{new}) {rest}");
            }
        }
        lines.join("\n")
    }

    /// A line or a whole text just under or over the reader's limits.
    fn blow_up(&mut self, text: &str) -> String {
        let mut lines = Self::lines(text);
        let index = self.rng.random_range(0..lines.len());
        let limit = if self.rng.random_bool(0.8) {
            MAX_LINE_BYTES
        } else {
            MAX_RECORD_BYTES
        };
        let target = limit + self.rng.random_range(0..3) - 1;
        while lines[index].len() < target {
            lines[index].push_str(" G1");
        }
        lines[index].truncate(target);
        lines.join("\n")
    }

    /// A comment that quotes turns, tabs and control bytes.
    fn comment_soup(&mut self, text: &str) -> String {
        let mut lines = Self::lines(text);
        let at = self.rng.random_range(0..=lines.len());
        let mut comment = vec!["\tAlice: look:".to_string()];
        for _ in 0..self.rng.random_range(1..5) {
            comment.push(format!(
                "{}) {} {}",
                self.rng.random_range(0..40),
                self.word(),
                self.word()
            ));
        }
        for (offset, line) in comment.into_iter().enumerate() {
            lines.insert(at + offset, line);
        }
        lines.join("\n")
    }
}

/// An error message quotes excerpts only: bounded, no raw control bytes.
fn assert_tame(message: &str, text: &str) {
    // A few fixed words, and at most one excerpt per system name (18) and
    // per quoted token.
    assert!(
        message.len() <= 400 + 24 * (EXCERPT_CHARS + 30),
        "an error of {} bytes for an input of {} bytes: {}",
        message.len(),
        text.len(),
        &message[..message.len().min(300)]
    );
    assert!(
        !message
            .chars()
            .any(|character| character.is_control()
                || ('\u{202a}'..='\u{202e}').contains(&character)),
        "raw control characters in: {message:?}"
    );
}

/// Everything the tools do with a record, on one input.
fn exercise(text: &str) -> bool {
    assert!(text.len() <= MAX_RECORD_BYTES + 8, "inputs are bounded");
    let record = match GameRecord::parse_sdg(text) {
        Ok(record) => record,
        Err(error) => {
            assert_tame(&error.to_string(), text);
            // Every error names its line (a record cut off mid-header
            // too), bar the one for a record too long as a whole.
            assert!(
                error.line.is_some() || text.len() > MAX_RECORD_BYTES,
                "no line: {error}"
            );
            if text.len() > MAX_RECORD_BYTES
                || text.split('\n').any(|line| line.len() > MAX_LINE_BYTES)
            {
                assert!(error.expected.contains("at most"), "{error}");
            }
            return false;
        }
    };
    for rules in [Rules::SDG, Rules::STANDARD] {
        let report = record.replay(&rules);
        assert_tame(&report.to_string(), text);
        let last = record.turns.len() as u32 + 1;
        for number in [1, last / 2 + 1, last] {
            match record.board_before(&rules, number) {
                Ok(board) => {
                    let written = hwpn::write_board(&board);
                    let again =
                        hwpn::parse(&written).unwrap_or_else(|error| panic!("{written}: {error}"));
                    assert_eq!(again.position, board.position, "{written}");
                }
                Err(error) => assert_tame(&error.to_string(), text),
            }
        }
    }
    // What reads is written back to a text that reads the same. The writer
    // may lengthen a line a little (`, Ended:`, a space before a comment
    // line that looks like a turn, `, ` between variants), so this holds
    // for lines well under the reader's limit.
    if text.split('\n').any(|line| line.len() > MAX_LINE_BYTES / 2) {
        return true;
    }
    let written = record.to_sdg();
    let again = GameRecord::parse_sdg(&written).unwrap_or_else(|error| {
        panic!(
            "the written record does not read: {error}\n{}",
            excerpt(&written)
        )
    });
    assert_eq!(again.header, record.header);
    assert_eq!(again.turns.len(), record.turns.len());
    for (turn, turn_again) in record.turns.iter().zip(&again.turns) {
        assert_eq!(turn.text(), turn_again.text());
        assert_eq!(turn.player, turn_again.player);
    }
    true
}

fn sources() -> Vec<String> {
    let mut sources: Vec<String> = INLINE_GAMES.iter().map(|text| text.to_string()).collect();
    if let Some(directory) = common::shared("sdg", "record_fuzz (real records)") {
        let mut files: Vec<PathBuf> = std::fs::read_dir(directory)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .filter(|path| path.extension().is_some_and(|extension| extension == "raw"))
            .collect();
        files.sort();
        for path in files {
            let file = std::fs::File::open(&path).unwrap();
            sources.push(read_record_text(file).unwrap());
        }
    }
    sources
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|value| value.parse().unwrap_or_else(|_| panic!("{name}={value}")))
        .unwrap_or(default)
}

#[test]
fn mutated_records_read_or_fail_cleanly() {
    let inputs = setting("SUPERNOVA_RECORD_FUZZ", DEFAULT_INPUTS as u64);
    let seed = setting("SUPERNOVA_RECORD_FUZZ_SEED", 2025);
    let mut fuzzer = Fuzzer {
        rng: SmallRng::seed_from_u64(seed),
        sources: sources(),
    };
    let mut read = 0;
    for _ in 0..inputs {
        let text = fuzzer.input();
        read += exercise(&text) as u64;
    }
    // The mutations must leave many records readable, or the replay side
    // of the reader would go unexercised.
    assert!(
        read * 5 > inputs,
        "only {read} of {inputs} mutated records read"
    );
}

/// The shapes that were quadratic: thousands of spare words after a command
/// (80,000 took 8 s in `Step::parse`), on a step and in a record line.
#[test]
fn spare_words_are_read_in_linear_work() {
    let spare = " Prime".repeat(80_000);
    let step = Step::parse(&format!("Discover G1 Fuguru B1 Centauri{spare}")).unwrap();
    assert!(step.text.len() > 400_000);
    let turn = RecordTurn::from_text(5, "Alice", &format!("Build G1 Alice{spare}")).unwrap();
    assert_eq!(turn.steps.len(), 1);
    let error = Step::parse(&format!("Bulid G1{spare}")).unwrap_err();
    assert_tame(&error.to_string(), "");
    // In a record, a line is bounded: just under the limit reads, over it
    // is an error that names the line and the limit.
    let header = "Homeworlds Online (SDG# 1)\nStarted: x, Ended: y\n\
                  Participants: Bob (S), Alice (N)\nWinner: Alice\n\n";
    let mut line = "1) Alice: Homeworld G2 Y1 R3".to_string();
    while line.len() + 6 <= MAX_LINE_BYTES {
        line.push_str(" Prime");
    }
    let (_, turns) = parse_record(&format!("{header}{line}\n")).unwrap();
    assert_eq!(turns.len(), 1);
    line.push_str(" Prime");
    let error = parse_record(&format!("{header}{line}\n")).unwrap_err();
    assert_eq!(error.line, Some(6));
    assert!(
        error.expected.contains(&MAX_LINE_BYTES.to_string()),
        "{error}"
    );
    assert_tame(&error.to_string(), &line);
    let huge = format!("{header}{}", "2) Bob: Pass\n".repeat(MAX_RECORD_BYTES / 10));
    let error = parse_record(&huge).unwrap_err();
    assert_eq!(error.line, None);
    assert!(error.expected.contains("at most"), "{error}");
}

/// The binary reads at most the record limit from a file, and says why it
/// stops (`replay /dev/zero` read 1 GB before failing).
#[test]
fn the_binary_bounds_what_it_reads() {
    let endless = std::path::Path::new("/dev/zero");
    let huge = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("record-fuzz-huge.raw");
    std::fs::write(&huge, vec![b'x'; MAX_RECORD_BYTES + 1]).unwrap();
    let mut paths = vec![huge];
    if endless.exists() {
        paths.push(endless.to_path_buf());
    }
    for path in paths {
        let path = path.to_str().unwrap();
        for command in [
            &["replay", path][..],
            &["show", "--game", path, "--turn", "1"],
        ] {
            let output = common::supernova(command);
            assert_eq!(output.status.code(), Some(2), "{command:?}");
            let stderr = String::from_utf8_lossy(&output.stderr);
            // A device is refused before it is opened; a big file by its size.
            let reason = if path.starts_with("/dev/") {
                "in a regular file".to_string()
            } else {
                format!("a game record of at most {MAX_RECORD_BYTES} bytes, not")
            };
            assert!(
                stderr.contains(path) && stderr.contains(&reason),
                "{command:?}: {stderr}"
            );
        }
    }
}

/// One input of bytes that are not all UTF-8: a source with runs of 0xFF
/// (and other bytes UTF-8 never uses), cut off anywhere, or a whole file of
/// 0xFF with or without line breaks, up to a little over the record limit.
fn invalid_bytes(fuzzer: &mut Fuzzer) -> Vec<u8> {
    let rng = &mut fuzzer.rng;
    match rng.random_range(0..4) {
        0 => {
            let length = rng.random_range(0..MAX_RECORD_BYTES + 8);
            let mut bytes = vec![0xFF; length];
            if rng.random_bool(0.5) {
                let width = rng.random_range(1..MAX_LINE_BYTES + 8);
                for index in (width..length).step_by(width + 1) {
                    bytes[index] = b'\n';
                }
            }
            bytes
        }
        kind => {
            let index = rng.random_range(0..fuzzer.sources.len());
            let mut bytes = fuzzer.sources[index].as_bytes().to_vec();
            for _ in 0..rng.random_range(1..6) {
                if bytes.is_empty() {
                    break;
                }
                let start = rng.random_range(0..bytes.len());
                let end = (start + rng.random_range(1..64)).min(bytes.len());
                let junk = [0xFF, 0xFE, 0xC0, 0x80][rng.random_range(0..4)];
                bytes[start..end].fill(junk);
            }
            if kind == 1 {
                // Cut off anywhere, even inside a character or the header.
                bytes.truncate(rng.random_range(0..=bytes.len()));
            }
            bytes
        }
    }
}

/// Records of invalid bytes and records cut off fail cleanly at a line,
/// and the sizes in messages are the inputs' own.
#[test]
fn invalid_bytes_and_cut_records_fail_at_a_line() {
    let inputs = setting("SUPERNOVA_RECORD_FUZZ", DEFAULT_INPUTS as u64) / 10;
    let seed = setting("SUPERNOVA_RECORD_FUZZ_SEED", 2025);
    let mut fuzzer = Fuzzer {
        rng: SmallRng::seed_from_u64(seed ^ 0xFF),
        sources: sources(),
    };
    for _ in 0..inputs {
        let bytes = invalid_bytes(&mut fuzzer);
        let Err(error) = parse_record_bytes(&bytes) else {
            continue;
        };
        let message = error.to_string();
        assert_tame(&message, "");
        assert!(
            error.line.is_some() || bytes.len() > MAX_RECORD_BYTES,
            "no line: {message}"
        );
        // A size in the message is never more than the input's bytes.
        for size in message.split("not ").skip(1).filter_map(|rest| {
            rest.split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|digits| digits.parse::<usize>().ok())
        }) {
            assert!(
                size <= bytes.len(),
                "{size} of {} bytes: {message}",
                bytes.len()
            );
        }
    }
}

/// Writes `bytes` to a scratch file for the binary.
fn scratch_file(name: &str, bytes: &[u8]) -> String {
    let path = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_string()
}

/// The first error line `replay` and `show` print for the file at `path`.
fn binary_errors(path: &str) -> Vec<String> {
    [
        &["replay", path][..],
        &["show", "--game", path, "--turn", "1"],
    ]
    .iter()
    .map(|command| {
        let output = common::supernova(command);
        assert_eq!(output.status.code(), Some(2), "{command:?}");
        String::from_utf8_lossy(&output.stderr).into_owned()
    })
    .collect()
}

/// A file of 400,000 0xFF bytes was refused as "at most 1048576 bytes,
/// not 1200000" (each byte counted as its replacement, three bytes): the
/// binary counts the file's bytes. On one line, that line is too long; in
/// short lines, the first is not a title.
#[test]
fn the_binary_counts_a_files_own_bytes() {
    let one_line = scratch_file("record-fuzz-ff.raw", &vec![0xFF; 400_000]);
    for stderr in binary_errors(&one_line) {
        assert!(
            stderr.contains(&format!("{one_line}: line 1: '\u{fffd}\u{fffd}\u{fffd}"))
                && stderr.contains(&format!(
                "(400000 bytes)': expected a line of at most {MAX_LINE_BYTES} bytes, not 400000"
            )),
            "{stderr}"
        );
        assert!(!stderr.contains("1200000"), "{stderr}");
    }
    let mut short_lines = vec![0xFF; 400_000];
    for index in (99..short_lines.len()).step_by(100) {
        short_lines[index] = b'\n';
    }
    let short_lines = scratch_file("record-fuzz-ff-lines.raw", &short_lines);
    for stderr in binary_errors(&short_lines) {
        assert!(
            stderr.contains(&format!("{short_lines}: line 1: "))
                && stderr.contains("expected a header line `Homeworlds Online (SDG# N)`"),
            "{stderr}"
        );
    }
}

/// A record cut off in its header without a final newline said
/// `'end of file': expected a header line ...` with no line; now it names
/// the line where the header line was expected, the line after the last.
#[test]
fn the_binary_names_the_line_of_a_record_cut_off() {
    let header = [
        "Homeworlds Online (SDG# 1)",
        "Started: 2010.1.2, Ended: 2010.1.9",
        "Participants: Bob (S), Alice (N)",
        "Winner: Alice",
    ];
    for (kept, expected) in [
        (1, "Started: 2005.10.17, Ended: 2005.10.25"),
        (2, "Participants: NAME (S), NAME (N)"),
        (3, "Winner: NAME"),
    ] {
        let text = header[..kept].join("\n");
        let path = scratch_file(&format!("record-fuzz-cut-{kept}.raw"), text.as_bytes());
        for stderr in binary_errors(&path) {
            assert!(
                stderr.contains(&format!(
                    "{path}: line {}: 'end of file': expected a header line `{expected}`",
                    kept + 1
                )),
                "{stderr}"
            );
        }
    }
    let empty = scratch_file("record-fuzz-cut-0.raw", b"");
    for stderr in binary_errors(&empty) {
        assert!(stderr.contains(&format!("{empty}: line 1: ''")), "{stderr}");
    }
}
