//! Board Game Arena (BGA) game logs, read into a [`GameRecord`].
//!
//! BGA shows a Homeworlds table's log as English sentences, one event a
//! line, each under a `Move N :TIME` line (a date on the first and on the
//! first of each new day):
//!
//! ```text
//! Move 2 :10:48:54 AM
//! Babamots establishes a homeworld with a g3 ship at r1 and b3 binary stars.
//! Move 34 :5:18:41 PM
//! Babamots discovers a g2 system named Alti.
//! Babamots moves a r1 ship from Homeworld Babamots to Alti.
//! Move 35 :5:19:25 PM
//! Babamots restarts their turn.
//! ```
//!
//! The log is not a list of turns: a player acts, may take everything back
//! (`restarts their turn`) and act again, and only `ends their turn` makes
//! the turn. So the reader replays the log on a [`Board`] under the
//! standard rules as it reads, line by line, keeping the board at the start
//! of the turn to go back to on a restart; what it keeps is a record like
//! an SDG one (the same [`GameRecord`]), whose steps name the log's lines,
//! so that every command that takes a record takes a BGA log, and
//! [`GameRecord::to_sdg`] writes it as SDG.
//!
//! Replaying while reading is also how the log is checked: an action the
//! rules refuse is an error naming its line and the rules' reason; a
//! `SYSTEM is forgotten.` line must follow the action that made the system
//! fade on the board, and a system that fades on the board must be
//! forgotten in the log (the error names the action's line); a catastrophe
//! is an action like the others, which the rules allow only where a colour
//! is overpopulated. Homes are named after their players (`Homeworld
//! Babamots` is the system `Babamots`, as SDG records name homes), and
//! discovered systems keep the log's names.
//!
//! The setup turn has no `ends their turn` line: establishing a homeworld
//! ends it. A turn the log never ends (the player conceded during it, or
//! the log stops) is kept as far as it goes, as the board showed it.
//! `NAME concedes the game.`, `The end of the game: NAME wins!` and `End of
//! game (tie)` end the game: the record's `Winner:` names the winner and a
//! `Referee:` comment on its last turn gives the result and why (the
//! concession, or the elimination the board shows); a verdict the board
//! contradicts is an error. Only two-player logs are read (BGA's
//! Homeworlds is a two-player game): a third player's homeworld is an
//! error that says so. Player names must be writable in an SDG record (no
//! spaces, colons, commas, semicolons or parentheses).
//!
//! Like the SDG reader, no input makes this reader panic, and its work is
//! linear in the input, which is bounded by the SDG reader's limits
//! ([`MAX_RECORD_BYTES`], [`MAX_LINE_BYTES`]).

use super::{GameRecord, RecordedResult};
use crate::notation::error::{excerpt, ParseError};
use crate::notation::sdg::{Header, RecordTurn, Step, MAX_LINE_BYTES, MAX_RECORD_BYTES};
use crate::notation::turn::{format_named_action, join_turn, resolve, ActionText, Style};
use crate::notation::Board;
use crate::rules::{Action, Colour, Outcome, Piece, Player, Rules};

/// The start of an SDG record's first line: a text that begins so is SDG,
/// whatever it holds further down.
const SDG_TITLE: &str = "Homeworlds Online (SDG#";

/// The words of the setup line after the player's name, up to the ship.
const ESTABLISHES: &str = " establishes a homeworld with a ";

/// The rules a log is checked by: BGA plays the standard rules.
const RULES: Rules = Rules::STANDARD;

/// Whether `text` is a BGA log rather than an SDG record: it does not open
/// with the SDG title, and some line is a `Move N :` line or a homeworld's
/// establishment. Anything else is left to the SDG reader, whose errors
/// then say what an SDG record needs.
pub fn looks_like_bga(text: &str) -> bool {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let first = text.lines().map(str::trim).find(|line| !line.is_empty());
    if first.is_none_or(|line| line.starts_with(SDG_TITLE)) {
        return false;
    }
    text.lines().map(str::trim).any(|line| {
        line.contains(ESTABLISHES) || move_line(&line.split_whitespace().collect::<Vec<_>>())
    })
}

