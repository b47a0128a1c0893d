//! Text formats: positions (HWPN and homeworlds-cli state text), turns (the
//! protocol token, a readable form, SDG lines), turns played from text with
//! the names they give (`play`), and SuperDuperGames records.
//!
//! Everything textual lives here, above the rules core: the core knows slots,
//! the notations know names. [`names::Board`] pairs a position with its
//! system names and keeps them in step as actions are applied.

pub mod cli;
pub mod error;
pub mod hwpn;
pub mod multi;
pub mod names;
pub mod play;
pub mod sdg;
pub mod turn;

pub use error::ParseError;
pub use names::Board;

use crate::rules::Player;

/// Reads a position in either text the command line accepts: `startpos` for
/// the empty start, homeworlds-cli state text, or HWPN. A position copied
/// from either program then works as it is. homeworlds-cli text is told by
/// its parentheses, which HWPN never uses; it names no side to move, so
/// `side_to_move` gives it (HWPN carries its own).
///
/// # Errors
/// The text is not a valid position in the notation it was taken for.
pub fn parse_position(text: &str, side_to_move: Player) -> Result<Board, ParseError> {
    if text.trim() == "startpos" {
        Ok(Board::default())
    } else if text.contains('(') {
        cli::parse(text, side_to_move)
    } else {
        hwpn::parse(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_notation_is_recognised() {
        let start = parse_position(" startpos ", Player::First).unwrap();
        assert_eq!(start, Board::default());
        let hwpn_text = "r1b3:g3:/y2b1::g3 0";
        assert_eq!(
            parse_position(hwpn_text, Player::Second).unwrap(),
            hwpn::parse(hwpn_text).unwrap()
        );
        let cli_text = "Sam (0, g1b3) y1b2-\nDave (1, r2) -y3\n(b2) r1-r1\n";
        assert_eq!(
            parse_position(cli_text, Player::Second).unwrap(),
            cli::parse(cli_text, Player::Second).unwrap()
        );
        assert!(parse_position("not a position", Player::First).is_err());
    }
}
