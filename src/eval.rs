//! Static evaluation, always from the side to move: material and piece-square tables, each
//! with a middlegame and an endgame value, blended by how much material is left (tapering).

use shakmaty::{Bitboard, Chess, Color, Position, Role};

/// Centipawn value of each piece type for move ordering and exchange reckoning; the king has
/// none (it is never traded).
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

/// Material in the middlegame and the endgame, indexed by `Role as usize - 1`.
const MATERIAL_MG: [i32; 6] = [90, 320, 330, 480, 950, 0];
const MATERIAL_EG: [i32; 6] = [120, 300, 320, 540, 980, 0];

/// Game phase weight of each piece: 24 with all pieces on the board, 0 with none.
const PHASE_WEIGHT: [i32; 6] = [0, 1, 1, 2, 4, 0];
pub const MAX_PHASE: i32 = 24;

/// Steps from the centre: 0 on d4/e4/d5/e5, 6 in a corner.
const fn centre_distance(sq: usize) -> i32 {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let df = if file < 4 { 3 - file } else { file - 4 };
    let dr = if rank < 4 { 3 - rank } else { rank - 4 };
    df + dr
}

/// Piece-square bonus for a white piece of `role` on `sq` (a1 = 0); black mirrors the rank.
/// Written as rules rather than numbers: advance pawns, centralise pieces, keep the king
/// sheltered in the middlegame and active in the endgame.
const fn square_bonus(role: usize, sq: usize, endgame: bool) -> i32 {
    let file = (sq % 8) as i32;
    let rank = (sq / 8) as i32;
    let centre = centre_distance(sq);
    match (role, endgame) {
        // Pawns: worth more as they advance, more so in the endgame; central pawns matter
        // early.
        (0, false) => {
            let advance = [0, 0, 4, 10, 20, 35, 55, 0][rank as usize];
            let central = if (file == 3 || file == 4) && rank >= 2 && rank <= 4 {
                15
            } else {
                0
            };
            advance + central
        }
        (0, true) => [0, 0, 8, 18, 32, 55, 90, 0][rank as usize],
        // Knights: strongly prefer the centre, dislike the rim.
        (1, _) => 24 - 8 * centre,
        // Bishops: mildly central.
        (2, _) => 12 - 4 * centre,
        // Rooks: the seventh rank early on, otherwise indifferent.
        (3, false) => {
            if rank == 6 {
                20
            } else if file == 3 || file == 4 {
                5
            } else {
                0
            }
        }
        (3, true) => 0,
        // Queens: a little centralisation.
        (4, false) => 6 - 2 * centre,
        (4, true) => 12 - 4 * centre,
        // King in the middlegame: home rank, tucked to a side.
        (5, false) => {
            let home = if rank == 0 { 0 } else { -15 * rank };
            let side = match file {
                1 | 6 => 20,
                0 | 2 | 7 => 10,
                _ => -10,
            };
            home + side
        }
        // King in the endgame: come to the centre.
        _ => 30 - 10 * centre,
    }
}

const fn table(endgame: bool) -> [[i32; 64]; 6] {
    let mut t = [[0; 64]; 6];
    let mut role = 0;
    while role < 6 {
        let mut sq = 0;
        while sq < 64 {
            let material = if endgame {
                MATERIAL_EG[role]
            } else {
                MATERIAL_MG[role]
            };
            t[role][sq] = material + square_bonus(role, sq, endgame);
            sq += 1;
        }
        role += 1;
    }
    t
}

/// Material plus square bonus, per role and square, seen from White.
const PST_MG: [[i32; 64]; 6] = table(false);
const PST_EG: [[i32; 64]; 6] = table(true);

/// The terms behind a score, for `eval` on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Breakdown {
    /// Middlegame and endgame sums, White minus Black.
    pub mg: i32,
    pub eg: i32,
    pub phase: i32,
    /// The blended score from White's point of view.
    pub white: i32,
}

fn pieces(board: &shakmaty::Board, role: Role, color: Color) -> Bitboard {
    board.by_role(role) & board.by_color(color)
}

pub fn breakdown(pos: &Chess) -> Breakdown {
    let board = pos.board();
    let (mut mg, mut eg, mut phase) = (0, 0, 0);
    for role in Role::ALL {
        let r = role as usize - 1;
        for sq in pieces(board, role, Color::White) {
            mg += PST_MG[r][sq as usize];
            eg += PST_EG[r][sq as usize];
            phase += PHASE_WEIGHT[r];
        }
        for sq in pieces(board, role, Color::Black) {
            let mirrored = sq.flip_vertical() as usize;
            mg -= PST_MG[r][mirrored];
            eg -= PST_EG[r][mirrored];
            phase += PHASE_WEIGHT[r];
        }
    }
    let phase = phase.min(MAX_PHASE);
    let white = (mg * phase + eg * (MAX_PHASE - phase)) / MAX_PHASE;
    Breakdown {
        mg,
        eg,
        phase,
        white,
    }
}

/// The score for the side to move: positive when it stands better.
pub fn evaluate(pos: &Chess) -> i32 {
    let w = breakdown(pos).white;
    match pos.turn() {
        Color::White => w,
        Color::Black => -w,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{CastlingMode, FromSetup, fen::Fen};

    fn pos(fen: &str) -> Chess {
        fen.parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap()
    }

    /// The same position with colours swapped and the board mirrored top to bottom.
    fn colour_flip(fen: &str) -> Chess {
        let p = pos(fen);
        let mut setup = p.to_setup(shakmaty::EnPassantMode::Legal);
        setup.mirror();
        Chess::from_setup(setup, CastlingMode::Standard).unwrap()
    }

    #[test]
    fn start_position_is_level() {
        assert_eq!(evaluate(&Chess::default()), 0);
    }

    #[test]
    fn score_is_from_the_side_to_move() {
        let w = evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 w - - 0 1"));
        let b = evaluate(&pos("4k3/8/8/8/8/8/8/3NK3 b - - 0 1"));
        assert!(w > 250);
        assert_eq!(w, -b);
    }

    #[test]
    fn colour_flipped_positions_score_the_same_for_the_side_to_move() {
        for fen in [
            "r1bqkb1r/pppp1ppp/2n2n2/4p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1",
            "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
        ] {
            assert_eq!(evaluate(&pos(fen)), evaluate(&colour_flip(fen)), "{fen}");
        }
    }

    #[test]
    fn tapering_uses_the_middlegame_score_at_full_material_and_the_endgame_one_without_pieces() {
        let full = breakdown(&pos(
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
        ));
        assert_eq!(full.phase, MAX_PHASE);
        assert_eq!(full.white, full.mg);
        let pawns = breakdown(&pos("4k3/pp6/8/8/8/8/5PPP/4K3 w - - 0 1"));
        assert_eq!(pawns.phase, 0);
        assert_eq!(pawns.white, pawns.eg);
    }

    #[test]
    fn square_rules_prefer_central_knights_and_advanced_pawns() {
        let centre = evaluate(&pos("4k3/8/8/8/4N3/8/8/4K3 w - - 0 1"));
        let corner = evaluate(&pos("4k3/8/8/8/8/8/8/N3K3 w - - 0 1"));
        assert!(centre > corner);
        let far = evaluate(&pos("4k3/1P6/8/8/8/8/8/4K3 w - - 0 1"));
        let near = evaluate(&pos("4k3/8/8/8/8/8/1P6/4K3 w - - 0 1"));
        assert!(far > near);
    }
}
