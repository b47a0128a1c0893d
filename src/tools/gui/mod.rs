//! `supernova gui`: a web page on a local HTTP server that plays against an
//! engine, watches two engines, analyses positions and reviews SDG records.
//!
//! It is a protocol controller like the match runner: engines are child
//! processes spoken to only through protocol lines ([`engine`]), so the page
//! works with any engine that speaks protocol.md, and the rules core
//! referees every turn ([`game`]). The server adds no game logic: legal
//! actions come from the rules core's generator, turns are read and written
//! by the notation layer, and results are judged by the rules' history.
//!
//! The HTTP side is `tiny_http` (small and synchronous: one thread per
//! request, no async runtime). The page (`page.html`, `page.js`,
//! `page.css`) is embedded in the binary, so it works with no internet
//! access. It is told of changes by long polling: `GET /api/state?since=V`
//! answers as soon as the state's version passes `V` (or after a second
//! and a half), which carries the engines' `info` lines live without a
//! streaming connection per page.
//!
//! Every request is answered: bad input (a malformed turn, a huge body, a
//! bad position or record) gets a message for the page and leaves the game
//! as it was; an engine that crashes or plays an illegal turn pauses the
//! game with a message, and the person resumes it.

pub mod engine;
pub mod game;
mod json;
pub mod state;

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use engine::EngineCommand;
use game::{partial_turn, Game, Resignation};
use json::{array, string, Object};
use state::{Mode, Shared, State, TimeControl};
use tiny_http::{Header, Method, Request, Response, Server};

use crate::notation::{cli, hwpn, Board};
use crate::rules::{Colour, Piece, Player, Rules, HOME_SLOTS};

/// The largest request body read: a long SDG record is well under this.
pub const MAX_BODY_BYTES: usize = 1 << 20;

/// How long a long poll waits for a change.
const POLL_WAIT: Duration = Duration::from_millis(1500);

const PAGE_HTML: &str = include_str!("page.html");
const PAGE_SCRIPT: &str = include_str!("page.js");
const PAGE_STYLE: &str = include_str!("page.css");

/// Serves the GUI on `bind:port` until the process is stopped, printing the
/// address first. `engines` are engine command lines (none: this program's
/// `engine` subcommand for both engines; one: it plays both).
///
/// # Errors
/// A bad engine command, or the address cannot be bound.
pub fn serve(bind: &str, port: u16, engines: &[String]) -> Result<(), String> {
    let own = std::env::current_exe()
        .map(|path| EngineCommand {
            program: path.display().to_string(),
            arguments: vec!["engine".to_string()],
        })
        .map_err(|error| format!("cannot find this program to run as an engine: {error}"))?;
    let commands: Vec<EngineCommand> = engines
        .iter()
        .map(|line| EngineCommand::parse(line))
        .collect::<Result<_, _>>()?;
    let first = commands.first().cloned().unwrap_or_else(|| own.clone());
    let second = commands.get(1).cloned().unwrap_or_else(|| first.clone());
    if commands.len() > 2 {
        return Err("--engine: give at most two engines".to_string());
    }
    let server = Server::http((bind, port))
        .map_err(|error| format!("cannot listen on {bind}:{port}: {error}"))?;
    let address = server
        .server_addr()
        .to_ip()
        .map_or_else(|| format!("{bind}:{port}"), |address| address.to_string());
    println!("Supernova GUI: http://{address}/");
    let shared = Shared::new([first, second]);
    shared.watch_engines();
    for request in server.incoming_requests() {
        let shared = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("gui-request".to_string())
            .spawn(move || handle(request, &shared));
        if let Err(error) = spawned {
            eprintln!("gui: cannot handle a request: {error}");
        }
    }
    shared.shut_down();
    Ok(())
}

/// What a request handler answers.
struct Answer {
    status: u16,
    content_type: &'static str,
    body: String,
    download: Option<String>,
}

impl Answer {
    fn json(body: String) -> Answer {
        Answer {
            status: 200,
            content_type: "application/json; charset=utf-8",
            body,
            download: None,
        }
    }

