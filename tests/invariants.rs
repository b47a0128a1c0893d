//! Seeded random playouts that check the rules core against itself through
//! independent paths: piece conservation, incremental against recomputed
//! hash, notation round trips for every generated action and whole turn, and
//! the single-action generator against an exhaustive legality check.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use supernova::notation::turn::{format_action, format_turn, parse_turn, resolve, Style};
use supernova::notation::{hwpn, Board};
use supernova::rules::{
    Action, ActionList, Colour, Outcome, Piece, PieceSet, Position, Rules, Slot, TurnEnumerator,
    TurnState, HOME_SLOTS, SLOT_COUNT,
};

/// Every piece is somewhere and no type has more than three copies; systems
/// have the shapes the rules allow.
fn assert_well_formed(position: &Position) {
    let mut used = PieceSet::EMPTY;
    for slot in 0..SLOT_COUNT as Slot {
        let system = position.system(slot);
        assert!(
            used.fits_with(system.pieces()),
            "more than 3 copies: {position:?}"
        );
        used = used.plus(system.pieces());
        if slot as usize >= HOME_SLOTS && system.exists() {
            assert_eq!(system.stars.len(), 1, "{position:?}");
            assert!(
                !system.has_no_ships(),
                "a non-home system without ships: {position:?}"
            );
        }
        assert!(system.stars.len() <= 2);
        if !system.exists() {
            assert!(
                system.has_no_ships(),
                "ships in an empty slot: {position:?}"
            );
        }
    }
    assert_eq!(used.len() + position.bank().len(), 36);
    assert_eq!(
        position.hash(),
        position.compute_hash(),
        "incremental hash drifted: {position:?}"
    );
}

/// Every candidate action the position could be asked about.
fn all_candidates() -> Vec<Action> {
    let slots = 0..SLOT_COUNT as Slot;
    let mut candidates = vec![Action::Pass];
    for slot in slots.clone() {
        for piece in Piece::ALL {
            candidates.push(Action::Build {
                system: slot,
                piece,
            });
            candidates.push(Action::Capture {
                system: slot,
                ship: piece,
            });
            candidates.push(Action::Sacrifice {
                system: slot,
                ship: piece,
            });
            for other in Piece::ALL {
                candidates.push(Action::Trade {
                    system: slot,
                    from: piece,
                    to: other,
                });
                candidates.push(Action::Discover {
                    from: slot,
                    ship: piece,
                    star: other,
                });
            }
            for to in slots.clone() {
                candidates.push(Action::Move {
                    from: slot,
                    to,
                    ship: piece,
                });
            }
        }
        for colour in Colour::ALL {
            candidates.push(Action::Catastrophe {
                system: slot,
                colour,
            });
        }
    }
    candidates
}

/// The generator yields exactly the legal actions, up to the identical
/// destination systems it deliberately merges (rules.md E3).
fn assert_generator_matches_checker(position: &Position, rules: &Rules, candidates: &[Action]) {
    let mut generated = ActionList::default();
    position.legal_actions(rules, &mut generated);
    let generated = generated.as_slice();
    for action in generated {
        assert_eq!(
            position.check(rules, *action),
            Ok(()),
            "generated but illegal: {action:?} in {position:?}"
        );
    }
    for &action in candidates {
        if action == Action::Pass
            || position.check(rules, action).is_err()
            || generated.contains(&action)
        {
            continue;
        }
        let Action::Move { from, to, ship } = action else {
            panic!("legal but not generated: {action:?} in {position:?}");
        };
        let target = position.system(to);
        let merged = generated.iter().any(|other| {
            matches!(*other, Action::Move { from: f, to: t, ship: s }
                if f == from && s == ship && t as usize >= HOME_SLOTS && position.system(t) == target)
        });
        assert!(
            merged,
            "legal move not generated: {action:?} in {position:?}"
        );
    }
}

/// At the start of a turn, the attack list for each slot is the full list
/// with every action that cannot act on that slot left out, in the same
/// order (what the win-in-1 solver relies on for the homes).
fn assert_attack_actions_match(position: &Position, rules: &Rules) {
    if position.in_setup() || position.turn_state() != TurnState::Start {
        return;
    }
    let mut every = Vec::new();
    position.for_each_action(rules, |action| every.push(action));
    for target in 0..SLOT_COUNT as Slot {
        let acts_on_target = |action: &Action| match *action {
            Action::Pass | Action::Catastrophe { .. } | Action::Sacrifice { .. } => true,
            Action::Capture { system, .. }
            | Action::Build { system, .. }
            | Action::Trade { system, .. } => system == target,
            Action::Move { to, .. } => to == target,
            Action::Discover { .. } | Action::Homeworld { .. } => false,
        };
        let mut full = every.clone();
        full.retain(acts_on_target);
        let mut attack = Vec::new();
        position.for_each_attack_action(rules, target, |action| attack.push(action));
        assert_eq!(attack, full, "target {target} in {position:?}");
    }
}

