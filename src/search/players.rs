//! The simple players (greedy and random), the setup book every player uses,
//! and the whole-turn tools the search shares with them: listing every
//! distinct turn with its score, and finding the safe ones.
//!
//! Whole turns are listed with the rules core's `TurnEnumerator`, which is
//! exact but can produce hundreds of thousands of turns; these tools are for
//! the root (in check, or as a safety fallback) and the simple players, never
//! for the tree's hot path.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};

use super::extract::turn_score;
use super::played_setups::PLAYED_SETUPS;
use super::solver::Solver;
use super::tunables::Tunables;
use super::{Decision, PlayerKind};
use std::time::Instant;

use crate::rules::{Action, Colour, Outcome, Position, Rules, TurnEnumerator, TurnState};

/// One whole turn in a [`TurnList`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct TurnEntry {
    start: u32,
    length: u32,
    /// The position after the turn.
    pub result: Position,
    /// The game result after the turn.
    pub outcome: Outcome,
    /// The turn's score for the mover (see `turn_score`).
    pub score: f32,
}

/// Every distinct turn from a position, with its actions stored flat.
#[derive(Default)]
pub(crate) struct TurnList {
    pub entries: Vec<TurnEntry>,
    actions: Vec<Action>,
}

impl TurnList {
    /// Lists and scores every distinct turn.
    pub fn new(position: &Position, rules: &Rules, tunables: &Tunables) -> TurnList {
        TurnList::new_until(position, rules, tunables, None).unwrap_or_default()
    }

    /// Lists and scores every distinct turn, or gives up (`None`) at the
    /// deadline: a position can have hundreds of thousands of turns.
    pub fn new_until(
        position: &Position,
        rules: &Rules,
        tunables: &Tunables,
        deadline: Option<Instant>,
    ) -> Option<TurnList> {
        let mover = position.side_to_move();
        let mut list = TurnList::default();
        let completed = TurnEnumerator::default().for_each_turn_until(
            position,
            rules,
            deadline,
            |actions, result, outcome| {
                let score = turn_score(result, outcome, mover, tunables);
                list.push(actions, result, outcome, score);
            },
        );
        completed.then_some(list)
    }

    /// Appends one turn.
    fn push(&mut self, actions: &[Action], result: &Position, outcome: Outcome, score: f32) {
        self.entries.push(TurnEntry {
            start: self.actions.len() as u32,
            length: actions.len() as u32,
            result: *result,
            outcome,
            score,
        });
        self.actions.extend_from_slice(actions);
    }

    /// The actions of entry `index`.
    pub fn actions(&self, index: usize) -> &[Action] {
        let entry = &self.entries[index];
        &self.actions[entry.start as usize..(entry.start + entry.length) as usize]
    }

    /// Entry indices, best score first (ties in enumeration order).
    pub fn by_score(&self) -> Vec<usize> {
        let mut order: Vec<usize> = (0..self.entries.len()).collect();
        order.sort_by(|&a, &b| self.entries[b].score.total_cmp(&self.entries[a].score));
        order
    }
}

/// The whole turns of a position sorted into safe ones (the opponent has no
/// winning reply), draws (mutual elimination) and the rest. Exact for the
/// turns classified; all of them once `complete`.
pub(crate) struct SafeTurns {
    pub list: TurnList,
    /// Safe, non-final turns, best score first.
    pub safe: Vec<usize>,
    /// Turns that win at once.
    pub wins: Vec<usize>,
    /// Turns that draw at once.
    pub draws: Vec<usize>,
    /// Whether every turn was classified. A classification cut short by its
    /// deadline holds the turns listed before it, and [`SafeTurns::resume`]
    /// goes on from there instead of listing them again.
    pub complete: bool,
    /// How many turns, in listing order, were classified.
    classified: usize,
    /// Sorted hashes of the safe turns' results, once complete.
    safe_results: Vec<u64>,
}