/// Whether a line's words are a `Move N :TIME` line.
fn move_line(words: &[&str]) -> bool {
    matches!(words, ["Move", number, time, ..]
        if !number.is_empty()
            && number.bytes().all(|byte| byte.is_ascii_digit())
            && time.starts_with(':'))
}

/// Reads a BGA log's bytes, as read from a file: the bounds count the
/// file's own bytes, and bytes that are not UTF-8 become U+FFFD (and then
/// an error on their line).
///
/// # Errors
/// As [`parse`].
pub fn parse_bytes(bytes: &[u8]) -> Result<GameRecord, ParseError> {
    check_bounds(bytes)?;
    read(&String::from_utf8_lossy(bytes))
}

/// Reads a BGA log (see the module docs), replaying it under the standard
/// rules.
///
/// # Errors
/// Names the line and why: a line that is not a log line, an action the
/// rules refuse, a fade the log and the board disagree on, a verdict the
/// board contradicts, a third player, a log without two homeworlds; or a
/// text beyond the SDG reader's bounds.
pub fn parse(text: &str) -> Result<GameRecord, ParseError> {
    check_bounds(text.as_bytes())?;
    read(text)
}

/// Refuses a log longer than [`MAX_RECORD_BYTES`] or with a line longer
/// than [`MAX_LINE_BYTES`], as the SDG reader does.
fn check_bounds(bytes: &[u8]) -> Result<(), ParseError> {
    if bytes.len() > MAX_RECORD_BYTES {
        return Err(ParseError::about_bytes(
            bytes,
            format!(
                "expected a game log of at most {MAX_RECORD_BYTES} bytes, not {}",
                bytes.len()
            ),
        ));
    }
    let long = bytes
        .split(|&byte| byte == b'\n')
        .enumerate()
        .find(|(_, line)| line.len() > MAX_LINE_BYTES);
    match long {
        Some((index, line)) => Err(ParseError::about_bytes(
            line,
            format!(
                "expected a line of at most {MAX_LINE_BYTES} bytes, not {}",
                line.len()
            ),
        )
        .at_line(index + 1)),
        None => Ok(()),
    }
}

/// Reads the lines in order.
fn read(text: &str) -> Result<GameRecord, ParseError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut reader = Reader::new();
    let mut last = 0;
    for (index, line) in text.split('\n').enumerate() {
        last = index + 1;
        reader.line(last, line.trim())?;
    }
    reader.finish(last)
}

/// The error about line `line` (quoted as an excerpt), saying why.
fn fail(line: usize, text: &str, reason: impl Into<String>) -> ParseError {
    ParseError::new(text, reason).at_line(line)
}

/// A discovery the log announced, waiting for the move that makes it.
#[derive(Clone, Debug)]
struct Discovery {
    /// The line of `discovers ... named NAME`.
    line: usize,
    /// Who discovers.
    player: Player,
    /// The new system's star.
    star: Piece,
    /// The name the log gives it.
    name: String,
}

/// A system that the last action made fade and the log has not yet
/// forgotten.
#[derive(Clone, Debug)]
struct Fade {
    /// The system's name.
    name: String,
    /// The line of the action that made it fade.
    line: usize,
    /// That line's text.
    text: String,
}

/// What a player's line says, before it is played.
enum Event {
    /// `ends their turn`.
    End,
    /// `restarts their turn`.
    Restart,
    /// `discovers a STAR system named NAME`.
    Discovers(Piece, String),
    /// `moves a SHIP ship from SYSTEM to SYSTEM`: a discovery's move, or a move.
    Move {
        /// The ship.
        ship: Piece,
        /// Where from.
        from: String,
        /// Where to.
        to: String,
    },
    /// Any other action.
    Action(ActionText),
}

/// How the log ended the game.
#[derive(Clone, Debug)]
enum Ending {
    /// This player conceded, on this line.
    Conceded(Player, usize),
    /// The verdict line: the result, and the winner's name if any.
    Verdict(RecordedResult, Option<String>),
}

