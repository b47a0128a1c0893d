//! `supernova match` with three to six engines: a multi-player match over
//! the protocol's multi-player extension (protocol.md §10).
//!
//! As in two-player matches the runner is the referee: it keeps its own
//! board, plays every returned turn on the rules core and never trusts an
//! engine. Each game starts fresh engine processes, tells each one
//! `Players`, `Victory` and (Good versus Evil) its own `Alignment`, and for
//! every turn sends the mover the position (`position pos`, the board with
//! its names; only the Evil seats already out are revealed) and a `go` with
//! the turn limits and every seat's clock. A crash, a hang past the limit
//! and the margin, a line over the protocol's cap, an unparsable or illegal
//! turn, `bestmove (none)` in an ongoing game, a `bestmove` when no `go` was
//! waiting (found as in two-player matches: `isready` before each `go`, and
//! a `bestmove` before the `readyok` is a fault), or a clock run out forfeits:
//! the engine's seat resigns (the record says `SYSTEM: X resigns.`), its
//! process is stopped and the others play on. A game ends when the victory
//! condition decides it or after `max_turns` turns.
//!
//! Each engine gets a `Seed` of its own per game and seat (from `--seed`),
//! so that deterministic engines do not replay the same game whenever the
//! seating comes round again.
//!
//! Seats rotate over the games: game `g` (from 0) gives seat `s` to engine
//! `(s + g) mod n`. The winners share the game's point; a game stopped at
//! the turn limit shares it among the players still in; a draw (everyone
//! left eliminated by the same turn) shares it among all players.

use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use rand::rngs::SmallRng;
use rand::SeedableRng;

use super::config::{EngineConfig, TurnLimits};
use super::HANDSHAKE_TIMEOUT;
use crate::notation::error::excerpt;
use crate::notation::multi::{write_board, MultiBoard};
use crate::notation::sdg::Header;
use crate::protocol::client::{EngineFailure, EngineProcess};
use crate::protocol::reply::Reply;
use crate::record::multi::{record_turn, resignation_comment, victory_variants};
use crate::record::GameRecord;
use crate::rules::multi::{MultiOutcome, MultiPosition, Seat, Victory, MAX_PLAYERS};
use crate::rules::Rules;
use crate::tools::multi_match::deal_evil;

/// A multi-player match.
#[derive(Clone, Debug)]
pub struct MultiEngineMatch {
    /// The engines (3 to 6), in seat order for the first game.
    pub engines: Vec<EngineConfig>,
    /// The victory condition ([`Victory::from_word`]'s; Good versus Evil
    /// deals fresh alignments every game, whatever Evil seats it names).
    pub victory: Victory,
    /// Limits for every engine's turns (an engine's own override them).
    pub limits: TurnLimits,
    /// Games to play.
    pub games: usize,
    /// Games played at once.
    pub concurrency: usize,
    /// The rule profile.
    pub rules: Rules,
    /// Turns (of all players together) before a game is stopped.
    pub max_turns: u32,
    /// Grace past a time limit before a silent engine forfeits.
    pub margin: Duration,
    /// How long to wait for a turn under a node limit alone.
    pub turn_timeout: Duration,
    /// Where to write one SDG record per game.
    pub transcripts: Option<PathBuf>,
    /// Where to write one protocol log per engine and game.
    pub logs: Option<PathBuf>,
    /// Seed of the Good-versus-Evil deals and of each engine's `Seed`
    /// option (one per game and seat).
    pub seed: u64,
    /// The program run for an engine without `cmd=`.
    pub default_program: String,
    /// Its arguments.
    pub default_arguments: Vec<String>,
}

/// One finished game of a multi-player match.
#[derive(Clone, Debug, PartialEq)]
pub struct MultiGameReport {
    /// 1-based game number.
    pub number: usize,
    /// The engine (index into the match's engines) in each seat.
    pub seats: Vec<usize>,
    /// Points per seat (they sum to 1).
    pub points: Vec<f64>,
    /// How it ended, in words.
    pub reason: String,
    /// Turns played.
    pub turns: u32,
    /// Forfeits in this game, as `(seat, reason)`.
    pub forfeits: Vec<(usize, String)>,
}

