//! The multi-player page (`/multi`): games of three to six seats, each a
//! person at the page or one of the GUI's engines, under any of the three
//! victory conditions; watching engines play; reviewing a multi-player SDG
//! record; saving a game as a record that `supernova replay` reads.
//!
//! It sits beside the two-player page rather than inside it: the
//! two-player [`super::state::State`] is built around two players, a
//! two-player [`crate::notation::Board`] and two engine slots, while a
//! multi-player table needs a [`crate::notation::multi::MultiBoard`] and
//! an engine process per seat. So it keeps a state of its own
//! ([`MultiShared`], one lock, versioned for the same long polling as the
//! two-player page) and the two pages share only the HTTP server, the host
//! checks and the engine process handling ([`super::engine`]).
//!
//! The engines are spoken to only through the protocol's multi-player
//! extension (protocol.md §10), so any engine command the GUI was started
//! with can sit at the table ([`table`]). The rules core referees every
//! turn. What the page may know of Good versus Evil is decided in
//! [`view`]: the person's own alignment and what the rules have revealed,
//! never the others'.
//!
//! # The API
//! - `GET /api/multi/state?since=V`: the table ([`view::MultiStateReply`]),
//!   as soon as its version passes `V`.
//! - `POST /api/multi/new`: `{"seats": ["person", "engine1", "engine2",
//!   ...], "victory": "last"|"sinister"|"good-evil", "nodes": N,
//!   "movetime": MS, "margin": MS, "seed": S}` (3 to 6 seats; engine 1
//!   and 2 are the GUI's `--engine` commands; one limit at most, default
//!   1000 nodes; `margin`, default 60,000 ms, is the grace past the
//!   limit before an engine that has not answered is dropped).
//! - `POST /api/multi/choices`: `{"actions": [tokens]}`, the legal next
//!   actions for the person to move.
//! - `POST /api/multi/turn`: `{"turn": text}` in any form `multi-play`
//!   reads.
//! - `POST /api/multi/resign`: the person to move resigns.
//! - `POST /api/multi/load`: `{"record": text}`, a multi-player SDG record
//!   to review; `POST /api/multi/goto`: `{"ply": N}` shows the board
//!   before turn N (0-based).
//! - `GET /api/multi/record`: the game as SDG (refused while a person
//!   plays Good versus Evil, since the record names the Evil seats).
//!
//! # Engines that stop answering
//! An engine seat whose process exits, or that sends no `bestmove` within
//! the `movetime` plus the margin (the margin alone under a node limit),
//! is dropped: the seat resigns, its process is stopped, the message
//! names it ("engine2_E stopped answering (no bestmove within 2.0 s) and
//! resigns"), the seat list keeps the reason (`dropped`), and the others
//! play on — the game stops only when the rules say it is over. A
//! watchdog thread per game ([`watch_answers`]) looks every 100 ms.
//!
//! Every command is read in full before the table is touched: bad JSON, a
//! seat count outside 3 to 6, a malformed or illegal turn, a record that
//! is not multi-player are answered with `400` and a message, and nothing
//! changes.

mod table;
mod view;

use std::sync::{Arc, Condvar, Mutex, MutexGuard, Weak};
use std::time::Duration;

use serde::Deserialize;

use super::engine::EngineCommand;
use super::http::{parse_query, Answer};
use super::server::Method;
use crate::record::GameRecord;
use crate::rules::multi::{MultiOutcome, Seat, Victory};
use table::{start_engine, SeatKind, Table, TableMode, TableTurn, TurnLimit};
use view::MultiStateReply;

const PAGE_HTML: &str = include_str!("../multi.html");
const PAGE_SCRIPT: &str = include_str!("../multi.js");
const PAGE_STYLE: &str = include_str!("../multi.css");

/// How long a long poll waits for a change.
const POLL_WAIT: Duration = Duration::from_millis(1500);

/// The multi-player table under its lock, with the condition the page's
/// long polls wait on.
pub struct MultiShared {
    table: Mutex<Table>,
    changed: Condvar,
}

