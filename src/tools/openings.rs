//! `supernova openings`: the openings of `supernova match` and the table of
//! the setup book, both derived from the setups people played.
//!
//! Each SuperDuperGames record gives two homeworld setups. They are read by
//! replaying the record under the `sdg` rules (which know the site's
//! quirks), and a game is used only when both setups are creations that are
//! also legal under `standard` (a Large ship, two stars): no setup pass, no
//! small starting ship, no one-star home. The position after both setups,
//! in HWPN without names, is one opening; the most frequent ones become
//! positions/openings.txt. A pair in which either home has no yellow and no
//! blue is left out: that side could never move or trade, and the game
//! would only run into the turn limit.
//!
//! A pair and its mirror (the same two homes, the other one created first)
//! are counted apart, and colours are never exchanged: the first home moves
//! first, the second was chosen knowing the first, and each colour grants a
//! different power, so none of these is the same game. (`supernova match`
//! swaps the *engines* between the seats, not the homes.)

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::notation::hwpn;
use crate::record::GameRecord;
use crate::rules::{Action, Player, Position, Rules};
use crate::search::{has_yellow_or_blue, PlayedSetup};

/// Why a record gives no opening (one of these per skipped record).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Skip {
    /// Not a two-player game of the plain rules (the replay skips it too).
    Unsupported,
    /// The record stops, or breaks the `sdg` rules, before both setups.
    NoSetups,
    /// A setup turn is a pass (SuperDuperGames allowed it, `standard` does not).
    SetupPass,
    /// A setup is legal under `sdg` only: a small or medium starting ship,
    /// or a one-star home.
    NotStandard,
}

impl Skip {
    /// The reason in words, after a count of records, for the file's header.
    pub fn words(self) -> &'static str {
        match self {
            Skip::Unsupported => "not plain two-player games",
            Skip::NoSetups => "without two legal setup turns",
            Skip::SetupPass => "with a setup pass",
            Skip::NotStandard => "with a setup legal only under sdg",
        }
    }
}

/// The two setups of one game, as `standard` creations.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GameSetups {
    /// Player 0's homeworld creation, then player 1's.
    pub setups: [Action; 2],
    /// The position right after both setups (player 0 to move).
    pub position: Position,
    /// The player the record's `Winner:` line names, if any.
    pub winner: Option<Player>,
}

/// The setups of a record, or why it has none that can be used.
pub fn game_setups(record: &GameRecord) -> Result<GameSetups, Skip> {
    if record.unsupported().is_some() {
        return Err(Skip::Unsupported);
    }
    let walk = record.walk(&Rules::SDG);
    let turns = walk.turns.get(..2).ok_or(Skip::NoSetups)?;
    let mut setups = [Action::Pass; 2];
    for (setup, turn) in setups.iter_mut().zip(turns) {
        match turn.actions.as_slice() {
            [action @ Action::Homeworld { .. }] => *setup = *action,
            _ => return Err(Skip::SetupPass),
        }
    }
    if turns[0].mover != Player::First {
        return Err(Skip::SetupPass);
    }
    let rules = Rules::STANDARD;
    let mut position = Position::start();
    for setup in setups {
        position
            .try_apply(&rules, setup)
            .map_err(|_| Skip::NotStandard)?;
        position.end_turn(&rules).map_err(|_| Skip::NotStandard)?;
    }
    let winner = record.header.winner.as_deref().and_then(|name| {
        Player::BOTH.into_iter().find(|&player| {
            record
                .header
                .player_name(player)
                .is_some_and(|seated| seated.eq_ignore_ascii_case(name))
        })
    });
    Ok(GameSetups {
        setups,
        position,
        winner,
    })
}

/// A date as the site prints it (`2020.8.6`, not always zero-padded), as
/// numbers that compare in time order; `None` when it is not such a date.
fn date_key(text: &str) -> Option<Vec<u32>> {
    let parts: Option<Vec<u32>> = text
        .trim()
        .split('.')
        .map(|part| part.parse().ok())
        .collect();
    parts.filter(|parts| parts.len() == 3)
}

