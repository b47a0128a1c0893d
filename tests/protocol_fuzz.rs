//! A seeded fuzzer for the engine's side of the protocol: random and
//! mutated protocol lines (repeated and missing words, huge tokens and
//! numbers, long `moves` lists, control bytes and escape sequences, white
//! space that is not a separator) go to one [`Session`], and every input
//! must be answered as protocol.md says:
//!
//! - no panic, on the command loop or the search thread (a panic hook
//!   counts them, since the engine catches a search's panic to keep its
//!   promise of one `bestmove`);
//! - exactly one `bestmove` for every line that reads as `go`, and none for
//!   any other line;
//! - bounded replies: an error line quotes excerpts only (a few kilobytes
//!   at most, whatever the input), and no reply holds a raw control
//!   character; other lines are bounded by a fixed size plus the system
//!   names the controller chose, which the engine must echo;
//! - bounded work per input: inputs are at most [`MAX_LINE_BYTES`] (the
//!   reader refuses longer lines before any work, tests/protocol.rs checks
//!   that), every `go` is stopped at once unless it has a small node limit,
//!   and reading a `position` is linear. A generous watchdog per input
//!   (far above the slowest input, far below the minute a quadratic
//!   reading of `position` would take) turns a regression into a failure
//!   rather than a hang.
//!
//! Some inputs are episodes of several lines, for what single lines cannot
//! show: `stop` and `go` pairs sent at once (with a `position` or an option
//! between), each `go` answered by exactly one `bestmove` and none refused;
//! a multi-player `go nodes 18446744073709551615` with `isready` during it
//! and then `stop`; and, through [`protocol::run`] and its input reader, a
//! flood of lines up to the line cap while the command loop is busy with
//! `turns` on a crowded position, after which `isready` and a `go` must be
//! answered, with at most one error per dropped run of lines.
//!
//! The default run is short (a few seconds). A long run, by hand:
//! `SUPERNOVA_PROTOCOL_FUZZ=200000 SUPERNOVA_PROTOCOL_FUZZ_SEED=7 cargo test
//! --release --test protocol_fuzz` (inputs and seed; the seed defaults to
//! 2026).

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use supernova::notation::error::EXCERPT_CHARS;
use supernova::protocol::command::{self, Command};
use supernova::protocol::{self, Flow, Output, Session, MAX_LINE_BYTES};
use supernova::search::SearchLimits;

/// Inputs in the default run.
const DEFAULT_INPUTS: u64 = 8000;

/// The watchdog per input (see the module docs).
const WATCHDOG: Duration = Duration::from_secs(30);

/// The longest error line: a few fixed words, and at most one excerpt per
/// system name and per quoted token (as tests/record_fuzz.rs allows).
const MAX_ERROR_LINE: usize = 400 + 24 * (EXCERPT_CHARS + 30);

/// The longest other line, before the names it echoes.
const MAX_PLAIN_LINE: usize = 64 << 10;

/// Well-formed lines to start from.
const SEEDS: &[&str] = &[
    "hwi",
    "isready",
    "newgame",
    "d",
    "eval",
    "count",
    "turns",
    "turns 3",
    "turns all",
    "stop",
    "setoption name Threads value 2",
    "setoption name Threads value 1",
    "setoption name Hash value 8",
    "setoption name MultiPV value 3",
    "setoption name Player value greedy",
    "setoption name Player value random",
    "setoption name Player value mcts",
    "setoption name Rules value sdg",
    "setoption name Rules value standard",
    "setoption name Repetition value auto@3",
    "setoption name MaxTurns value 6",
    "setoption name Seed value 7",
    "setoption name cpuct value 1.5",
    "setoption name Move Overhead value 10",
    "position startpos",
    "position startpos moves home.r1.b3.g3 home.y2.b1.g3",
    "position startpos moves home.r1.b3.g3 home.y2.b1.g3 build.g1.Home0 build.g1.Home1",
    "position pos r1b3:g3:/y2b1::g3/b2:r1:r1 0",
    "position pos Sam=y1b3:r1g3:/Dave=r2y1::g1b3/Fritz=b2:y3g1:/Delos=b3:r1: 1 moves pass",
    "position pos r1b3:g3:/x 1",
    "position pos r1b3:g3:/y2b1::g3 0 moves sac.g3.Home0,trade.g3.b3.Home0 pass",
    "position pos Sam=r1y3:g1g3:/Dave=y2b1::g3 0 moves disc.g3.Sam.y2.Vega pass move.g3.Vega.Sam",
    "go nodes 50",
    "go nodes 300",
    "go movetime 5",
    "go infinite",
    "go p0time 100 p1time 100 p0inc 5 p1inc 5",
    "go nodes 100 movetime 50",
    "go ponder nodes 50",
    "go ponder movetime 5",
    "ponderhit",
    "setoption name Ponder value true",
    "setoption name UCI_ShowWDL value true",
    "setoption name UCI_LimitStrength value true",
    "setoption name UCI_LimitStrength value false",
    "setoption name UCI_Elo value 900",
];

