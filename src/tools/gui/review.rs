//! Review's server side: the marks that show where a reviewed game was
//! lost, and the variations a person plays beside it.
//!
//! **Marks.** The turns where the game's value swung are `annotate`'s
//! findings ([`analyse::review`]: the exact missed wins and turns that walk
//! into a loss, and the large value drops, each with the engine's better
//! turn and its sentence), so the page and `supernova annotate` never
//! disagree. The review searches every turn at [`REVIEW_NODES`] nodes, one
//! thread (the page may choose another of [`REVIEW_DEPTHS`], which reviews
//! the main line again), which takes seconds to minutes, so it runs in a thread of its
//! own and never under the state's lock: the state keeps a [`Job`] whose
//! findings the thread adds one by one, each nudging the page's long poll,
//! and the page shows them as they come with the progress. A job belongs
//! to one main line (its [`line_key`]); when the reviewed game changes (a
//! new load, a new game) the old job is told to stop and a new one starts,
//! and leaving Review stops it. The record reviewed is the one loaded when
//! it is still the game shown (its comments say where Brain Transference
//! swapped the players), else the game's own record (`Game::to_record`).
//! The record's handicaps are marked too: the swap turn, and the
//! Timewarp's bonus turns (a turn by the player who also moved before it).
//!
//! **Variations.** In Review a turn played at a shown position does not cut
//! the rest of the game: the main line is set aside (its game, values and
//! explanations) with the turn it branches at, the turn is played on a
//! copy, and the game shown is the main line up to the branch followed by
//! the variation. Stepping goes through that game as through any other;
//! dropping the variation puts the main line back as it was. There is one
//! level of variation: a turn played inside a variation cuts the rest of
//! the variation, and one played before its branch starts a new variation
//! from there, the main line still kept. Undo inside a variation takes
//! back the variation's last turn, never the main line's; taking back its
//! first turn steps out of the variation, back to the game at the branch.
//! Leaving Review, loading or starting a game drops the variation.

use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, Weak};

use serde::{Deserialize, Serialize};

use super::api::{self, Command, OkReply, RecordRequest, TurnRequest};
use super::commands;
use super::game::Game;
use super::http::Answer;
use super::state::{Mode, Shared, State};
use crate::record::{GameRecord, BRAIN_TRANSFERENCE_VARIANT};
use crate::search::{win_probability, SearchLimits, SearchOptions};
use crate::tools::analyse::{self, AnalysisSettings, MarkKind, Notation, TurnFinding};

/// Nodes a turn the review searches: enough for the values to be worth a
/// mark, few enough that a long game is reviewed in a minute on one core.
/// The exact blunders do not depend on it.
pub const REVIEW_NODES: u64 = 2000;

/// The review depths the page offers, nodes a turn: quicker than the
/// default for a first look at a long game, deeper for values worth more
/// (the exact blunders are the same at every depth).
pub const REVIEW_DEPTHS: [u64; 4] = [500, REVIEW_NODES, 10_000, 50_000];

/// Review's part of the state: the main line kept while a variation is
/// shown, the record loaded, the depth, and the analysis of the main line.
pub struct ReviewState {
    /// Nodes a turn the review searches (one of [`REVIEW_DEPTHS`]).
    nodes: u64,
    /// The main line, while a variation is shown.
    variation: Option<Variation>,
    /// The record text `/api/load` read, with the key of the game it made.
    loaded: Option<(u64, String)>,
    /// The analysis of the main line, running or done.
    job: Option<Job>,
}

impl Default for ReviewState {
    fn default() -> ReviewState {
        ReviewState {
            nodes: REVIEW_NODES,
            variation: None,
            loaded: None,
            job: None,
        }
    }
}

/// The main line set aside while a variation is shown.
struct Variation {
    /// The main line's game.
    main: Game,
    /// Its values before each turn ([`State::evaluations`]).
    evaluations: Vec<Option<u64>>,
    /// Its turns' explanations ([`State::explanations`]).
    explanations: Vec<Option<String>>,
    /// The turn the variation branches at: the main line and the
    /// variation share the turns before it.
    branch: usize,
    /// The state's game number when the variation last changed: another
    /// number means the game was replaced (a load, a new game, an undo).
    game_id: u64,
}

