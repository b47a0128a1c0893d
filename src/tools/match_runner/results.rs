//! The results file of one game, and merging the results of slices of a
//! match played on several machines.
//!
//! A match can be cut into slices by game number (`--games-list`): game
//! `n` gets the same opening, seats and engines wherever it is played, so
//! the slices together are the one-machine match. Each slice writes one
//! small file a game (`--results DIR`: `game-NNNN.result`, one
//! tab-separated line of `key=value` fields, written through a temporary
//! name so that a reader never sees half of one), and `supernova match
//! --merge DIR...` reads them back and prints the closing lines of the
//! whole match with the runner's own summary code: the statistics live in
//! one place.
//!
//! A game found twice (a slice that was played again after its machine
//! went away) counts once; two copies that differ are an error, as are
//! results of different engines or builds. The merge counts the games in
//! number order, which is the order a match at `--concurrency 1` finishes
//! them in, so the SPRT line of a merge equals that match's.

use std::collections::BTreeMap;
use std::fs;
use std::hash::{Hash, Hasher};
use std::io::Write;
use std::path::{Path, PathBuf};

use super::GameReport;
use crate::rules::Action;
use crate::tools::stats::{Sprt, SprtVerdict, Tally};
use crate::tools::Ending;

/// The most numbers a `--games-list` or `--self-play-files` list holds, so
/// that a typing slip cannot ask for memory without end.
const MAX_LISTED: usize = 1_000_000;

/// The most bytes of one results file: a line of a few short fields.
const MAX_RESULT_BYTES: u64 = 4096;

/// One finished game, as its results file states it: enough to tally it
/// and to tell a repeated game, without its turns.
#[derive(Clone, Debug, PartialEq)]
pub struct GameSummary {
    /// 1-based game number in the whole match.
    pub number: usize,
    /// Index of the opening played.
    pub opening: usize,
    /// Whether engine A sat as player 0.
    pub a_first: bool,
    /// Engine A's score: 1, 0.5 or 0.
    pub score_a: f64,
    /// How it ended: `result`, `forfeit`, `aborted` or `adjudicated`.
    pub ending: String,
    /// Turns played after the opening.
    pub turns: u32,
    /// A hash of every turn played, to tell a game that repeats another.
    pub fingerprint: u64,
    /// The engines' names, A then B.
    pub names: [String; 2],
    /// The bench signature of the build that played it, when given.
    pub build: Option<String>,
}

/// FNV-1a, a hash that is the same in every run (std's hasher is seeded
/// per process in a `HashMap`, and its algorithm may change).
struct Fnv(u64);

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3);
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

/// The fingerprint of a game's turns ([`GameSummary::fingerprint`]).
pub fn fingerprint(played: &[Vec<Action>]) -> u64 {
    let mut hasher = Fnv(0xCBF2_9CE4_8422_2325);
    played.hash(&mut hasher);
    hasher.finish()
}

impl GameSummary {
    /// The summary of a game just played.
    pub fn from_report(report: &GameReport, names: &[String; 2], build: Option<&str>) -> Self {
        let ending = match report.ending {
            Ending::Result(_) => "result",
            Ending::Forfeit { .. } => "forfeit",
            Ending::Aborted(_) => "aborted",
            Ending::Adjudicated { .. } => "adjudicated",
        };
        GameSummary {
            number: report.number,
            opening: report.opening,
            a_first: report.a_first,
            score_a: report.score_a,
            ending: ending.to_string(),
            turns: report.turns,
            fingerprint: fingerprint(&report.played),
            names: names.clone(),
            build: build.map(str::to_string),
        }
    }

    /// Whether a rule break or failure ended it.
    pub fn is_forfeit(&self) -> bool {
        self.ending == "forfeit" || self.ending == "aborted"
    }

    /// The line of its results file.
    pub fn line(&self) -> String {
        let mut line = format!(
            "number={}\topening={}\ta_first={}\tscore_a={}\tending={}\tturns={}\tfingerprint={:016x}\tengine_a={}\tengine_b={}",
            self.number,
            self.opening,
            u8::from(self.a_first),
            self.score_a,
            self.ending,
            self.turns,
            self.fingerprint,
            self.names[0],
            self.names[1]
        );
        if let Some(build) = &self.build {
            line.push_str(&format!("\tbuild={build}"));
        }
        line
    }

