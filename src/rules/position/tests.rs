use super::*;

#[test]
fn position_fits_in_128_bytes() {
    assert!(std::mem::size_of::<Position>() <= 128);
    assert_eq!(std::mem::size_of::<Position>(), 128);
}

#[test]
fn a_setup_pass_hands_the_first_creation_over() {
    let piece = |text| Piece::parse(text).unwrap();
    let home = |star, second, ship| Action::Homeworld {
        star: piece(star),
        second_star: Some(piece(second)),
        ship: piece(ship),
    };
    let start = Position::start();
    for rules in [Rules::STANDARD, Rules::CLI] {
        assert_eq!(
            start.check(&rules, Action::Pass),
            Err(IllegalReason::SetupNeedsHomeworld)
        );
    }
    let rules = Rules::SDG;
    let mut position = start;
    position.try_apply(&rules, Action::Pass).unwrap();
    assert_eq!(position.end_turn(&rules), Ok(Outcome::Ongoing));
    assert_eq!(position.side_to_move(), Player::Second);
    assert_eq!(position.hash(), position.compute_hash());
    assert_ne!(position, start);
    // Ending a setup turn without the pass or a creation is still refused.
    assert_eq!(
        position.clone().end_turn(&rules),
        Err(IllegalReason::SetupIncomplete)
    );
    // Player 1 creates first, in their own slot; then player 0, who may
    // no longer pass; then player 1 moves first.
    position.try_apply(&rules, home("r1", "b3", "g3")).unwrap();
    position.end_turn(&rules).unwrap();
    assert!(position.system(1).exists() && !position.system(0).exists());
    assert_eq!(position.side_to_move(), Player::First);
    assert_eq!(
        position.check(&rules, Action::Pass),
        Err(IllegalReason::SetupPassAfterHomeworld)
    );
    position.try_apply(&rules, home("y2", "b1", "g3")).unwrap();
    assert_eq!(position.end_turn(&rules), Ok(Outcome::Ongoing));
    assert!(!position.in_setup());
    assert_eq!(position.side_to_move(), Player::Second);
    assert_eq!(position.hash(), position.compute_hash());
}

#[test]
fn actions_pack_and_unpack() {
    let g1 = Piece::parse("g1").unwrap();
    let b3 = Piece::parse("b3").unwrap();
    let actions = [
        Action::Homeworld {
            star: g1,
            second_star: None,
            ship: b3,
        },
        Action::Homeworld {
            star: g1,
            second_star: Some(b3),
            ship: b3,
        },
        Action::Build {
            system: 17,
            piece: g1,
        },
        Action::Trade {
            system: 3,
            from: g1,
            to: b3,
        },
        Action::Move {
            from: 1,
            to: 16,
            ship: b3,
        },
        Action::Discover {
            from: 0,
            ship: g1,
            star: b3,
        },
        Action::Capture {
            system: 5,
            ship: b3,
        },
        Action::Sacrifice {
            system: 2,
            ship: g1,
        },
        Action::Catastrophe {
            system: 9,
            colour: Colour::Blue,
        },
        Action::Pass,
    ];
    for action in actions {
        assert_eq!(Action::unpack(action.pack()), Some(action));
    }
    assert_eq!(Action::unpack(0), None);
}
