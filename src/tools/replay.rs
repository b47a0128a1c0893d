//! `supernova replay`: every record file judged by the rules, a line per
//! game and a count of the verdicts. A file that cannot be read is reported
//! in its place and counted apart, so that one bad file in an archive does
//! not hide the verdicts on the others.

use std::io::{self, Write};
use std::path::PathBuf;

use crate::record::{GameRecord, Verdict};
use crate::rules::Rules;

/// The verdicts of a replay over many files, counted.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplayTally {
    /// Games whose every turn is legal.
    pub legal: usize,
    /// Games with an illegal turn.
    pub illegal: usize,
    /// Games not replayed (not a game of the plain rules).
    pub skipped: usize,
    /// The files that could not be read or parsed, with the reason.
    pub unreadable: Vec<String>,
}

impl ReplayTally {
    /// Counts one game's verdict.
    pub fn add(&mut self, verdict: &Verdict) {
        match verdict {
            Verdict::Illegal(_) => self.illegal += 1,
            Verdict::Skipped(_) => self.skipped += 1,
            _ => self.legal += 1,
        }
    }

    /// Prints the summary: the skipped games (when there are any), then the
    /// games replayed and how many were legal.
    ///
    /// # Errors
    /// Writing to `out` failed.
    pub fn write_summary(&self, out: &mut dyn Write) -> io::Result<()> {
        if self.skipped > 0 {
            writeln!(out, "skipped {} games", self.skipped)?;
        }
        writeln!(
            out,
            "replayed {} games: {} legal, {} illegal",
            self.legal + self.illegal,
            self.legal,
            self.illegal
        )
    }
}

/// Replays each file under `rules`, printing a line per game (or the reason
/// it could not be read) and the summary.
///
/// # Errors
/// Writing to `out` failed.
pub fn replay_files(
    rules: &Rules,
    files: &[PathBuf],
    out: &mut dyn Write,
) -> io::Result<ReplayTally> {
    let mut tally = ReplayTally::default();
    for path in files {
        let record = match GameRecord::read_file(path) {
            Ok(record) => record,
            Err(message) => {
                writeln!(out, "{message}")?;
                tally.unreadable.push(message);
                continue;
            }
        };
        let report = record.replay(rules);
        writeln!(out, "{}: {report}", path.display())?;
        tally.add(&report.verdict);
    }
    tally.write_summary(out)?;
    out.flush()?;
    Ok(tally)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdicts_are_counted_and_summed_up() {
        let mut tally = ReplayTally::default();
        tally.add(&Verdict::Unfinished);
        tally.add(&Verdict::Skipped("not a two-player game".to_string()));
        let mut out = Vec::new();
        tally.write_summary(&mut out).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "skipped 1 games\nreplayed 1 games: 1 legal, 0 illegal\n"
        );
    }

    #[test]
    fn an_unreadable_file_is_reported_and_counted() {
        let missing = PathBuf::from("/nonexistent/game.txt");
        let mut out = Vec::new();
        let tally = replay_files(&Rules::STANDARD, &[missing], &mut out).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(tally.unreadable.len(), 1);
        assert!(
            text.starts_with("/nonexistent/game.txt: cannot read a game record: "),
            "{text}"
        );
        assert!(
            text.ends_with("replayed 0 games: 0 legal, 0 illegal\n"),
            "{text}"
        );
    }
}
