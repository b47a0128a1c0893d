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
//! The HTTP side is a small synchronous server of its own on `std::net`
//! ([`server`]: no async runtime). The page (`page.html`, `page.js`,
//! `page.css`) is embedded in the binary, so it works with no internet
//! access. It is told of changes by long polling: `GET /api/state?since=V`
//! answers as soon as the state's version passes `V` (or after a second
//! and a half), which carries the engines' `info` lines live without a
//! streaming connection per page. Its commands are `POST`s of JSON objects,
//! and every reply is JSON, each request and reply a type of the `api`
//! module, read and written with serde_json.
//!
//! # What a client meets
//!
//! - **Hosts and origins** (`http::Hosts`): every request must name the
//!   server in one `Host` header: the address it listens on (as printed),
//!   `--bind` as given, or a name given with `--allow-host NAME`
//!   (repeatable), such as `localhost`. A request that changes the game (a
//!   `POST`) must also carry one `Origin` header, `http://` and that host,
//!   as browsers send from the GUI's own page; a script sends it itself
//!   (`curl -H 'Origin: http://127.0.0.1:8711' ...`). Anything else gets
//!   `403` with a JSON error and changes nothing, so that another site's
//!   page cannot read or drive the GUI, not even under a name of its own
//!   that resolves to this machine (DNS rebinding).
//! - **Sizes**: a request line of at most 8 KiB (`414`), a head of at most
//!   16 KiB and 100 header lines (`431`), a body of at most
//!   [`MAX_BODY_BYTES`] given by `Content-Length` (`413`; chunked uploads
//!   get `501`).
//! - **Time**: a whole request must arrive within 10 s (a connection that
//!   sends nothing is then closed; one that sent part of a request gets
//!   `408`), and an answer must be taken within 10 s.
//! - **Connections**: at most 64 at once, each with its thread; beyond
//!   that, the connection that has waited longest on its client is closed
//!   to make room, or, when all are being answered, a new one waits in the
//!   kernel's listen queue. HTTP/1.1 connections are kept for the next
//!   request. `HEAD` answers as `GET` without the body.
//!
//! Every request is answered: bad input (malformed JSON, a malformed turn,
//! a huge body, a bad position or record) gets a message for the page and
//! leaves the game as it was; an engine that crashes or plays an illegal
//! turn pauses the game with a message, and the person resumes it.
//!
//! # Learning
//!
//! The Play page plays at a named level (`crate::tools::levels`), sent to
//! the engine as `UCI_LimitStrength` and `UCI_Elo` before the searches that
//! play the person's opponent only, and offers the rulebook's handicaps
//! (`crate::tools::handicaps`) for a new game: the timewarp is a rule the
//! game's history keeps, Red Alert's warnings come from the exact checkers
//! on the server (`/api/check` asks before a turn is sent), a hint is a
//! search of the person's position (`/api/hint`), and `/api/swap` changes
//! sides once.
//!
//! The Puzzles page (`puzzles.js`) sets a suite position up in Analyse
//! mode and sends the person's finished turn to `/api/puzzle/answer`
//! instead of playing it: the `puzzles` module judges it with the rules core and
//! the exact checkers and reads nothing of the state, so an answer never
//! changes the game.
//!
//! The multi-player page (`/multi`, the `multi` module) plays three to six
//! seats of people and engines over the protocol's multi-player extension,
//! with a state of its own beside the two-player one.
//!
//! The GUI writes nothing to standard output: [`Gui::bind`] gives the
//! address it listens on to the caller, which tells the person.

mod api;
mod clicks;
mod commands;
pub mod engine;
pub mod game;
mod http;
mod multi;
mod puzzles;
mod review;
pub mod server;
pub mod state;

use std::sync::Arc;
use std::time::Duration;

use api::{CheckRequest, ChoicesRequest, Command, OkReply, StateReply};
use engine::EngineCommand;
use http::{parse_query, Answer, Hosts};
use server::{Limits, Method, Request, Server};
use state::Shared;

pub use http::MAX_BODY_BYTES;

/// How long a long poll waits for a change.
const POLL_WAIT: Duration = Duration::from_millis(1500);

const PAGE_HTML: &str = include_str!("page.html");
const PAGE_SCRIPT: &str = include_str!("page.js");
const PAGE_STYLE: &str = include_str!("page.css");
const PUZZLES_SCRIPT: &str = include_str!("puzzles.js");
const REVIEW_SCRIPT: &str = include_str!("review.js");

/// The GUI's server, bound to its address and not yet serving: the caller
/// learns the address (a port of 0 picks a free one) and tells the person
/// before [`Gui::run`] takes over the thread, so that the GUI itself never
/// writes to standard output.
pub struct Gui {
    server: Server,
    address: String,
    hosts: Hosts,
    engines: [EngineCommand; 2],
}