/// The whole match: every game and the engines' names.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct MultiEngineResult {
    /// Engine names, in the order given.
    pub names: Vec<String>,
    /// Every game, in the order they finished.
    pub games: Vec<MultiGameReport>,
}

impl MultiEngineResult {
    /// Points per engine.
    pub fn points(&self) -> Vec<f64> {
        let mut points = vec![0.0; self.names.len()];
        for game in &self.games {
            for (seat, &engine) in game.seats.iter().enumerate() {
                points[engine] += game.points[seat];
            }
        }
        points
    }

    /// Points per engine and seat: `table[engine][seat]`.
    pub fn points_by_seat(&self) -> Vec<Vec<f64>> {
        let count = self.names.len();
        let mut table = vec![vec![0.0; count]; count];
        for game in &self.games {
            for (seat, &engine) in game.seats.iter().enumerate() {
                table[engine][seat] += game.points[seat];
            }
        }
        table
    }
}

/// A started engine for one seat of one game.
struct Player {
    process: Option<EngineProcess>,
    name: String,
    /// Clock time left, in ms, when the game has a clock.
    clock: Option<u64>,
    limits: TurnLimits,
}

/// Starts an engine and sets it up for a game: `hwi`, the rules, the
/// extension's options, the engine's own options, `newgame`, `isready`.
fn start(
    match_config: &MultiEngineMatch,
    engine: &EngineConfig,
    players: usize,
    alignment: Option<bool>,
    seed: u64,
    log: Option<PathBuf>,
) -> Result<(EngineProcess, Option<String>), String> {
    let (program, arguments) = match &engine.program {
        Some(program) => (program.clone(), engine.arguments.clone()),
        None => (
            match_config.default_program.clone(),
            match_config
                .default_arguments
                .iter()
                .chain(engine.arguments.iter())
                .cloned()
                .collect(),
        ),
    };
    let mut process = EngineProcess::spawn_logged(&program, &arguments, log.as_deref())
        .map_err(|error| error.to_string())?;
    let mut setup = || -> Result<Option<String>, EngineFailure> {
        let identity = process.identify(HANDSHAKE_TIMEOUT)?;
        let mut lines = Vec::new();
        if match_config.rules.name != Rules::STANDARD.name {
            lines.push(format!(
                "setoption name Rules value {}",
                match_config.rules.name
            ));
        }
        lines.push(format!("setoption name Players value {players}"));
        // A seed per game and seat, so that games with the same seating
        // differ; an engine's own `option.Seed` comes later and wins.
        lines.push(format!("setoption name Seed value {seed}"));
        lines.push(format!(
            "setoption name Victory value {}",
            match_config.victory.word()
        ));
        if let Some(evil) = alignment {
            let word = if evil { "evil" } else { "good" };
            lines.push(format!("setoption name Alignment value {word}"));
        }
        for (name, value) in &engine.options {
            lines.push(format!("setoption name {name} value {value}"));
        }
        lines.push("newgame".to_string());
        for line in &lines {
            process.send_line(line)?;
        }
        process.synchronise(HANDSHAKE_TIMEOUT)?;
        Ok(identity.name)
    };
    match setup() {
        Ok(name) => Ok((process, name)),
        Err(failure) => {
            let described = process.describe(&failure);
            process.kill();
            Err(described)
        }
    }
}

