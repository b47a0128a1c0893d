//! The page's API in types: what each request carries and what each reply
//! holds, read and written with serde_json.
//!
//! A command the page sends is a `POST` to `/api/<name>` whose body is one
//! JSON object (an empty body counts as `{}`). It is read in full into a
//! [`Command`] before anything is done, and the reading is strict: bad JSON,
//! a missing field, a field of the wrong type or a field the command does
//! not have is refused with a message (an HTTP 400) and the state is left
//! as it was. Only then is the command carried out, and what the rules or
//! the game refuse (an illegal turn, a bad position) is told to the person
//! as well.
//!
//! The replies are the state the page draws ([`StateReply`]), the choices
//! for building a turn by clicking ([`ChoicesReply`]), `{"ok": true}` and
//! `{"error": "..."}`. Their field names are the ones `page.js` reads:
//! camelCase, and a value that is not known is `null`, never left out.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize, Serializer};

use super::game::{ActionChoice, PartialTurn, PlayedTurn};
use super::state::{EngineSlot, Line, Mode, State, TimeControl};
use crate::notation::error::excerpt;
use crate::notation::{hwpn, Board};
use crate::rules::{Colour, Piece, PieceSet, HOME_SLOTS};
use crate::tools::levels::NAMED_LEVELS;

/// `POST /api/turn`: a turn to play at the shown position, in any notation
/// the notation layer reads (a protocol token, an SDG line, CLI phrasing).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct TurnRequest {
    /// The turn's text.
    pub turn: String,
}

/// `POST /api/choices`: the actions of the turn being built, so far.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ChoicesRequest {
    /// The actions as protocol tokens (`build.g1.Home0`), in order.
    pub actions: Vec<String>,
}

/// `POST /api/new`: a new game from the empty start. What is left out stays
/// as it was.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct NewGameRequest {
    /// `play` or `watch` (another mode starts the game in that mode).
    pub mode: Option<Mode>,
    /// The person's side in play: 0 or 1.
    pub side: Option<u8>,
    /// How long the engines think: `{"movetime": MS}`, `{"nodes": N}` or
    /// `{"clock": {"initial": MS, "increment": MS}}`.
    pub time_control: Option<TimeControl>,
    /// The engine's level in play, by name (`commander`); left out, it
    /// stays as it was.
    pub level: Option<String>,
    /// The rulebook's handicaps for the person; left out, none.
    pub handicaps: Option<HandicapsRequest>,
}

/// The handicaps of a new game, as the Play page asks for them.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct HandicapsRequest {
    /// Second Turn Timewarp: the person's bonus turns (0 for none, 1 to 3).
    #[serde(default)]
    pub timewarp: u8,
    /// Red Alert: 0 off, 1 wins in one turn, 2 also two-turn threats.
    #[serde(default)]
    pub red_alert: u8,
    /// Brain Transference: the person may swap sides once.
    #[serde(default)]
    pub brain_transference: bool,
    /// Tactical Computer tokens (0 to 5); left out, hints are not rationed.
    pub tokens: Option<u8>,
}

/// `POST /api/check`: Red Alert's question before the person ends a turn.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct CheckRequest {
    /// The turn, as `/api/turn` takes it.
    pub turn: String,
}

/// `POST /api/check`'s answer.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckReply {
    /// The warning, when the turn would let the opponent win; else `null`.
    pub alert: Option<String>,
}

/// `POST /api/goto`: shows the board before a turn of the game.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct GotoRequest {
    /// The turn (0: the start; past the end: the end).
    pub ply: usize,
}

/// `POST /api/analyse`: turns engine 1's analysis of the shown position on
/// or off.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct AnalyseRequest {
    /// Whether to analyse.
    pub on: bool,
    /// Candidate lines to show (1 to 8); left out, they stay as they were.
    pub multipv: Option<u32>,
}

/// `POST /api/mode`: what the page is used for.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ModeRequest {
    /// `play`, `watch`, `analyse` or `review`.
    pub mode: Mode,
}