/// The reader's state between lines.
struct Reader {
    /// The board as the log has left it, mid-turn included.
    board: Board,
    /// The board when the current turn began: a restart goes back to it.
    turn_start: Board,
    /// The players in turn order, as their homeworlds were established.
    players: Vec<String>,
    /// The steps of the current turn so far.
    steps: Vec<Step>,
    /// Their actions, for the SDG padding of a sacrifice.
    actions: Vec<Action>,
    /// The turns ended so far.
    turns: Vec<RecordTurn>,
    /// A discovery waiting for its move.
    discovery: Option<Discovery>,
    /// Systems the last action made fade, not yet forgotten in the log.
    fades: Vec<Fade>,
    /// The first date of the log, and the last.
    dates: Option<(String, String)>,
    /// How the log ended the game, once it has.
    ending: Option<Ending>,
}

impl Reader {
    /// A reader at the start of a log: the empty map, no players yet.
    fn new() -> Reader {
        Reader {
            board: Board::default(),
            turn_start: Board::default(),
            players: Vec::new(),
            steps: Vec::new(),
            actions: Vec::new(),
            turns: Vec::new(),
            discovery: None,
            fades: Vec::new(),
            dates: None,
            ending: None,
        }
    }

    /// Reads one trimmed line.
    fn line(&mut self, number: usize, line: &str) -> Result<(), ParseError> {
        let body = line.strip_suffix('.').unwrap_or(line);
        let words: Vec<&str> = body.split_whitespace().collect();
        if words.is_empty() {
            return Ok(());
        }
        if move_line(&words) {
            self.note_date(words[2]);
            return Ok(());
        }
        // The colour-preference notice is BGA's, not the game's.
        if line.starts_with("The colors of ") {
            return Ok(());
        }
        if let [system @ .., "is", "forgotten"] = words.as_slice() {
            if !system.is_empty() {
                return self.forgotten(number, line, system);
            }
        }
        self.check_fades()?;
        self.check_discovery(number, line, &words)?;
        if let Some(ending) = &self.ending {
            let ended = match ending {
                Ending::Conceded(_, line) => format!("the concession on line {line}"),
                Ending::Verdict(..) => "its verdict".to_string(),
            };
            let verdict = matches!(ending, Ending::Conceded(..))
                && (line.starts_with("The end of the game: ") || line == "End of game (tie)");
            if !verdict {
                return Err(fail(
                    number,
                    line,
                    format!("the game has ended with {ended}: nothing may follow"),
                ));
            }
        }
        match words.as_slice() {
            ["The", "end", "of", "the", "game:", name, "wins!"] => self.verdict(number, line, name),
            ["End", "of", "game", "(tie)"] => self.tie(number, line),
            [name, rest @ ..] => self.player_line(number, line, name, rest),
            [] => Ok(()),
        }
    }

    /// Keeps the date of a `Move N :DATE TIME` line.
    fn note_date(&mut self, time: &str) {
        let date = time.trim_start_matches(':');
        if date.contains('/') {
            let dates = self
                .dates
                .get_or_insert_with(|| (date.to_string(), String::new()));
            dates.1 = date.to_string();
        }
    }

    /// A system that fades must be forgotten in the log before anything
    /// else happens.
    fn check_fades(&mut self) -> Result<(), ParseError> {
        match self.fades.first() {
            Some(fade) => Err(fail(
                fade.line,
                &fade.text,
                format!(
                    "{} fades here on the board (no ship is left there, or no star), but the log does not say \"{} is forgotten.\"",
                    excerpt(&fade.name),
                    excerpt(&fade.name)
                ),
            )),
            None => Ok(()),
        }
    }

    /// A discovery must be followed by its move: `NAME moves a SHIP ship
    /// from SYSTEM to NEW`, which is not an error here.
    fn check_discovery(
        &mut self,
        number: usize,
        line: &str,
        words: &[&str],
    ) -> Result<(), ParseError> {
        let Some(discovery) = &self.discovery else {
            return Ok(());
        };
        let is_move = words.get(1) == Some(&"moves")
            && words.first() == Some(&self.players[discovery.player.index()].as_str());
        if is_move {
            return Ok(());
        }
        Err(fail(
            number,
            line,
            format!(
                "expected the move into {} that the discovery on line {} announced",
                excerpt(&discovery.name),
                discovery.line
            ),
        ))
    }