/// One action printed as a token parses back and applies to the same board.
fn assert_action_round_trips(board: &Board, rules: &Rules, action: Action) -> Board {
    let mut expected = board.clone();
    expected.apply(rules, action, None).unwrap();
    for style in [Style::Token, Style::Readable, Style::Sdg] {
        let text = format_action(board, action, style);
        let parsed = parse_turn(&text).unwrap_or_else(|error| panic!("{text}: {error}"));
        assert_eq!(parsed.len(), 1, "{text}");
        let (resolved, name) =
            resolve(board, &parsed[0]).unwrap_or_else(|error| panic!("{text}: {error}"));
        assert_eq!(resolved, action, "{text}");
        let mut again = board.clone();
        again.apply(rules, resolved, name.as_deref()).unwrap();
        assert_eq!(again, expected, "{text}");
    }
    expected
}

fn random_game(
    seed: u64,
    rules: &Rules,
    candidates: &[Action],
    exhaustive_every: usize,
) -> (usize, Outcome) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let mut board = Board::default();
    let mut list = ActionList::default();
    let mut steps = 0;
    for _turn in 0..300 {
        let turn_start = board.clone();
        loop {
            assert_well_formed(&board.position);
            let text = hwpn::write_board(&board);
            let reparsed = hwpn::parse(&text).unwrap_or_else(|error| panic!("{text}: {error}"));
            assert_eq!(reparsed.position, board.position, "{text}");
            assert_eq!(hwpn::write_board(&reparsed), text);
            if exhaustive_every > 0 && steps % exhaustive_every == 0 {
                assert_generator_matches_checker(&board.position, rules, candidates);
            }
            assert_attack_actions_match(&board.position, rules);
            board.position.legal_actions(rules, &mut list);
            let can_end = board.position.clone().end_turn(rules).is_ok();
            if !can_end && list.as_slice().is_empty() {
                // A dead end (e.g. a self-elimination the profile forbids):
                // start the turn again and pass.
                board = turn_start.clone();
                break;
            }
            let stop = list.as_slice().is_empty()
                || (can_end
                    && board.position.turn_state() != TurnState::Start
                    && rng.random_bool(0.4))
                || (can_end && rng.random_bool(0.02));
            if stop {
                break;
            }
            let action = list.as_slice()[rng.random_range(0..list.as_slice().len())];
            board = assert_action_round_trips(&board, rules, action);
            steps += 1;
        }
        let outcome = board
            .end_turn(rules)
            .expect("the random game only ends where allowed");
        if outcome != Outcome::Ongoing {
            assert_well_formed(&board.position);
            return (steps, outcome);
        }
    }
    (steps, Outcome::Ongoing)
}

#[test]
fn random_playouts_keep_every_invariant() {
    let candidates = all_candidates();
    let mut total_steps = 0;
    let mut finished = 0;
    for seed in 0..2_000u64 {
        let rules = Rules::PROFILES[seed as usize % 3];
        let (steps, outcome) = random_game(
            seed,
            &rules,
            &candidates,
            if seed % 20 == 0 { 7 } else { 0 },
        );
        total_steps += steps;
        finished += (outcome != Outcome::Ongoing) as usize;
    }
    assert!(total_steps > 100_000, "only {total_steps} actions played");
    assert!(finished > 500, "only {finished} games finished");
}

#[test]
fn whole_turns_print_parse_and_replay() {
    let mut rng = SmallRng::seed_from_u64(7);
    let mut enumerator = TurnEnumerator::default();
    let mut checked = 0;
    for game in 0..40u64 {
        let rules = Rules::PROFILES[game as usize % 3];
        let mut board = Board::default();
        for _ in 0..60 {
            let mut turns = Vec::new();
            enumerator.for_each_turn(&board.position, &rules, |actions, result, outcome| {
                turns.push((actions.to_vec(), *result, outcome))
            });
            assert!(!turns.is_empty());
            assert_eq!(turns.len(), board.position.count_turns(&rules));
            // A listing its visitor ends early gives the same first turns.
            let wanted = 1 + (rng.random_range(0..turns.len()) / 2);
            let mut prefix = Vec::new();
            let uncut = enumerator.for_each_turn_while(
                &board.position,
                &rules,
                None,
                |actions, result, _| {
                    prefix.push((actions.to_vec(), *result));
                    prefix.len() < wanted
                },
            );
            assert!(uncut, "no deadline, so nothing was cut short by one");
            assert_eq!(prefix.len(), wanted);
            for ((actions, result), (full_actions, full_result, _)) in prefix.iter().zip(&turns) {
                assert_eq!((actions, result), (full_actions, full_result));
            }
            for (actions, result, outcome) in turns.iter().take(200) {
                for style in [Style::Token, Style::Sdg] {
                    let text = format_turn(&board, &rules, actions, style);
                    let mut replayed = board.clone();
                    let played = replayed
                        .play_turn_text(&rules, &text)
                        .unwrap_or_else(|error| {
                            panic!("{text}: {error} on {}", hwpn::write_board(&board))
                        });
                    assert_eq!(replayed.position, *result, "{text}");
                    assert_eq!(played.outcome, *outcome, "{text}");
                    checked += 1;
                }
            }
            let (_, result, outcome) = turns[rng.random_range(0..turns.len())].clone();
            let (actions, ..) = turns.iter().find(|turn| turn.1 == result).unwrap().clone();
            board.play_actions(&rules, &actions).unwrap();
            if outcome != Outcome::Ongoing {
                break;
            }
        }
    }
    assert!(checked > 10_000, "only {checked} turns checked");
}
