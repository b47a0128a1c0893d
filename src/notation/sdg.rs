//! SuperDuperGames (SDG) game records, read and written exactly as the
//! site's archive printed them (rules.md §13.1).
//!
//! ```text
//! Homeworlds Online (SDG# 1016)
//! Variants: "Hard time"
//! Started: 2005.10.17, Ended: 2005.10.25
//! Participants: TwoShort (S), ts52 (N)
//! Winner: ts52
//!
//! 1) ts52: Homeworld G2 B1 Y3
//!
//! 16) TwoShort: Sacrifice G3 Twoshort
//! Build G2 Monkeywrench
//! Pass
//! \tts52: a comment starts with a tab (written \t here); every line
//! after it, up to the next numbered turn, is comment text too
//! ```
//!
//! This module only reads and writes the text: header fields, turns, the
//! steps of each turn (parsed into [`ActionText`] without a position) and
//! comments. Judging the turns against the rules is [`crate::record`]'s job.
//! Records come from outside, so every error names the line, the token and
//! what was expected, no input makes the reader panic, and the work is
//! linear in the input, which is bounded: [`read_record_text`] reads at most
//! [`MAX_RECORD_BYTES`], and [`parse_record`] refuses longer texts and lines
//! longer than [`MAX_LINE_BYTES`], with an error that says so. A file is
//! read as bytes ([`read_record_bytes`], [`parse_record_bytes`]) so that
//! these bounds count its own bytes: a byte that is not UTF-8 becomes
//! U+FFFD, three bytes of text, and a file of 400,000 such bytes is 400,000
//! bytes long, not 1,200,000. A record cut off before its header ends is
//! an error at the line after its last, like every other error of a
//! record, bar the one for a record too long, which names no line.

use std::io::Read;

use super::error::ParseError;
use super::turn::{parse_action, parse_words, ActionText, Strictness, MAX_ACTION_WORDS};
use crate::rules::Player;

/// The first header line's fixed text, before the game number.
const TITLE_PREFIX: &str = "Homeworlds Online (SDG# ";

/// The largest record accepted, in bytes: 32 times the largest of the 902
/// archive records (32 KB), so that no real game comes near it while a
/// wrong file (`/dev/zero`, a disk image) is refused after reading 1 MiB.
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// The longest line accepted, in bytes: 12 times the longest line of the
/// archive (a comment of 1,368 bytes).
pub const MAX_LINE_BYTES: usize = 1 << 14;

/// Reads a record's text, refusing more than [`MAX_RECORD_BYTES`] without
/// reading further. Bytes that are not UTF-8 become U+FFFD, as the archive
/// holds a few records in other encodings.
///
/// # Errors
/// A read error, or [`std::io::ErrorKind::InvalidData`] for a text too large
/// to be a game record.
pub fn read_record_text(reader: impl Read) -> std::io::Result<String> {
    read_record_bytes(reader).map(|bytes| String::from_utf8_lossy(&bytes).into_owned())
}

/// Reads a record's bytes as they are, refusing more than
/// [`MAX_RECORD_BYTES`] without reading further: for
/// [`parse_record_bytes`], which counts a file's own bytes.
///
/// # Errors
/// A read error, or [`std::io::ErrorKind::InvalidData`] for a file too
/// large to be a game record.
pub fn read_record_bytes(reader: impl Read) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_RECORD_BYTES as u64 + 1)
        .read_to_end(&mut bytes)?;
    if bytes.len() > MAX_RECORD_BYTES {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("more than {MAX_RECORD_BYTES} bytes: too large for a game record"),
        ));
    }
    Ok(bytes)
}

/// A player of the game and the seat the site gave them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Participant {
    /// The player's name as the header prints it.
    pub name: String,
    /// The seat letter: `N` (player 0, who takes the first turn), `S`, and
    /// `E`/`W` in bigger games (turn order N, E, S, W), then `5` and `6`
    /// in the games of five or six that this program writes.
    pub seat: char,
}