    /// `SYSTEM is forgotten.`: the last action must have made it fade.
    fn forgotten(&mut self, number: usize, line: &str, system: &[&str]) -> Result<(), ParseError> {
        let name = self.system_name(number, line, system)?;
        if let Some(index) = self.fades.iter().position(|fade| fade.name == name) {
            self.fades.remove(index);
            return Ok(());
        }
        let reason = if self.board.slot(&name).is_ok() {
            format!("{} is still in play on the board", excerpt(&name))
        } else {
            format!(
                "no system {} faded with the action before this line",
                excerpt(&name)
            )
        };
        Err(fail(number, line, reason))
    }

    /// The system a log names: `Homeworld NAME` is NAME's home, which the
    /// record names after the player; any other name is one word.
    fn system_name(&self, number: usize, line: &str, words: &[&str]) -> Result<String, ParseError> {
        match words {
            ["Homeworld", player] => {
                if self.players.iter().any(|name| name == player) {
                    Ok(player.to_string())
                } else {
                    Err(fail(
                        number,
                        line,
                        format!(
                            "no player {} has a homeworld: the players are {}",
                            excerpt(player),
                            self.player_list()
                        ),
                    ))
                }
            }
            [name] if !name.contains(';') => Ok(name.to_string()),
            _ => Err(fail(
                number,
                line,
                format!(
                    "expected a system: one word, or Homeworld and a player's name, not \"{}\"",
                    excerpt(&words.join(" "))
                ),
            )),
        }
    }

    /// The players' names, for messages.
    fn player_list(&self) -> String {
        if self.players.is_empty() {
            return "none yet".to_string();
        }
        let names: Vec<String> = self.players.iter().map(|name| excerpt(name)).collect();
        names.join(" and ")
    }

    /// A line that starts with a player's name.
    fn player_line(
        &mut self,
        number: usize,
        line: &str,
        name: &str,
        rest: &[&str],
    ) -> Result<(), ParseError> {
        if let ["establishes", "a", "homeworld", "with", "a", ship, "ship", "at", star, "and", second, "binary", "stars"] =
            rest
        {
            return self.establish(number, line, name, [ship, star, second]);
        }
        let Some(player) = self.players.iter().position(|own| own == name) else {
            return Err(fail(
                number,
                line,
                format!(
                    "expected a line of a BGA Homeworlds log: {} is not a player of this game (the players are {})",
                    excerpt(name),
                    self.player_list()
                ),
            ));
        };
        let player = Player::BOTH[player];
        if let ["concedes", "the", "game"] = rest {
            return self.concede(number, line, player);
        }
        self.check_mover(number, line, player)?;
        let action = match self.parse_event(number, line, rest)? {
            Event::End => return self.end_turn(number, line),
            Event::Restart => return self.restart(),
            Event::Discovers(star, name) => {
                self.discovery = Some(Discovery {
                    line: number,
                    player,
                    star,
                    name,
                });
                return Ok(());
            }
            Event::Move { ship, from, to } => match self.discovery.take() {
                Some(discovery) if discovery.name == to => ActionText::Discover {
                    ship,
                    from,
                    star: discovery.star,
                    name: Some(discovery.name),
                },
                Some(discovery) => {
                    return Err(fail(
                        number,
                        line,
                        format!(
                            "expected the move into {}, which the discovery on line {} announced",
                            excerpt(&discovery.name),
                            discovery.line
                        ),
                    ))
                }
                None => ActionText::Move { ship, from, to },
            },
            Event::Action(action) => action,
        };
        self.act(number, line, &action)
    }

