//! Static exchange evaluation: the material outcome of the capture sequence on one square,
//! each side taking with its least valuable piece and free to stop when it pays.

use shakmaty::attacks::{bishop_attacks, king_attacks, knight_attacks, pawn_attacks, rook_attacks};
use shakmaty::{Bitboard, Board, Chess, Color, Move, Position, Rank, Role, Square};

/// Centipawn value of each piece type for move ordering and exchange reckoning; the king has
/// none (it is never traded). The evaluation's material is tuned separately.
pub const fn piece_value(role: Role) -> i32 {
    match role {
        Role::Pawn => 100,
        Role::Knight => 320,
        Role::Bishop => 330,
        Role::Rook => 500,
        Role::Queen => 900,
        Role::King => 0,
    }
}

/// The king counts as priceless: taking with it is only legal when nothing recaptures.
const fn see_value(role: Role) -> i32 {
    match role {
        Role::King => 20_000,
        r => piece_value(r),
    }
}

/// Every piece of either colour attacking `sq` through the given occupancy.
fn attackers(board: &Board, sq: Square, occupied: Bitboard) -> Bitboard {
    let diagonal = board.bishops() | board.queens();
    let straight = board.rooks() | board.queens();
    (pawn_attacks(Color::White, sq) & board.pawns() & board.black())
        | (pawn_attacks(Color::Black, sq) & board.pawns() & board.white())
        | (knight_attacks(sq) & board.knights())
        | (king_attacks(sq) & board.kings())
        | (bishop_attacks(sq, occupied) & diagonal)
        | (rook_attacks(sq, occupied) & straight)
}

/// Material won (positive) or lost by playing `m` and letting both sides recapture on its
/// square as long as it pays. Quiet moves, castling and en passant count their plain gain.
pub fn see(pos: &Chess, m: Move) -> i32 {
    let (from, to) = match m {
        Move::Normal { from, to, .. } => (from, to),
        Move::EnPassant { .. } => return piece_value(Role::Pawn),
        _ => return 0,
    };
    let board = pos.board();
    let promotion_gain = m
        .promotion()
        .map_or(0, |r| piece_value(r) - piece_value(Role::Pawn));
    let mut gains = [0i32; 32];
    gains[0] = m.capture().map_or(0, piece_value) + promotion_gain;
    // The piece now standing on `to`, which the next capture would win.
    let mut on_square = m.promotion().unwrap_or(m.role());
    let mut occupied = board.occupied() ^ Bitboard::from(from);
    let mut side = !pos.turn();
    let mut depth = 0;
    loop {
        let attackers = attackers(board, to, occupied) & occupied & board.by_color(side);
        let Some((role, sq)) = Role::ALL
            .iter()
            .find_map(|&r| (attackers & board.by_role(r)).first().map(|sq| (r, sq)))
        else {
            break;
        };
        depth += 1;
        if depth >= gains.len() {
            break;
        }
        // A pawn recapturing on the last rank promotes (to a queen).
        let promotes = role == Role::Pawn && matches!(to.rank(), Rank::First | Rank::Eighth);
        let promotion_gain = if promotes {
            piece_value(Role::Queen) - piece_value(Role::Pawn)
        } else {
            0
        };
        // Speculative: what `side` has gained if it takes and the other side stops here.
        gains[depth] = see_value(on_square) + promotion_gain - gains[depth - 1];
        on_square = if promotes { Role::Queen } else { role };
        occupied ^= Bitboard::from(sq);
        side = !side;
        // A king may only take when nothing can take it back.
        if role == Role::King && (attackers_after(board, to, occupied) & board.by_color(side)).any()
        {
            depth -= 1;
            break;
        }
    }
    // Each side chooses between stopping and going on, from the end backwards.
    while depth > 0 {
        gains[depth - 1] = -((-gains[depth - 1]).max(gains[depth]));
        depth -= 1;
    }
    gains[0]
}

/// Whether `m`, `depth` plies from the horizon, loses so much by exchange that it is not
/// worth searching: a quiet move more than `quiet_margin` cp per ply, a capture or promotion
/// more than `capture_margin` cp per ply squared (captures win back material in the search
/// more often than quiet moves do).
pub fn loses_by_exchange(
    pos: &Chess,
    m: Move,
    depth: i32,
    quiet_margin: i32,
    capture_margin: i32,
) -> bool {
    let threshold = if m.is_capture() || m.is_promotion() {
        -capture_margin * depth * depth
    } else {
        -quiet_margin * depth
    };
    see(pos, m) < threshold
}