    /// Reads a results file's line.
    ///
    /// # Errors
    /// Names the missing or bad field.
    pub fn parse(line: &str) -> Result<GameSummary, String> {
        let mut fields = BTreeMap::new();
        for field in line.trim_end().split('\t') {
            let (key, value) = field
                .split_once('=')
                .ok_or_else(|| format!("field '{field}': expected key=value"))?;
            fields.insert(key, value);
        }
        let text = |key: &str| {
            fields
                .get(key)
                .copied()
                .filter(|value| !value.is_empty())
                .ok_or_else(|| format!("the field {key}= is missing"))
        };
        let number = |key: &str| {
            text(key)?
                .parse::<usize>()
                .map_err(|_| format!("{key}={}: expected a whole number", text(key).unwrap_or("")))
        };
        let score_a: f64 = match text("score_a")? {
            "1" => 1.0,
            "0.5" => 0.5,
            "0" => 0.0,
            other => return Err(format!("score_a={other}: expected 1, 0.5 or 0")),
        };
        let ending = text("ending")?;
        if !["result", "forfeit", "aborted", "adjudicated"].contains(&ending) {
            return Err(format!(
                "ending={ending}: expected result, forfeit, aborted or adjudicated"
            ));
        }
        let a_first = match text("a_first")? {
            "1" => true,
            "0" => false,
            other => return Err(format!("a_first={other}: expected 1 or 0")),
        };
        let fingerprint = u64::from_str_radix(text("fingerprint")?, 16)
            .map_err(|_| "fingerprint: expected a hexadecimal number".to_string())?;
        let summary = GameSummary {
            number: number("number")?,
            opening: number("opening")?,
            a_first,
            score_a,
            ending: ending.to_string(),
            turns: u32::try_from(number("turns")?).map_err(|_| "turns: too large".to_string())?,
            fingerprint,
            names: [text("engine_a")?.to_string(), text("engine_b")?.to_string()],
            build: fields.get("build").map(|build| build.to_string()),
        };
        if summary.number == 0 {
            return Err("number=0: games are numbered from 1".to_string());
        }
        Ok(summary)
    }

    /// Writes its results file into `directory`, through a temporary name.
    ///
    /// # Errors
    /// The file cannot be written (named).
    pub fn write(&self, directory: &Path) -> Result<(), String> {
        let path = directory.join(format!("game-{:04}.result", self.number));
        let temporary = directory.join(format!(".game-{:04}.result.partial", self.number));
        fs::write(&temporary, format!("{}\n", self.line()))
            .and_then(|()| fs::rename(&temporary, &path))
            .map_err(|error| format!("{}: cannot write: {error}", path.display()))
    }
}

/// The closing figures of a match, from its games.
pub struct Summary {
    /// The SPRT's verdict, when a test was asked for.
    pub sprt: Option<SprtVerdict>,
    /// Games that repeat an earlier game (by number) turn for turn.
    pub repeats: usize,
    /// A's score over the games that repeat no earlier one.
    pub distinct: Tally,
}

/// Writes a match's closing lines: the score and Elo, the sequential
/// test's verdict (stopped at `decided`, if it stopped the match), the
/// repeated games, the forfeits and adjudications. A reader that went away
/// is no error here: the games are played.
pub fn write_closing(
    writer: &mut dyn Write,
    names: &[String; 2],
    sprt: Option<&Sprt>,
    tally: &Tally,
    decided: Option<Tally>,
    games: &[GameSummary],
) -> Summary {
    let _ = writeln!(writer, "{}", tally.score_line(&names[0], &names[1]));
    let _ = writeln!(writer, "{}", tally.elo_line());
    let verdict = sprt.map(|sprt| {
        let (line, verdict) = sprt.report(tally, decided);
        let _ = writeln!(writer, "{line}");
        verdict
    });
    let (repeats, distinct) = count_repeats(games);
    if repeats > 0 {
        let _ = writeln!(
            writer,
            "Repeats: {repeats} of {} games repeated an earlier game turn for turn (same opening \
             and seats: deterministic engines at this limit); the {} distinct games: {}; {}",
            games.len(),
            games.len() - repeats,
            distinct.score_line(&names[0], &names[1]),
            distinct.elo_line()
        );
    }
    let forfeits = games.iter().filter(|game| game.is_forfeit()).count();
    if forfeits > 0 {
        let _ = writeln!(
            writer,
            "Forfeits: {forfeits} games ended by a crash, hang, protocol fault or illegal turn (see above)"
        );
    }
    let adjudicated = games
        .iter()
        .filter(|game| game.ending == "adjudicated")
        .count();
    if adjudicated > 0 {
        let _ = writeln!(
            writer,
            "Adjudicated: {adjudicated} games ended by --resign (see above)"
        );
    }
    let _ = writeln!(writer, "Finished match");
    let _ = writer.flush();
    Summary {
        sprt: verdict,
        repeats,
        distinct,
    }
}