impl SafeTurns {
    /// Classifies the turns until `deadline`. The solver is exact, so
    /// "safe" is exact.
    ///
    /// The turns are classified as they are listed and only those a choice
    /// can be made from are kept (the safe ones, wins and draws): in check
    /// most of a position's tens of thousands of turns lose at once, and
    /// storing each result costs more than deciding it. When every turn
    /// loses, they are listed again with their scores (if the deadline
    /// allows).
    pub fn classify(
        position: &Position,
        rules: &Rules,
        tunables: &Tunables,
        solver: &mut Solver,
        deadline: Option<Instant>,
    ) -> SafeTurns {
        let mut analysis = SafeTurns {
            list: TurnList::default(),
            safe: Vec::new(),
            wins: Vec::new(),
            draws: Vec::new(),
            complete: false,
            classified: 0,
            safe_results: Vec::new(),
        };
        analysis.resume(position, rules, tunables, solver, deadline);
        analysis
    }

    /// Goes on classifying the turns of `position` (the one the
    /// classification was made for) where an earlier call stopped, until
    /// `deadline`. The listing order is fixed, so the turns already
    /// classified are only listed again, not decided again.
    pub fn resume(
        &mut self,
        position: &Position,
        rules: &Rules,
        tunables: &Tunables,
        solver: &mut Solver,
        deadline: Option<Instant>,
    ) {
        if self.complete {
            return;
        }
        let mover = position.side_to_move();
        let skip = self.classified;
        let mut listed = 0usize;
        let mut late = false;
        let completed = TurnEnumerator::default().for_each_turn_while(
            position,
            rules,
            deadline,
            |actions, result, outcome| {
                if listed < skip {
                    listed += 1;
                    return true;
                }
                if (listed - skip) % 256 == 255
                    && deadline.is_some_and(|deadline| Instant::now() >= deadline)
                {
                    late = true;
                    return false;
                }
                listed += 1;
                let class = match outcome {
                    Outcome::Win(winner) if winner == mover => &mut self.wins,
                    Outcome::Win(_) => return true,
                    Outcome::Draw => &mut self.draws,
                    Outcome::Ongoing if solver.can_win_expected(result, rules) => return true,
                    Outcome::Ongoing => &mut self.safe,
                };
                class.push(self.list.entries.len());
                let score = turn_score(result, outcome, mover, tunables);
                self.list.push(actions, result, outcome, score);
                true
            },
        );
        self.classified = listed.max(skip);
        self.complete = completed && !late;
        if self.complete && self.list.entries.is_empty() {
            // Every turn loses: the choice is by score among all of them.
            if let Some(list) = TurnList::new_until(position, rules, tunables, deadline) {
                self.list = list;
            }
        }
        let entries = &self.list.entries;
        for indices in [&mut self.safe, &mut self.wins, &mut self.draws] {
            indices.sort_by(|&a, &b| entries[b].score.total_cmp(&entries[a].score));
        }
        if self.complete {
            self.safe_results = self
                .safe
                .iter()
                .map(|&index| entries[index].result.hash())
                .collect();
            self.safe_results.sort_unstable();
        }
    }

    /// The first `limit` safe turns, best score first, with their results.
    pub fn safe_turns(&self, limit: usize) -> Vec<(Vec<Action>, Position)> {
        self.safe
            .iter()
            .take(limit)
            .map(|&index| {
                (
                    self.list.actions(index).to_vec(),
                    self.list.entries[index].result,
                )
            })
            .collect()
    }

    /// Whether `hash` is the position after one of the safe turns; only
    /// meaningful once the classification is complete.
    pub fn is_safe_result(&self, hash: u64) -> bool {
        self.safe_results.binary_search(&hash).is_ok()
    }