/// The header of a record: who played, when, in which variant, who won.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Header {
    /// The site's game number (`SDG# N`), which names the game everywhere.
    pub game_number: u64,
    /// Variant names (`Hard time`, `Unrated`, `Sinister`, ...), in order.
    pub variants: Vec<String>,
    /// The start date as printed (`2005.10.17`).
    pub started: String,
    /// The end date as printed.
    pub ended: String,
    /// The players in header order (the site prints the second player first).
    pub participants: Vec<Participant>,
    /// The site's verdict; `None` when the record names no winner. It may be
    /// a resignation or time-out rather than a result on the board.
    pub winner: Option<String>,
}

impl Header {
    /// A two-player header: `first` sits North and creates first. Dates and
    /// variants are left empty for the caller to fill in.
    pub fn two_player(game_number: u64, first: &str, second: &str) -> Header {
        Header {
            game_number,
            participants: vec![
                Participant {
                    name: second.to_string(),
                    seat: 'S',
                },
                Participant {
                    name: first.to_string(),
                    seat: 'N',
                },
            ],
            ..Header::default()
        }
    }

    /// The name of the participant in `seat`.
    pub fn seat_name(&self, seat: char) -> Option<&str> {
        self.participants
            .iter()
            .find(|participant| participant.seat == seat)
            .map(|participant| participant.name.as_str())
    }

    /// The name of a player of a two-player game: North is player 0, who
    /// takes the first turn (and creates first unless that turn is a setup
    /// pass, `Rules::setup_pass`); South is player 1.
    pub fn player_name(&self, player: Player) -> Option<&str> {
        self.seat_name(match player {
            Player::First => 'N',
            Player::Second => 'S',
        })
    }

    /// Which player `name` is (ignoring case, as the site did).
    pub fn player_of(&self, name: &str) -> Option<Player> {
        Player::BOTH.into_iter().find(|&player| {
            self.player_name(player)
                .is_some_and(|own| own.eq_ignore_ascii_case(name))
        })
    }

    /// The participant called `name`, ignoring case.
    fn participant(&self, name: &str) -> Option<&Participant> {
        self.participants
            .iter()
            .find(|participant| participant.name.eq_ignore_ascii_case(name))
    }
}

/// One step of a turn as the record wrote it, with its parsed form.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Step {
    /// The step as written (trimmed), kept so that errors and the writer can
    /// show the record's own words.
    pub text: String,
    /// The parsed action; system names are resolved later, on a board.
    pub action: ActionText,
    /// The 1-based line of the record it came from, when read from a file.
    pub line: Option<usize>,
}

impl Step {
    /// Parses one step such as `Sac Y2 Dlwillson` or `Build G1! Home`.
    ///
    /// The site read each command's words by position and ignored any extra
    /// words: `Discover G1 Fuguru B1 Centauri Prime` named the system
    /// `Centauri`, `Pass Catastrophe X G` was only a pass (the player fired
    /// the catastrophe next turn), `Build G1 X (n)` was a build. So when the
    /// whole text does not parse, the longest leading run of words that does
    /// is taken, as the site did. No command has more than
    /// [`MAX_ACTION_WORDS`] words, so only runs that short are tried, and
    /// the work stays linear in the text.
    ///
    /// ```
    /// use supernova::notation::sdg::Step;
    /// use supernova::notation::turn::ActionText;
    ///
    /// let step = Step::parse("Discover G1 Fuguru B1 Centauri Prime").unwrap();
    /// let ActionText::Discover { name, .. } = step.action else { panic!() };
    /// assert_eq!(name.as_deref(), Some("Centauri"));
    /// assert!(Step::parse("Bulid G1 Home").is_err());
    /// ```
    ///
    /// # Errors
    /// Names the offending word and the expected form (for the whole text).
    pub fn parse(text: &str) -> Result<Step, ParseError> {
        let text = text.trim();
        let action = parse_action(text, Strictness::Lenient).or_else(|error| {
            let words: Vec<&str> = text.split_whitespace().take(MAX_ACTION_WORDS + 1).collect();
            (1..words.len().min(MAX_ACTION_WORDS + 1))
                .rev()
                .find_map(|length| parse_words(&words[..length], Strictness::Lenient).ok())
                .ok_or(error)
        })?;
        Ok(Step {
            text: text.to_string(),
            action,
            line: None,
        })
    }
}

