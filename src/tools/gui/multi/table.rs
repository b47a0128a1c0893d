//! The multi-player table: who sits where, the game and its turns, and the
//! engine seats driven through the protocol's multi-player extension.
//!
//! Every engine seat has a process of its own ([`EngineLink`], the
//! two-player page's engine handling), told `Players`, `Victory` and, in
//! Good versus Evil, only its own `Alignment` when the game starts; for
//! its turns it is sent the position with only the revealed Evil seats
//! ([`crate::tools::match_runner::multi::engine_view`]) and a `go` with the table's limit. A `bestmove` is
//! played only when it answers the search the table is waiting for (same
//! game, same turn), so that an answer arriving after a new game is
//! dropped. An engine that exits, answers `bestmove (none)` or plays an
//! illegal turn resigns its seat, as in a multi-player match, and the
//! others play on.
//!
//! An engine that stops answering is dropped the same way, so that it
//! never hangs the page: a search not answered within the table's answer
//! time ([`Table::answer_time`]: the `movetime` plus the margin, or the
//! margin alone under a node limit) makes [`Table::drop_silent`] resign
//! the seat, stop its process and say so ("engine1_E stopped answering
//! ..."); the seat's reason stays on the page. A page's watchdog thread
//! calls it while the game goes on.

use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use crate::notation::error::excerpt;
use crate::notation::multi::{format_turn, seat_mark, MultiBoard};
use crate::notation::sdg::Header;
use crate::notation::turn::Style;
use crate::protocol::reply::Reply;
use crate::record::multi::{record_turn, resignation_comment, victory_variants};
use crate::record::GameRecord;
use crate::rules::multi::{MultiAction, MultiOutcome, MultiPosition, Seat, Victory};
use crate::rules::Rules;
use crate::tools::gui::engine::{EngineCommand, EngineEvent, EngineLink};
use crate::tools::match_runner::multi::engine_view;
use crate::tools::multi_match::deal_evil;

/// Turns (of all players together) after which a game is stopped
/// unfinished, so that a watched game of engines that cannot finish it
/// still ends.
pub const MAX_TURNS: usize = 600;

/// The default grace past the limit before a silent engine is dropped:
/// long enough for a node-limited search of a million playouts on a
/// loaded machine, short enough that a hung engine is seen within a
/// minute.
pub const DEFAULT_MARGIN: Duration = Duration::from_secs(60);

/// Who plays a seat.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeatKind {
    /// A person at the page.
    Person,
    /// One of the GUI's engine commands, by index.
    Engine(usize),
}

/// One seat at the table.
pub struct TableSeat {
    /// Who plays it.
    pub kind: SeatKind,
    /// The seat's name: its home's name and its name in a saved record.
    pub name: String,
    /// The engine process of an engine seat.
    link: Option<EngineLink>,
    /// The turn number (index into the turns) the engine is searching.
    pub searching: Option<usize>,
    /// When that search was asked for, for the watchdog.
    asked: Option<Instant>,
    /// Why an engine seat was dropped (it exited, stopped answering or
    /// played an illegal turn), for the page.
    pub dropped: Option<String>,
}

/// What the table is used for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TableMode {
    /// A game being played: people and engines, or engines only (watched).
    Game,
    /// A loaded record stepped through.
    Review,
}

/// A played turn: the board before it, who played it, its actions and its
/// SDG text, and the seats that resigned after it.
#[derive(Clone, Debug)]
pub struct TableTurn {
    /// The board before the turn.
    pub before: MultiBoard,
    /// The seat that played it.
    pub seat: Seat,
    /// The actions as played.
    pub actions: Vec<MultiAction>,
    /// Each discovery's name.
    pub names: Vec<Option<String>>,
    /// The turn in SDG form.
    pub text: String,
    /// Seats that resigned (or forfeited) after this turn.
    pub resigned: Vec<Seat>,
}

/// How long an engine thinks about a turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TurnLimit {
    /// Playouts a turn (quick and reproducible).
    Nodes(u64),
    /// Milliseconds a turn.
    Movetime(u64),
}

impl TurnLimit {
    /// The `go` line.
    fn go(self) -> String {
        match self {
            TurnLimit::Nodes(nodes) => format!("go nodes {nodes}"),
            TurnLimit::Movetime(milliseconds) => format!("go movetime {milliseconds}"),
        }
    }
}