impl Gui {
    /// Listens on `bind:port`. `engines` are engine command lines (none:
    /// this program's `engine` subcommand for both engines; one: it plays
    /// both). Requests are answered when their `Host` is the bound address,
    /// `bind` as given, or one of `allowed_hosts` (see `http::Hosts`).
    ///
    /// # Errors
    /// A bad engine command or allowed host, or the address cannot be
    /// bound.
    pub fn bind(
        bind: &str,
        port: u16,
        engines: &[String],
        allowed_hosts: &[String],
    ) -> Result<Gui, String> {
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
        if commands.len() > 2 {
            return Err("--engine: give at most two engines".to_string());
        }
        let first = commands.first().cloned().unwrap_or(own);
        let second = commands.get(1).cloned().unwrap_or_else(|| first.clone());
        let server = Server::bind((bind, port), Limits::gui(MAX_BODY_BYTES))
            .map_err(|error| format!("cannot listen on {bind}:{port}: {error}"))?;
        let bound = server
            .local_address()
            .map_err(|error| format!("cannot listen on {bind}:{port}: {error}"))?;
        let address = bound.to_string();
        let hosts = Hosts::new(&address, bind, bound.port(), allowed_hosts)?;
        Ok(Gui {
            server,
            address,
            hosts,
            engines: [first, second],
        })
    }

    /// The address it listens on, `host:port`.
    pub fn address(&self) -> &str {
        &self.address
    }

    /// The page's address, `http://host:port/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.address)
    }

    /// Serves the page until the process is stopped, the engines started
    /// when a game needs them.
    pub fn run(self) {
        let table = multi::MultiShared::new(self.engines.to_vec());
        let shared = Shared::new(self.engines);
        shared.watch_engines();
        let serving = Arc::clone(&shared);
        let hosts = self.hosts;
        self.server
            .serve(move |request| handle(request, &serving, &table, &hosts).into_response());
        shared.shut_down();
    }
}

/// Answers one complete request (the server has bounded its size): a
/// foreign `Host` or `Origin` is refused before anything is read or
/// changed.
fn handle(
    request: &Request,
    shared: &Arc<Shared>,
    table: &Arc<multi::MultiShared>,
    hosts: &Hosts,
) -> Answer {
    if let Err(refusal) = hosts.check(request) {
        return refusal;
    }
    let (path, query) = request
        .target
        .split_once('?')
        .unwrap_or((request.target.as_str(), ""));
    let body = String::from_utf8_lossy(&request.body);
    multi::route(table, request.method, path, query, &body)
        .unwrap_or_else(|| route(shared, request.method, path, query, &body))
}

/// The answer to `method path?query` with `body`.
/// `HEAD` is answered as `GET` (the server leaves out the body).
fn route(shared: &Arc<Shared>, method: Method, path: &str, query: &str, body: &str) -> Answer {
    let method = if method == Method::Head {
        Method::Get
    } else {
        method
    };
    match (method, path) {
        (Method::Get, "/") | (Method::Get, "/index.html") => {
            Answer::asset("text/html; charset=utf-8", PAGE_HTML)
        }
        (Method::Get, "/page.js") => Answer::asset("text/javascript; charset=utf-8", PAGE_SCRIPT),
        (Method::Get, "/page.css") => Answer::asset("text/css; charset=utf-8", PAGE_STYLE),
        (Method::Get, "/puzzles.js") => {
            Answer::asset("text/javascript; charset=utf-8", PUZZLES_SCRIPT)
        }
        (Method::Get, "/review.js") => {
            Answer::asset("text/javascript; charset=utf-8", REVIEW_SCRIPT)
        }
        // Review keeps its main line when a turn is played (a variation)
        // and the loaded record's text for its marks.
        (Method::Post, "/api/turn") if review::takes_turn(shared) => review::turn(shared, body),
        (Method::Post, "/api/load") => review::load(shared, body),
        (Method::Post, "/api/review/drop") => review::drop_variation(shared, body),
        (Method::Post, "/api/review/depth") => review::set_depth(shared, body),
        (Method::Get, "/api/puzzles") => Answer::json(&puzzles::ListReply {
            puzzles: puzzles::all(),
        }),
        (Method::Get, "/api/state") => {
            let seen = parse_query(query)
                .into_iter()
                .find(|(key, _)| key == "since")
                .and_then(|(_, value)| value.parse().ok())
                .unwrap_or(0);
            let state = shared.wait_newer(seen, POLL_WAIT);
            Answer::json(&StateReply::new(&state))
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
        (Method::Post, "/api/choices") => match api::read::<ChoicesRequest>(body) {
            Ok(request) => commands::choices(shared, &request.actions),
            Err(message) => Answer::error(400, &message),
        },
        (Method::Post, "/api/check") => match api::read::<CheckRequest>(body) {
            Ok(request) => commands::check(shared, &request.turn),
            Err(message) => Answer::error(400, &message),
        },
        (Method::Post, "/api/puzzle/answer") => {
            match api::read::<puzzles::AnswerRequest>(body)
                .and_then(|request| puzzles::answer(&request))
            {
                Ok(verdict) => Answer::json(&verdict),
                Err(message) => Answer::error(400, &message),
            }
        }
        // A command is read in full before the state is touched, so that a
        // malformed one changes nothing, not even the message.
        (Method::Post, path) => match Command::parse(path, body) {
            Ok(command) => match shared.update(|state| commands::carry_out(state, command)) {
                Ok(()) => Answer::json(&OkReply { ok: true }),
                Err(message) => Answer::error(400, &message),
            },
            Err(message) => Answer::error(400, &message),
        },
        _ => Answer::error(
            404,
            &format!("no such page: {}", crate::notation::error::excerpt(path)),
        ),
    }
}