/// Finds the games that repeat an earlier one (by game number) turn for
/// turn from the same opening and seats, and tallies the others: a match
/// of 400 games over 64 openings at a node limit, between engines that
/// search deterministically, holds only 128 games, and its Elo interval
/// would otherwise be narrower than the evidence.
fn count_repeats(games: &[GameSummary]) -> (usize, Tally) {
    let mut order: Vec<&GameSummary> = games.iter().collect();
    order.sort_by_key(|game| game.number);
    let mut seen = std::collections::HashSet::new();
    let mut distinct = Tally::default();
    let mut repeats = 0;
    for game in order {
        if seen.insert((game.opening, game.a_first, game.fingerprint)) {
            distinct.add(game.score_a);
        } else {
            repeats += 1;
        }
    }
    (repeats, distinct)
}

/// Reads every `*.result` file of `directories`, one game per number: a
/// game found twice counts once.
///
/// # Errors
/// An unreadable directory or file, a bad line, two copies of a game that
/// differ, games of other engines or builds, or no game at all.
pub fn read_results(directories: &[PathBuf]) -> Result<Vec<GameSummary>, String> {
    let mut games: BTreeMap<usize, (GameSummary, PathBuf)> = BTreeMap::new();
    for directory in directories {
        let entries = fs::read_dir(directory)
            .map_err(|error| format!("{}: cannot read: {error}", directory.display()))?;
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|entry| entry.ok().map(|entry| entry.path()))
            .filter(|path| {
                path.extension()
                    .is_some_and(|extension| extension == "result")
                    && !path
                        .file_name()
                        .is_some_and(|name| name.to_string_lossy().starts_with('.'))
            })
            .collect();
        paths.sort();
        for path in paths {
            let text = crate::files::read_bounded_text(&path, MAX_RESULT_BYTES)
                .map_err(|error| format!("{}: {}", path.display(), error.message("results")))?;
            let game = GameSummary::parse(&text)
                .map_err(|error| format!("{}: {error}", path.display()))?;
            match games.get(&game.number) {
                Some((known, known_path)) if *known != game => {
                    return Err(format!(
                        "game {} is in {} and in {}, and the two differ: {} against {}",
                        game.number,
                        known_path.display(),
                        path.display(),
                        known.line(),
                        game.line()
                    ));
                }
                Some(_) => {}
                None => {
                    games.insert(game.number, (game, path));
                }
            }
        }
    }
    let games: Vec<GameSummary> = games.into_values().map(|(game, _)| game).collect();
    let first = games.first().ok_or_else(|| {
        format!(
            "no game results (game-NNNN.result files) in {}",
            directories
                .iter()
                .map(|directory| directory.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )
    })?;
    if let Some(other) = games
        .iter()
        .find(|game| game.names != first.names || game.build != first.build)
    {
        let describe = |game: &GameSummary| {
            format!(
                "{} vs {}, build {}",
                game.names[0],
                game.names[1],
                game.build.as_deref().unwrap_or("not given")
            )
        };
        return Err(format!(
            "games {} and {} come from different matches ({} against {}): merge the results of one match",
            first.number,
            other.number,
            describe(first),
            describe(other)
        ));
    }
    Ok(games)
}

/// `supernova match --merge`: the closing lines of the match whose results
/// are in `directories`, counted in game-number order (where the SPRT, if
/// any, stops as a one-game-at-a-time match would).
///
/// # Errors
/// See [`read_results`].
pub fn merge_results(
    directories: &[PathBuf],
    sprt: Option<&Sprt>,
    output: &mut dyn Write,
) -> Result<Summary, String> {
    let games = read_results(directories)?;
    let names = games[0].names.clone();
    let mut tally = Tally::default();
    let mut decided = None;
    for game in &games {
        tally.add(game.score_a);
        if let Some(sprt) = sprt {
            if decided.is_none() && sprt.verdict(&tally) != SprtVerdict::Continue {
                decided = Some(tally);
            }
        }
    }
    let numbers: Vec<usize> = games.iter().map(|game| game.number).collect();
    let _ = writeln!(
        output,
        "Merged {} games of {} vs {} (games {}{})",
        games.len(),
        names[0],
        names[1],
        format_numbers(&numbers),
        games[0]
            .build
            .as_ref()
            .map_or(String::new(), |build| format!(", build {build}"))
    );
    Ok(write_closing(output, &names, sprt, &tally, decided, &games))
}