    /// What [`greedy`] chooses, read from the classification: a win at once,
    /// else the best-scored safe turn, else a mutual elimination, else the
    /// best-scored turn. From a classification cut short, the same among the
    /// turns classified, and no turn at all when none of them is a win, safe
    /// or a draw (decision [`Decision::NoSafeTurnFound`]).
    pub fn greedy_choice(&self) -> Choice {
        let pick = |index: usize, value: f32, decision: Decision| Choice {
            actions: self.list.actions(index).to_vec(),
            value,
            decision,
        };
        if let Some(&index) = self.wins.first() {
            pick(index, 1.0, Decision::ImmediateWin)
        } else if let Some(&index) = self.safe.first() {
            let value = self.list.entries[index].score.clamp(-1.0, 1.0);
            pick(index, value, Decision::Greedy)
        } else if let Some(&index) = self.draws.first() {
            pick(index, 0.0, Decision::ForcedDraw)
        } else if !self.complete {
            Choice {
                actions: Vec::new(),
                value: -1.0,
                decision: Decision::NoSafeTurnFound,
            }
        } else {
            match self.list.by_score().first() {
                Some(&index) => pick(index, -1.0, Decision::NoSafeTurn),
                None => Choice {
                    actions: Vec::new(),
                    value: -1.0,
                    decision: Decision::NoSafeTurn,
                },
            }
        }
    }

    /// Sorted hashes of every position on the safe turns (after each action
    /// and after the end), so the tree can be restricted to them.
    pub fn filter(&self, position: &Position, rules: &Rules) -> Vec<u64> {
        let mut hashes = Vec::new();
        for &index in &self.safe {
            let mut replay = *position;
            for &action in self.list.actions(index) {
                replay.apply_unchecked(rules, action);
                hashes.push(replay.hash());
            }
            hashes.push(self.list.entries[index].result.hash());
        }
        hashes.sort_unstable();
        hashes.dedup();
        hashes
    }
}

/// What a simple player chose.
pub(crate) struct Choice {
    pub actions: Vec<Action>,
    /// Value for the mover in [-1, 1].
    pub value: f32,
    pub decision: Decision,
}

/// One ply of lookahead over every distinct whole turn: an immediate win if
/// there is one, else the best-scored turn after which the opponent has no
/// winning reply, else a mutual elimination, else the best-scored turn.
pub(crate) fn greedy(
    position: &Position,
    rules: &Rules,
    tunables: &Tunables,
    solver: &mut Solver,
) -> Choice {
    if let Some(actions) = solver.find_win(position, rules) {
        return Choice {
            actions,
            value: 1.0,
            decision: Decision::ImmediateWin,
        };
    }
    let list = TurnList::new(position, rules, tunables);
    let mover = position.side_to_move();
    let mut draw = None;
    let order = list.by_score();
    for &index in &order {
        let entry = &list.entries[index];
        match entry.outcome {
            Outcome::Win(winner) if winner == mover => {
                return Choice {
                    actions: list.actions(index).to_vec(),
                    value: 1.0,
                    decision: Decision::ImmediateWin,
                };
            }
            Outcome::Win(_) => {}
            Outcome::Draw => {
                draw.get_or_insert(index);
            }
            Outcome::Ongoing => {
                if !solver.can_win(&entry.result, rules) {
                    return Choice {
                        actions: list.actions(index).to_vec(),
                        value: entry.score.clamp(-1.0, 1.0),
                        decision: Decision::Greedy,
                    };
                }
            }
        }
    }
    if let Some(index) = draw {
        return Choice {
            actions: list.actions(index).to_vec(),
            value: 0.0,
            decision: Decision::ForcedDraw,
        };
    }
    match order.first() {
        Some(&index) => Choice {
            actions: list.actions(index).to_vec(),
            value: -1.0,
            decision: Decision::NoSafeTurn,
        },
        None => Choice {
            actions: Vec::new(),
            value: -1.0,
            decision: Decision::NoSafeTurn,
        },
    }
}

/// A uniformly random distinct legal turn, reproducible from the seed and
/// the position.
pub(crate) fn random_turn(position: &Position, rules: &Rules, seed: u64) -> Vec<Action> {
    let mut enumerator = TurnEnumerator::default();
    let count = enumerator.count(position, rules);
    if count == 0 {
        return Vec::new();
    }
    let mut rng = SmallRng::seed_from_u64(seed ^ position.hash());
    let wanted = rng.random_range(0..count);
    let mut seen = 0;
    let mut chosen = Vec::new();
    enumerator.for_each_turn(position, rules, |actions, _, _| {
        if seen == wanted {
            chosen = actions.to_vec();
        }
        seen += 1;
    });
    chosen
}