    /// Reads the words of a player's line after the name.
    fn parse_event(&self, number: usize, line: &str, rest: &[&str]) -> Result<Event, ParseError> {
        let piece = |word: &str| piece_word(number, line, word);
        let system = |words: &[&str]| self.system_name(number, line, words);
        Ok(Event::Action(match rest {
            ["ends", "their", "turn"] => return Ok(Event::End),
            ["restarts", "their", "turn"] => return Ok(Event::Restart),
            ["discovers", "a", star, "system", "named", name] => {
                return Ok(Event::Discovers(piece(star)?, system(&[name])?))
            }
            ["moves", "a", ship, "ship", "from", route @ ..] => {
                let split = route.iter().position(|word| *word == "to");
                let (from, to) = match split {
                    Some(index) => (&route[..index], &route[index + 1..]),
                    None => (route, &[][..]),
                };
                return Ok(Event::Move {
                    ship: piece(ship)?,
                    from: system(from)?,
                    to: system(to)?,
                });
            }
            ["builds", "a", ship, "ship", "in", at @ ..] => ActionText::Build {
                piece: piece(ship)?,
                system: system(at)?,
            },
            ["trades", "a", from, "ship", "for", "a", to, "ship", "in", at @ ..] => {
                ActionText::Trade {
                    from: piece(from)?,
                    to: piece(to)?,
                    system: system(at)?,
                }
            }
            [verb @ ("captures" | "sacrifices"), "a", ship, "ship", "in", at @ ..] => {
                let (ship, system) = (piece(ship)?, system(at)?);
                if *verb == "captures" {
                    ActionText::Capture { ship, system }
                } else {
                    ActionText::Sacrifice { ship, system }
                }
            }
            ["triggers", "a", colour, "catastrophe", "in", at @ ..] => ActionText::Catastrophe {
                colour: Colour::parse(colour).ok_or_else(|| {
                    fail(
                        number,
                        line,
                        format!(
                            "expected a colour: Red, Yellow, Green or Blue, not {}",
                            excerpt(colour)
                        ),
                    )
                })?,
                system: system(at)?,
            },
            _ => {
                return Err(fail(
                    number,
                    line,
                    "expected a line of a BGA Homeworlds log, such as NAME builds a g1 ship in Homeworld NAME.",
                ))
            }
        }))
    }

    /// The game must not be over on the board, as the last turn left it:
    /// the board mid-turn may show the mover eliminated before the turn
    /// ends (a sacrifice of the last ship at home, rebuilt later).
    fn check_ongoing(&self, number: usize, line: &str) -> Result<(), ParseError> {
        match self.turn_start.position.outcome() {
            Outcome::Win(winner) => Err(fail(
                number,
                line,
                format!(
                    "the game is over on the board: {} has won",
                    excerpt(&self.players[winner.index()])
                ),
            )),
            Outcome::Draw => Err(fail(
                number,
                line,
                "the game is over on the board: both players are eliminated",
            )),
            Outcome::Ongoing => Ok(()),
        }
    }

    /// The player must be the one to move, and the game not over.
    fn check_mover(&self, number: usize, line: &str, player: Player) -> Result<(), ParseError> {
        self.check_ongoing(number, line)?;
        let mover = self.board.position.side_to_move();
        if mover == player {
            return Ok(());
        }
        let name = self
            .players
            .get(mover.index())
            .map_or_else(|| "the second player".to_string(), |name| excerpt(name));
        Err(fail(number, line, format!("it is {name}'s turn")))
    }

    /// `NAME establishes a homeworld with a SHIP ship at STAR and SECOND
    /// binary stars.`: a new player's setup turn, whole.
    fn establish(
        &mut self,
        number: usize,
        line: &str,
        name: &str,
        [ship, star, second]: [&str; 3],
    ) -> Result<(), ParseError> {
        let known = self.players.iter().position(|own| own == name);
        let player = match known {
            Some(index) => Player::BOTH[index],
            None => {
                if self.players.len() == 2 {
                    return Err(fail(
                        number,
                        line,
                        format!(
                            "a third player, {}: only two-player logs are read (the players are {})",
                            excerpt(name),
                            self.player_list()
                        ),
                    ));
                }
                check_player_name(number, line, name, &self.players)?;
                let player = Player::BOTH[self.players.len()];
                self.players.push(name.to_string());
                player
            }
        };
        self.check_mover(number, line, player)?;
        if known.is_none() {
            self.board.names.set(player.index() as u8, name);
            self.turn_start = self.board.clone();
        }
        let piece = |word: &str| piece_word(number, line, word);
        let action = ActionText::Homeworld {
            star: piece(star)?,
            second_star: Some(piece(second)?),
            ship: piece(ship)?,
        };
        self.act(number, line, &action)?;
        self.end_turn(number, line)
    }

