//! One game of a match: its engines started fresh, every turn asked for
//! with a `position` and a `go` command and refereed on the rules core, and
//! the game written as an SDG record.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use super::config::{EngineConfig, MatchConfig, Opening, TurnLimits};
use super::{GameReport, HANDSHAKE_TIMEOUT};
use crate::notation::error::excerpt;
use crate::notation::sdg::{write_record, Header, RecordTurn};
use crate::notation::turn::{NamedTurn, Style, TurnError};
use crate::notation::Board;
use crate::protocol::client::{EngineFailure, EngineProcess};
use crate::protocol::command::Command;
use crate::protocol::reply::{Info, Reply, Score};
use crate::record::{RecordedResult, REPETITION_VARIANT, TURN_LIMIT_VARIANT};
use crate::rules::{repetition_text, GameStatus, History, Outcome, Player, Position, Rules};
use crate::search::{Clock, SearchLimits};
use crate::tools::Ending;

/// A started engine for one game.
struct Seat {
    process: EngineProcess,
}

/// Starts an engine and completes the handshake, returning it with its `id
/// name`; its protocol log goes to `log` when given. A failure is described
/// with the engine's last stderr lines (a refused argument says why there).
pub(super) fn start_engine(
    config: &EngineConfig,
    match_config: &MatchConfig,
    log: Option<&Path>,
) -> Result<(EngineProcess, Option<String>), String> {
    let (program, arguments) = match &config.program {
        Some(program) => (program.clone(), config.arguments.clone()),
        None => (
            match_config.default_program.clone(),
            match_config
                .default_arguments
                .iter()
                .chain(config.arguments.iter())
                .cloned()
                .collect(),
        ),
    };
    let mut process = EngineProcess::spawn_logged(&program, &arguments, log)
        .map_err(|error| error.to_string())?;
    match handshake(&mut process, config, match_config) {
        Ok(name) => Ok((process, name)),
        Err(failure) => {
            let described = process.describe(&failure);
            process.kill();
            Err(described)
        }
    }
}

/// The handshake and the options: `hwi`, the rules and the engine's own
/// options, `newgame`, `isready`. Returns the engine's `id name`.
fn handshake(
    process: &mut EngineProcess,
    config: &EngineConfig,
    match_config: &MatchConfig,
) -> Result<Option<String>, EngineFailure> {
    let identity = process.identify(HANDSHAKE_TIMEOUT)?;
    // The referee's rules first (Rules resets the other two), then the
    // engine's own options, which may override them.
    let rules = match_config.referee_rules();
    let set = |name: &str, value: String| Command::SetOption {
        name: name.to_string(),
        value,
    };
    if rules.name != Rules::STANDARD.name {
        process.send(&set("Rules", rules.name.to_string()))?;
    }
    process.send(&set("Repetition", repetition_text(rules.repetition)))?;
    if let Some(limit) = rules.max_turns {
        process.send(&set("MaxTurns", limit.to_string()))?;
    }
    for (name, value) in &config.options {
        process.send(&set(name, value.clone()))?;
    }
    process.send(&Command::NewGame)?;
    process.synchronise(HANDSHAKE_TIMEOUT)?;
    Ok(identity.name)
}

/// Where the protocol log of the engine in `seat` of game `number` goes,
/// when the match keeps logs: `game-NNNN-<seat>-<name>.log`.
fn log_path(config: &MatchConfig, number: usize, seat: Player, name: &str) -> Option<PathBuf> {
    let directory = config.logs.as_ref()?;
    Some(directory.join(format!("game-{number:04}-p{}-{name}.log", seat.index())))
}

/// The per-turn comment cutechess-cli writes in its PGN records: the
/// engine's last score (`cp` / 100, as cutechess prints centipawns; the
/// protocol's cp is the value times 1000, so +0.29 is a value of 0.029;
/// `+M2`/`-M1` for a proven result), its depth, and the time the turn
/// took, such as `{+0.29/9 0.512s}`; just the time when the engine sent no
/// `info` line.
pub(super) fn turn_comment(info: Option<&Info>, elapsed: Duration) -> String {
    let time = format!("{:.3}s", elapsed.as_secs_f64());
    let score = info.and_then(|info| {
        let score = match info.score? {
            Score::Centipawns(value) => format!("{:+.2}", value as f64 / 100.0),
            Score::Mate(turns) if turns > 0 => format!("+M{turns}"),
            Score::Mate(turns) => format!("-M{}", -turns),
        };
        Some(format!("{score}/{}", info.depth.unwrap_or(0)))
    });
    match score {
        Some(score) => format!("{{{score} {time}}}"),
        None => format!("{{{time}}}"),
    }
}