    fn error(status: u16, message: &str) -> Answer {
        let mut object = Object::new();
        object.text("error", message);
        Answer {
            status,
            ..Answer::json(object.finish())
        }
    }

    fn asset(content_type: &'static str, body: &str) -> Answer {
        Answer {
            status: 200,
            content_type,
            body: body.to_string(),
            download: None,
        }
    }
}

/// Answers one request; never panics on bad input.
fn handle(mut request: Request, shared: &Arc<Shared>) {
    let url = request.url().to_string();
    let (path, query) = url.split_once('?').unwrap_or((url.as_str(), ""));
    let parameters = parse_query(query);
    let parameter = |name: &str| {
        parameters
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    };
    let answer = match read_body(&mut request) {
        Err(answer) => answer,
        Ok(_) if *request.method() == Method::Post && !same_origin(&request) => Answer::error(
            403,
            "requests that change the game must come from the GUI's own page",
        ),
        Ok(body) => match (request.method(), path) {
            (Method::Get, "/") | (Method::Get, "/index.html") => {
                Answer::asset("text/html; charset=utf-8", PAGE_HTML)
            }
            (Method::Get, "/page.js") => {
                Answer::asset("text/javascript; charset=utf-8", PAGE_SCRIPT)
            }
            (Method::Get, "/page.css") => Answer::asset("text/css; charset=utf-8", PAGE_STYLE),
            (Method::Get, "/api/state") => {
                let seen = parameter("since").and_then(|v| v.parse().ok()).unwrap_or(0);
                let state = shared.wait_newer(seen, POLL_WAIT);
                Answer::json(state_json(&state))
            }
            (Method::Get, "/api/record") => {
                let record = shared.lock().game.to_record();
                match record {
                    Ok(record) => Answer {
                        download: Some("supernova-game.sdg".to_string()),
                        ..Answer::asset("text/plain; charset=utf-8", &record)
                    },
                    Err(message) => {
                        shared.update(|state| state.tell(&message, true));
                        Answer::error(409, &message)
                    }
                }
            }
            (Method::Post, "/api/choices") => choices(shared, &body),
            (Method::Post, action) => act(shared, action, &parameter, &body),
            _ => Answer::error(404, &format!("no such page: {}", excerpt(path))),
        },
    };
    let mut response = Response::from_string(answer.body).with_status_code(answer.status);
    for (name, value) in [
        ("Content-Type", answer.content_type.to_string()),
        ("Cache-Control", "no-store".to_string()),
    ]
    .into_iter()
    .chain(answer.download.map(|file| {
        (
            "Content-Disposition",
            format!("attachment; filename=\"{file}\""),
        )
    })) {
        if let Ok(header) = Header::from_bytes(name.as_bytes(), value.as_bytes()) {
            response.add_header(header);
        }
    }
    // A page that went away (closed socket) is no error of ours.
    let _ = request.respond(response);
}

/// Whether a request comes from the GUI's own page, or from no page at all
/// (a command-line client): a browser names the page that sent a POST in
/// `Origin`, and another site's page must not drive the engines or change
/// the game behind the person's back.
fn same_origin(request: &Request) -> bool {
    let header = |name: &str| {
        request
            .headers()
            .iter()
            .find(|header| header.field.as_str().as_str().eq_ignore_ascii_case(name))
            .map(|header| header.value.as_str().to_string())
    };
    match (header("Origin"), header("Host")) {
        (None, _) => true,
        (Some(origin), Some(host)) => origin.strip_prefix("http://").unwrap_or(&origin) == host,
        (Some(_), None) => false,
    }
}

/// Reads the body, at most [`MAX_BODY_BYTES`].
fn read_body(request: &mut Request) -> Result<String, Answer> {
    let too_large = || {
        Answer::error(
            413,
            &format!("the upload is larger than {} KiB", MAX_BODY_BYTES / 1024),
        )
    };
    if request
        .body_length()
        .is_some_and(|length| length > MAX_BODY_BYTES)
    {
        return Err(too_large());
    }
    let mut bytes = Vec::new();
    let read = request
        .as_reader()
        .take(MAX_BODY_BYTES as u64 + 1)
        .read_to_end(&mut bytes);
    if read.is_err() {
        return Err(Answer::error(400, "the request could not be read"));
    }
    if bytes.len() > MAX_BODY_BYTES {
        return Err(too_large());
    }
    Ok(String::from_utf8_lossy(&bytes).into_owned())
}