fn attackers_after(board: &Board, sq: Square, occupied: Bitboard) -> Bitboard {
    attackers(board, sq, occupied) & occupied
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, fen::Fen, uci::UciMove};

    fn position_and_move(fen: &str, uci: &str) -> (Chess, Move) {
        let pos: Chess = fen
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let m = uci.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        (pos, m)
    }

    fn see_of(fen: &str, uci: &str) -> i32 {
        let (pos, m) = position_and_move(fen, uci);
        see(&pos, m)
    }

    fn loses(fen: &str, uci: &str, depth: i32) -> bool {
        let (pos, m) = position_and_move(fen, uci);
        loses_by_exchange(&pos, m, depth, 60, 20)
    }

    #[test]
    fn exchange_pruning_margins_grow_with_depth_and_are_wider_for_captures() {
        // A knight stepping where a pawn takes it: -320, beyond 60 cp per ply up to depth 5.
        let knight = "4k3/8/4p3/8/8/2N5/8/4K3 w - - 0 1";
        assert_eq!(see_of(knight, "c3d5"), -320);
        assert!(loses(knight, "c3d5", 5));
        assert!(!loses(knight, "c3d5", 6));
        // A safe quiet move loses nothing.
        assert!(!loses(knight, "c3b5", 1));
        // The queen takes a pawn defended by a pawn: -800, beyond 20 cp per ply squared up
        // to depth 6 (720), not at 7 (980).
        let queen = "4k3/2p5/3p4/8/8/8/3Q4/4K3 w - - 0 1";
        assert_eq!(see_of(queen, "d2d6"), -800);
        assert!(loses(queen, "d2d6", 6));
        assert!(!loses(queen, "d2d6", 7));
        // An even trade is never pruned.
        let even = "4k3/8/2p5/3n4/8/4N3/8/4K3 w - - 0 1";
        assert_eq!(see_of(even, "e3d5"), 0);
        assert!(!loses(even, "e3d5", 1));
    }

    #[test]
    fn undefended_piece_is_won_whole() {
        assert_eq!(see_of("4k3/8/8/3r4/8/8/8/3RK3 w - - 0 1", "d1d5"), 500);
    }

    #[test]
    fn defended_pawn_taken_by_a_queen_loses_the_queen_for_a_pawn() {
        assert_eq!(
            see_of("4k3/8/2p5/3p4/8/8/8/3QK3 w - - 0 1", "d1d5"),
            100 - 900
        );
    }

    #[test]
    fn equal_trade_and_a_backed_up_battery() {
        // Knight takes knight, pawn recaptures: even.
        assert_eq!(see_of("4k3/8/4p3/3n4/8/4N3/8/4K3 w - - 0 1", "e3d5"), 0);
        // Rook takes a pawn defended once by a rook, with a second rook behind the first:
        // RxP RxR RxR wins a pawn and... the exchange balance is +100.
        assert_eq!(see_of("3rk3/8/8/3p4/8/8/3R4/3RK3 w - - 0 1", "d2d5"), 100);
    }

    #[test]
    fn a_side_may_stop_recapturing_when_it_would_lose() {
        // Pawn takes a knight defended by the queen: with the pawn alone, Qxd5 wins it back.
        assert_eq!(
            see_of("4k3/8/2q5/3n4/4P3/8/8/4K3 w - - 0 1", "e4d5"),
            320 - 100
        );
        // With a second pawn behind, Qxd5 would lose the queen: Black stops, White keeps +320.
        assert_eq!(see_of("4k3/8/2q5/3n4/2P1P3/8/8/4K3 w - - 0 1", "e4d5"), 320);
    }

    #[test]
    fn the_king_cannot_take_a_defended_piece() {
        // Rook takes a pawn next to the black king, defended by nothing but the king, but the
        // rook is backed by a bishop: the king may not recapture.
        assert_eq!(see_of("8/8/8/3pk3/8/1B6/8/3RK3 w - - 0 1", "d1d5"), 100);
        // Without the bishop, the king takes the rook.
        assert_eq!(see_of("8/8/8/3pk3/8/8/8/3RK3 w - - 0 1", "d1d5"), 100 - 500);
    }

    #[test]
    fn a_pawn_recapturing_on_the_last_rank_promotes() {
        // Nxc1 takes the checking rook; b2xc1=Q answers: the knight is lost, a queen appears.
        assert_eq!(
            see_of("4k3/8/8/8/8/3N4/1p6/2r1K3 w - - 0 1", "d3c1"),
            500 - (320 + 800)
        );
    }

    #[test]
    fn quiet_moves_and_promotions() {
        assert_eq!(see_of("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", "a1a5"), 0);
        assert_eq!(see_of("4k3/P7/8/8/8/8/8/4K3 w - - 0 1", "a7a8q"), 800);
    }
}