/// A homeworld creation with its stars in canonical order, so that the same
/// home reads the same whichever star the player named first.
fn canonical(action: Action) -> Action {
    match action {
        Action::Homeworld {
            star,
            second_star: Some(second),
            ship,
        } => Action::Homeworld {
            star: star.min(second),
            second_star: Some(star.max(second)),
            ship,
        },
        other => other,
    }
}

/// What a set of records says about setups: every opening with its count,
/// the setups table, and what was left out.
#[derive(Clone, Debug, Default)]
pub struct Gathered {
    /// Records read.
    pub records: usize,
    /// Records skipped, by reason, in the order of [`Skip`].
    pub skipped: Vec<(Skip, usize)>,
    /// Games whose pair was left out because a home has no yellow and no blue.
    pub without_yellow_or_blue: usize,
    /// Every distinct opening kept, as HWPN, with how many games began
    /// with it: most frequent first, then by text.
    pub openings: Vec<(String, usize)>,
    /// Every setup of the games used (both sides, including games whose
    /// pair was left out) that has yellow or blue: most played first, then
    /// most won, then by text.
    pub setups: Vec<PlayedSetup>,
    /// The earliest start date of the games used, as printed (`2005.10.16`;
    /// the site does not always pad with zeros: `2020.8.6`).
    pub first_date: String,
    /// The latest end date of the games used, as printed.
    pub last_date: String,
}

impl Gathered {
    /// Games whose setups were used (counted in the setups table).
    pub fn used(&self) -> usize {
        self.records - self.skipped.iter().map(|(_, count)| count).sum::<usize>()
    }
}

/// Reads the setups of every record.
pub fn gather<'a>(records: impl IntoIterator<Item = &'a GameRecord>) -> Gathered {
    let mut gathered = Gathered::default();
    let mut skipped: HashMap<Skip, usize> = HashMap::new();
    let mut openings: HashMap<String, usize> = HashMap::new();
    let mut setups: HashMap<String, PlayedSetup> = HashMap::new();
    let mut first_date: Option<(Vec<u32>, String)> = None;
    let mut last_date: Option<(Vec<u32>, String)> = None;
    for record in records {
        gathered.records += 1;
        let game = match game_setups(record) {
            Ok(game) => game,
            Err(reason) => {
                *skipped.entry(reason).or_default() += 1;
                continue;
            }
        };
        if let Some(started) = date_key(&record.header.started) {
            if first_date.as_ref().is_none_or(|(date, _)| started < *date) {
                first_date = Some((started, record.header.started.trim().to_string()));
            }
        }
        if let Some(ended) = date_key(&record.header.ended) {
            if last_date.as_ref().is_none_or(|(date, _)| ended > *date) {
                last_date = Some((ended, record.header.ended.trim().to_string()));
            }
        }
        for (player, setup) in Player::BOTH.into_iter().zip(game.setups) {
            let Action::Homeworld {
                star,
                second_star: Some(second),
                ship,
            } = canonical(setup)
            else {
                continue;
            };
            if !has_yellow_or_blue(setup) {
                continue;
            }
            let key = format!("{star}{second} {ship}");
            let entry = setups.entry(key).or_insert(PlayedSetup {
                stars: [star, second],
                ship,
                played: 0,
                won: 0,
            });
            entry.played += 1;
            entry.won += u32::from(game.winner == Some(player));
        }
        if game.setups.into_iter().all(has_yellow_or_blue) {
            *openings
                .entry(hwpn::write(&game.position, None))
                .or_default() += 1;
        } else {
            gathered.without_yellow_or_blue += 1;
        }
    }
    gathered.skipped = skipped.into_iter().collect();
    gathered.skipped.sort();
    gathered.openings = openings.into_iter().collect();
    gathered
        .openings
        .sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let mut setups: Vec<(String, PlayedSetup)> = setups.into_iter().collect();
    setups.sort_by(|(a_text, a), (b_text, b)| {
        (b.played, b.won)
            .cmp(&(a.played, a.won))
            .then_with(|| a_text.cmp(b_text))
    });
    gathered.setups = setups.into_iter().map(|(_, setup)| setup).collect();
    gathered.first_date = first_date.map(|(_, text)| text).unwrap_or_default();
    gathered.last_date = last_date.map(|(_, text)| text).unwrap_or_default();
    gathered
}