    /// Plays one action on the board, keeping its step and what it faded.
    fn act(&mut self, number: usize, line: &str, text: &ActionText) -> Result<(), ParseError> {
        let (action, name) = resolve(&self.board, text).map_err(|error| {
            fail(
                number,
                line,
                format!("'{}': {}", error.token, error.expected),
            )
        })?;
        let before = self.board.clone();
        self.board
            .apply(&RULES, action, name.as_deref())
            .map_err(|reason| fail(number, line, reason.to_string()))?;
        self.fades = before
            .position
            .occupied_slots()
            .filter(|&slot| !self.board.position.system(slot).exists())
            .map(|slot| Fade {
                name: before.name(slot).to_string(),
                line: number,
                text: line.to_string(),
            })
            .collect();
        let written = format_named_action(&before, action, name.as_deref(), Style::Sdg);
        let step = Step::parse(&written).map_err(|error| fail(number, line, error.to_string()))?;
        self.steps.push(Step {
            line: Some(number),
            ..step
        });
        self.actions.push(action);
        Ok(())
    }

    /// `NAME ends their turn.` (or the end of a turn the log never ended):
    /// a turn without actions is a pass, which the rules judge.
    fn end_turn(&mut self, number: usize, line: &str) -> Result<(), ParseError> {
        if self.steps.is_empty() {
            self.act(number, line, &ActionText::Pass)?;
        }
        let mover = self.board.position.side_to_move();
        self.board
            .end_turn(&RULES)
            .map_err(|reason| fail(number, line, format!("the turn cannot end here: {reason}")))?;
        let texts: Vec<String> = self.steps.iter().map(|step| step.text.clone()).collect();
        let written = join_turn(texts, self.actions.iter().copied(), Style::Sdg);
        let padding = written.split("; ").count().saturating_sub(self.steps.len());
        let mut steps = std::mem::take(&mut self.steps);
        for _ in 0..padding {
            steps.push(Step {
                text: "Pass".to_string(),
                action: ActionText::Pass,
                line: Some(number),
            });
        }
        self.turns.push(RecordTurn {
            number: self.turns.len() as u32 + 1,
            player: self.players[mover.index()].clone(),
            line: steps.first().and_then(|step| step.line),
            steps,
            comments: Vec::new(),
        });
        self.actions.clear();
        self.turn_start = self.board.clone();
        Ok(())
    }

    /// `NAME restarts their turn.`: the turn's actions never happened.
    fn restart(&mut self) -> Result<(), ParseError> {
        self.board = self.turn_start.clone();
        self.steps.clear();
        self.actions.clear();
        Ok(())
    }

    /// Ends a turn the log left open, when it has actions.
    fn close_turn(&mut self, number: usize, line: &str) -> Result<(), ParseError> {
        if self.steps.is_empty() {
            Ok(())
        } else {
            self.end_turn(number, line)
        }
    }

    /// `NAME concedes the game.`: the other player wins.
    fn concede(&mut self, number: usize, line: &str, player: Player) -> Result<(), ParseError> {
        self.close_turn(number, line)?;
        if self.players.len() < 2 {
            return Err(fail(
                number,
                line,
                "a concession before both players have established a homeworld",
            ));
        }
        self.ending = Some(Ending::Conceded(player, number));
        Ok(())
    }

    /// `The end of the game: NAME wins!`, which the board must not
    /// contradict.
    fn verdict(&mut self, number: usize, line: &str, name: &str) -> Result<(), ParseError> {
        self.close_turn(number, line)?;
        let Some(winner) = self.players.iter().position(|own| own == name) else {
            return Err(fail(
                number,
                line,
                format!(
                    "{} is not a player of this game (the players are {})",
                    excerpt(name),
                    self.player_list()
                ),
            ));
        };
        let winner = Player::BOTH[winner];
        let reason = match (&self.ending, self.board.position.outcome()) {
            (Some(Ending::Conceded(loser, _)), _) if *loser == winner => {
                return Err(fail(number, line, format!("{} conceded", excerpt(name))))
            }
            (Some(Ending::Conceded(loser, _)), _) => {
                format!("{} concedes the game", self.players[loser.index()])
            }
            (_, Outcome::Win(player)) if player == winner => "elimination".to_string(),
            (_, Outcome::Win(player)) => return Err(self.contradicted(number, line, player)),
            (_, Outcome::Draw) => {
                return Err(fail(
                    number,
                    line,
                    "the board has both players eliminated: a draw",
                ))
            }
            (_, Outcome::Ongoing) => "off the board".to_string(),
        };
        let result = RecordedResult {
            outcome: Outcome::Win(winner),
            reason,
        };
        self.ending = Some(Ending::Verdict(result, Some(name.to_string())));
        Ok(())
    }