/// Everything the multi-player page shows and the engines play.
pub struct Table {
    /// Counts changes, for long polling.
    pub version: u64,
    /// Counts games, so that a late engine answer is dropped.
    pub game_id: u64,
    /// What the table is used for.
    pub mode: TableMode,
    /// The rule profile.
    pub rules: Rules,
    /// The seats in turn order.
    pub seats: Vec<TableSeat>,
    /// The board at the start.
    pub start: MultiBoard,
    /// The board now (after the last turn and the resignations after it).
    pub board: MultiBoard,
    /// The turns played.
    pub turns: Vec<TableTurn>,
    /// The turn shown (index into `turns`: the board before it); `None`
    /// shows the board now.
    pub shown: Option<usize>,
    /// The engines' limit.
    pub limit: TurnLimit,
    /// The grace past the limit before a silent engine is dropped.
    pub margin: Duration,
    /// The last message for the person.
    pub message: String,
    /// Whether the message is an error.
    pub error: bool,
    /// The reviewed record, saved again as it was loaded.
    pub loaded: Option<GameRecord>,
    /// The GUI's engine commands.
    pub engines: Vec<EngineCommand>,
}

impl Table {
    /// An empty table: no game yet (a three-player board of people is
    /// shown until one starts).
    pub fn new(engines: Vec<EngineCommand>) -> Table {
        let position = MultiPosition::start(3, Victory::LastManStanding)
            .expect("three players is a legal table");
        let board = MultiBoard::new(position);
        Table {
            version: 1,
            game_id: 0,
            mode: TableMode::Game,
            rules: Rules::STANDARD,
            seats: Vec::new(),
            start: board.clone(),
            board,
            turns: Vec::new(),
            shown: None,
            limit: TurnLimit::Nodes(1000),
            margin: DEFAULT_MARGIN,
            message: "choose the seats and start a game".to_string(),
            error: false,
            loaded: None,
            engines,
        }
    }

    /// Tells the person something.
    pub fn tell(&mut self, message: impl Into<String>, error: bool) {
        self.message = message.into();
        self.error = error;
    }

    /// The seats played by people.
    pub fn people(&self) -> Vec<Seat> {
        (0..self.seats.len() as Seat)
            .filter(|&seat| self.seats[seat as usize].kind == SeatKind::Person)
            .collect()
    }

    /// Whether the game is over (decided, or stopped at the turn limit).
    pub fn finished(&self) -> bool {
        self.board.position.outcome() != MultiOutcome::Ongoing || self.turns.len() >= MAX_TURNS
    }

    /// Sets up a new game (the engines are started by the caller, which
    /// owns the callbacks). Good versus Evil deals the alignments from
    /// `seed`.
    ///
    /// # Errors
    /// Fewer than 3 or more than 6 seats, an unknown engine, or Good
    /// versus Evil with more than one person (they would see each other's
    /// alignments on one page).
    pub fn set_up(
        &mut self,
        kinds: &[SeatKind],
        victory: Victory,
        (limit, margin): (TurnLimit, Duration),
        seed: u64,
    ) -> Result<(), String> {
        let count = kinds.len();
        if !(3..=6).contains(&count) {
            return Err(format!(
                "a multi-player game has 3 to 6 seats, not {count} (the two-player game is on the main page)"
            ));
        }
        for kind in kinds {
            if let SeatKind::Engine(index) = kind {
                if *index >= self.engines.len() {
                    return Err(format!(
                        "no engine {}: the GUI was started with {}",
                        index + 1,
                        self.engines.len()
                    ));
                }
            }
        }
        let people = kinds
            .iter()
            .filter(|kind| **kind == SeatKind::Person)
            .count();
        let victory = match victory {
            Victory::GoodVersusEvil { .. } if people > 1 => {
                return Err(
                    "Good vs Evil takes at most one person at the page: the others would see the secret alignments"
                        .to_string(),
                )
            }
            Victory::GoodVersusEvil { .. } => Victory::GoodVersusEvil {
                evil: deal_evil(count, &mut SmallRng::seed_from_u64(seed)),
            },
            other => other,
        };
        let position = MultiPosition::start(count, victory).map_err(|error| error.to_string())?;
        let mut board = MultiBoard::new(position);
        let mut seats = Vec::with_capacity(count);
        for (seat, kind) in kinds.iter().enumerate() {
            let mark = seat_mark(seat as Seat, count);
            let name = match kind {
                SeatKind::Person if people == 1 => format!("you_{mark}"),
                SeatKind::Person => format!("person_{mark}"),
                SeatKind::Engine(index) => format!("engine{}_{mark}", index + 1),
            };
            board.set_name(seat as Seat, name.as_str());
            seats.push(TableSeat {
                kind: *kind,
                name,
                link: None,
                searching: None,
                asked: None,
                dropped: None,
            });
        }
        self.seats = seats;
        self.start = board.clone();
        self.board = board;
        self.turns.clear();
        self.shown = None;
        self.limit = limit;
        self.margin = margin;
        self.mode = TableMode::Game;
        self.loaded = None;
        self.game_id += 1;
        Ok(())
    }