/// Words to insert.
const WORDS: &[&str] = &[
    "go",
    "nodes",
    "movetime",
    "infinite",
    "ponder",
    "ponderhit",
    "p0time",
    "p1inc",
    "movestogo",
    "depth",
    "position",
    "startpos",
    "pos",
    "moves",
    "setoption",
    "name",
    "value",
    "Hash",
    "Threads",
    "isready",
    "turns",
    "all",
    "pass",
    "0",
    "1",
    "-1",
    "18446744073709551616",
    "3.5",
    "home.r1.b3.g3",
    "build.g1.Home0",
    "sac.g3.Home0",
    "(none)",
    "bestmove",
    "info",
    "string",
    "é",
    "∅",
    "",
];

/// White space that is not a separator, and control characters.
const ODD_CHARACTERS: &[char] = &[
    '\u{a0}', '\u{3000}', '\u{b}', '\u{c}', '\r', '\u{2028}', '\u{0}', '\u{1b}', '\u{7}',
    '\u{202e}', '\u{85}', '\u{feff}',
];

/// A writer that keeps what it is given.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Capture {
    /// Whether what was written since the last [`Capture::take`] holds
    /// `text`.
    fn contains(&self, text: &str) -> bool {
        String::from_utf8_lossy(&self.0.lock().unwrap()).contains(text)
    }

    /// Everything written since the last call.
    fn take(&self) -> String {
        let bytes = std::mem::take(&mut *self.0.lock().unwrap());
        String::from_utf8(bytes).expect("replies are UTF-8")
    }
}

struct Fuzzer {
    rng: SmallRng,
    /// A game from the start, grown from the engine's own answers, so that
    /// the inputs reach positions deeper than the seeds.
    game: Vec<String>,
}

/// The `position` line of a game from the start.
fn game_line(game: &[String]) -> String {
    let mut line = String::from("position startpos");
    if !game.is_empty() {
        line.push_str(" moves ");
        line.push_str(&game.join(" "));
    }
    line
}

impl Fuzzer {
    fn pick<'a>(&mut self, choices: &[&'a str]) -> &'a str {
        choices[self.rng.random_range(0..choices.len())]
    }

    fn odd_character(&mut self) -> char {
        ODD_CHARACTERS[self.rng.random_range(0..ODD_CHARACTERS.len())]
    }

    /// A word of up to half the line cap: one repeated character, digits, or
    /// random characters.
    fn huge_word(&mut self) -> String {
        let length = self.rng.random_range(1_000..MAX_LINE_BYTES / 2);
        match self.rng.random_range(0..3) {
            0 => "x".repeat(length),
            1 => "9".repeat(length),
            _ => (0..length / 4)
                .map(|_| match self.rng.random_range(0..4) {
                    0 => self.odd_character(),
                    _ => char::from(self.rng.random_range(b'!'..=b'~')),
                })
                .collect(),
        }
    }

    fn mutate(&mut self, line: &str) -> String {
        let mut words: Vec<String> = line.split(' ').map(str::to_string).collect();
        for _ in 0..self.rng.random_range(1..4) {
            let at = self.rng.random_range(0..words.len().max(1));
            match self.rng.random_range(0..10) {
                0 if words.len() > 1 => {
                    words.remove(at.min(words.len() - 1));
                }
                1 if !words.is_empty() => {
                    // Repeats a word, and so often a parameter.
                    let word = words[at.min(words.len() - 1)].clone();
                    words.push(word);
                }
                2 => {
                    let word = self.pick(WORDS).to_string();
                    words.insert(at.min(words.len()), word);
                }
                3 if words.len() > 1 => {
                    let other = self.rng.random_range(0..words.len());
                    let index = at.min(words.len() - 1);
                    words.swap(index, other);
                }
                4 | 5 if !words.is_empty() => {
                    // An odd character inside a word.
                    let index = at.min(words.len() - 1);
                    let mut characters: Vec<char> = words[index].chars().collect();
                    let position = self.rng.random_range(0..=characters.len());
                    characters.insert(position, self.odd_character());
                    words[index] = characters.into_iter().collect();
                }
                6 if !words.is_empty() => {
                    let index = at.min(words.len() - 1);
                    words[index] = "\u{1b}]0;pwned\u{7}\u{1b}[2J".to_string();
                }
                7 => words.push(self.rng.random::<u64>().to_string()),
                8 if self.rng.random_bool(0.05) && !words.is_empty() => {
                    let index = at.min(words.len() - 1);
                    words[index] = self.huge_word();
                }
                _ => {
                    let separator = if self.rng.random_bool(0.5) {
                        "\t"
                    } else {
                        "  "
                    };
                    return words.join(separator);
                }
            }
        }
        words.join(" ")
    }

    /// The next input line.
    fn input(&mut self) -> String {
        match self.rng.random_range(0..100) {
            0..=14 => {
                let seed = self.pick(SEEDS);
                seed.to_string()
            }
            15..=24 => game_line(&self.game),
            25..=29 => "go nodes 60".to_string(),
            30 if self.rng.random_bool(0.1) => {
                // A long game of passes: linear, however long.
                let passes = self.rng.random_range(1_000..150_000);
                let mut line = String::from("position startpos moves home.r1.b3.g3 home.y2.b1.g3");
                for _ in 0..passes {
                    line.push_str(" pass");
                }
                line
            }
            31..=34 => {
                // Random bytes, valid UTF-8.
                let length = self.rng.random_range(1..80);
                (0..length)
                    .map(|_| match self.rng.random_range(0..6) {
                        0 => self.odd_character(),
                        1 => ' ',
                        _ => char::from(self.rng.random_range(b' '..=b'~')),
                    })
                    .collect()
            }
            _ => {
                let seed = self.pick(SEEDS);
                self.mutate(seed)
            }
        }
    }
}