/// Whether a homeworld creation gives its owner yellow or blue, among its
/// stars or its ship. Without either the owner can never move a ship away
/// or change its colour (the home only builds and attacks), so the game
/// can only run into the turn limit: neither the setup book nor the
/// openings of `supernova match` ever use such a home.
pub fn has_yellow_or_blue(action: Action) -> bool {
    let Action::Homeworld {
        star,
        second_star,
        ship,
    } = action
    else {
        return false;
    };
    [Some(star), second_star, Some(ship)]
        .into_iter()
        .flatten()
        .any(|piece| matches!(piece.colour(), Colour::Yellow | Colour::Blue))
}

/// The book score of a setup people played ([`PLAYED_SETUPS`]): above
/// every setup they did not play, most played first, then most won.
const PLAYED_BASE: i32 = 1_000_000;
/// What a played setup loses when it repeats the opponent's star sizes (the
/// "small universe", which people avoided: only 11% of the second setups
/// in the SDG records do it). Larger than any `played * 1000 + won`, so it
/// ranks below every played setup that avoids it, and still above the
/// setups nobody played.
const SMALL_UNIVERSE_PENALTY: i32 = PLAYED_BASE / 2;
/// The score of a home without yellow or blue ([`has_yellow_or_blue`]):
/// below anything else, so that it is never chosen while another setup
/// exists (and under every rule profile one does).
const NO_MOBILITY: i32 = i32::MIN / 2;

/// How much the setup book likes a homeworld, the best first.
///
/// A home without yellow or blue scores lowest of all (it could never move
/// or trade). Then come the setups people played on SuperDuperGames
/// ([`PLAYED_SETUPS`]), ranked by how often they were played and then by
/// how often they won, a second setup that repeats the first home's star
/// sizes (the "small universe") ranked below the others. Setups nobody
/// played fall back to the Looney Labs advice: a Large ship (green for the
/// economy), two stars of different sizes, blue and green plus red or
/// yellow among the three pieces, and no small universe. Public so that
/// tests and tools can check the book against every setup.
pub fn book_score(position: &Position, action: Action) -> i32 {
    let Action::Homeworld {
        star,
        second_star,
        ship,
    } = action
    else {
        return i32::MIN;
    };
    if !has_yellow_or_blue(action) {
        return NO_MOBILITY;
    }
    let mover = position.side_to_move();
    let other = position.system(mover.opponent().index() as u8);
    let small_universe = second_star.is_some_and(|second| {
        other.exists() && other.size_mask() == (1u8 << star.size()) | (1 << second.size())
    });
    if let Some(played) = PLAYED_SETUPS.iter().find(|setup| setup.matches(action)) {
        let score = PLAYED_BASE + played.played.min(999) as i32 * 1000 + played.won.min(999) as i32;
        return if small_universe {
            score - SMALL_UNIVERSE_PENALTY
        } else {
            score
        };
    }
    let mut score = if ship.size() == 3 { 20 } else { -20 };
    let Some(second) = second_star else {
        return score - 50;
    };
    if star.size() == second.size() {
        score -= 15;
    }
    if star.colour() == second.colour() {
        score -= 10;
    }
    let colours = [star.colour(), second.colour(), ship.colour()];
    let has = |colour: Colour| colours.contains(&colour);
    let (green, blue, mobile) = (
        has(Colour::Green),
        has(Colour::Blue),
        has(Colour::Red) || has(Colour::Yellow),
    );
    score += 5 * green as i32 + 5 * blue as i32 + 4 * mobile as i32;
    if green && blue && mobile {
        score += 3;
    }
    if ship.colour() == Colour::Green {
        score += 2;
    }
    // A ship of a star's colour starts the home one step nearer a
    // catastrophe and leaves a colour out.
    if ship.colour() == star.colour() || ship.colour() == second.colour() {
        score -= 8;
    }
    if small_universe {
        score -= 12;
    }
    score
}