/// Game numbers as a list of ranges: `1-4,7,9-10`.
pub fn format_numbers(numbers: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut index = 0;
    while index < numbers.len() {
        let start = numbers[index];
        let mut end = start;
        while index + 1 < numbers.len() && numbers[index + 1] == end + 1 {
            index += 1;
            end = numbers[index];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        index += 1;
    }
    parts.join(",")
}

/// Reads a list of numbers such as `1-4,7,9-10` (inclusive ranges), each
/// within `allowed` (the games of a match, or the files of a self-play
/// generation), into increasing order without repeats; `flag` names the
/// option in errors.
///
/// # Errors
/// Names the bad part.
pub fn parse_numbers(
    text: &str,
    allowed: std::ops::RangeInclusive<usize>,
    flag: &str,
) -> Result<Vec<usize>, String> {
    let mut numbers: Vec<usize> = Vec::new();
    for part in text.split(',') {
        let part = part.trim();
        let number = |word: &str| {
            word.trim()
                .parse::<usize>()
                .map_err(|_| format!("{flag} '{part}': expected a number or a range such as 3-6"))
        };
        let (first, last) = match part.split_once('-') {
            Some((first, last)) => (number(first)?, number(last)?),
            None => (number(part)?, number(part)?),
        };
        if !allowed.contains(&first) || !allowed.contains(&last) || first > last {
            return Err(format!(
                "{flag} '{part}': expected numbers from {} to {}, a range's first no greater than its last",
                allowed.start(),
                allowed.end()
            ));
        }
        if last - first >= MAX_LISTED - numbers.len() {
            return Err(format!(
                "{flag} '{part}': a list holds at most {MAX_LISTED} numbers (a slice is small)"
            ));
        }
        numbers.extend(first..=last);
    }
    numbers.sort_unstable();
    numbers.dedup();
    Ok(numbers)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(number: usize) -> GameSummary {
        GameSummary {
            number,
            opening: (number - 1) / 2,
            a_first: number % 2 == 1,
            score_a: 0.5,
            ending: "result".to_string(),
            turns: 12,
            fingerprint: 0xABCD,
            names: ["new".to_string(), "old".to_string()],
            build: Some("bb2eb7228962400e".to_string()),
        }
    }

    #[test]
    fn a_results_line_reads_back() {
        let game = sample(7);
        assert_eq!(GameSummary::parse(&game.line()), Ok(game.clone()));
        let unbuilt = GameSummary {
            build: None,
            ..game
        };
        assert_eq!(GameSummary::parse(&unbuilt.line()), Ok(unbuilt));
        for bad in [
            "number=1",
            "garbage",
            &sample(1).line().replace("score_a=0.5", "score_a=2"),
            &sample(1).line().replace("number=1", "number=0"),
            &sample(1).line().replace("ending=result", "ending=won"),
        ] {
            assert!(GameSummary::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn game_lists_read_and_print_as_ranges() {
        assert_eq!(
            parse_numbers("1-3,7,5-6,2", 1..=8, "--games-list"),
            Ok(vec![1, 2, 3, 5, 6, 7])
        );
        assert_eq!(parse_numbers("0-1", 0..=3, "--files"), Ok(vec![0, 1]));
        assert_eq!(format_numbers(&[1, 2, 3, 5, 6, 7, 9]), "1-3,5-7,9");
        for bad in ["0", "9", "3-2", "a", "1-", ""] {
            assert!(parse_numbers(bad, 1..=8, "--games-list").is_err(), "{bad}");
        }
    }

    #[test]
    fn repeats_are_counted_by_opening_seats_and_turns() {
        let mut games = vec![sample(1), sample(2), sample(3)];
        games[2].opening = games[0].opening;
        games[2].a_first = games[0].a_first;
        let (repeats, distinct) = count_repeats(&games);
        assert_eq!((repeats, distinct.games()), (1, 2));
    }
}
