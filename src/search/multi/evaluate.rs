//! A hand evaluation of multi-player positions: each player's strength,
//! turned into shares of the game that sum to 1.
//!
//! The two-player evaluation's ideas that carry over to any number of
//! players: material counts by pips; a home needs ships (and large ones)
//! to defend it and two stars to stay safe from a single catastrophe;
//! access to each of the four colours is what lets a player build (green),
//! move (yellow), trade (blue) and attack (red); an enemy ship at least as
//! large as a home's largest defender, with red to use there, threatens
//! the home; three pieces of one colour at home are a catastrophe away.
//! Strengths are turned into shares by proportion, so weakening any rival
//! raises one's share, and a decided game gives its winners equal shares.

use crate::rules::multi::{Fleet, MultiOutcome, MultiPosition, Seat, MAX_PLAYERS};
use crate::rules::Colour;

/// Shares of the game by seat; they sum to 1 over the players.
pub type Shares = [f64; MAX_PLAYERS];

/// Each player's share of `position`: exact once the game is decided,
/// otherwise in proportion to [`strength`] (players out of the game get
/// nothing).
pub fn evaluated_shares(position: &MultiPosition) -> Shares {
    let mut shares = [0.0; MAX_PLAYERS];
    let players = position.players();
    match position.outcome() {
        MultiOutcome::Win(winners) => {
            for seat in winners.iter() {
                shares[seat as usize] = 1.0 / winners.len() as f64;
            }
            return shares;
        }
        MultiOutcome::Draw => {
            shares[..players].fill(1.0 / players as f64);
            return shares;
        }
        MultiOutcome::Ongoing => {}
    }
    for seat in position.in_game().iter() {
        let value = strength(position, seat);
        shares[seat as usize] = value * value;
    }
    let total: f64 = shares.iter().sum();
    if total > 0.0 {
        for share in &mut shares {
            *share /= total;
        }
    }
    shares
}

/// Pips of `seat`'s ships that some other player could capture where they
/// stand: a ship at least as large, with red to use in that system.
pub fn exposed_pips(position: &MultiPosition, seat: Seat) -> f64 {
    let mut exposed = 0.0;
    for slot in position.occupied_slots() {
        let system = position.system(slot);
        let mine = system.ships[seat as usize];
        if mine.is_empty() {
            continue;
        }
        let star_red = system.stars.colour_count(Colour::Red) > 0;
        let mut threat = 0;
        for other in position.in_game().iter().filter(|&other| other != seat) {
            let fleet = system.ships[other as usize];
            if star_red || fleet.colour_count(Colour::Red) > 0 {
                threat = threat.max(fleet.copies().map(|ship| ship.size()).max().unwrap_or(0));
            }
        }
        exposed += mine
            .copies()
            .filter(|ship| ship.size() <= threat)
            .map(|ship| ship.size() as f64)
            .sum::<f64>();
    }
    exposed
}

/// How strong `seat` is, a positive number: pips of ships, the home's
/// defence and stars, colours at hand, less the threats to the home and
/// the ships others could capture.
pub fn strength(position: &MultiPosition, seat: Seat) -> f64 {
    let me = seat as usize;
    let mut pips = 0.0;
    let mut owned = Fleet::EMPTY;
    for slot in position.occupied_slots() {
        let fleet = position.system(slot).ships[me];
        owned = owned.plus(fleet);
        pips += fleet.copies().map(|ship| ship.size() as f64).sum::<f64>();
    }
    let home = position.system(seat);
    if !home.exists() {
        return 0.5 + 0.5 * pips;
    }
    let defenders = home.ships[me];
    let largest = defenders
        .copies()
        .map(|ship| ship.size())
        .max()
        .unwrap_or(0);
    let colours = owned.plus(home.stars).colour_mask().count_ones() as f64;
    let mut value = 1.0 + pips + largest as f64 + home.stars.len() as f64 + 1.5 * colours;
    if defenders.len() == 1 {
        value -= 1.0;
    }
    let home_red = home.stars.colour_count(Colour::Red) > 0;
    for other in position.in_game().iter().filter(|&other| other != seat) {
        let attackers = home.ships[other as usize];
        let attacker = attackers
            .copies()
            .map(|ship| ship.size())
            .max()
            .unwrap_or(0);
        let red = home_red || attackers.colour_count(Colour::Red) > 0;
        if attacker > 0 && red && attacker >= largest {
            value -= 4.0;
        } else if attacker > 0 {
            value -= 1.0;
        }
    }
    value -= 0.7 * exposed_pips(position, seat);
    let pieces = home.pieces();
    for colour in Colour::ALL {
        if pieces.colour_count(colour) == 3 {
            value -= 0.5;
        }
    }
    value.max(0.5)
}