/// A multi-line input (see the module docs).
#[derive(Clone, Copy, Debug)]
enum Episode {
    /// `go infinite`, then this many `stop` and `go` pairs.
    StopGo(usize),
    /// A multi-player search with a huge node limit, then `stop`.
    MultiHuge,
}

impl Fuzzer {
    /// The lines of an episode, and how many `bestmove` lines they earn.
    fn episode_lines(&mut self, episode: Episode) -> (Vec<String>, usize) {
        match episode {
            Episode::StopGo(pairs) => {
                let mut lines = vec!["go infinite".to_string()];
                for _ in 0..pairs {
                    lines.push("stop".to_string());
                    match self.rng.random_range(0..4) {
                        0 => lines.push(game_line(&self.game)),
                        1 => {
                            // Any seed but a `go`, which the next `go`
                            // would rightly find running.
                            let seed = self.pick(SEEDS);
                            if !seed.starts_with("go") {
                                lines.push(seed.to_string());
                            }
                        }
                        _ => {}
                    }
                    lines.push(
                        self.pick(&["go infinite", "go movetime 50", "go nodes 100000"])
                            .into(),
                    );
                }
                lines.push("stop".to_string());
                let gos = lines.iter().filter(|line| line.starts_with("go ")).count();
                (lines, gos)
            }
            Episode::MultiHuge => {
                let players = self.rng.random_range(3..=6);
                let lines = [
                    format!("setoption name Players value {players}"),
                    "position startpos".to_string(),
                    "go nodes 18446744073709551615".to_string(),
                    "isready".to_string(),
                    "stop".to_string(),
                ];
                (lines.to_vec(), 1)
            }
        }
    }
}

/// Runs an episode on `session`; returns its output. Each line's output is
/// checked as the protocol says: `readyok` during a multi-player search,
/// no refusal of a `go` after `stop`.
fn run_episode(session: &mut Session, capture: &Capture, lines: &[String]) -> String {
    let mut output = String::new();
    for line in lines {
        let asked = Instant::now();
        session.handle(line);
        if line == "isready" {
            let replies = capture.take();
            assert!(replies.contains("readyok\n"), "{replies}");
            assert!(asked.elapsed() < WATCHDOG);
            output.push_str(&replies);
        }
    }
    session.finish();
    // Back to the two-player game, whatever the episode set.
    session.handle("setoption name Players value 2");
    output.push_str(&capture.take());
    assert!(
        !output.contains("already running"),
        "a go after stop was refused: {lines:?}\n{output}"
    );
    output
}

/// A reader for [`protocol::run`]: bytes, and pauses until the engine has
/// written some text, so that a line meant to come after a flood is not
/// itself dropped.
struct ScriptedInput {
    parts: std::collections::VecDeque<Part>,
    /// What the engine wrote so far.
    output: Capture,
}