/// Engine names from `name=` or the `id name`'s first word, usable in
/// records, unique ignoring case. Each engine is started once to learn its
/// name and to stop the match early when it cannot start at all.
fn probe(config: &MultiEngineMatch) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = Vec::new();
    for (index, engine) in config.engines.iter().enumerate() {
        let log = config
            .logs
            .as_ref()
            .map(|directory| directory.join(format!("probe-engine{}.log", index + 1)));
        let (mut process, id_name) = start(config, engine, config.engines.len(), None, 0, log)
            .map_err(|failure| {
                format!(
                    "engine {} failed its handshake: {failure}; no game was played",
                    index + 1
                )
            })?;
        process.quit();
        let given = engine.name.clone().or(id_name).unwrap_or_default();
        let first_word = given.split_whitespace().next().unwrap_or("").to_string();
        let mut name = super::record_name(&first_word, &format!("engine{}", index + 1));
        if name.to_ascii_lowercase().starts_with("home") {
            name.push_str("_engine");
        }
        let base = name.clone();
        let mut number = 2;
        while names.iter().any(|other| other.eq_ignore_ascii_case(&name)) {
            name = format!("{base}_{number}");
            number += 1;
        }
        names.push(name);
    }
    Ok(names)
}

/// The limits of one engine: its own, else the match's.
fn limits_of(config: &MultiEngineMatch, engine: &EngineConfig) -> TurnLimits {
    if engine.limits.is_empty() {
        config.limits
    } else {
        engine.limits
    }
}

/// Plays game `number` (1-based).
fn play_game(config: &MultiEngineMatch, names: &[String], number: usize) -> MultiGameReport {
    let count = config.engines.len();
    let seats: Vec<usize> = (0..count).map(|seat| (seat + number - 1) % count).collect();
    let mut victory = config.victory;
    if let Victory::GoodVersusEvil { .. } = victory {
        let mut random =
            SmallRng::seed_from_u64(config.seed ^ (number as u64).wrapping_mul(0x9E37_79B9));
        victory = Victory::GoodVersusEvil {
            evil: deal_evil(count, &mut random),
        };
    }
    let seat_names: Vec<&str> = seats.iter().map(|&engine| names[engine].as_str()).collect();
    let mut report = MultiGameReport {
        number,
        seats: seats.clone(),
        points: vec![0.0; count],
        reason: String::new(),
        turns: 0,
        forfeits: Vec::new(),
    };
    let Ok(position) = MultiPosition::start(count, victory) else {
        report.reason = "the game could not be set up".to_string();
        return report;
    };
    let mut board = MultiBoard::new(position);
    for (seat, name) in seat_names.iter().enumerate() {
        board.set_name(seat as Seat, *name);
    }
    let mut header = Header::multi_player(number as u64, &seat_names);
    header.variants = victory_variants(victory, count);
    let mut record = GameRecord {
        header,
        turns: Vec::new(),
    };
    let (mut players, forfeited) = start_players(config, names, &seats, victory, number);
    for (seat, reason) in forfeited {
        forfeit(
            &mut board,
            &mut players,
            &mut record,
            &mut report,
            seat,
            reason,
        );
    }
    let mut stuck = false;
    while !stuck
        && board.position.outcome() == MultiOutcome::Ongoing
        && report.turns < config.max_turns
    {
        let mover = board.position.side_to_move();
        let seat = mover as usize;
        let before = board.clone();
        // A turn that is played is recorded; a failed answer or an illegal
        // turn is the reason the mover forfeits.
        let failure = match ask(config, &board, &mut players, seat) {
            Ok(token) => match board.play_turn_text(&config.rules, &token) {
                Ok(played) => {
                    report.turns += 1;
                    if let Ok(turn) = record_turn(
                        report.turns,
                        seat_names[seat],
                        &before,
                        &config.rules,
                        &played.actions,
                        &played.names,
                    ) {
                        record.turns.push(turn);
                    }
                    None
                }
                Err(error) => Some(format!("illegal turn '{}': {error}", excerpt(&token))),
            },
            Err(reason) => Some(reason),
        };
        if let Some(reason) = failure {
            stuck = !forfeit(
                &mut board,
                &mut players,
                &mut record,
                &mut report,
                mover,
                reason,
            );
        }
    }
    for player in &mut players {
        if let Some(mut process) = player.process.take() {
            process.quit();
        }
    }
    settle(
        &board.position,
        &seat_names,
        config.max_turns,
        &mut record,
        &mut report,
    );
    if let Some(directory) = &config.transcripts {
        let path = directory.join(format!("game-{number:04}.sdg"));
        if let Err(error) = std::fs::write(&path, record.to_sdg()) {
            report.reason.push_str(&format!(
                " (the record {} could not be written: {error})",
                path.display()
            ));
        }
    }
    report
}