/// `POST /api/scan`: evaluates every position of the game for the graph.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct ScanRequest {
    /// Iterations per position (1 to 10,000,000; left out, 1000).
    pub nodes: Option<u64>,
}

/// `POST /api/position`: sets up a position.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct PositionRequest {
    /// HWPN, or homeworlds-cli state text.
    pub position: String,
}

/// `POST /api/load`: loads a game record for review.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct RecordRequest {
    /// The SDG record's text.
    pub record: String,
}

/// The body of the commands that carry nothing (`undo`, `resign`,
/// `resume`): `{}` or empty, so that a stray field is refused rather than
/// ignored.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NoFields {}

/// A command that changes the state, read in full from its path and body.
#[derive(Debug)]
pub enum Command {
    /// Plays the person's turn.
    Turn(TurnRequest),
    /// Starts a new game.
    New(NewGameRequest),
    /// Takes back the last turn (in play, back to the person's turn).
    Undo,
    /// The person resigns.
    Resign,
    /// Shows another turn of the game.
    Goto(GotoRequest),
    /// Turns the analysis on or off.
    Analyse(AnalyseRequest),
    /// Changes the mode.
    Mode(ModeRequest),
    /// Evaluates every position of the game.
    Scan(ScanRequest),
    /// Sets up a position.
    Position(PositionRequest),
    /// Loads a record.
    Load(RecordRequest),
    /// Lets paused engines run again.
    Resume,
    /// Spends a Tactical Computer token on the engine's turn for the person.
    Hint,
    /// Brain Transference: the person and the engine change sides.
    Swap,
}

impl Command {
    /// Reads the command that `POST path` with `body` asks for.
    ///
    /// # Errors
    /// No such command, or a body that is not the command's JSON object.
    pub fn parse(path: &str, body: &str) -> Result<Command, String> {
        let command = match path {
            "/api/turn" => Command::Turn(read(body)?),
            "/api/new" => Command::New(read(body)?),
            "/api/undo" => read::<NoFields>(body).map(|_| Command::Undo)?,
            "/api/resign" => read::<NoFields>(body).map(|_| Command::Resign)?,
            "/api/goto" => Command::Goto(read(body)?),
            "/api/analyse" => Command::Analyse(read(body)?),
            "/api/mode" => Command::Mode(read(body)?),
            "/api/scan" => Command::Scan(read(body)?),
            "/api/position" => Command::Position(read(body)?),
            "/api/load" => Command::Load(read(body)?),
            "/api/resume" => read::<NoFields>(body).map(|_| Command::Resume)?,
            "/api/hint" => read::<NoFields>(body).map(|_| Command::Hint)?,
            "/api/swap" => read::<NoFields>(body).map(|_| Command::Swap)?,
            _ => return Err(format!("no such command: {}", excerpt(path))),
        };
        Ok(command)
    }
}

/// Reads a request body as `T` (an empty body as `{}`).
///
/// # Errors
/// Says what is wrong with the JSON, and where.
pub fn read<T: DeserializeOwned>(body: &str) -> Result<T, String> {
    let body = if body.trim().is_empty() { "{}" } else { body };
    serde_json::from_str(body).map_err(|error| format!("bad request: {error}"))
}

/// The answer to a command carried out.
#[derive(Debug, Serialize)]
pub struct OkReply {
    /// Always true.
    pub ok: bool,
}

/// The answer to a request that failed.
#[derive(Debug, Serialize)]
pub struct ErrorReply<'a> {
    /// Why, for the person.
    pub error: &'a str,
}

/// A board as the page draws it.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoardReply {
    /// The systems on the board, homes first.
    pub systems: Vec<SystemReply>,
    /// How many of each piece the bank holds.
    pub bank: BankReply,
    /// The player to move: 0 or 1.
    pub to_move: usize,
    /// Whether the players are still creating their homes.
    pub setup: bool,
    /// The board in HWPN, for the position box.
    pub hwpn: String,
}