/// Today's date as SDG records print it (`2025.01.31`), from the system clock.
fn today() -> String {
    let days = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|elapsed| elapsed.as_secs() / 86_400)
        .unwrap_or(0) as i64;
    // Howard Hinnant's days-to-civil algorithm.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    format!("{year:04}.{month:02}.{day:02}")
}

/// One game in progress.
struct Game<'a> {
    config: &'a MatchConfig,
    /// The game's number in the schedule, from 1.
    number: usize,
    /// The rules the game is refereed by.
    rules: Rules,
    names: &'a [String; 2],
    /// Engine index (0 = A, 1 = B) for each seat (player 0, player 1).
    engines_by_seat: [usize; 2],
    opening: &'a Opening,
    /// The board with the names the engines use (the opening's).
    board: Board,
    /// The game from the empty start: the referee's judgement.
    history: History,
    transcript_board: Board,
    record: Vec<RecordTurn>,
    tokens: Vec<String>,
    clocks: [Option<Duration>; 2],
    /// For each seat, how many of its turns in a row it reported a score
    /// beyond the resign threshold: (below zero, above zero).
    streaks: [(u32, u32); 2],
}

impl Game<'_> {
    fn seat_name(&self, seat: Player) -> &str {
        &self.names[self.engines_by_seat[seat.index()]]
    }

    fn seat_names(&self) -> [&str; 2] {
        [
            self.seat_name(Player::First),
            self.seat_name(Player::Second),
        ]
    }

    fn limits(&self, seat: Player) -> TurnLimits {
        let own = self.config.engines[self.engines_by_seat[seat.index()]].limits;
        if own.is_empty() {
            self.config.limits
        } else {
            own
        }
    }

    /// The `go` command for the side to move, and how long to wait for its answer.
    fn go_command(&self, seat: Player) -> (Command, Duration) {
        let limits = self.limits(seat);
        let mut search = SearchLimits {
            movetime: limits.movetime.map(Duration::from_millis),
            nodes: limits.nodes,
            ..SearchLimits::default()
        };
        let mut deadline = search.movetime;
        if self.clocks.iter().any(Option::is_some) {
            let increment = |player: Player| {
                Duration::from_millis(
                    self.limits(player)
                        .clock
                        .map_or(0, |(_, increment)| increment),
                )
            };
            search.clock = Some(Clock {
                time_left: Player::BOTH
                    .map(|player| self.clocks[player.index()].unwrap_or_default()),
                increment: Player::BOTH.map(increment),
            });
            if let Some(left) = self.clocks[seat.index()] {
                deadline = Some(deadline.map_or(left, |limit| limit.min(left)));
            }
        }
        let wait = deadline.unwrap_or(self.config.turn_timeout) + self.config.margin;
        (Command::Go(search), wait)
    }

    /// The `position` command for the game so far: the opening and the
    /// turns played from it.
    fn position_command(&self) -> Command {
        Command::Position {
            base: Box::new(self.opening.board.clone()),
            turns: self.tokens.clone(),
        }
    }

    /// Plays a turn on both boards and records it.
    fn record_turn(
        &mut self,
        seat: Player,
        turn: &NamedTurn,
        board_before: &Board,
        comment: String,
    ) -> Result<(), TurnError> {
        let mut replayed = turn.clone();
        let transcript_before = self.transcript_board.clone();
        replayed.replay(&mut self.transcript_board, &self.config.rules)?;
        let text = replayed.format(&transcript_before, &self.config.rules, Style::Sdg);
        let number = self.record.len() as u32 + 1;
        let mut record_turn =
            RecordTurn::from_text(number, self.seat_name(seat), &text).map_err(TurnError::Parse)?;
        record_turn.comments.push(format!("\t{comment}"));
        self.record.push(record_turn);
        self.tokens
            .push(turn.format(board_before, &self.config.rules, Style::Token));
        Ok(())
    }

    /// Asks the side to move for a turn and referees it. `None` = play on.
    fn play_turn(&mut self, seats: &mut [Seat; 2]) -> Option<Ending> {
        if let GameStatus::Over(result) = self.history.status(&self.rules) {
            return Some(Ending::Result(result));
        }
        let rules = self.rules;
        let side = self.board.position.side_to_move();
        let forfeit = |reason: String| Ending::Forfeit {
            loser: side,
            reason,
        };
        let position = self.position_command();
        let (go, wait) = self.go_command(side);
        let seat = &mut seats[side.index()];
        seat.process.errors.clear();
        // Idle first: a `bestmove` the engine sent since its last answer
        // is a fault, not the answer to this `go`. The round trip comes
        // before the position, so it is not the engine's thinking time.
        if let Err(failure) = seat.process.synchronise_idle(wait) {
            let reason = match failure {
                EngineFailure::Timeout(limit) => {
                    format!("hung: no readyok within {} ms", limit.as_millis())
                }
                other => seat.process.describe(&other),
            };
            seat.process.kill();
            return Some(forfeit(reason));
        }
        let sent = seat
            .process
            .send(&position)
            .and_then(|()| seat.process.send(&go));
        let started = Instant::now();
        // The answer is the first `bestmove` line, well formed or not; the
        // last principal `info` line before it goes into the record.
        let mut last_info: Option<Info> = None;
        let answer = sent.and_then(|()| {
            seat.process.wait_for(wait, |reply| match reply {
                Ok(Reply::BestMove { turn, .. }) => Some(Ok(turn)),
                Ok(Reply::Info(info)) => {
                    if info.multipv.unwrap_or(1) == 1 {
                        last_info = Some(info);
                    }
                    None
                }
                Err(error) if error.keyword == "bestmove" => Some(Err(error)),
                _ => None,
            })
        });
        let elapsed = started.elapsed();
        let complaint = seat.process.errors.first().cloned();
        let answer = match answer {
            Ok(answer) => answer,
            Err(failure) => {
                let reason = match failure {
                    EngineFailure::Timeout(limit) if self.clocks[side.index()].is_some() => {
                        format!("lost on time: no bestmove within {} ms", limit.as_millis())
                    }
                    EngineFailure::Timeout(limit) => {
                        format!("hung: no bestmove within {} ms", limit.as_millis())
                    }
                    other @ EngineFailure::Exited(_) => seat.process.describe(&other),
                    other => other.to_string(),
                };
                seat.process.kill();
                return Some(forfeit(reason));
            }
        };
        if let Some(left) = self.clocks[side.index()] {
            let increment = self
                .limits(side)
                .clock
                .map_or(0, |(_, increment)| increment);
            self.clocks[side.index()] =
                Some(left.saturating_sub(elapsed) + Duration::from_millis(increment));
        }
        let token = match answer {
            Ok(Some(token)) => token,
            Ok(None) => {
                // No turn: a draw claim, if the rules allow one now.
                return Some(match self.history.claim(&rules) {
                    Some(result) => Ending::Result(result),
                    None => forfeit("answered bestmove (none) in an ongoing game".to_string()),
                });
            }
            Err(error) => return Some(forfeit(format!("sent a bad bestmove line: {error}"))),
        };
        let token = token.as_str();
        let before = self.board.clone();
        // If the engine rejected the position line, say so: its turn was
        // then chosen for some other position.
        let noted = |reason: String| match &complaint {
            Some(error) => format!("{reason} (after it reported: {error})"),
            None => reason,
        };
        let mut board = before.clone();
        let turn = match board.play_turn_text(&rules, token) {
            Ok(turn) => turn,
            Err(TurnError::Parse(error)) => {
                let reason = noted(format!(
                    "sent an unparsable turn '{}': {error}",
                    excerpt(token)
                ));
                return Some(forfeit(reason));
            }
            Err(error) => {
                let reason = noted(format!(
                    "played an illegal turn '{}': {error}",
                    excerpt(token)
                ));
                return Some(forfeit(reason));
            }
        };
        if let Err(error) = self.history.play(&rules, &turn.actions) {
            // The board accepted what the history refuses: a bug here, not
            // the engine's fault; end the game as a draw and say so.
            return Some(Ending::Aborted(format!(
                "the history refuses '{}': {error}",
                excerpt(token)
            )));
        }
        self.board = board;
        let comment = turn_comment(last_info.as_ref(), elapsed);
        if let Err(error) = self.record_turn(side, &turn, &before, comment) {
            // The transcript board disagrees with the referee's: a bug here,
            // not the engine's fault; end the game as a draw and say so.
            return Some(Ending::Aborted(format!(
                "recording '{}': {error}",
                excerpt(token)
            )));
        }
        if let GameStatus::Over(result) = self.history.status(&self.rules) {
            return Some(Ending::Result(result));
        }
        self.adjudicate(side, last_info.and_then(|info| info.score))
    }

    /// Counts `side`'s turn with `score` (what it reported for the position
    /// it moved in) into the resign runs, and ends the game if a run is
    /// long enough (see [`super::Resign`]).
    fn adjudicate(&mut self, side: Player, score: Option<Score>) -> Option<Ending> {
        let resign = self.config.resign?;
        let (below, above) = match score {
            Some(Score::Mate(turns)) => (turns < 0, turns > 0),
            Some(Score::Centipawns(value)) => (value <= -resign.score, value >= resign.score),
            None => (false, false),
        };
        let streak = &mut self.streaks[side.index()];
        *streak = (
            if below { streak.0 + 1 } else { 0 },
            if above { streak.1 + 1 } else { 0 },
        );
        Player::BOTH.into_iter().find_map(|loser| {
            let losing = self.streaks[loser.index()].0 >= resign.turns;
            let agreed =
                !resign.two_sided || self.streaks[loser.opponent().index()].1 >= resign.turns;
            (losing && agreed).then(|| Ending::Adjudicated {
                loser,
                reason: format!(
                    "resigned by adjudication: a score of -{} cp or lower on {} turn{} in a row{}",
                    resign.score,
                    resign.turns,
                    if resign.turns == 1 { "" } else { "s" },
                    if resign.two_sided {
                        ", its opponent's as high"
                    } else {
                        ""
                    }
                ),
            })
        })
    }

    /// Writes the game's SDG record: the match's draw rules as variants,
    /// the winner (none for a draw), and on the last turn a `Build:`
    /// comment with the build's bench signature (when the match was given
    /// one) and a `Referee:` comment with the result and its reason, which
    /// `supernova replay` reports.
    fn write_transcript(&mut self, number: usize, ending: &Ending) -> Result<(), String> {
        let Some(directory) = &self.config.transcripts else {
            return Ok(());
        };
        let mut header = Header::two_player(
            number as u64,
            self.seat_name(Player::First),
            self.seat_name(Player::Second),
        );
        header.started = today();
        header.ended = header.started.clone();
        header.variants = vec![format!(
            "{REPETITION_VARIANT}{}",
            repetition_text(self.rules.repetition)
        )];
        if let Some(limit) = self.rules.max_turns {
            header.variants.push(format!("{TURN_LIMIT_VARIANT}{limit}"));
        }
        header.winner = match ending.outcome() {
            Outcome::Win(player) => Some(self.seat_name(player).to_string()),
            _ => None,
        };
        let result = match ending {
            Ending::Result(result) => RecordedResult::from_result(result),
            Ending::Forfeit { .. } => RecordedResult {
                outcome: ending.outcome(),
                reason: format!("forfeit: {}", ending.description(self.seat_names())),
            },
            Ending::Aborted(_) | Ending::Adjudicated { .. } => RecordedResult {
                outcome: ending.outcome(),
                reason: ending.description(self.seat_names()),
            },
        };
        if let Some(last) = self.record.last_mut() {
            // Which build played the game, so that records of different
            // builds are not mistaken for one match's.
            if let Some(build) = &self.config.build {
                last.comments
                    .push(format!("\tBuild: bench signature {build}"));
            }
            last.comments.push(result.comment());
        }
        let text = write_record(&header, &self.record);
        let path = directory.join(format!("game-{number:04}.sdg"));
        std::fs::write(&path, text)
            .map_err(|error| format!("{}: cannot write: {error}", path.display()))
    }
}