    /// The error for a verdict line that the board, where `player` has
    /// won, contradicts.
    fn contradicted(&self, number: usize, line: &str, player: Player) -> ParseError {
        let name = excerpt(&self.players[player.index()]);
        fail(number, line, format!("the board has {name} winning"))
    }

    /// `End of game (tie)`, which the board must not contradict.
    fn tie(&mut self, number: usize, line: &str) -> Result<(), ParseError> {
        self.close_turn(number, line)?;
        let reason = match (&self.ending, self.board.position.outcome()) {
            (Some(Ending::Conceded(..)), _) => {
                return Err(fail(number, line, "a tie after a concession"))
            }
            (_, Outcome::Win(player)) => return Err(self.contradicted(number, line, player)),
            (_, Outcome::Draw) => "mutual-elimination",
            (_, Outcome::Ongoing) => "tie",
        };
        let result = RecordedResult {
            outcome: Outcome::Draw,
            reason: reason.to_string(),
        };
        self.ending = Some(Ending::Verdict(result, None));
        Ok(())
    }

    /// The end of the log: everything pending must be settled, and both
    /// players must have a homeworld.
    fn finish(mut self, last: usize) -> Result<GameRecord, ParseError> {
        self.check_fades()?;
        if let Some(discovery) = &self.discovery {
            return Err(fail(
                discovery.line,
                &format!("discovers a system named {}", discovery.name),
                "the log ends before the move that makes this discovery",
            ));
        }
        self.close_turn(last, "the end of the log")?;
        let [first, second] = self.players.as_slice() else {
            return Err(fail(
                last,
                "the end of the log",
                format!(
                    "expected two players to establish a homeworld (NAME establishes a homeworld with a g3 ship at r1 and b2 binary stars.); the log has {}",
                    self.player_list()
                ),
            ));
        };
        let mut header = Header::two_player(0, first, second);
        if let Some((started, ended)) = self.dates.take() {
            header.started = started;
            header.ended = ended;
        }
        let result = match self.ending.take() {
            Some(Ending::Verdict(result, winner)) => {
                header.winner = winner;
                Some(result)
            }
            Some(Ending::Conceded(loser, _)) => {
                let winner = loser.opponent();
                header.winner = Some(self.players[winner.index()].clone());
                Some(RecordedResult {
                    outcome: Outcome::Win(winner),
                    reason: format!("{} concedes the game", self.players[loser.index()]),
                })
            }
            None => None,
        };
        if let (Some(result), Some(turn)) = (result, self.turns.last_mut()) {
            turn.comments.push(result.comment());
        }
        Ok(GameRecord {
            header,
            turns: self.turns,
        })
    }
}

/// A piece as the log writes it: `g1`.
fn piece_word(number: usize, line: &str, word: &str) -> Result<Piece, ParseError> {
    Piece::parse(word).ok_or_else(|| {
        fail(
            number,
            line,
            format!(
                "expected a piece such as g1 (a colour letter r, y, g or b and a size 1 to 3), not {}",
                excerpt(word)
            ),
        )
    })
}

/// A new player's name must be writable in an SDG record and differ from
/// the other player's, ignoring case as SDG records do.
fn check_player_name(
    number: usize,
    line: &str,
    name: &str,
    players: &[String],
) -> Result<(), ParseError> {
    if name.contains([':', ',', ';', '(', ')']) || name.chars().count() > 64 {
        return Err(fail(
            number,
            line,
            format!(
                "the player name {} cannot be written in an SDG record: at most 64 characters, without : , ; ( or )",
                excerpt(name)
            ),
        ));
    }
    if players.iter().any(|own| own.eq_ignore_ascii_case(name)) {
        return Err(fail(
            number,
            line,
            format!("both players are called {} (ignoring case)", excerpt(name)),
        ));
    }
    Ok(())
}