/// The analysis of one main line in its thread.
struct Job {
    /// The main line it is for ([`line_key`]).
    key: u64,
    /// Nodes a turn it searches.
    nodes: u64,
    /// Set to make the thread stop.
    stop: Arc<AtomicBool>,
    /// What it found so far, shared with the thread.
    progress: Arc<Mutex<Progress>>,
}

impl Drop for Job {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
    }
}

/// What an analysis found so far.
#[derive(Clone, Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// Turns of the record reviewed so far.
    pub analysed: usize,
    /// Turns of the record.
    pub total: usize,
    /// Whether the review is over.
    pub done: bool,
    /// Why there is no review (a game set up from a position), if so.
    pub error: Option<String>,
    /// The marked turns, in order.
    pub marks: Vec<MarkReply>,
    /// The handicaps' turns: the swap and the bonus turns.
    pub events: Vec<EventReply>,
}

/// A marked turn, for the page.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MarkReply {
    /// The turn's place in the game, from 0 (the board before it is ply
    /// `ply`; its point on the graph).
    pub ply: usize,
    /// The record's turn number.
    pub number: u32,
    /// Who played it: 0 or 1.
    pub mover: usize,
    /// `missedWin`, `allowsLoss` or `valueDrop`.
    pub kind: &'static str,
    /// What went wrong, in words: `annotate`'s `??` or `?` line.
    pub text: String,
    /// The turn played (SDG).
    pub played: String,
    /// The engine's better turn (SDG).
    pub better: String,
    /// Why the better turn: the engine's explanation sentence.
    pub explanation: String,
    /// The mover's win probability before the turn, per mille.
    pub before: u64,
    /// The mover's win probability after it, per mille, if known.
    pub after: Option<u64>,
}

/// A handicap's turn, for the page.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct EventReply {
    /// The turn's place in the game, from 0.
    pub ply: usize,
    /// `swap` (Brain Transference after this turn) or `bonus` (a
    /// Timewarp bonus turn).
    pub kind: &'static str,
    /// In words.
    pub text: String,
}

/// The main line, while a variation is shown.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct VariationReply {
    /// The turn the variation branches at (the game's turns from it on are
    /// the variation's).
    pub branch: usize,
    /// The main line's turns, in SDG form, with their movers.
    pub main: Vec<MainTurnReply>,
}

/// One turn of the main line.
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MainTurnReply {
    /// Who played it: 0 or 1.
    pub mover: usize,
    /// The turn, in SDG form.
    pub sdg: String,
}

/// Review's part of the state reply (`review` in `/api/state`, `null`
/// outside Review).
#[derive(Clone, Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ReviewReply {
    /// Nodes a turn of the review.
    pub nodes: u64,
    /// The depths the page may choose from ([`REVIEW_DEPTHS`]).
    pub depths: &'static [u64],
    /// The analysis so far.
    #[serde(flatten)]
    pub progress: Progress,
    /// The main line, while a variation is shown.
    pub variation: Option<VariationReply>,
}

/// `POST /api/review/drop`: drops the variation and shows the main line.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DropRequest {
    /// The main line's turn to show; left out, the branch.
    pub ply: Option<usize>,
}

/// `POST /api/review/depth`: how hard the review looks.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "camelCase")]
pub struct DepthRequest {
    /// Nodes a turn: one of [`REVIEW_DEPTHS`].
    pub nodes: u64,
}

/// A mark's kind in the page's words.
fn kind_word(kind: MarkKind) -> &'static str {
    match kind {
        MarkKind::MissedWin => "missedWin",
        MarkKind::AllowsLoss => "allowsLoss",
        MarkKind::ValueDrop => "valueDrop",
    }
}