/// Starts the engine of each seat (`seats[seat]` is its engine) with its
/// options, alignment and seed. An engine that cannot start is listed with
/// the reason instead, to forfeit its seat once the board is set up.
fn start_players(
    config: &MultiEngineMatch,
    names: &[String],
    seats: &[usize],
    victory: Victory,
    number: usize,
) -> (Vec<Player>, Vec<(Seat, String)>) {
    let count = seats.len();
    let mut players: Vec<Player> = Vec::with_capacity(count);
    let mut forfeited: Vec<(Seat, String)> = Vec::new();
    for (seat, &engine) in seats.iter().enumerate() {
        let engine_config = &config.engines[engine];
        let limits = limits_of(config, engine_config);
        let alignment = match victory {
            Victory::GoodVersusEvil { evil } => Some(evil.contains(seat as Seat)),
            _ => None,
        };
        let log = config.logs.as_ref().map(|directory| {
            directory.join(format!("game-{number:04}-p{seat}-{}.log", names[engine]))
        });
        let seed = (config.seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ (number * 8 + seat) as u64)
            & (u64::MAX >> 1);
        let process = match start(config, engine_config, count, alignment, seed, log) {
            Ok((process, _)) => Some(process),
            Err(failure) => {
                forfeited.push((seat as Seat, format!("failed to start: {failure}")));
                None
            }
        };
        players.push(Player {
            process,
            name: names[engine].clone(),
            clock: limits.clock.map(|(time, _)| time),
            limits,
        });
    }
    (players, forfeited)
}

/// Scores a finished (or stopped) game: the winners share its point, a
/// draw shares it among everyone, a game stopped at the turn limit among
/// the players still in. The record names the winners; the report says why.
fn settle(
    position: &MultiPosition,
    seat_names: &[&str],
    max_turns: u32,
    record: &mut GameRecord,
    report: &mut MultiGameReport,
) {
    let count = seat_names.len();
    let (sharing, reason): (Vec<Seat>, String) = match position.outcome() {
        MultiOutcome::Win(winners) => {
            let names: Vec<&str> = winners
                .iter()
                .map(|seat| seat_names[seat as usize])
                .collect();
            record.header.winner = Some(names.join(", "));
            let how = if position.decided_by_resignation() {
                "the others resigned or forfeited"
            } else {
                "won on the board"
            };
            (
                winners.iter().collect(),
                format!("{} {how}", names.join(" and ")),
            )
        }
        MultiOutcome::Draw => (
            (0..count as Seat).collect(),
            "draw: everyone left was eliminated by the same turn".to_string(),
        ),
        MultiOutcome::Ongoing => (
            position.in_game().iter().collect(),
            format!("unfinished: turn limit {max_turns}"),
        ),
    };
    for &seat in &sharing {
        report.points[seat as usize] += 1.0 / sharing.len() as f64;
    }
    report.reason = reason;
}