/// One numbered turn of a record.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RecordTurn {
    /// The site's turn number (1 and 2 are the setup turns).
    pub number: u32,
    /// The mover's name as the turn line prints it.
    pub player: String,
    /// The steps in order: the numbered line's text, then continuation lines.
    pub steps: Vec<Step>,
    /// Comment lines, verbatim (the first starts with a tab), without the
    /// blank lines that separate turns.
    pub comments: Vec<String>,
    /// The 1-based line of the numbered turn line, when read from a file.
    pub line: Option<usize>,
}

impl RecordTurn {
    /// A turn from its one-line form, steps separated by `; ` (as
    /// `format_turn(.., Style::Sdg)` writes them) or by new lines.
    ///
    /// # Errors
    /// Names the offending step and the expected form.
    pub fn from_text(number: u32, player: &str, text: &str) -> Result<RecordTurn, ParseError> {
        let steps = text
            .split([';', '\n'])
            .map(str::trim)
            .filter(|part| !part.is_empty())
            .map(Step::parse)
            .collect::<Result<Vec<Step>, ParseError>>()?;
        if steps.is_empty() {
            return Err(ParseError::new(
                text,
                "expected at least one action, such as Pass",
            ));
        }
        Ok(RecordTurn {
            number,
            player: player.to_string(),
            steps,
            comments: Vec::new(),
            line: None,
        })
    }

    /// The one-line form: the steps as written, joined by `; `.
    pub fn text(&self) -> String {
        let texts: Vec<&str> = self.steps.iter().map(|step| step.text.as_str()).collect();
        texts.join("; ")
    }
}

/// Splits a numbered turn line `N) NAME: rest` into its parts. The name has
/// no spaces; whether it is a participant is for the caller to check.
fn split_turn_line(line: &str) -> Option<(u32, &str, &str)> {
    let (number, rest) = line.split_once(") ")?;
    if number.is_empty() || !number.bytes().all(|byte| byte.is_ascii_digit()) {
        return None;
    }
    let number: u32 = number.parse().ok()?;
    let (name, rest) = rest.split_once(':')?;
    if name.is_empty() || name.contains(char::is_whitespace) {
        return None;
    }
    Some((number, name, rest.trim()))
}

/// Reads `key: value` from a header line, or says which line was expected;
/// at the end of the text, that is line `end_line`.
fn header_value<'a>(
    line: Option<(usize, &'a str)>,
    key: &str,
    example: &str,
    end_line: usize,
) -> Result<(usize, &'a str), ParseError> {
    let Some((number, text)) = line else {
        return Err(
            ParseError::new("end of file", format!("expected a header line `{example}`"))
                .at_line(end_line),
        );
    };
    text.strip_prefix(key)
        .map(|value| (number, value))
        .ok_or_else(|| {
            ParseError::new(text, format!("expected a header line `{example}`")).at_line(number)
        })
}

fn parse_participants(text: &str, line: usize) -> Result<Vec<Participant>, ParseError> {
    let mut participants = Vec::new();
    for part in text.split("), ") {
        let part = part.strip_suffix(')').unwrap_or(part);
        let bad = || {
            ParseError::new(
                part,
                "expected a participant `NAME (SEAT)` with SEAT one of N, S, E, W (or 5, 6 in games of five or six)",
            )
            .at_line(line)
        };
        let (name, seat) = part.rsplit_once(" (").ok_or_else(bad)?;
        let name = name.trim();
        let seat = match seat {
            "N" | "S" | "E" | "W" | "5" | "6" => seat.chars().next().ok_or_else(bad)?,
            _ => return Err(bad()),
        };
        if name.is_empty() || name.contains(char::is_whitespace) || name.contains(':') {
            return Err(bad());
        }
        if participants
            .iter()
            .any(|other: &Participant| other.name.eq_ignore_ascii_case(name) || other.seat == seat)
        {
            return Err(ParseError::new(
                part,
                "expected each participant and seat once in `Participants:`",
            )
            .at_line(line));
        }
        participants.push(Participant {
            name: name.to_string(),
            seat,
        });
    }
    Ok(participants)
}