impl MultiShared {
    /// A table whose engine seats may run `engines` (the GUI's commands).
    pub fn new(engines: Vec<EngineCommand>) -> Arc<MultiShared> {
        Arc::new(MultiShared {
            table: Mutex::new(Table::new(engines)),
            changed: Condvar::new(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Table> {
        self.table
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `change`, then starts the engine to move and wakes the polls.
    /// A change that fails has changed nothing, so the polls are not woken
    /// (the page shows the refusal it was answered, which a new state's
    /// message would hide).
    fn update<T>(&self, change: impl FnOnce(&mut Table) -> Result<T, String>) -> Result<T, String> {
        let mut table = self.lock();
        let result = change(&mut table);
        if result.is_ok() {
            table.drive();
            table.version += 1;
        }
        drop(table);
        self.changed.notify_all();
        result
    }

    fn wait_newer(&self, seen: u64) -> MutexGuard<'_, Table> {
        let table = self.lock();
        match self
            .changed
            .wait_timeout_while(table, POLL_WAIT, |table| table.version <= seen)
        {
            Ok((table, _)) => table,
            Err(poisoned) => poisoned.into_inner().0,
        }
    }
}

/// `POST /api/multi/new`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
struct NewRequest {
    seats: Vec<String>,
    victory: Option<String>,
    nodes: Option<u64>,
    movetime: Option<u64>,
    margin: Option<u64>,
    seed: Option<u64>,
}

/// `POST /api/multi/turn`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct TurnRequest {
    turn: String,
}

/// `POST /api/multi/choices`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ChoicesRequest {
    actions: Vec<String>,
}

/// `POST /api/multi/load`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LoadRequest {
    record: String,
}

/// `POST /api/multi/goto`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct GotoRequest {
    ply: usize,
}

/// `POST /api/multi/resign`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoFields {}

/// The answer to a request for the multi-player page, or `None` when the
/// path is not one of its own.
pub fn route(
    shared: &Arc<MultiShared>,
    method: Method,
    path: &str,
    query: &str,
    body: &str,
) -> Option<Answer> {
    let method = if method == Method::Head {
        Method::Get
    } else {
        method
    };
    let answer = match (method, path) {
        (Method::Get, "/multi") | (Method::Get, "/multi.html") => {
            Answer::asset("text/html; charset=utf-8", PAGE_HTML)
        }
        (Method::Get, "/multi.js") => Answer::asset("text/javascript; charset=utf-8", PAGE_SCRIPT),
        (Method::Get, "/multi.css") => Answer::asset("text/css; charset=utf-8", PAGE_STYLE),
        (Method::Get, "/api/multi/state") => {
            let seen = parse_query(query)
                .into_iter()
                .find(|(key, _)| key == "since")
                .and_then(|(_, value)| value.parse().ok())
                .unwrap_or(0);
            Answer::json(&MultiStateReply::new(&shared.wait_newer(seen)))
        }
        (Method::Get, "/api/multi/record") => save(shared),
        (Method::Post, "/api/multi/choices") => match super::api::read::<ChoicesRequest>(body)
            .and_then(|request| view::choices(&shared.lock(), &request.actions))
        {
            Ok(reply) => Answer::json(&reply),
            Err(message) => Answer::error(400, &message),
        },
        (Method::Post, path) if path.starts_with("/api/multi/") => command(shared, path, body),
        _ => return None,
    };
    Some(answer)
}

/// Carries out a command that changes the table.
fn command(shared: &Arc<MultiShared>, path: &str, body: &str) -> Answer {
    let result = match path {
        "/api/multi/new" => {
            super::api::read::<NewRequest>(body).and_then(|request| new_game(shared, &request))
        }
        "/api/multi/turn" => super::api::read::<TurnRequest>(body)
            .and_then(|request| shared.update(|table| person_turn(table, &request.turn))),
        "/api/multi/resign" => {
            super::api::read::<NoFields>(body).and_then(|_| shared.update(person_resigns))
        }
        "/api/multi/load" => {
            super::api::read::<LoadRequest>(body).and_then(|request| load(shared, &request.record))
        }
        "/api/multi/goto" => super::api::read::<GotoRequest>(body).and_then(|request| {
            shared.update(|table| {
                table.shown = (request.ply < table.turns.len()).then_some(request.ply);
                Ok(())
            })
        }),
        _ => Err(format!(
            "no such command: {}",
            crate::notation::error::excerpt(path)
        )),
    };
    match result {
        Ok(()) => Answer::json(&serde_json::json!({ "ok": true })),
        Err(message) => Answer::error(400, &message),
    }
}

