use super::TurnEnumerator;
use crate::rules::position::{System, HOME_SLOTS, SLOT_COUNT};
use crate::rules::{Action, Colour, Outcome, Piece, Player, Position, Rules, TurnState};

/// Random games from the start under each rule profile: at every
/// position the listing that leaves out the last steps
/// [`super::EarlierSteps`] covers and [`super::Walk::skip`] skips, and
/// the actions at twinned systems ([`super::Walk::skips_twins`]), is the
/// same, turn for turn and in the same order, as the listing that looks
/// at them, the count is the listing's, and the listing holds every
/// result the plain way finds ([`every_result`]). Why: the rules may
/// only leave out results listed before; one that left out a result
/// listed only later would keep the counts (which the perft tests
/// check) and change the order.
#[test]
fn covered_last_steps_change_no_turn_and_no_order() {
    let mut big = 0;
    for rules in [Rules::STANDARD, Rules::CLI, Rules::SDG] {
        for seed in 1..=5u64 {
            let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15);
            let mut position = Position::start();
            for _ in 0..80 {
                let listed = checked_listing(&position, &rules);
                big += usize::from(listed.len() > 2_000);
                // A random turn that does not end the game, mostly one
                // that adds a ship (a build), so that the fleets grow
                // and the games reach wide positions.
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let ongoing = |turn: &&(Vec<Action>, Position, Outcome)| turn.2 == Outcome::Ongoing;
                let builds: Vec<_> = listed
                    .iter()
                    .filter(ongoing)
                    .filter(|turn| matches!(turn.0.as_slice(), [Action::Build { .. }]))
                    .collect();
                let pool: Vec<_> = if state % 4 != 0 && !builds.is_empty() {
                    builds
                } else {
                    listed.iter().filter(ongoing).collect()
                };
                let Some(&&(_, result, _)) = pool.get(state as usize / 4 % pool.len().max(1))
                else {
                    break;
                };
                position = result;
            }
        }
    }
    assert!(big >= 20, "only {big} wide positions were compared");
}

/// The listing of `position` under `rules`, looking at the last steps
/// that can only repeat a listed result or not.
fn listing(
    position: &Position,
    rules: &Rules,
    list_repeats: bool,
) -> Vec<(Vec<Action>, Position, Outcome)> {
    let mut enumerator = TurnEnumerator {
        list_repeats,
        ..TurnEnumerator::default()
    };
    let mut turns = Vec::new();
    enumerator.for_each_turn(position, rules, |actions, result, outcome| {
        turns.push((actions.to_vec(), *result, outcome))
    });
    turns
}