/// Every homeworld the mover may create now (none outside a setup turn's
/// start), for the setup book and for choosing self-play openings.
pub fn setup_actions(position: &Position, rules: &Rules) -> Vec<Action> {
    let mut actions = Vec::new();
    if position.turn_state() == TurnState::Start {
        position.for_each_action(rules, |action| {
            if matches!(action, Action::Homeworld { .. }) {
                actions.push(action);
            }
        });
    }
    actions
}

/// The setup turn for a player kind: `random` picks uniformly; the others
/// take a best-scored homeworld from the book, the seed choosing among equals.
pub(crate) fn setup_turn(
    position: &Position,
    rules: &Rules,
    player: PlayerKind,
    seed: u64,
) -> Vec<Action> {
    let actions = setup_actions(position, rules);
    if actions.is_empty() {
        return Vec::new();
    }
    let mut rng = SmallRng::seed_from_u64(seed ^ position.hash() ^ 0x5E7D_0B00_C0FF_EE11);
    if player == PlayerKind::Random {
        return vec![actions[rng.random_range(0..actions.len())]];
    }
    let best = actions
        .iter()
        .map(|&action| book_score(position, action))
        .max()
        .unwrap_or(0);
    let top: Vec<Action> = actions
        .into_iter()
        .filter(|&action| book_score(position, action) == best)
        .collect();
    vec![top[rng.random_range(0..top.len())]]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Start-of-turn positions of seeded random games after the book's setup.
    fn random_game_positions(games: u64, turns: usize, rules: &Rules) -> Vec<Position> {
        let mut positions = Vec::new();
        for seed in 0..games {
            let mut position = Position::start();
            for turn in 0.. {
                let actions = if position.in_setup() {
                    setup_turn(&position, rules, PlayerKind::Greedy, seed)
                } else {
                    positions.push(position);
                    random_turn(&position, rules, seed * 1_000 + turn)
                };
                for action in actions {
                    position.try_apply(rules, action).unwrap();
                }
                let outcome = position.end_turn(rules).unwrap();
                if outcome != Outcome::Ongoing || positions.len() >= (seed as usize + 1) * turns {
                    break;
                }
            }
        }
        positions
    }

    /// The hand evaluation: these tests check the classification's rules
    /// on positions of greedy games, whatever the default evaluation is, and
    /// the hand one plays them fastest.
    fn hand_tunables() -> Tunables {
        let mut tunables = Tunables::default();
        tunables.set_network(None);
        tunables
    }

    /// Start-of-turn positions of seeded games of the greedy player with a
    /// random turn every third turn: greedy play attacks, so these games
    /// reach positions in check, which random play seldom does.
    fn attacking_game_positions(
        games: u64,
        turns: usize,
        rules: &Rules,
        tunables: &Tunables,
    ) -> Vec<Position> {
        let mut solver = Solver::default();
        let mut positions = Vec::new();
        for seed in 0..games {
            let mut position = Position::start();
            for turn in 0..turns as u64 {
                let actions = if position.in_setup() {
                    setup_turn(&position, rules, PlayerKind::Greedy, seed)
                } else {
                    positions.push(position);
                    if turn % 7 == seed % 7 {
                        random_turn(&position, rules, seed * 1_000 + turn)
                    } else {
                        greedy(&position, rules, tunables, &mut solver).actions
                    }
                };
                for action in actions {
                    position.try_apply(rules, action).unwrap();
                }
                if position.end_turn(rules).unwrap() != Outcome::Ongoing {
                    break;
                }
            }
        }
        positions
    }

    fn homeworld(star: &str, second: &str, ship: &str) -> Action {
        let piece = |code: &str| crate::rules::Piece::parse(code).unwrap();
        Action::Homeworld {
            star: piece(star),
            second_star: Some(piece(second)),
            ship: piece(ship),
        }
    }

    #[test]
    fn yellow_or_blue_is_looked_for_among_stars_and_ship() {
        assert!(!has_yellow_or_blue(homeworld("r1", "g3", "g3")));
        assert!(!has_yellow_or_blue(homeworld("r1", "g2", "r3")));
        assert!(has_yellow_or_blue(homeworld("r1", "g2", "b3")));
        assert!(has_yellow_or_blue(homeworld("y1", "g2", "r3")));
        assert!(!has_yellow_or_blue(Action::Pass));
    }

    #[test]
    fn the_book_opens_as_people_did_and_avoids_the_small_universe() {
        let rules = Rules::STANDARD;
        let start = Position::start();
        // The setup people played most on SuperDuperGames.
        let first = setup_turn(&start, &rules, PlayerKind::Greedy, 0);
        assert_eq!(first, vec![homeworld("y1", "b2", "g3")]);
        let mut position = start;
        position.try_apply(&rules, first[0]).unwrap();
        position.end_turn(&rules).unwrap();
        // The most played setup is also y1b2 (sizes 1 and 2); the book
        // answers with the most played one of other sizes.
        let second = setup_turn(&position, &rules, PlayerKind::Greedy, 0);
        assert_eq!(second, vec![homeworld("r1", "b3", "g3")]);
        let small = book_score(&position, homeworld("y1", "b2", "g3"));
        let unplayed = book_score(&position, homeworld("r1", "y2", "y3"));
        let without = book_score(&position, homeworld("r1", "g2", "g3"));
        assert!(book_score(&position, second[0]) > small);
        assert!(
            small > unplayed && unplayed > without,
            "{small} {unplayed} {without}"
        );
    }

    #[test]
    fn the_table_is_sorted_and_has_no_home_without_yellow_or_blue() {
        assert!(!PLAYED_SETUPS.is_empty());
        for pair in PLAYED_SETUPS.windows(2) {
            assert!((pair[0].played, pair[0].won) >= (pair[1].played, pair[1].won));
        }
        for setup in PLAYED_SETUPS {
            assert!(setup.stars[0] <= setup.stars[1]);
            assert!(setup.won <= setup.played);
            assert!(setup.matches(setup.action()));
            assert!(has_yellow_or_blue(setup.action()), "{setup:?}");
            let Action::Homeworld {
                star,
                second_star: Some(second),
                ship,
            } = setup.action()
            else {
                unreachable!("a table row is a two-star homeworld");
            };
            let swapped = Action::Homeworld {
                star: second,
                second_star: Some(star),
                ship,
            };
            assert!(setup.matches(swapped));
        }
    }

    #[test]
    fn the_classification_in_check_keeps_exactly_the_turns_not_lost_at_once() {
        let rules = Rules::STANDARD;
        let tunables = hand_tunables();
        let mut solver = Solver::default();
        let mut checked = 0;
        for position in attacking_game_positions(300, 60, &rules, &tunables) {
            if !solver.threatened(&position, &rules) {
                continue;
            }
            checked += 1;
            let mover = position.side_to_move();
            let (mut safe, mut wins, mut draws) = (Vec::new(), Vec::new(), Vec::new());
            // Distinct turns are told apart by their results.
            TurnEnumerator::default().for_each_turn(&position, &rules, |_, result, outcome| {
                match outcome {
                    Outcome::Win(winner) if winner == mover => wins.push(result.hash()),
                    Outcome::Win(_) => {}
                    Outcome::Draw => draws.push(result.hash()),
                    Outcome::Ongoing if solver.can_win(result, &rules) => {}
                    Outcome::Ongoing => safe.push(result.hash()),
                }
            });
            let analysis = SafeTurns::classify(&position, &rules, &tunables, &mut solver, None);
            assert!(analysis.complete);
            let sorted = |indices: &[usize]| {
                let mut results: Vec<u64> = indices
                    .iter()
                    .map(|&index| analysis.list.entries[index].result.hash())
                    .collect();
                results.sort_unstable();
                results
            };
            for expected in [&mut safe, &mut wins, &mut draws] {
                expected.sort_unstable();
            }
            assert_eq!(sorted(&analysis.safe), safe, "{position:?}");
            assert_eq!(sorted(&analysis.wins), wins, "{position:?}");
            assert_eq!(sorted(&analysis.draws), draws, "{position:?}");
            let listed: Vec<Vec<Action>> = analysis
                .safe_turns(usize::MAX)
                .into_iter()
                .map(|(turn, _)| turn)
                .collect();
            let best_first: Vec<Vec<Action>> = analysis
                .safe
                .iter()
                .map(|&index| analysis.list.actions(index).to_vec())
                .collect();
            assert_eq!(listed, best_first);
            if safe.is_empty() && wins.is_empty() && draws.is_empty() {
                // Every turn loses: all of them are listed to choose from.
                let mut everything = 0;
                TurnEnumerator::default().for_each_turn(&position, &rules, |_, _, _| {
                    everything += 1;
                });
                assert_eq!(analysis.list.entries.len(), everything);
            }
        }
        assert!(checked >= 10, "only {checked} positions in check");
    }

    #[test]
    fn a_classification_cut_short_and_resumed_is_the_whole_classification() {
        let rules = Rules::STANDARD;
        let tunables = hand_tunables();
        let mut solver = Solver::default();
        let past = Some(Instant::now());
        let mut resumed_in_parts = 0;
        let mut enumerator = TurnEnumerator::default();
        for position in attacking_game_positions(40, 30, &rules, &tunables) {
            if enumerator.count(&position, &rules) > 20_000 {
                continue;
            }
            let whole = SafeTurns::classify(&position, &rules, &tunables, &mut solver, None);
            // A deadline already past stops each call after 255 turns.
            let mut parts = SafeTurns::classify(&position, &rules, &tunables, &mut solver, past);
            let mut calls = 1;
            while !parts.complete {
                if parts.safe.is_empty() && parts.wins.is_empty() && parts.draws.is_empty() {
                    let choice = parts.greedy_choice();
                    assert!(choice.actions.is_empty());
                    assert_eq!(choice.decision, Decision::NoSafeTurnFound);
                }
                parts.resume(&position, &rules, &tunables, &mut solver, past);
                calls += 1;
            }
            if calls > 1 {
                resumed_in_parts += 1;
            }
            let turns = |analysis: &SafeTurns, indices: &[usize]| -> Vec<Vec<Action>> {
                indices
                    .iter()
                    .map(|&index| analysis.list.actions(index).to_vec())
                    .collect()
            };
            assert_eq!(turns(&parts, &parts.safe), turns(&whole, &whole.safe));
            assert_eq!(turns(&parts, &parts.wins), turns(&whole, &whole.wins));
            assert_eq!(turns(&parts, &parts.draws), turns(&whole, &whole.draws));
            let choice = parts.greedy_choice();
            let expected = whole.greedy_choice();
            assert_eq!(choice.actions, expected.actions, "{position:?}");
            assert_eq!(choice.decision, expected.decision, "{position:?}");
            for &index in &whole.safe {
                assert!(parts.is_safe_result(whole.list.entries[index].result.hash()));
            }
        }
        assert!(
            resumed_in_parts >= 5,
            "{resumed_in_parts} positions resumed"
        );
    }

    #[test]
    fn the_greedy_choice_reads_the_same_from_a_classification() {
        let rules = Rules::STANDARD;
        let tunables = Tunables::default();
        let mut solver = Solver::default();
        let positions = random_game_positions(40, 20, &rules);
        assert!(positions.len() >= 40, "{} positions", positions.len());
        for position in positions {
            let lazy = greedy(&position, &rules, &tunables, &mut solver);
            let classified = SafeTurns::classify(&position, &rules, &tunables, &mut solver, None)
                .greedy_choice();
            assert_eq!(lazy.actions, classified.actions, "{position:?}");
            assert_eq!(lazy.value, classified.value, "{position:?}");
            assert_eq!(lazy.decision, classified.decision, "{position:?}");
        }
    }
}