/// Reads a seat's kind: `person`, `engine`/`engine1` or `engine2`.
fn seat_kind(word: &str) -> Result<SeatKind, String> {
    match word {
        "person" | "human" => Ok(SeatKind::Person),
        "engine" | "engine1" => Ok(SeatKind::Engine(0)),
        "engine2" => Ok(SeatKind::Engine(1)),
        other => Err(format!(
            "unknown seat {:?}: expected person, engine1 or engine2",
            crate::notation::error::excerpt(other)
        )),
    }
}

/// Starts a new game: the table is set up, then an engine is started for
/// each engine seat with a callback that hands its lines to the table.
fn new_game(shared: &Arc<MultiShared>, request: &NewRequest) -> Result<(), String> {
    let kinds: Vec<SeatKind> = request
        .seats
        .iter()
        .map(|word| seat_kind(word))
        .collect::<Result<_, _>>()?;
    let victory = Victory::from_word(request.victory.as_deref().unwrap_or("last"))?;
    let limit = match (request.nodes, request.movetime) {
        (Some(_), Some(_)) => return Err("give nodes or movetime, not both".to_string()),
        (Some(nodes @ 1..=10_000_000), None) => TurnLimit::Nodes(nodes),
        (None, Some(movetime @ 1..=600_000)) => TurnLimit::Movetime(movetime),
        (None, None) => TurnLimit::Nodes(1000),
        _ => return Err("nodes: 1 to 10,000,000; movetime: 1 to 600,000 ms".to_string()),
    };
    let margin = match request.margin {
        None => table::DEFAULT_MARGIN,
        Some(margin @ 1..=3_600_000) => Duration::from_millis(margin),
        Some(_) => return Err("margin: 1 to 3,600,000 ms".to_string()),
    };
    let seed = request.seed.unwrap_or_else(|| {
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(1, |elapsed| elapsed.as_nanos() as u64)
    });
    let weak = Arc::downgrade(shared);
    shared.update(|table| {
        table.set_up(&kinds, victory, (limit, margin), seed)?;
        let game_id = table.game_id;
        watch_answers(weak.clone(), game_id);
        for seat in 0..kinds.len() as Seat {
            if table.seats[seat as usize].kind == SeatKind::Person {
                continue;
            }
            let started = start_engine(table, seat, relay(weak.clone(), game_id, seat));
            match started {
                Ok(link) => table.attach(seat, link),
                Err(error) => table.forfeit(seat, &format!("could not start: {error}")),
            }
        }
        if !table.error {
            let people = table.people().len();
            let what = if people == 0 { "watching" } else { "new game" };
            table.tell(
                format!(
                    "{what}: {} players, {}",
                    kinds.len(),
                    victory_text(table.board.position.victory())
                ),
                false,
            );
        }
        Ok(())
    })
}

/// How often the watchdog looks for engines that stopped answering.
const WATCH_INTERVAL: Duration = Duration::from_millis(100);

/// Starts the watchdog of game `game_id`: a thread that drops the engine
/// seats that stopped answering ([`Table::drop_silent`]) and ends with the
/// game (a new game, a loaded record, the end of the game or of the GUI).
fn watch_answers(shared: Weak<MultiShared>, game_id: u64) {
    let watch = move || loop {
        std::thread::sleep(WATCH_INTERVAL);
        let Some(shared) = shared.upgrade() else {
            return;
        };
        let mut table = shared.lock();
        if table.game_id != game_id || table.mode != TableMode::Game || table.finished() {
            return;
        }
        if table.drop_silent(std::time::Instant::now()) {
            table.drive();
            table.version += 1;
            drop(table);
            shared.changed.notify_all();
        }
    };
    // Without the thread the page still works; only a hung engine is not
    // dropped.
    let _ = std::thread::Builder::new()
        .name("gui-multi-watchdog".to_string())
        .spawn(watch);
}

/// The callback of an engine process: its lines go to the table, for this
/// game only.
fn relay(
    shared: Weak<MultiShared>,
    game_id: u64,
    seat: Seat,
) -> impl FnMut(super::engine::EngineEvent) + Send + 'static {
    move |event| {
        if let Some(shared) = shared.upgrade() {
            let _ = shared.update(|table| {
                table.engine_event(game_id, seat, event);
                Ok(())
            });
        }
    }
}

/// The victory condition in words.
fn victory_text(victory: Victory) -> &'static str {
    match victory {
        Victory::LastManStanding => "last man standing",
        Victory::Sinister => "Sinister",
        Victory::GoodVersusEvil { .. } => "Good vs Evil",
    }
}