    /// The lines that set an engine up for seat `seat` of this game: the
    /// handshake, the extension's options (its own alignment only), a seed
    /// per seat and `newgame`.
    pub fn setup_lines(&self, seat: Seat) -> Vec<String> {
        let position = &self.board.position;
        let mut lines = vec![
            "hwi".to_string(),
            format!("setoption name Players value {}", position.players()),
            format!("setoption name Victory value {}", position.victory().word()),
            format!(
                "setoption name Seed value {}",
                self.game_id * 8 + seat as u64 + 1
            ),
        ];
        if let Victory::GoodVersusEvil { evil } = position.victory() {
            let word = if evil.contains(seat) { "evil" } else { "good" };
            lines.push(format!("setoption name Alignment value {word}"));
        }
        lines.push("newgame".to_string());
        lines
    }

    /// Gives an engine seat its started process.
    pub fn attach(&mut self, seat: Seat, link: EngineLink) {
        self.seats[seat as usize].link = Some(link);
    }

    /// Starts the search of the engine to move when the game needs one.
    pub fn drive(&mut self) {
        if self.mode != TableMode::Game || self.finished() || self.seats.is_empty() {
            return;
        }
        let mover = self.board.position.side_to_move();
        let ply = self.turns.len();
        let view = engine_view(&self.board);
        let go = self.limit.go();
        let seat = &mut self.seats[mover as usize];
        if seat.searching == Some(ply) {
            return;
        }
        let Some(link) = seat.link.as_mut() else {
            return;
        };
        let sent = link
            .send(&format!("position pos {view}"))
            .and_then(|()| link.send(&go));
        match sent {
            Ok(()) => {
                seat.searching = Some(ply);
                seat.asked = Some(Instant::now());
            }
            Err(error) => self.forfeit(mover, &error),
        }
    }

    /// How long an engine may take to answer a `go`: the limit's time
    /// plus the margin.
    pub fn answer_time(&self) -> Duration {
        match self.limit {
            TurnLimit::Nodes(_) => self.margin,
            TurnLimit::Movetime(milliseconds) => Duration::from_millis(milliseconds) + self.margin,
        }
    }

    /// Drops every engine seat whose search of the turn now has gone
    /// unanswered past [`Table::answer_time`] at `now`: the seat resigns,
    /// its process is stopped, and the others play on. Whether a seat was
    /// dropped.
    pub fn drop_silent(&mut self, now: Instant) -> bool {
        if self.mode != TableMode::Game || self.finished() {
            return false;
        }
        let allowed = self.answer_time();
        let ply = self.turns.len();
        let silent: Vec<Seat> = (0..self.seats.len() as Seat)
            .filter(|&seat| {
                let seat = &self.seats[seat as usize];
                seat.searching == Some(ply)
                    && seat
                        .asked
                        .is_some_and(|asked| now.duration_since(asked) > allowed)
            })
            .collect();
        for &seat in &silent {
            let why = format!(
                "stopped answering (no bestmove within {:.1} s)",
                allowed.as_secs_f64()
            );
            self.forfeit(seat, &why);
        }
        !silent.is_empty()
    }

    /// An event from the engine of `seat` in game `game_id`.
    pub fn engine_event(&mut self, game_id: u64, seat: Seat, event: EngineEvent) {
        if game_id != self.game_id || self.mode != TableMode::Game {
            return;
        }
        let ply = self.turns.len();
        let waited = self
            .seats
            .get(seat as usize)
            .and_then(|seat| seat.searching);
        match event {
            EngineEvent::Reply(Reply::BestMove { turn, .. }) if waited == Some(ply) => {
                self.seats[seat as usize].searching = None;
                self.seats[seat as usize].asked = None;
                if self.board.position.side_to_move() != seat || self.finished() {
                    return;
                }
                match turn {
                    Some(token) => {
                        if let Err(error) = self.play(seat, &token) {
                            self.forfeit(
                                seat,
                                &format!("played an illegal turn '{}': {error}", excerpt(&token)),
                            );
                        }
                    }
                    None => self.forfeit(seat, "answered bestmove (none) in an ongoing game"),
                }
            }
            // A process stopped on purpose has no link any more.
            EngineEvent::Exited if self.seats[seat as usize].link.is_some() => {
                let status = self.seats[seat as usize]
                    .link
                    .as_mut()
                    .map(EngineLink::exit_status)
                    .unwrap_or_default();
                self.seats[seat as usize].link = None;
                self.forfeit(seat, &format!("stopped answering (exited: {status})"));
            }
            _ => {}
        }
    }