/// The page's mark for a finding, if the turn is marked: the same words as
/// `annotate`'s lines.
pub fn mark(finding: &TurnFinding) -> Option<MarkReply> {
    let kind = finding.kind()?;
    let per_mille = |value: f32| (win_probability(value) * 1000.0).round() as u64;
    let text = match (&finding.blunder, finding.after) {
        (Some((blunder, turn)), _) => analyse::blunder_words(blunder, turn),
        (None, Some(after)) => format!(
            "value drop: win probability {:.1}% before, {:.1}% after",
            win_probability(finding.before) * 100.0,
            win_probability(after) * 100.0
        ),
        (None, None) => "value drop".to_string(),
    };
    Some(MarkReply {
        ply: finding.index,
        number: finding.number,
        mover: finding.mover.index(),
        kind: kind_word(kind),
        text,
        played: finding.played.clone(),
        better: finding.better.clone(),
        explanation: finding.explanation.clone(),
        before: per_mille(finding.before),
        after: finding.after.map(per_mille),
    })
}

/// The handicaps' turns of a record: where Brain Transference swapped the
/// players (a comment on the turn, as `Game::to_record` writes it), and
/// the Timewarp's bonus turns (a turn whose mover also played the turn
/// before, once both homeworlds stand).
pub fn events(record: &GameRecord, game: &Game) -> Vec<EventReply> {
    let mut events = Vec::new();
    let timewarp = record.timewarp().ok().flatten();
    for (ply, turn) in game.turns().iter().enumerate() {
        let previous = ply
            .checked_sub(1)
            .map(|earlier| game.turns()[earlier].mover);
        let built = !game.board_at(ply).position.in_setup();
        if timewarp.is_some() && built && previous == Some(turn.mover) {
            events.push(EventReply {
                ply,
                kind: "bonus",
                text: format!(
                    "Second Turn Timewarp: a bonus turn for player {}",
                    turn.mover.index()
                ),
            });
        }
        let swapped = record.turns.get(ply).is_some_and(|recorded| {
            recorded
                .comments
                .iter()
                .any(|comment| comment.contains(BRAIN_TRANSFERENCE_VARIANT))
        });
        if swapped {
            events.push(EventReply {
                ply,
                kind: "swap",
                text: "Brain Transference: the players change sides after this turn".to_string(),
            });
        }
    }
    events
}

/// Identifies a main line: its turns, handicaps and swaps, so that a job
/// is started again only when the reviewed game is another.
pub fn line_key(game: &Game) -> u64 {
    let mut hasher = DefaultHasher::new();
    for turn in game.turns() {
        (turn.mover.index(), &turn.sdg).hash(&mut hasher);
    }
    game.handicaps.variants().hash(&mut hasher);
    game.swaps.hash(&mut hasher);
    hasher.finish()
}

/// Keeps Review's part of the state in step after every change
/// (`Shared::update`): drops a variation whose game was replaced, puts the
/// main line back when Review is left, and starts or stops the analysis of
/// the main line.
pub fn follow(state: &mut State, shared: &Arc<Shared>) {
    let stale = state
        .review
        .variation
        .as_ref()
        .is_some_and(|variation| variation.game_id != state.game_id);
    if stale {
        state.review.variation = None;
    }
    if state.mode != Mode::Review {
        if state.review.variation.is_some() {
            restore(state, None);
            state.cursor = state.game.turns().len();
        }
        state.review.job = None;
        return;
    }
    let main = state
        .review
        .variation
        .as_ref()
        .map_or(&state.game, |variation| &variation.main);
    let key = line_key(main);
    let nodes = state.review.nodes;
    if state
        .review
        .job
        .as_ref()
        .is_some_and(|job| job.key == key && job.nodes == nodes)
    {
        return;
    }
    let text = match &state.review.loaded {
        Some((loaded, text)) if *loaded == key => Ok(text.clone()),
        _ => main.to_record(),
    };
    let progress = Arc::new(Mutex::new(Progress::default()));
    let stop = Arc::new(AtomicBool::new(false));
    match text.and_then(|text| GameRecord::parse_sdg(&text).map_err(|error| error.to_string())) {
        Ok(record) => start(record, main, nodes, shared, &progress, &stop),
        Err(message) => {
            let mut progress = lock(&progress);
            progress.error = Some(format!("no review: {message}"));
            progress.done = true;
        }
    }
    // The old job, replaced, is told to stop when dropped.
    state.review.job = Some(Job {
        key,
        nodes,
        stop,
        progress,
    });
}