/// A bounded, escaped excerpt for messages.
fn excerpt(text: &str) -> String {
    crate::notation::error::excerpt(text)
}

/// Splits `a=1&b=x%20y` into decoded pairs.
fn parse_query(query: &str) -> Vec<(String, String)> {
    query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
            (decode(key), decode(value))
        })
        .collect()
}

/// Decodes `%XX` and `+` in a query word.
fn decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        match bytes[index] {
            b'+' => out.push(b' '),
            b'%' if index + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[index + 1..index + 3]).unwrap_or("");
                match u8::from_str_radix(hex, 16) {
                    Ok(byte) => {
                        out.push(byte);
                        index += 2;
                    }
                    Err(_) => out.push(b'%'),
                }
            }
            byte => out.push(byte),
        }
        index += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The legal next actions after the page's partial turn (tokens, one a line).
fn choices(shared: &Arc<Shared>, body: &str) -> Answer {
    let state = shared.lock();
    if !state.person_to_move() {
        return Answer::error(409, "it is not your turn");
    }
    let prefix: Vec<&str> = body
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty())
        .collect();
    let board = state.game.board_at(state.cursor).clone();
    let rules = state.game.rules;
    drop(state);
    match partial_turn(&board, &rules, &prefix) {
        Err(error) => Answer::error(400, &error),
        Ok(partial) => {
            let mut object = Object::new();
            object.raw("board", &board_json(&partial.board));
            let actions: Vec<String> = partial
                .actions
                .iter()
                .map(|choice| {
                    let mut action = Object::new();
                    action.text("token", &choice.token);
                    action.text("text", &choice.text);
                    let paths: Vec<String> = choice
                        .paths
                        .iter()
                        .map(|path| array(path.iter().map(|key| string(key))))
                        .collect();
                    action.raw("paths", &array(paths));
                    action.finish()
                })
                .collect();
            object.raw("actions", &array(actions));
            match &partial.cannot_end {
                Some(reason) => object.text("cannotEnd", reason),
                None => object.raw("cannotEnd", "null"),
            }
            Answer::json(object.finish())
        }
    }
}

/// The page's commands that change the state.
fn act<'a>(
    shared: &Arc<Shared>,
    action: &str,
    parameter: &dyn Fn(&str) -> Option<&'a str>,
    body: &str,
) -> Answer {
    let outcome: Result<String, String> = shared.update(|state| {
        let outcome = command(state, action, parameter, body);
        if let Err(message) = &outcome {
            state.tell(message, true);
        }
        outcome
    });
    match outcome {
        Ok(_) => Answer::json("{\"ok\":true}".to_string()),
        Err(message) => Answer::error(400, &message),
    }
}