/// Plays game `number` (1-based) of the schedule.
pub(super) fn play_game(
    config: &MatchConfig,
    names: &[String; 2],
    number: usize,
) -> (GameReport, Option<String>) {
    let index = number - 1;
    let opening_index = (index / 2) % config.openings.len();
    let a_first = index % 2 == 0;
    let opening = &config.openings[opening_index];
    let engines_by_seat = if a_first { [0, 1] } else { [1, 0] };
    let mut transcript_board = Board::default();
    for player in Player::BOTH {
        transcript_board.names.set(
            player.index() as u8,
            names[engines_by_seat[player.index()]].clone(),
        );
    }
    let clocks = Player::BOTH.map(|player| {
        let engine = &config.engines[engines_by_seat[player.index()]];
        let limits = if engine.limits.is_empty() {
            config.limits
        } else {
            engine.limits
        };
        limits.clock.map(|(base, _)| Duration::from_millis(base))
    });
    let rules = config.referee_rules();
    let mut game = Game {
        config,
        number,
        rules,
        names,
        engines_by_seat,
        opening,
        board: opening.board.clone(),
        history: match History::new(Position::start()) {
            Ok(history) => history,
            Err(_) => unreachable!("the start position is at the start of a turn"),
        },
        transcript_board,
        record: Vec::new(),
        tokens: Vec::new(),
        clocks,
        streaks: [(0, 0); 2],
    };
    let mut setup_ok = true;
    for (seat, action) in Player::BOTH.into_iter().zip(opening.setup) {
        let mut turn = NamedTurn {
            actions: vec![action],
            names: vec![None],
            outcome: Outcome::Ongoing,
        };
        let before = game.transcript_board.clone();
        if turn
            .replay(&mut game.transcript_board, &config.rules)
            .is_err()
            || game.history.play(&rules, &[action]).is_err()
        {
            setup_ok = false;
            break;
        }
        let text = turn.format(&before, &config.rules, Style::Sdg);
        match RecordTurn::from_text(game.record.len() as u32 + 1, game.seat_name(seat), &text) {
            Ok(record_turn) => game.record.push(record_turn),
            Err(_) => setup_ok = false,
        }
    }
    let setup_ok = setup_ok && game.history.position() == &game.board.position;
    let ending = if !setup_ok {
        Ending::Aborted("the opening's setup turns do not replay".to_string())
    } else {
        run_game(&mut game)
    };
    let warning = game.write_transcript(number, &ending).err();
    let score_first = ending.first_player_points();
    let report = GameReport {
        number,
        opening: opening_index,
        a_first,
        reason: ending.description(game.seat_names()),
        ending,
        turns: game.history.turns_after_setup(),
        played: game.history.turns().to_vec(),
        score_a: if a_first {
            score_first
        } else {
            1.0 - score_first
        },
    };
    (report, warning)
}