/// One part of a [`ScriptedInput`].
enum Part {
    /// These bytes, from this offset.
    Bytes(Vec<u8>, usize),
    /// Nothing until the engine has written this.
    WaitFor(&'static str),
}

impl std::io::Read for ScriptedInput {
    fn read(&mut self, buffer: &mut [u8]) -> std::io::Result<usize> {
        loop {
            match self.parts.front_mut() {
                None => return Ok(0),
                Some(Part::Bytes(bytes, at)) => {
                    let count = buffer.len().min(bytes.len() - *at);
                    buffer[..count].copy_from_slice(&bytes[*at..*at + count]);
                    *at += count;
                    if *at == bytes.len() {
                        self.parts.pop_front();
                    }
                    return Ok(count);
                }
                Some(Part::WaitFor(text)) => {
                    let deadline = Instant::now() + WATCHDOG;
                    while !self.output.contains(text) {
                        assert!(Instant::now() < deadline, "no '{text}' in time");
                        std::thread::sleep(Duration::from_millis(5));
                    }
                    self.parts.pop_front();
                }
            }
        }
    }
}

/// Lines up to the line cap sent while the loop works on `turns`: the
/// queue drops most of them with one error per run, `isready` is answered,
/// and a `go` sent after it gets its `bestmove`.
fn flood_while_busy(rng: &mut SmallRng) {
    let crowded = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/positions/big_in_check.txt"
    ))
    .unwrap();
    let crowded = crowded.lines().find(|line| !line.starts_with('#')).unwrap();
    let mut flood = format!("position pos {crowded}\nturns 1\n").into_bytes();
    let lines = rng.random_range(8..40);
    for _ in 0..lines {
        let length = rng.random_range(MAX_LINE_BYTES / 2..=MAX_LINE_BYTES);
        let byte = [b'x', b'9', b' ', 0xff][rng.random_range(0..4)];
        flood.extend(std::iter::repeat_n(byte, length));
        flood.push(b'\n');
    }
    flood.extend_from_slice(b"isready\n");
    let output = Capture::default();
    let input = ScriptedInput {
        parts: [
            Part::Bytes(flood, 0),
            Part::WaitFor("readyok"),
            Part::Bytes(b"position startpos\ngo nodes 30\nisready\n".to_vec(), 0),
        ]
        .into(),
        output: output.clone(),
    };
    let started = Instant::now();
    protocol::run(input, output.clone());
    let text = output.take();
    let errors = text
        .lines()
        .filter(|line| line.starts_with("info string error"))
        .count();
    assert!(errors <= lines, "{errors} errors for {lines} lines");
    assert_eq!(
        text.matches("bestmove ").count(),
        1,
        "{}",
        excerpt_of(&text)
    );
    assert_eq!(text.matches("readyok").count(), 2, "{}", excerpt_of(&text));
    assert!(started.elapsed() < WATCHDOG, "{:?}", started.elapsed());
}

/// A bounded view of a long output, for a failure message.
fn excerpt_of(text: &str) -> String {
    text.lines()
        .map(supernova::notation::error::excerpt)
        .collect::<Vec<_>>()
        .join("\n")
}

fn setting(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .map(|value| value.parse().unwrap_or_else(|_| panic!("{name}={value}")))
        .unwrap_or(default)
}

/// Whether a `go` is left to finish by itself: a small node limit only.
fn runs_to_its_limit(limits: &SearchLimits) -> bool {
    limits.nodes.is_some_and(|nodes| nodes <= 1000)
        && limits.movetime.is_none()
        && limits.clock.is_none()
        && !limits.infinite
}

/// The longest system name on the session's board.
fn longest_name(session: &Session) -> usize {
    let board = session.board();
    board
        .position
        .occupied_slots()
        .map(|slot| board.name(slot).len())
        .max()
        .unwrap_or(0)
}