/// Carries out one of the page's commands on the state.
fn command<'a>(
    state: &mut State,
    action: &str,
    parameter: &dyn Fn(&str) -> Option<&'a str>,
    body: &str,
) -> Result<String, String> {
    match action {
        "/api/turn" => play_turn(state, body),
        "/api/new" => new_game(state, parameter),
        "/api/undo" => undo(state),
        "/api/resign" => resign(state),
        "/api/goto" => {
            let ply = parameter("ply").and_then(|ply| ply.parse::<usize>().ok());
            match ply {
                Some(ply) => {
                    state.cursor = ply.min(state.game.turns().len());
                    Ok(String::new())
                }
                None => Err("expected ply=N".to_string()),
            }
        }
        "/api/analyse" => {
            state.analysing = parameter("on") != Some("0");
            if let Some(count) = parameter("multipv").and_then(|count| count.parse::<u32>().ok()) {
                state.multipv = count.clamp(1, 8);
            }
            Ok(String::new())
        }
        "/api/mode" => match parameter("mode").and_then(Mode::parse) {
            Some(mode) => {
                state.mode = mode;
                if mode != Mode::Review {
                    state.cursor = state.game.turns().len();
                }
                if mode == Mode::Analyse {
                    state.analysing = true;
                }
                state.paused = false;
                Ok(String::new())
            }
            None => Err("expected mode=play, watch, analyse or review".to_string()),
        },
        "/api/scan" => {
            let nodes = parameter("nodes").map_or(Ok(1000), str::parse::<u64>);
            match nodes {
                Ok(nodes) if (1..=10_000_000).contains(&nodes) => {
                    state.scan(nodes);
                    Ok(String::new())
                }
                _ => Err("expected nodes=N (1 to 10000000)".to_string()),
            }
        }
        "/api/position" => set_position(state, body),
        "/api/load" => load_record(state, body),
        "/api/resume" => {
            state.resume();
            Ok("resumed".to_string())
        }
        _ => Err(format!("no such command: {}", excerpt(action))),
    }
}

/// Plays the person's turn (text in any notation the notation layer reads).
fn play_turn(state: &mut State, text: &str) -> Result<String, String> {
    if !state.person_to_move() {
        let message = "it is not your turn".to_string();
        state.tell(&message, true);
        return Err(message);
    }
    let mut game = state.game.clone();
    game.truncate(state.cursor);
    let mover = game.board().position.side_to_move();
    match game.play_text(text) {
        Ok(()) => {
            // A turn played before the end replaces the rest of the game,
            // and the values of its positions with it.
            state.evaluations.truncate(state.cursor + 1);
            state.game = game;
            state.charge_clock(mover);
            state.game_changed();
            state.cursor = state.game.turns().len();
            match state.game.over_text() {
                Some(over) => state.tell(format!("game over: {over}"), false),
                None => state.tell("", false),
            }
            Ok(String::new())
        }
        Err(error) => {
            state.tell(&error, true);
            Err(error)
        }
    }
}

/// `new?mode=play&side=0&movetime=1000` (or `nodes=N`): a new game from
/// the empty start.
fn new_game<'a>(
    state: &mut State,
    parameter: &dyn Fn(&str) -> Option<&'a str>,
) -> Result<String, String> {
    let mode = parameter("mode").map_or(Some(state.mode), Mode::parse);
    let Some(mode) = mode else {
        return Err("expected mode=play, watch, analyse or review".to_string());
    };
    if let Some(side) = parameter("side") {
        state.human = match side {
            "0" => Player::First,
            "1" => Player::Second,
            _ => return Err("expected side=0 or side=1".to_string()),
        };
    }
    let number = |name: &str| parameter(name).map(|value| value.parse::<u64>());
    let clock = parameter("clock").map(|text| {
        let (initial, increment) = text.split_once('+').unwrap_or((text, "0"));
        Some((initial.parse::<u64>().ok()?, increment.parse::<u64>().ok()?))
    });
    state.time_control = match (number("movetime"), number("nodes"), clock) {
        (Some(Ok(time)), _, _) if (1..=3_600_000).contains(&time) => TimeControl::Movetime(time),
        (_, Some(Ok(nodes)), _) if (1..=100_000_000).contains(&nodes) => {
            TimeControl::Nodes(nodes)
        }
        (_, _, Some(Some((initial, increment))))
            if (1000..=36_000_000).contains(&initial) && increment <= 600_000 =>
        {
            TimeControl::Clock { initial, increment }
        }
        (None, None, None) => state.time_control,
        _ => {
            return Err(
                "expected movetime=MS (1 to 3600000), nodes=N or clock=MS+MS (a clock of 1 s to 10 h, an increment up to 10 min)"
                    .to_string(),
            )
        }
    };
    let game = Game::new(Board::default(), Rules::STANDARD)?;
    state.start_game(game, mode);
    if mode == Mode::Play {
        state.analysing = false;
    }
    state.tell(
        format!(
            "new game: {}; engines think {}",
            mode.word(),
            state.time_control.text()
        ),
        false,
    );
    Ok(String::new())
}