/// Starts both engines and plays until the game ends.
fn run_game(game: &mut Game<'_>) -> Ending {
    let config = game.config;
    let mut processes: Vec<Seat> = Vec::with_capacity(2);
    for seat in Player::BOTH {
        let engine = &config.engines[game.engines_by_seat[seat.index()]];
        let log = log_path(config, game.number, seat, game.seat_name(seat));
        match start_engine(engine, config, log.as_deref()) {
            Ok((process, _)) => processes.push(Seat { process }),
            Err(failure) => {
                for started in &mut processes {
                    started.process.quit();
                }
                return Ending::Forfeit {
                    loser: seat,
                    reason: format!("failed to start: {failure}"),
                };
            }
        }
    }
    let mut seats: [Seat; 2] = match processes.try_into() {
        Ok(seats) => seats,
        Err(_) => unreachable!("two seats were started"),
    };
    let ending = loop {
        if let Some(ending) = game.play_turn(&mut seats) {
            break ending;
        }
    };
    for seat in &mut seats {
        seat.process.quit();
    }
    ending
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn turn_comments_read_as_cutechess_writes_them() {
        let info = Info {
            depth: Some(9),
            score: Some(Score::Centipawns(29)),
            ..Info::default()
        };
        let half = Duration::from_millis(512);
        assert_eq!(turn_comment(Some(&info), half), "{+0.29/9 0.512s}");
        let mate = Info {
            score: Some(Score::Mate(-2)),
            ..info.clone()
        };
        assert_eq!(turn_comment(Some(&mate), half), "{-M2/9 0.512s}");
        assert_eq!(turn_comment(None, half), "{0.512s}");
    }

    #[test]
    fn dates_look_like_dates() {
        let date = today();
        assert_eq!(date.len(), 10);
        assert_eq!(&date[4..5], ".");
    }
}