/// Reads the header from numbered lines, leaving the iterator at the first
/// line after the `Winner:` line; `end_line` is the line after the last.
fn parse_header<'a>(
    lines: &mut std::iter::Peekable<impl Iterator<Item = (usize, &'a str)>>,
    end_line: usize,
) -> Result<Header, ParseError> {
    let title_example = "Homeworlds Online (SDG# N)";
    let (number, title) = header_value(lines.next(), TITLE_PREFIX, title_example, end_line)?;
    let game_number = title
        .strip_suffix(')')
        .and_then(|digits| digits.trim().parse::<u64>().ok())
        .ok_or_else(|| {
            ParseError::new(
                title,
                format!("expected a game number and `)`, as in `{title_example}`"),
            )
            .at_line(number)
        })?;
    let mut variants = Vec::new();
    if let Some((number, text)) = lines.peek().copied() {
        if let Some(value) = text.strip_prefix("Variants:") {
            lines.next();
            let value = value.trim();
            let quoted = value
                .strip_prefix('"')
                .and_then(|inner| inner.strip_suffix('"'))
                .ok_or_else(|| {
                    ParseError::new(value, "expected variants in double quotes: `\"Hard time\"`")
                        .at_line(number)
                })?;
            variants = quoted
                .split(',')
                .map(str::trim)
                .filter(|variant| !variant.is_empty())
                .map(str::to_string)
                .collect();
        }
    }
    let (_, dates) = header_value(
        lines.next(),
        "Started:",
        "Started: 2005.10.17, Ended: 2005.10.25",
        end_line,
    )?;
    let (started, ended) = match dates.split_once(", Ended:") {
        Some((started, ended)) => (started.trim(), ended.trim()),
        None => (dates.trim(), ""),
    };
    let (number, names) = header_value(
        lines.next(),
        "Participants: ",
        "Participants: NAME (S), NAME (N)",
        end_line,
    )?;
    let participants = parse_participants(names, number)?;
    let (_, winner) = header_value(lines.next(), "Winner:", "Winner: NAME", end_line)?;
    let winner = winner.trim();
    Ok(Header {
        game_number,
        variants,
        started: started.to_string(),
        ended: ended.to_string(),
        participants,
        winner: (!winner.is_empty()).then(|| winner.to_string()),
    })
}

/// Parses the steps on one line: one action, or several separated by `;`.
fn parse_steps(text: &str, line: usize) -> Result<Vec<Step>, ParseError> {
    text.split(';')
        .map(str::trim)
        .filter(|part| !part.is_empty())
        .map(|part| {
            Step::parse(part)
                .map(|step| Step {
                    line: Some(line),
                    ..step
                })
                .map_err(|error| error.at_line(line))
        })
        .collect()
}

/// Drops the blank lines that separate a turn's comments from the next turn.
fn trim_comments(turn: Option<&mut RecordTurn>) {
    if let Some(turn) = turn {
        while turn
            .comments
            .last()
            .is_some_and(|line| line.trim().is_empty())
        {
            turn.comments.pop();
        }
    }
}

/// Reads a whole record: the header, then the numbered turns.
///
/// A numbered line `N) NAME: ...` starts a turn when NAME is a participant
/// (ignoring case) and N is the next turn number. Inside a comment, a line
/// with an earlier number is comment text (players quoted earlier turns and
/// wrote numbered lists); a later number is an error everywhere, so that a
/// gap in the numbering never swallows the rest of a game as comment text.
///
/// # Errors
/// Names the line, the offending token and what was expected; a text longer
/// than [`MAX_RECORD_BYTES`] or a line longer than [`MAX_LINE_BYTES`] is an
/// error too.
pub fn parse_record(text: &str) -> Result<(Header, Vec<RecordTurn>), ParseError> {
    check_bounds(text.as_bytes())?;
    parse_bounded(text)
}