/// Takes back the last turn, and in play the engine's reply before it, so
/// that it is the person's turn again.
fn undo(state: &mut State) -> Result<String, String> {
    let length = state.game.turns().len();
    if length == 0 {
        return Err("no turn to take back".to_string());
    }
    let mut count = 1;
    if state.mode == Mode::Play {
        let side_after = |turns: usize| state.game.board_at(turns).position.side_to_move();
        while count < length && side_after(length - count) != state.human {
            count += 1;
        }
    }
    state.game.undo(count);
    state.game_changed();
    state.turn_started = std::time::Instant::now();
    state.cursor = state.game.turns().len();
    state.paused = false;
    state.tell(format!("took back {count} turn(s)"), false);
    Ok(String::new())
}

/// The person resigns the game they play.
fn resign(state: &mut State) -> Result<String, String> {
    if state.mode != Mode::Play || state.game.result().is_some() {
        return Err("there is no game of yours going on".to_string());
    }
    state.game.resignation = Some(Resignation {
        loser: state.human,
        reason: "resigned",
    });
    state.game_changed();
    let over = state.game.over_text().unwrap_or_default();
    state.tell(format!("you resigned: {over}"), false);
    Ok(String::new())
}

/// Sets up a position from HWPN (or homeworlds-cli state text).
fn set_position(state: &mut State, text: &str) -> Result<String, String> {
    let text = text.trim();
    let board = hwpn::parse(text)
        .or_else(|error| cli::parse(text, Player::First).map_err(|_| error))
        .map_err(|error| format!("bad position: {error}"));
    let result = board.and_then(|board| Game::new(board, Rules::STANDARD));
    match result {
        Ok(game) => {
            let mode = if state.mode == Mode::Review {
                Mode::Analyse
            } else {
                state.mode
            };
            state.start_game(game, mode);
            state.tell("position set", false);
            Ok(String::new())
        }
        Err(error) => {
            state.tell(&error, true);
            Err(error)
        }
    }
}

/// Loads an SDG record for review.
fn load_record(state: &mut State, text: &str) -> Result<String, String> {
    match Game::from_record(text) {
        Ok((game, note)) => {
            let count = game.turns().len();
            state.start_game(game, Mode::Review);
            match note {
                Some(note) => state.tell(format!("loaded {count} turns; stopped at {note}"), true),
                None => state.tell(format!("loaded {count} turns"), false),
            }
            Ok(String::new())
        }
        Err(error) => {
            state.tell(&error, true);
            Err(error)
        }
    }
}

/// A board for the page: systems with stars and ships, the bank, the side
/// to move and the HWPN.
fn board_json(board: &Board) -> String {
    let position = &board.position;
    let piece_list =
        |set: crate::rules::PieceSet| array(set.copies().map(|p| string(&p.to_string())));
    let systems: Vec<String> = position
        .occupied_slots()
        .map(|slot| {
            let system = position.system(slot);
            let mut object = Object::new();
            object.text("name", board.name(slot));
            if (slot as usize) < HOME_SLOTS {
                object.raw("home", &slot.to_string());
            } else {
                object.raw("home", "null");
            }
            object.raw("stars", &piece_list(system.stars));
            object.raw(
                "ships",
                &array(system.ships.iter().map(|&ships| piece_list(ships))),
            );
            let overpopulated: Vec<String> = Colour::ALL
                .into_iter()
                .filter(|&colour| system.is_overpopulated(colour))
                .map(|colour| string(&colour.letter().to_string()))
                .collect();
            object.raw("overpopulated", &array(overpopulated));
            object.finish()
        })
        .collect();
    let bank = position.bank();
    let mut bank_object = Object::new();
    for piece in Piece::ALL {
        bank_object.raw(&piece.to_string(), &bank.count(piece).to_string());
    }
    let mut object = Object::new();
    object.raw("systems", &array(systems));
    object.raw("bank", &bank_object.finish());
    object.raw("toMove", &position.side_to_move().index().to_string());
    object.raw("setup", if position.in_setup() { "true" } else { "false" });
    object.text("hwpn", &hwpn::write_board(board));
    object.finish()
}