/// Random crowded maps (one free slot or none, a bank of a few pieces,
/// homes of one star or two), where player 0 can sacrifice a large
/// yellow ship: the listing is the same with and without the last
/// steps that can only repeat a listed result, the count is the
/// listing's, and the listing holds every result the plain way finds.
/// Random games seldom fill the map, and there the free
/// slots decide which steps may be taken in the other order. Session
/// 52's rule assumed that where `before` discovered, P had room for
/// another ship's discovery and then for `before`'s: it left out 2 of
/// the 11,116 turns of one map built here, under `standard`.
#[test]
fn covered_last_steps_change_no_turn_on_crowded_maps() {
    let mut state = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move |bound: usize| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as usize % bound
    };
    let yellow_large = Piece::new(Colour::Yellow, 3).unwrap();
    let mut full = 0;
    for _ in 0..2_000 {
        if full == 30 {
            break;
        }
        // Every piece but one large yellow, shuffled.
        let mut deck: Vec<Piece> = (0..Piece::COUNT * 3)
            .map(|index| Piece::from_index(index / 3).unwrap())
            .collect();
        deck.swap_remove(yellow_large.index() * 3);
        for index in (1..deck.len()).rev() {
            deck.swap(index, next(index + 1));
        }
        let mut homes = [System::default(); 2];
        for (player, home) in homes.iter_mut().enumerate() {
            for _ in 0..1 + usize::from(next(4) == 0) {
                home.stars.add(deck.pop().unwrap());
            }
            home.ships[player].add(deck.pop().unwrap());
            if next(8) == 0 {
                home.ships[1 - player].add(deck.pop().unwrap());
            }
        }
        let bank = next(3);
        let mut others = Vec::new();
        while deck.len() >= bank + 2 && others.len() < SLOT_COUNT - HOME_SLOTS {
            let mut system = System::default();
            system.stars.add(deck.pop().unwrap());
            let ships = if next(8) == 0 && deck.len() > bank + 1 {
                2
            } else {
                1
            };
            for _ in 0..ships {
                system.ships[usize::from(next(3) != 0)].add(deck.pop().unwrap());
            }
            others.push(system);
        }
        // The large yellow ship goes to player 0, at home or abroad.
        let place = next(others.len() + 1);
        match others.get_mut(place) {
            Some(system) => system.ships[0].add(yellow_large),
            None => homes[0].ships[0].add(yellow_large),
        }
        let Ok(position) = Position::from_parts(
            homes.map(Some),
            [true, true],
            &others,
            Player::First,
            TurnState::Start,
        ) else {
            continue;
        };
        // One free slot or none: the maps random games seldom reach.
        if others.len() + 1 < SLOT_COUNT - HOME_SLOTS {
            continue;
        }
        full += 1;
        for rules in [Rules::STANDARD, Rules::CLI, Rules::SDG] {
            checked_listing(&position, &rules);
        }
    }
    assert!(full == 30, "only {full} crowded maps in 2,000 tries");
}

/// The listing of `position` under `rules`, after checking that it is
/// the same turn for turn with the repeat rules off, that the count is
/// its length, and that it holds every result [`every_result`] finds.
fn checked_listing(position: &Position, rules: &Rules) -> Vec<(Vec<Action>, Position, Outcome)> {
    let listed = listing(position, rules, false);
    let all = listing(position, rules, true);
    assert!(
        listed == all,
        "{rules:?}: {} turns listed, {} in all, from {position:?}",
        listed.len(),
        all.len()
    );
    assert_eq!(
        TurnEnumerator::default().count(position, rules),
        listed.len(),
        "{rules:?}: the count is not the listing's, from {position:?}"
    );
    assert!(
        sorted_results(&listed) == every_result(position, rules),
        "{rules:?}: the listing is not every result, from {position:?}"
    );
    listed
}

/// The hashes of a listing's results, sorted.
fn sorted_results(listed: &[(Vec<Action>, Position, Outcome)]) -> Vec<u64> {
    let mut results: Vec<u64> = listed.iter().map(|turn| turn.1.hash()).collect();
    results.sort_unstable();
    results
}

/// The hashes of every position a turn from `position` can end in,
/// sorted, found the plain way: every action of every state reached
/// (a state once), each state ended where it may end. Why: it shares
/// none of the enumerator's shortcuts (the keying of last steps, the
/// rules that leave out repeats, the counting walk), only the generator
/// and the rules of a single action, which the invariant tests check
/// against the rules checker; and the reference counts exist for `cli`
/// alone.
fn every_result(position: &Position, rules: &Rules) -> Vec<u64> {
    let mut seen = std::collections::HashSet::new();
    let mut results = std::collections::HashSet::new();
    let mut stack = vec![*position];
    seen.insert(position.hash());
    while let Some(state) = stack.pop() {
        let mut ended = state;
        if ended.end_turn(rules).is_ok() {
            results.insert(ended.hash());
        }
        state.for_each_action(rules, |action| {
            let mut next = state;
            next.try_apply(rules, action)
                .expect("the generator's actions are legal");
            if seen.insert(next.hash()) {
                stack.push(next);
            }
        });
    }
    let mut results: Vec<u64> = results.into_iter().collect();
    results.sort_unstable();
    results
}