/// One system of a [`BoardReply`].
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SystemReply {
    /// Its name, which the page's click keys use.
    pub name: String,
    /// The player whose home it is, or `null`.
    pub home: Option<u8>,
    /// The stars, as pieces (`"b3"`).
    pub stars: Vec<String>,
    /// Player 0's ships, then player 1's.
    pub ships: [Vec<String>; 2],
    /// The colours that are overpopulated there (`"r"`), each a catastrophe
    /// the person may click.
    pub overpopulated: Vec<char>,
}

/// The bank: written as an object from each piece's name to its count
/// (`{"r1": 3, ...}`), every piece named, in the rules' order.
#[derive(Debug)]
pub struct BankReply(pub PieceSet);

impl Serialize for BankReply {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(
            Piece::ALL
                .into_iter()
                .map(|piece| (piece.to_string(), self.0.count(piece))),
        )
    }
}

impl BoardReply {
    /// The page's view of `board`.
    pub fn new(board: &Board) -> BoardReply {
        let position = &board.position;
        let pieces = |set: PieceSet| set.copies().map(|piece| piece.to_string()).collect();
        let systems = position
            .occupied_slots()
            .map(|slot| {
                let system = position.system(slot);
                SystemReply {
                    name: board.name(slot).to_string(),
                    home: ((slot as usize) < HOME_SLOTS).then_some(slot),
                    stars: pieces(system.stars),
                    ships: system.ships.map(pieces),
                    overpopulated: Colour::ALL
                        .into_iter()
                        .filter(|&colour| system.is_overpopulated(colour))
                        .map(Colour::letter)
                        .collect(),
                }
            })
            .collect();
        BoardReply {
            systems,
            bank: BankReply(position.bank()),
            to_move: position.side_to_move().index(),
            setup: position.in_setup(),
            hwpn: hwpn::write_board(board),
        }
    }
}

/// `POST /api/choices`' answer: the turn being built, and what may come
/// next.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChoicesReply<'a> {
    /// The board after the actions so far.
    pub board: BoardReply,
    /// Every legal next action.
    pub actions: &'a [ActionChoice],
    /// Why the turn cannot end here, or `null` when it can.
    pub cannot_end: Option<&'a str>,
}

impl ChoicesReply<'_> {
    /// The reply for `partial`.
    pub fn new(partial: &PartialTurn) -> ChoicesReply<'_> {
        ChoicesReply {
            board: BoardReply::new(&partial.board),
            actions: &partial.actions,
            cannot_end: partial.cannot_end.as_deref(),
        }
    }
}

/// One turn of the game in the move list.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnReply<'a> {
    /// Who played it: 0 or 1.
    pub mover: usize,
    /// Its SDG form, shown.
    pub sdg: &'a str,
    /// Its protocol token.
    pub token: &'a str,
    /// Why the engine that played it did so (its `info string explain`
    /// sentence), or `null`: a person's turn, or an engine that said nothing.
    pub explanation: Option<&'a str>,
}

impl<'a> TurnReply<'a> {
    /// The reply for `turn`, with its explanation if any.
    fn new(turn: &'a PlayedTurn, explanation: Option<&'a String>) -> TurnReply<'a> {
        TurnReply {
            mover: turn.mover.index(),
            sdg: &turn.sdg,
            token: &turn.token,
            explanation: explanation.map(String::as_str),
        }
    }
}

/// The latest search lines, as the analysis panel shows them.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AnalysisReply<'a> {
    /// Whether they are about the shown position of this game (else the
    /// page shows only that an analysis is starting).
    pub current: bool,
    /// The engine (1 or 2) that sent them; 0 before any.
    pub engine: usize,
    /// Mean depth.
    pub depth: Option<u64>,
    /// Iterations so far.
    pub nodes: Option<u64>,
    /// Iterations per second.
    pub nps: Option<u64>,
    /// How many `info` lines were read (the page shows the analysis is live).
    pub updates: u64,
    /// The candidates by rank.
    pub lines: &'a [Line],
}

/// One engine, for the status line.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineReply<'a> {
    /// Its `id name` (empty until it says).
    pub name: &'a str,
    /// The command that starts it.
    pub command: String,
    /// Whether its process runs.
    pub running: bool,
    /// Whether it runs a search.
    pub thinking: bool,
}