/// Asks the engine in `seat` for its turn: `position pos`, `go`, then the
/// `bestmove` within its limit and the margin; its clock is charged.
fn ask(
    config: &MultiEngineMatch,
    board: &MultiBoard,
    players: &mut [Player],
    seat: usize,
) -> Result<String, String> {
    let position_line = format!("position pos {}", engine_view(board));
    let mut go = String::from("go");
    let limits = players[seat].limits;
    if let Some(nodes) = limits.nodes {
        go.push_str(&format!(" nodes {nodes}"));
    }
    if let Some(movetime) = limits.movetime {
        go.push_str(&format!(" movetime {movetime}"));
    }
    for (other, player) in players.iter().enumerate() {
        if let (Some(time), Some((_, increment))) = (player.clock, player.limits.clock) {
            if board.position.in_game().contains(other as Seat) {
                go.push_str(&format!(" p{other}time {time} p{other}inc {increment}"));
            }
        }
    }
    let player = &mut players[seat];
    let wait = match (player.clock, limits.movetime) {
        (Some(time), _) => Duration::from_millis(time) + config.margin,
        (None, Some(movetime)) => Duration::from_millis(movetime) + config.margin,
        (None, None) => config.turn_timeout,
    };
    let Some(process) = player.process.as_mut() else {
        return Err("no engine process".to_string());
    };
    // Idle first: a `bestmove` sent since the engine's last answer is a
    // fault, not the answer to this `go` (as in two-player matches).
    process
        .synchronise_idle(wait)
        .map_err(|failure| match failure {
            EngineFailure::Timeout(limit) => {
                format!("hung: no readyok within {} ms", limit.as_millis())
            }
            other => process.describe(&other),
        })?;
    let started = Instant::now();
    process
        .send_line(&position_line)
        .and_then(|()| process.send_line(&go))
        .map_err(|failure| process.describe(&failure))?;
    let answer = process.wait_for(wait, |reply| match reply {
        Ok(Reply::BestMove { turn, .. }) => Some(turn),
        _ => None,
    });
    let turn = answer.map_err(|failure| process.describe(&failure))?;
    let elapsed = started.elapsed().as_millis() as u64;
    if let (Some(time), Some((_, increment))) = (player.clock, limits.clock) {
        if elapsed > time + config.margin.as_millis() as u64 {
            return Err(format!("lost on time ({elapsed} ms with {time} ms left)"));
        }
        player.clock = Some(time.saturating_sub(elapsed) + increment);
    }
    turn.ok_or_else(|| "bestmove (none) in an ongoing game".to_string())
}