/// The whole state for the page.
fn state_json(state: &State) -> String {
    let game = &state.game;
    let length = game.turns().len();
    let shown = state.cursor.min(length);
    let board = game.board_at(shown);
    let mut object = Object::new();
    object.raw("version", &state.version.to_string());
    object.text("mode", state.mode.word());
    object.raw("human", &state.human.index().to_string());
    object.text("timeControl", &state.time_control.text());
    match state.clock_times() {
        Some(times) => object.raw("clocks", &array(times.iter().map(|time| time.to_string()))),
        None => object.raw("clocks", "null"),
    }
    object.raw("ply", &shown.to_string());
    object.raw("length", &length.to_string());
    object.raw("board", &board_json(board));
    object.raw(
        "yourTurn",
        if state.person_to_move() {
            "true"
        } else {
            "false"
        },
    );
    match game.over_text() {
        Some(over) => object.text("result", &over),
        None => object.raw("result", "null"),
    }
    let turns: Vec<String> = game
        .turns()
        .iter()
        .map(|turn| {
            let mut item = Object::new();
            item.raw("mover", &turn.mover.index().to_string());
            item.text("sdg", &turn.sdg);
            item.text("token", &turn.token);
            item.finish()
        })
        .collect();
    object.raw("turns", &array(turns));
    let evaluations = state
        .evaluations
        .iter()
        .map(|value| value.map_or_else(|| "null".to_string(), |value| value.to_string()));
    object.raw("evaluations", &array(evaluations));
    object.raw("analysing", if state.analysing { "true" } else { "false" });
    object.raw(
        "scanning",
        if state.scan_nodes.is_some() {
            "true"
        } else {
            "false"
        },
    );
    object.raw("multipv", &state.multipv.to_string());
    let analysis = &state.analysis;
    let mut live = Object::new();
    let current = analysis
        .tag
        .is_some_and(|tag| tag.game_id == state.game_id && tag.ply == shown);
    live.raw("current", if current { "true" } else { "false" });
    live.raw("engine", &analysis.engine.to_string());
    let number = |value: Option<u64>| value.map_or_else(|| "null".to_string(), |v| v.to_string());
    live.raw("depth", &number(analysis.depth));
    live.raw("nodes", &number(analysis.nodes));
    live.raw("nps", &number(analysis.nps));
    live.raw("updates", &analysis.updates.to_string());
    let lines: Vec<String> = analysis
        .lines
        .iter()
        .map(|line| {
            let mut item = Object::new();
            item.raw("rank", &line.rank.to_string());
            item.raw("winprob", &number(line.winprob));
            item.raw(
                "score",
                &line
                    .score
                    .map_or_else(|| "null".to_string(), |v| v.to_string()),
            );
            item.raw("turns", &array(line.turns.iter().map(|turn| string(turn))));
            match line.proof {
                Some(proof) => item.text("proof", proof),
                None => item.raw("proof", "null"),
            }
            item.finish()
        })
        .collect();
    live.raw("lines", &array(lines));
    object.raw("analysis", &live.finish());
    let engines: Vec<String> = state
        .engines
        .iter()
        .map(|slot| {
            let mut item = Object::new();
            item.text("name", &slot.name);
            item.text("command", &slot.command.text());
            item.raw(
                "running",
                if slot.link.is_some() { "true" } else { "false" },
            );
            item.raw(
                "thinking",
                if slot.search.is_some() {
                    "true"
                } else {
                    "false"
                },
            );
            item.finish()
        })
        .collect();
    object.raw("engines", &array(engines));
    object.text("message", &state.message);
    object.raw(
        "messageIsError",
        if state.message_is_error {
            "true"
        } else {
            "false"
        },
    );
    object.raw("paused", if state.paused { "true" } else { "false" });
    object.raw(
        "playerNames",
        &array(game.player_names.iter().map(|name| string(name))),
    );
    object.finish()
}