/// [`parse_record`] for a record's bytes, as read from a file: the bounds
/// count the file's bytes, before bytes that are not UTF-8 become U+FFFD
/// (three bytes each in the text), so that a message gives the sizes the
/// user can see with `ls` or `wc`.
///
/// # Errors
/// As [`parse_record`].
pub fn parse_record_bytes(bytes: &[u8]) -> Result<(Header, Vec<RecordTurn>), ParseError> {
    check_bounds(bytes)?;
    parse_bounded(&String::from_utf8_lossy(bytes))
}

/// Refuses a record longer than [`MAX_RECORD_BYTES`] or with a line longer
/// than [`MAX_LINE_BYTES`], counting `bytes` as they are.
fn check_bounds(bytes: &[u8]) -> Result<(), ParseError> {
    if bytes.len() > MAX_RECORD_BYTES {
        return Err(ParseError::about_bytes(
            bytes,
            format!(
                "expected a game record of at most {MAX_RECORD_BYTES} bytes, not {}",
                bytes.len()
            ),
        ));
    }
    if let Some((index, line)) = bytes
        .split(|&byte| byte == b'\n')
        .enumerate()
        .find(|(_, line)| line.len() > MAX_LINE_BYTES)
    {
        return Err(ParseError::about_bytes(
            line,
            format!(
                "expected a line of at most {MAX_LINE_BYTES} bytes, not {}",
                line.len()
            ),
        )
        .at_line(index + 1));
    }
    Ok(())
}

/// [`parse_record`] once the bounds are checked.
fn parse_bounded(text: &str) -> Result<(Header, Vec<RecordTurn>), ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text
        .split('\n')
        .map(|line| line.strip_suffix('\r').unwrap_or(line))
        .enumerate()
        .map(|(index, line)| (index + 1, line))
        .peekable();
    // Where a missing header line was expected: the line after the last.
    let end_line = text.split('\n').count() + 1;
    let header = parse_header(&mut lines, end_line)?;
    let mut turns: Vec<RecordTurn> = Vec::new();
    let mut in_comment = false;
    for (number, line) in lines {
        if let Some((turn_number, name, rest)) = split_turn_line(line) {
            if let Some(participant) = header.participant(name) {
                let expected = turns.len() as u32 + 1;
                if turn_number == expected {
                    trim_comments(turns.last_mut());
                    in_comment = false;
                    turns.push(RecordTurn {
                        number: turn_number,
                        player: participant.name.clone(),
                        steps: parse_steps(rest, number)?,
                        comments: Vec::new(),
                        line: Some(number),
                    });
                    continue;
                }
                if turn_number > expected || !in_comment {
                    return Err(ParseError::new(
                        line,
                        format!("expected turn number {expected} here"),
                    )
                    .at_line(number));
                }
            }
        }
        if in_comment {
            if let Some(turn) = turns.last_mut() {
                turn.comments.push(line.to_string());
            }
            continue;
        }
        if line.trim().is_empty() {
            continue;
        }
        let Some(turn) = turns.last_mut() else {
            return Err(ParseError::new(
                line,
                "expected the first turn, such as `1) NAME: Homeworld G3 B2 Y3`",
            )
            .at_line(number));
        };
        if line.starts_with('\t') {
            in_comment = true;
            turn.comments.push(line.to_string());
            continue;
        }
        turn.steps.extend(parse_steps(line, number)?);
    }
    trim_comments(turns.last_mut());
    Ok((header, turns))
}