/// The position as an engine (or the GUI's page) may see it: in Good
/// versus Evil only the Evil seats already out of the game are named. The
/// `evil=` field is replaced in the text rather than the position rebuilt,
/// because rebuilding packs the systems and the board's names follow the
/// slots.
pub(crate) fn engine_view(board: &MultiBoard) -> String {
    let text = write_board(board);
    let position = &board.position;
    let Victory::GoodVersusEvil { evil } = position.victory() else {
        return text;
    };
    let revealed: String = evil
        .and(position.out())
        .iter()
        .map(|seat| seat.to_string())
        .collect();
    text.split(' ')
        .map(|word| {
            if word.starts_with("evil=") {
                format!("evil={revealed}")
            } else {
                word.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// `seat` forfeits: it resigns on the board (recorded as SDG does), its
/// process is stopped, and the reason is kept for the report. Returns
/// whether the seat could resign (it cannot once the game is over).
fn forfeit(
    board: &mut MultiBoard,
    players: &mut [Player],
    record: &mut GameRecord,
    report: &mut MultiGameReport,
    seat: Seat,
    reason: String,
) -> bool {
    let player = &mut players[seat as usize];
    if let Some(mut process) = player.process.take() {
        process.kill();
    }
    let resigned = board.position.resign(seat).is_ok();
    if resigned {
        if let Some(last) = record.turns.last_mut() {
            last.comments.push(resignation_comment(&player.name));
        }
    }
    report.forfeits.push((seat as usize, reason));
    resigned
}

/// Runs a multi-player match, writing a line per game and the per-seat
/// score table to `output`.
///
/// # Errors
/// Fewer than 3 or more than 6 engines, no turn limit, an engine that cannot start at all, or an unwritable
/// directory.
pub fn run_multi_match(
    config: &MultiEngineMatch,
    output: &mut (dyn Write + Send),
) -> Result<MultiEngineResult, String> {
    let count = config.engines.len();
    if !(3..=MAX_PLAYERS).contains(&count) {
        return Err(format!("expected 3 to 6 engines, not {count}"));
    }
    if config.limits.is_empty() && config.engines.iter().any(|engine| engine.limits.is_empty()) {
        return Err(
            "no turn limit: give --movetime, --nodes or --tc (or movetime=/nodes=/tc= per engine)"
                .to_string(),
        );
    }
    for directory in [&config.transcripts, &config.logs].into_iter().flatten() {
        std::fs::create_dir_all(directory)
            .map_err(|error| format!("{}: cannot create: {error}", directory.display()))?;
    }
    let names = probe(config)?;
    let _ = writeln!(
        output,
        "Started multi-player match of {} games: {} ({} players, victory {}, concurrency {})",
        config.games,
        names.join(", "),
        count,
        config.victory.word(),
        config.concurrency.max(1)
    );
    let shared = Mutex::new((
        output,
        MultiEngineResult {
            names: names.clone(),
            games: Vec::new(),
        },
    ));
    let next = AtomicUsize::new(1);
    std::thread::scope(|scope| {
        for _ in 0..config.concurrency.max(1).min(config.games.max(1)) {
            scope.spawn(|| loop {
                let number = next.fetch_add(1, Ordering::Relaxed);
                if number > config.games {
                    break;
                }
                let report = play_game(config, &names, number);
                let Ok(mut guard) = shared.lock() else {
                    break;
                };
                let (writer, result) = &mut *guard;
                let seat_names: Vec<&str> = report
                    .seats
                    .iter()
                    .map(|&engine| names[engine].as_str())
                    .collect();
                for (seat, reason) in &report.forfeits {
                    let _ = writeln!(
                        writer,
                        "Forfeit in game {}: {} (seat p{seat}) {reason}",
                        report.number, seat_names[*seat]
                    );
                }
                let _ = writeln!(
                    writer,
                    "Finished game {} ({}): {} {{{}}} after {} turns",
                    report.number,
                    seat_names.join(", "),
                    score_text(&report.points),
                    report.reason,
                    report.turns
                );
                let _ = writer.flush();
                result.games.push(report);
            });
        }
    });
    let (writer, result) = shared
        .into_inner()
        .map_err(|_| "output lock poisoned".to_string())?;
    for line in table(&result) {
        let _ = writeln!(writer, "{line}");
    }
    let _ = writeln!(writer, "Finished match");
    let _ = writer.flush();
    Ok(result)
}

/// One score per seat, `1-0-0` or `1/2-0-1/2-0`.
fn score_text(points: &[f64]) -> String {
    points
        .iter()
        .map(|&point| {
            if point == 0.0 {
                "0".to_string()
            } else if (point - 1.0).abs() < 1e-9 {
                "1".to_string()
            } else {
                format!("1/{}", (1.0 / point).round() as u32)
            }
        })
        .collect::<Vec<_>>()
        .join("-")
}

/// The per-seat score table: each engine's points in total and by seat,
/// its share of all points, and the games decided, unfinished and forfeited.
pub fn table(result: &MultiEngineResult) -> Vec<String> {
    let count = result.names.len();
    let games = result.games.len();
    let by_seat = result.points_by_seat();
    let points = result.points();
    let width = result
        .names
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(6)
        .max(6);
    let mut lines = Vec::new();
    let seats: Vec<String> = (0..count)
        .map(|seat| format!("{:>7}", format!("p{seat}")))
        .collect();
    lines.push(format!(
        "{:width$} {:>7} {:>6} {}",
        "engine",
        "points",
        "share",
        seats.join("")
    ));
    for (engine, name) in result.names.iter().enumerate() {
        let cells: Vec<String> = by_seat[engine]
            .iter()
            .map(|points| format!("{points:>7.1}"))
            .collect();
        let share = if games == 0 {
            0.0
        } else {
            100.0 * points[engine] / games as f64
        };
        lines.push(format!(
            "{name:width$} {:>7.1} {:>5.1}% {}",
            points[engine],
            share,
            cells.join("")
        ));
    }
    let unfinished = result
        .games
        .iter()
        .filter(|game| game.reason.starts_with("unfinished"))
        .count();
    let draws = result
        .games
        .iter()
        .filter(|game| game.reason.starts_with("draw"))
        .count();
    let forfeits: usize = result.games.iter().map(|game| game.forfeits.len()).sum();
    lines.push(format!(
        "Games {games}: {} decided, {draws} drawn, {unfinished} unfinished; forfeits {forfeits}",
        games - draws - unfinished
    ));
    lines
}