    /// Plays `text` for `seat` on the board now.
    ///
    /// # Errors
    /// Why the turn does not parse or is illegal; nothing changes then.
    pub fn play(&mut self, seat: Seat, text: &str) -> Result<(), String> {
        let before = self.board.clone();
        let played = self
            .board
            .play_turn_text(&self.rules, text)
            .map_err(|error| error.to_string())?;
        let text = format_turn(
            &before,
            &self.rules,
            &played.actions,
            &played.names,
            Style::Sdg,
        );
        self.turns.push(TableTurn {
            before,
            seat,
            actions: played.actions,
            names: played.names,
            text: text.clone(),
            resigned: Vec::new(),
        });
        let name = self.seats[seat as usize].name.clone();
        self.tell(format!("{name} played {text}"), false);
        self.announce_end();
        Ok(())
    }

    /// Says the result once the game is over.
    fn announce_end(&mut self) {
        match self.board.position.outcome() {
            MultiOutcome::Win(winners) => {
                let names: Vec<&str> = winners
                    .iter()
                    .map(|seat| self.seats[seat as usize].name.as_str())
                    .collect();
                let message = format!("game over: {} won", names.join(" and "));
                self.tell(message, false);
            }
            MultiOutcome::Draw => {
                self.tell("game over: everyone left was eliminated together", false)
            }
            MultiOutcome::Ongoing if self.turns.len() >= MAX_TURNS => {
                self.tell(format!("stopped unfinished after {MAX_TURNS} turns"), false)
            }
            MultiOutcome::Ongoing => {}
        }
    }

    /// `seat` resigns (an engine that failed, or the person): it leaves the
    /// game, its process is stopped, and the record notes it after the
    /// last turn.
    pub fn forfeit(&mut self, seat: Seat, why: &str) {
        let Some(table_seat) = self.seats.get_mut(seat as usize) else {
            return;
        };
        table_seat.link = None;
        table_seat.searching = None;
        table_seat.asked = None;
        if table_seat.kind != SeatKind::Person {
            table_seat.dropped = Some(why.to_string());
        }
        let name = table_seat.name.clone();
        match self.board.position.resign(seat) {
            Ok(_) => {
                if let Some(last) = self.turns.last_mut() {
                    last.resigned.push(seat);
                }
                self.tell(format!("{name} {why} and resigns"), true);
                self.announce_end();
            }
            Err(error) => self.tell(format!("{name} {why}: {error}"), true),
        }
    }

    /// The game as an SDG record that `supernova replay` reads.
    pub fn record(&self) -> Result<GameRecord, String> {
        let players = self.start.position.players();
        let names: Vec<&str> = self.seats.iter().map(|seat| seat.name.as_str()).collect();
        if let Some(record) = &self.loaded {
            return Ok(record.clone());
        }
        let mut header = Header::multi_player(self.game_id, &names);
        header.variants = victory_variants(self.start.position.victory(), players);
        if let MultiOutcome::Win(winners) = self.board.position.outcome() {
            let winners: Vec<&str> = winners
                .iter()
                .map(|seat| self.seats[seat as usize].name.as_str())
                .collect();
            header.winner = Some(winners.join(", "));
        }
        let mut turns = Vec::with_capacity(self.turns.len());
        for (index, turn) in self.turns.iter().enumerate() {
            let mut recorded = record_turn(
                index as u32 + 1,
                &self.seats[turn.seat as usize].name,
                &turn.before,
                &self.rules,
                &turn.actions,
                &turn.names,
            )
            .map_err(|error| format!("turn {} cannot be written: {error}", index + 1))?;
            for &seat in &turn.resigned {
                recorded
                    .comments
                    .push(resignation_comment(&self.seats[seat as usize].name));
            }
            turns.push(recorded);
        }
        Ok(GameRecord { header, turns })
    }

    /// The board shown: before the shown turn, or now.
    pub fn shown_board(&self) -> &MultiBoard {
        match self.shown {
            Some(index) if index < self.turns.len() => &self.turns[index].before,
            _ => &self.board,
        }
    }
}

/// Starts the engine process of `seat` with `on_event` for its lines, and
/// sends it the game's setup lines.
///
/// # Errors
/// The engine cannot be started or does not read its input.
pub fn start_engine(
    table: &Table,
    seat: Seat,
    on_event: impl FnMut(EngineEvent) + Send + 'static,
) -> Result<EngineLink, String> {
    let SeatKind::Engine(index) = table.seats[seat as usize].kind else {
        return Err("a person's seat has no engine".to_string());
    };
    let mut link = EngineLink::spawn(&table.engines[index], on_event)?;
    for line in table.setup_lines(seat) {
        link.send(&line)?;
    }
    Ok(link)
}