impl<'a> EngineReply<'a> {
    /// The reply for `slot`.
    fn new(slot: &'a EngineSlot) -> EngineReply<'a> {
        EngineReply {
            name: &slot.name,
            command: slot.command.text(),
            running: slot.link.is_some(),
            thinking: slot.search.is_some(),
        }
    }
}

/// `GET /api/state`'s answer: everything the page shows.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StateReply<'a> {
    /// The state's version, for the next long poll's `since`.
    pub version: u64,
    /// What the page is used for.
    pub mode: Mode,
    /// The person's side in play: 0 or 1.
    pub human: usize,
    /// The engines' time per turn, in words.
    pub time_control: String,
    /// Each player's milliseconds left, or `null` when no clock runs.
    pub clocks: Option<[u64; 2]>,
    /// The turn shown: the board before it.
    pub ply: usize,
    /// The turns played.
    pub length: usize,
    /// The board shown.
    pub board: BoardReply,
    /// Whether the person may act on the shown board.
    pub your_turn: bool,
    /// The result in words (`1-0 elimination`), or `null` while the game
    /// goes on.
    pub result: Option<String>,
    /// The turns played, in order.
    pub turns: Vec<TurnReply<'a>>,
    /// Player 0's win probability (per mille) before each turn, or `null`
    /// where not known.
    pub evaluations: &'a [Option<u64>],
    /// Whether engine 1 analyses the shown position.
    pub analysing: bool,
    /// Whether engine 1 evaluates the game's positions for the graph.
    pub scanning: bool,
    /// Candidate lines asked for.
    pub multipv: u32,
    /// The latest search lines.
    pub analysis: AnalysisReply<'a>,
    /// The two engines.
    pub engines: Vec<EngineReply<'a>>,
    /// The last message for the person.
    pub message: &'a str,
    /// Whether the message reports an error.
    pub message_is_error: bool,
    /// Whether the engines wait for the person to resume.
    pub paused: bool,
    /// The players' names, for the move list.
    pub player_names: &'a [String; 2],
    /// The levels the Play page offers, weakest first.
    pub levels: Vec<LevelReply>,
    /// The engine's level in play, by name.
    pub level: &'static str,
    /// The game's handicaps in words (empty when none), as its record's
    /// header names them.
    pub handicaps: String,
    /// The game's Red Alert setting: 0 off, 1 one turn, 2 two turns.
    pub red_alert_level: u8,
    /// Red Alert's warning at the person's turn now, or `null`.
    pub red_alert: Option<&'a str>,
    /// Tactical Computer tokens left, or `null` when not rationed.
    pub tokens: Option<u8>,
    /// Whether a hint is being worked out.
    pub hinting: bool,
    /// The hint for the shown position, or `null`.
    pub hint: Option<&'a str>,
    /// Why the engine suggests the hint (its `info string explain`
    /// sentence), or `null`.
    pub hint_explanation: Option<&'a str>,
    /// Whether the person may use Brain Transference now.
    pub can_swap: bool,
    /// Review's marks, progress and variation, or `null` outside Review.
    pub review: Option<super::review::ReviewReply>,
}

/// One level of the Play page's choice.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LevelReply {
    /// Its name, sent back in `/api/new`.
    pub name: &'static str,
    /// Its name and calibrated Elo, shown.
    pub text: String,
}