/// Locks a job's progress (a panic in the thread does not make it unusable).
fn lock(progress: &Mutex<Progress>) -> std::sync::MutexGuard<'_, Progress> {
    progress
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Starts the thread that reviews `record` (the record of `main`) at
/// `nodes` a turn, adding each mark to `progress` and nudging the page
/// after each turn.
fn start(
    record: GameRecord,
    main: &Game,
    nodes: u64,
    shared: &Arc<Shared>,
    progress: &Arc<Mutex<Progress>>,
    stop: &Arc<AtomicBool>,
) {
    {
        let mut progress = lock(progress);
        progress.total = main.turns().len();
        progress.events = events(&record, main);
    }
    let settings = AnalysisSettings {
        options: SearchOptions {
            rules: main.rules,
            hash_mb: 64,
            ..SearchOptions::default()
        },
        limits: SearchLimits {
            nodes: Some(nodes),
            ..SearchLimits::default()
        },
        notation: Notation::Sdg,
    };
    let weak: Weak<Shared> = Arc::downgrade(shared);
    let progress = Arc::clone(progress);
    let stop = Arc::clone(stop);
    let _ = std::thread::Builder::new()
        .name("gui-review".to_string())
        .spawn(move || {
            let nudge = || {
                if let Some(shared) = weak.upgrade() {
                    shared.update(|_| ());
                }
            };
            let _ = analyse::review(&record, &settings, &stop, |finding| {
                {
                    let mut progress = lock(&progress);
                    progress.analysed = finding.index + 1;
                    progress.marks.extend(mark(finding));
                }
                if !stop.load(Ordering::Relaxed) {
                    nudge();
                }
                Ok(())
            });
            lock(&progress).done = true;
            if !stop.load(Ordering::Relaxed) {
                nudge();
            }
        });
}

/// Review's part of the state reply: `None` outside Review.
pub fn reply(state: &State) -> Option<ReviewReply> {
    if state.mode != Mode::Review {
        return None;
    }
    let progress = state
        .review
        .job
        .as_ref()
        .map(|job| lock(&job.progress).clone())
        .unwrap_or_default();
    let variation = state
        .review
        .variation
        .as_ref()
        .map(|variation| VariationReply {
            branch: variation.branch,
            main: variation
                .main
                .turns()
                .iter()
                .map(|turn| MainTurnReply {
                    mover: turn.mover.index(),
                    sdg: turn.sdg.clone(),
                })
                .collect(),
        });
    Some(ReviewReply {
        nodes: state.review.nodes,
        depths: &REVIEW_DEPTHS,
        progress,
        variation,
    })
}

/// Whether `/api/turn` is Review's: a turn played while reviewing starts
/// or continues a variation.
pub fn takes_turn(shared: &Shared) -> bool {
    shared.lock().mode == Mode::Review
}

/// `POST /api/turn` in Review: plays the turn at the shown position as a
/// variation, the main line kept (see the module docs).
pub fn turn(shared: &Arc<Shared>, body: &str) -> Answer {
    let request: TurnRequest = match api::read(body) {
        Ok(request) => request,
        Err(message) => return Answer::error(400, &message),
    };
    let outcome = shared.update(|state| {
        let kept = state.review.variation.take();
        let cursor = state.cursor;
        let mut variation = match &kept {
            Some(variation) => Variation {
                main: variation.main.clone(),
                evaluations: variation.evaluations.clone(),
                explanations: variation.explanations.clone(),
                branch: variation.branch.min(cursor),
                game_id: variation.game_id,
            },
            None => Variation {
                main: state.game.clone(),
                evaluations: state.evaluations.clone(),
                explanations: state.explanations.clone(),
                branch: cursor,
                game_id: state.game_id,
            },
        };
        match commands::carry_out(state, Command::Turn(request)) {
            Ok(()) => {
                variation.game_id = state.game_id;
                state.review.variation = Some(variation);
                Ok(())
            }
            Err(message) => {
                state.review.variation = kept;
                Err(message)
            }
        }
    });
    match outcome {
        Ok(()) => Answer::json(&OkReply { ok: true }),
        Err(message) => Answer::error(400, &message),
    }
}