/// Writes a record in the site's format: header, a blank line, then each
/// turn's numbered line, its continuation lines and its comments, with a
/// blank line between turns. Turns are numbered from 1 in the given order.
///
/// A match runner can save its games with this: build each turn with
/// [`RecordTurn::from_text`] from `format_turn(.., Style::Sdg)`.
pub fn write_record(header: &Header, turns: &[RecordTurn]) -> String {
    let mut out = format!("{TITLE_PREFIX}{})\n", header.game_number);
    if !header.variants.is_empty() {
        out.push_str(&format!("Variants: \"{}\"\n", header.variants.join(", ")));
    }
    let dates = format!("Started: {}, Ended: {}", header.started, header.ended);
    out.push_str(dates.trim_end());
    out.push('\n');
    let participants: Vec<String> = header
        .participants
        .iter()
        .map(|participant| format!("{} ({})", participant.name, participant.seat))
        .collect();
    out.push_str(&format!("Participants: {}\n", participants.join(", ")));
    match &header.winner {
        Some(winner) => out.push_str(&format!("Winner: {winner}\n")),
        None => out.push_str("Winner:\n"),
    }
    for (index, turn) in turns.iter().enumerate() {
        out.push('\n');
        let mut steps = turn.steps.iter().map(|step| step.text.as_str());
        out.push_str(&format!(
            "{}) {}: {}\n",
            index + 1,
            turn.player,
            steps.next().unwrap_or("")
        ));
        for step in steps {
            out.push_str(step);
            out.push('\n');
        }
        for (line_index, comment) in turn.comments.iter().enumerate() {
            if line_index == 0 && !comment.starts_with('\t') {
                out.push('\t');
            } else if split_turn_line(comment).is_some() {
                // Keep a comment line from reading back as a turn.
                out.push(' ');
            }
            out.push_str(comment);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const SAMPLE: &str = "Homeworlds Online (SDG# 1016)\n\
        Variants: \"No undo, Hard time\"\n\
        Started: 2005.10.17, Ended: 2005.10.25\n\
        Participants: TwoShort (S), ts52 (N)\n\
        Winner: ts52\n\
        \n\
        1) ts52: Homeworld G2 B1 Y3\n\
        \n\
        2) TwoShort: Homeworld Y3 B1 G3 *\n\
        \tts52: Hello.\n\
        1) Not a turn: a numbered list in a comment\n\
        \n\
        3) ts52:\n\
        B Y1! Ts52\n";

    #[test]
    fn reads_header_turns_and_comments() {
        let (header, turns) = parse_record(SAMPLE).unwrap();
        assert_eq!(header.game_number, 1016);
        assert_eq!(header.variants, ["No undo", "Hard time"]);
        assert_eq!(header.started, "2005.10.17");
        assert_eq!(header.ended, "2005.10.25");
        assert_eq!(header.player_name(Player::First), Some("ts52"));
        assert_eq!(header.player_name(Player::Second), Some("TwoShort"));
        assert_eq!(header.winner.as_deref(), Some("ts52"));
        assert_eq!(turns.len(), 3);
        assert_eq!(turns[1].comments.len(), 2);
        assert_eq!(turns[2].steps[0].text, "B Y1! Ts52");
        assert_eq!(turns[2].steps[0].line, Some(14));
    }

    #[test]
    fn writes_what_it_reads() {
        let (header, turns) = parse_record(SAMPLE).unwrap();
        let written = write_record(&header, &turns);
        let (header_again, turns_again) = parse_record(&written).unwrap();
        assert_eq!(header, header_again);
        assert_eq!(turns.len(), turns_again.len());
        for (turn, again) in turns.iter().zip(&turns_again) {
            assert_eq!(turn.text(), again.text());
            assert_eq!(turn.comments, again.comments);
        }
    }

    #[test]
    fn errors_name_the_line() {
        let bad = SAMPLE.replace("B Y1! Ts52", "Bulid Y1 Ts52");
        let error = parse_record(&bad).unwrap_err();
        assert_eq!(error.line, Some(14));
        assert_eq!(error.token, "Bulid");
        let skipped = SAMPLE.replace("3) ts52:", "4) ts52:");
        let error = parse_record(&skipped).unwrap_err();
        assert_eq!(error.line, Some(13));
        assert!(error.expected.contains("turn number 3"), "{error}");
    }
}