impl StateReply<'_> {
    /// The reply for `state`.
    pub fn new(state: &State) -> StateReply<'_> {
        let game = &state.game;
        let length = game.turns().len();
        let shown = state.cursor.min(length);
        let analysis = &state.analysis;
        let current = analysis
            .tag
            .is_some_and(|tag| tag.game_id == state.game_id && tag.ply == shown);
        StateReply {
            version: state.version,
            mode: state.mode,
            human: state.human.index(),
            time_control: state.time_control.text(),
            clocks: state.clock_times(),
            ply: shown,
            length,
            board: BoardReply::new(game.board_at(shown)),
            your_turn: state.person_to_move(),
            result: game.over_text(),
            turns: (game.turns().iter().enumerate())
                .map(|(ply, turn)| {
                    TurnReply::new(turn, state.explanations.get(ply).and_then(Option::as_ref))
                })
                .collect(),
            evaluations: &state.evaluations,
            analysing: state.analysing,
            scanning: state.scan_nodes.is_some(),
            multipv: state.multipv,
            analysis: AnalysisReply {
                current,
                engine: analysis.engine,
                depth: analysis.depth,
                nodes: analysis.nodes,
                nps: analysis.nps,
                updates: analysis.updates,
                lines: &analysis.lines,
            },
            engines: state.engines.iter().map(EngineReply::new).collect(),
            message: &state.message,
            message_is_error: state.message_is_error,
            paused: state.paused,
            player_names: &game.player_names,
            levels: NAMED_LEVELS
                .iter()
                .map(|level| LevelReply {
                    name: level.name,
                    text: level.text(),
                })
                .collect(),
            level: state.level.name,
            handicaps: game.handicaps.text(),
            red_alert_level: game.handicaps.red_alert.level(),
            red_alert: state.alert_text(),
            tokens: state.tokens,
            hinting: state.hint_wanted.is_some(),
            hint: state
                .hint
                .as_ref()
                .filter(|hint| hint.game_id == state.game_id && hint.ply == shown)
                .map(|hint| hint.turn.as_str()),
            hint_explanation: state
                .hint
                .as_ref()
                .filter(|hint| hint.game_id == state.game_id && hint.ply == shown)
                .and_then(|hint| hint.explanation.as_deref()),
            can_swap: state.can_swap(),
            review: super::review::reply(state),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_are_read_strictly() {
        let Command::Turn(turn) = Command::parse("/api/turn", r#"{"turn": "pass"}"#).unwrap()
        else {
            panic!("not a turn");
        };
        assert_eq!(turn.turn, "pass");
        assert!(matches!(Command::parse("/api/undo", ""), Ok(Command::Undo)));
        let refused = [
            ("/api/turn", "pass", "expected value"),
            ("/api/turn", "{}", "missing field `turn`"),
            ("/api/turn", r#"{"turn": 3}"#, "invalid type"),
            (
                "/api/goto",
                r#"{"ply": 1, "extra": 2}"#,
                "unknown field `extra`",
            ),
            (
                "/api/mode",
                r#"{"mode": "sleep"}"#,
                "unknown variant `sleep`",
            ),
            ("/api/undo", r#"{"count": 2}"#, "unknown field `count`"),
            ("/api/sleep", "{}", "no such command"),
        ];
        for (path, body, expected) in refused {
            let error = Command::parse(path, body).unwrap_err();
            assert!(error.contains(expected), "{path} {body}: {error}");
        }
        let Command::New(new) = Command::parse(
            "/api/new",
            r#"{"mode": "watch", "timeControl": {"clock": {"initial": 60000, "increment": 1000}}}"#,
        )
        .unwrap() else {
            panic!("not a new game");
        };
        assert_eq!(new.mode, Some(Mode::Watch));
        assert_eq!(new.side, None);
        assert_eq!(
            new.time_control,
            Some(TimeControl::Clock {
                initial: 60000,
                increment: 1000
            })
        );
    }

    #[test]
    fn a_board_is_written_as_the_page_reads_it() {
        let board = hwpn::parse("r1b3:g3y1:/y2b2::g3 0").unwrap();
        let json = serde_json::to_value(BoardReply::new(&board)).unwrap();
        assert_eq!(json["toMove"], 0);
        assert_eq!(json["setup"], false);
        assert_eq!(json["bank"]["g3"], 1);
        assert_eq!(json["bank"]["r3"], 3);
        let home = &json["systems"][0];
        assert_eq!(home["name"], "Home0");
        assert_eq!(home["home"], 0);
        assert_eq!(home["stars"], serde_json::json!(["r1", "b3"]));
        assert_eq!(home["ships"], serde_json::json!([["y1", "g3"], []]));
        assert_eq!(home["overpopulated"], serde_json::json!([]));
    }
}