/// Puts the main line back in place of the variation, showing its turn
/// `ply` (left out: the branch).
fn restore(state: &mut State, ply: Option<usize>) {
    let Some(variation) = state.review.variation.take() else {
        return;
    };
    state.game = variation.main;
    state.evaluations = variation.evaluations;
    state.explanations = variation.explanations;
    state.cursor = ply
        .unwrap_or(variation.branch)
        .min(state.game.turns().len());
    state.game_changed();
}

/// Undo while a variation is shown in Review: takes back the variation's
/// last turn, the main line kept; when none of the variation is left, the
/// main line is shown again at the branch. `None` when there is no
/// variation (the ordinary undo applies).
pub fn undo_in_variation(state: &mut State) -> Option<Result<(), String>> {
    if state.mode != Mode::Review {
        return None;
    }
    let branch = state.review.variation.as_ref()?.branch;
    let length = state.game.turns().len();
    if length > branch {
        state.game.undo(1);
        state.game_changed();
        state.cursor = length - 1;
    }
    if state.game.turns().len() <= branch {
        restore(state, Some(branch));
        state.tell("took back the variation's turn: back to the game", false);
    } else {
        if let Some(variation) = state.review.variation.as_mut() {
            variation.game_id = state.game_id;
        }
        state.tell("took back the variation's last turn", false);
    }
    Some(Ok(()))
}

/// `POST /api/review/drop`: drops the variation, the main line shown
/// again as it was.
pub fn drop_variation(shared: &Arc<Shared>, body: &str) -> Answer {
    let request: DropRequest = match api::read(body) {
        Ok(request) => request,
        Err(message) => return Answer::error(400, &message),
    };
    let outcome = shared.update(|state| {
        if state.review.variation.is_none() {
            let message = "there is no variation to drop".to_string();
            state.tell(&message, true);
            return Err(message);
        }
        restore(state, request.ply);
        state.tell("the variation was dropped", false);
        Ok(())
    });
    match outcome {
        Ok(()) => Answer::json(&OkReply { ok: true }),
        Err(message) => Answer::error(400, &message),
    }
}

/// `POST /api/review/depth`: sets how hard the review looks, and reviews
/// the main line again at that depth (in Review; elsewhere the next review
/// uses it). A depth not offered is refused and changes nothing.
pub fn set_depth(shared: &Arc<Shared>, body: &str) -> Answer {
    let request: DepthRequest = match api::read(body) {
        Ok(request) => request,
        Err(message) => return Answer::error(400, &message),
    };
    if !REVIEW_DEPTHS.contains(&request.nodes) {
        let offered: Vec<String> = REVIEW_DEPTHS.iter().map(u64::to_string).collect();
        return Answer::error(
            400,
            &format!(
                "expected a review depth of {} nodes a turn, not {}",
                offered.join(", "),
                request.nodes
            ),
        );
    }
    shared.update(|state| {
        state.review.nodes = request.nodes;
        state.tell(
            format!("the review looks {} nodes a turn", request.nodes),
            false,
        );
    });
    Answer::json(&OkReply { ok: true })
}

/// `POST /api/load`: loads a record for review as the other commands do,
/// and keeps its text, whose comments the review reads.
pub fn load(shared: &Arc<Shared>, body: &str) -> Answer {
    let request: RecordRequest = match api::read(body) {
        Ok(request) => request,
        Err(message) => return Answer::error(400, &message),
    };
    let text = request.record.clone();
    let outcome = shared.update(|state| {
        commands::carry_out(state, Command::Load(request))?;
        state.review.variation = None;
        state.review.loaded = Some((line_key(&state.game), text));
        Ok::<(), String>(())
    });
    match outcome {
        Ok(()) => Answer::json(&OkReply { ok: true }),
        Err(message) => Answer::error(400, &message),
    }
}

#[cfg(test)]
#[path = "review_tests.rs"]
mod tests;