/// The record files as a command line shows them: `DIR/*.EXT` when they
/// all share a folder and an extension (as a shell pattern gives them),
/// else the first file and how many more.
pub fn describe_files(files: &[PathBuf]) -> String {
    let Some(first) = files.first() else {
        return String::new();
    };
    let parent = first.parent();
    let extension = first.extension();
    let shared = files
        .iter()
        .all(|file| file.parent() == parent && file.extension() == extension);
    match (shared, files.len(), extension) {
        (_, 1, _) => first.display().to_string(),
        (true, _, Some(extension)) => {
            let folder = parent.unwrap_or(Path::new(""));
            format!(
                "{}*.{}",
                if folder.as_os_str().is_empty() {
                    String::new()
                } else {
                    format!("{}/", folder.display())
                },
                extension.to_string_lossy()
            )
        }
        _ => format!("{} and {} more files", first.display(), files.len() - 1),
    }
}

/// The header's line on the skipped records.
fn skipped_line(gathered: &Gathered) -> String {
    if gathered.skipped.is_empty() {
        return "none skipped".to_string();
    }
    let parts: Vec<String> = gathered
        .skipped
        .iter()
        .map(|(reason, count)| format!("{count} {}", reason.words()))
        .collect();
    format!("skipped: {}", parts.join(", "))
}

/// `text` as `# ` comment lines of at most 76 characters (longer words
/// stand alone on their line).
fn comment_lines(text: &str) -> String {
    let mut lines = String::new();
    let mut line = String::from("#");
    for word in text.split_whitespace() {
        if line.len() > 1 && line.len() + 1 + word.len() > 76 {
            lines.push_str(&line);
            lines.push('\n');
            line = String::from("#");
        }
        line.push(' ');
        line.push_str(word);
    }
    if line.len() > 1 {
        lines.push_str(&line);
        lines.push('\n');
    }
    lines
}

/// Writes the openings file: a header saying how it was made, then the
/// `count` most frequent openings, each with its number of games.
///
/// # Errors
/// Only the writer's.
pub fn write_openings(
    gathered: &Gathered,
    count: usize,
    files: &str,
    out: &mut dyn Write,
) -> std::io::Result<()> {
    let kept = &gathered.openings[..count.min(gathered.openings.len())];
    let without = match gathered.without_yellow_or_blue {
        1 => "1 of them is".to_string(),
        count => format!("{count} of them are"),
    };
    let paragraph = format!(
        "(src/tools/openings.rs) from {records} SuperDuperGames records of games \
         played {first} to {last}. Each record's two setup turns are replayed under \
         the `sdg` rules; {used} games have setups legal under `standard` ({skipped}). \
         {without} left out because a home has no yellow and no blue (that side could \
         never move or trade). The rest give {distinct} distinct pairs; here are the \
         {kept} most frequent (ties by text), with their games. A pair and its mirror \
         are counted apart (the other home moves first), and colours are never \
         exchanged (each grants a different power).",
        records = gathered.records,
        first = gathered.first_date,
        last = gathered.last_date,
        used = gathered.used(),
        skipped = skipped_line(gathered),
        distinct = gathered.openings.len(),
        kept = kept.len(),
    );
    let mut header = format!(
        "\
# Openings for `supernova match`: positions right after both setup turns,
# in HWPN (protocol.md), one a line; `#` starts a comment. The match runner
# plays each twice, the engines swapping seats.
#
# The pairs of homeworlds people played most on SuperDuperGames, made by
#     supernova openings --count {count} {files}
"
    );
    header.push_str(&comment_lines(&paragraph));
    out.write_all(header.as_bytes())?;
    for (position, games) in kept {
        let plural = if *games == 1 { "" } else { "s" };
        writeln!(out, "{position}  # {games} game{plural}")?;
    }
    out.flush()
}