/// The person to move plays `text`.
fn person_turn(table: &mut Table, text: &str) -> Result<(), String> {
    let mover = person_to_move(table)?;
    table.play(mover, text)
}

/// The person to move resigns.
fn person_resigns(table: &mut Table) -> Result<(), String> {
    let mover = person_to_move(table)?;
    table.forfeit(mover, "gave up");
    Ok(())
}

/// The person's seat that is to move now.
///
/// # Errors
/// No game, a finished game, a review, or an engine to move.
fn person_to_move(table: &Table) -> Result<Seat, String> {
    if table.mode != TableMode::Game || table.seats.is_empty() {
        return Err("no game is being played: start one".to_string());
    }
    if table.finished() {
        return Err("the game is over".to_string());
    }
    let mover = table.board.position.side_to_move();
    if table.seats[mover as usize].kind != SeatKind::Person {
        return Err(format!(
            "it is {}'s turn, not a person's",
            table.seats[mover as usize].name
        ));
    }
    Ok(mover)
}

/// Loads a multi-player record for review, replayed on the rules core up
/// to its first illegal turn.
fn load(shared: &Arc<MultiShared>, text: &str) -> Result<(), String> {
    let record = GameRecord::parse_sdg(text).map_err(|error| format!("not a record: {error}"))?;
    if !record.is_multi_player() {
        return Err(format!(
            "a record of {} players: the multi-player page reviews 3 to 6 (two-player records go to the main page's Review)",
            record.header.participants.len()
        ));
    }
    if let Some(why) = record.multi_unsupported() {
        return Err(format!("the record cannot be replayed: {why}"));
    }
    let names = record.seat_names()?;
    let rules = crate::rules::Rules::STANDARD;
    let walk = record.walk_multi(&rules);
    shared.update(|table| {
        let kinds = vec![SeatKind::Person; names.len()];
        let victory = record.victory()?;
        let limits = (table.limit, table.margin);
        table.set_up(&kinds, Victory::LastManStanding, limits, 0)?;
        table.mode = TableMode::Review;
        for (seat, name) in names.iter().enumerate() {
            table.seats[seat].name = name.clone();
        }
        table.start = walk
            .turns
            .first()
            .map_or_else(|| walk.board.clone(), |turn| turn.board.clone());
        table.board = walk.board.clone();
        table.turns = walk
            .turns
            .iter()
            .map(|turn| TableTurn {
                before: turn.board.clone(),
                seat: turn.mover,
                actions: turn.actions.clone(),
                names: turn.names.clone(),
                text: crate::notation::multi::format_turn(
                    &turn.board,
                    &rules,
                    &turn.actions,
                    &turn.names,
                    crate::notation::turn::Style::Sdg,
                ),
                resigned: Vec::new(),
            })
            .collect();
        table.shown = Some(0).filter(|_| !table.turns.is_empty());
        table.loaded = Some(record.clone());
        let how = match &walk.illegal {
            Some(illegal) => format!(", replayed up to an illegal turn: {illegal}"),
            None => String::new(),
        };
        let decided = match walk.board.position.outcome() {
            MultiOutcome::Ongoing => "unfinished",
            _ => "decided",
        };
        table.tell(
            format!(
                "reviewing a record of {} players, {}, {} turns, {decided}{how}",
                names.len(),
                victory_text(victory),
                table.turns.len()
            ),
            false,
        );
        Ok(())
    })
}

/// `GET /api/multi/record`: the game as SDG, for download.
fn save(shared: &Arc<MultiShared>) -> Answer {
    let table = shared.lock();
    if table.seats.is_empty() {
        return Answer::error(409, "no game to save yet");
    }
    let secret = matches!(
        table.board.position.victory(),
        Victory::GoodVersusEvil { .. }
    ) && !table.people().is_empty()
        && table.mode == TableMode::Game
        && !table.finished();
    if secret {
        return Answer::error(
            409,
            "the record names the Evil seats: save a Good vs Evil game once it is over",
        );
    }
    match table.record() {
        Ok(record) => Answer {
            download: Some("supernova-multi.sdg".to_string()),
            ..Answer::asset("text/plain; charset=utf-8", &record.to_sdg())
        },
        Err(message) => Answer::error(409, &message),
    }
}