#[test]
fn protocol_lines_are_answered_as_the_protocol_says() {
    let panics = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&panics);
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        counted.fetch_add(1, Ordering::SeqCst);
        default_hook(info);
    }));

    let inputs = setting("SUPERNOVA_PROTOCOL_FUZZ", DEFAULT_INPUTS);
    let seed = setting("SUPERNOVA_PROTOCOL_FUZZ_SEED", 2026);
    let mut fuzzer = Fuzzer {
        rng: SmallRng::seed_from_u64(seed),
        game: Vec::new(),
    };
    let capture = Capture::default();
    let mut session = Session::new(Output::new(capture.clone()));
    let (mut errors, mut searches, mut slowest) = (0u64, 0u64, Duration::ZERO);
    let mut at_game = false;
    let mut longest_game = 0;
    let mut episodes = 0;
    for number in 0..inputs {
        if number % 2000 == 1999 {
            flood_while_busy(&mut fuzzer.rng);
        }
        if fuzzer.rng.random_range(0..200) == 0 {
            let episode = if fuzzer.rng.random_bool(0.5) {
                Episode::StopGo(fuzzer.rng.random_range(1..20))
            } else {
                Episode::MultiHuge
            };
            let (lines, gos) = fuzzer.episode_lines(episode);
            let started = Instant::now();
            let output = run_episode(&mut session, &capture, &lines);
            assert!(started.elapsed() < WATCHDOG, "{episode:?}: {lines:?}");
            assert_eq!(
                output.matches("bestmove ").count(),
                gos,
                "{episode:?}: {lines:?}\n{output}"
            );
            assert_eq!(panics.load(Ordering::SeqCst), 0, "a panic in {lines:?}");
            at_game = false;
            episodes += 1;
            continue;
        }
        let line = fuzzer.input();
        assert!(line.len() <= MAX_LINE_BYTES, "inputs stay under the cap");
        let parsed = command::parse(&line);
        let is_go = matches!(parsed, Ok(Command::Go(_)));
        let started = Instant::now();
        let flow = session.handle(&line);
        if let Ok(Command::Go(limits)) = &parsed {
            if limits.ponder {
                // The expected reply was played: the search goes on under
                // its own limits.
                session.handle("ponderhit");
            }
            if !runs_to_its_limit(limits) {
                session.handle("stop");
            }
            session.finish();
        }
        let elapsed = started.elapsed();
        slowest = slowest.max(elapsed);
        let shown = supernova::notation::error::excerpt(&line);
        assert!(
            elapsed < WATCHDOG,
            "input {number} took {elapsed:?}: {shown}"
        );
        assert_eq!(
            panics.load(Ordering::SeqCst),
            0,
            "a panic on input {number}: {shown}"
        );

        let output = capture.take();
        let bestmoves: Vec<&str> = output
            .lines()
            .filter(|reply| reply.starts_with("bestmove "))
            .collect();
        assert_eq!(
            bestmoves.len(),
            usize::from(is_go),
            "input {number}: {shown}\n{output}"
        );
        searches += u64::from(is_go);
        let plain_limit = MAX_PLAIN_LINE + 64 * longest_name(&session);
        for reply in output.lines() {
            assert!(
                !reply.chars().any(char::is_control),
                "a raw control character in reply to input {number} ({shown}): {reply:?}"
            );
            if reply.starts_with("info string error") {
                errors += 1;
                assert!(
                    reply.len() <= MAX_ERROR_LINE,
                    "an error of {} bytes for input {number} ({shown}): {}",
                    reply.len(),
                    supernova::notation::error::excerpt(reply)
                );
            } else {
                assert!(
                    reply.len() <= plain_limit,
                    "a reply of {} bytes for input {number} ({shown})",
                    reply.len()
                );
            }
        }
        // Grow the game from the engine's answers while the session is at
        // its last position; start again when it ends or grows long.
        let refused = output.contains("info string error");
        if line == game_line(&fuzzer.game) {
            at_game = !refused;
            if refused {
                fuzzer.game.clear();
            }
        } else if !refused && matches!(parsed, Ok(Command::Position { .. } | Command::NewGame)) {
            at_game = false;
        }
        if is_go && at_game {
            match bestmoves
                .first()
                .and_then(|reply| reply.strip_prefix("bestmove "))
            {
                Some(token) if token != "(none)" && fuzzer.game.len() < 60 => {
                    fuzzer.game.push(token.to_string());
                }
                _ => fuzzer.game.clear(),
            }
            at_game = false;
            longest_game = longest_game.max(fuzzer.game.len());
        }
        if flow == Flow::Quit {
            session = Session::new(Output::new(capture.clone()));
            at_game = false;
        }
    }
    eprintln!(
        "{inputs} inputs (seed {seed}): {errors} errors, {searches} searches, \
         {episodes} episodes, a game of {longest_game} turns, slowest input {slowest:?}"
    );
    // The inputs must reach both the parser's errors and the search, or the
    // fuzzer would test little.
    assert!(
        errors * 4 > inputs,
        "only {errors} errors in {inputs} inputs"
    );
    assert!(searches * 20 > inputs, "only {searches} searches");
    assert!(
        longest_game >= 10,
        "the game reached only {longest_game} turns"
    );
}