/// Writes the setups table as the Rust rows of
/// `src/search/played_setups.rs` (`PLAYED_SETUPS`).
///
/// # Errors
/// Only the writer's.
pub fn write_setups(gathered: &Gathered, files: &str, out: &mut dyn Write) -> std::io::Result<()> {
    writeln!(
        out,
        "    // supernova openings --setups {files}: {} setups of {} games ({} to {})",
        gathered.setups.len(),
        gathered.used(),
        gathered.first_date,
        gathered.last_date
    )?;
    for setup in &gathered.setups {
        writeln!(
            out,
            "    setup(b\"{}\", b\"{}\", b\"{}\", {}, {}),",
            setup.stars[0], setup.stars[1], setup.ship, setup.played, setup.won
        )?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(first_setup: &str, second_setup: &str, winner: &str) -> GameRecord {
        let text = format!(
            "Homeworlds Online (SDG# 1)\nStarted: 2006.01.02, Ended: 2006.01.09\n\
             Participants: Bob (S), Ann (N)\nWinner: {winner}\n\n\
             1) Ann: {first_setup}\n\n2) Bob: {second_setup}\n"
        );
        GameRecord::parse_sdg(&text).unwrap()
    }

    #[test]
    fn setups_are_read_and_judged() {
        let game = game_setups(&record("Homeworld Y1 B2 G3", "Homeworld B3 R1 G3", "Bob")).unwrap();
        assert_eq!(hwpn::write(&game.position, None), "y1b2:g3:/r1b3::g3 0");
        assert_eq!(game.winner, Some(Player::Second));
        let small_ship = record("Homeworld Y1 B2 G1", "Homeworld B3 R1 G3", "Ann");
        assert_eq!(game_setups(&small_ship), Err(Skip::NotStandard));
        let pass = record("Pass", "Homeworld B3 R1 G3", "Ann");
        assert_eq!(game_setups(&pass), Err(Skip::SetupPass));
    }

    #[test]
    fn openings_without_yellow_or_blue_are_left_out_but_the_other_setup_counts() {
        let records = [
            record("Homeworld Y1 B2 G3", "Homeworld R1 G3 G3", "Ann"),
            record("Homeworld Y1 B2 G3", "Homeworld R1 B3 G3", "Ann"),
            record("Homeworld Y1 B2 G3", "Homeworld B3 R1 G3", "Bob"),
            record("Homeworld R1 B3 G3", "Homeworld Y1 B2 G3", "Bob"),
        ];
        let gathered = gather(&records);
        assert_eq!(gathered.records, 4);
        assert_eq!(gathered.used(), 4);
        assert_eq!(gathered.without_yellow_or_blue, 1);
        assert_eq!(
            gathered.openings,
            vec![
                ("y1b2:g3:/r1b3::g3 0".to_string(), 2),
                ("r1b3:g3:/y1b2::g3 0".to_string(), 1),
            ]
        );
        let rows: Vec<(String, u32, u32)> = gathered
            .setups
            .iter()
            .map(|setup| {
                (
                    format!("{}{} {}", setup.stars[0], setup.stars[1], setup.ship),
                    setup.played,
                    setup.won,
                )
            })
            .collect();
        assert_eq!(
            rows,
            vec![("y1b2 g3".to_string(), 4, 3), ("r1b3 g3".to_string(), 3, 1),]
        );
        let mut text = Vec::new();
        write_openings(&gathered, 64, "games/*.raw", &mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        assert!(text.contains("supernova openings --count 64 games/*.raw"));
        assert!(text.contains("2006.01.02 to 2006.01.09"));
        assert!(text.ends_with("r1b3:g3:/y1b2::g3 0  # 1 game\n"), "{text}");
    }

    #[test]
    fn files_are_described_as_a_pattern() {
        let files = |names: &[&str]| names.iter().map(PathBuf::from).collect::<Vec<_>>();
        assert_eq!(
            describe_files(&files(&["../shared/sdg/1.raw", "../shared/sdg/2.raw"])),
            "../shared/sdg/*.raw"
        );
        assert_eq!(describe_files(&files(&["a.raw", "b.raw"])), "*.raw");
        assert_eq!(describe_files(&files(&["a.raw"])), "a.raw");
        assert_eq!(
            describe_files(&files(&["a.raw", "x/b.raw", "c.txt"])),
            "a.raw and 2 more files"
        );
    }
}
