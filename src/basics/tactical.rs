//! The legal captures and promotions of a position not in check, generated directly: the
//! quiescence search needs only these, and filtering them out of every legal move costs the
//! generation of all the quiet ones. The moves come in the order of shakmaty's
//! `legal_moves` (en passant, pawn captures by direction, push promotions, then knights,
//! bishops, rooks, queens and the king, each by square), so that a search ordering them
//! with ties broken by place in the list searches exactly as before.

use shakmaty::{Bitboard, Chess, Color, Move, MoveList, Position, Role, Square, attacks};

const PROMOTIONS: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

/// Every legal capture and promotion of `pos`, which must not be in check (a position in
/// check takes all its evasions from `legal_moves`).
pub fn tactical_moves(pos: &Chess) -> MoveList {
    let mut moves = MoveList::new();
    tactical_moves_into(pos, &mut moves);
    moves
}

/// `tactical_moves` written into `moves` (which must be empty), so that the caller's list is
/// filled in place rather than copied back.
pub fn tactical_moves_into(pos: &Chess, moves: &mut MoveList) {
    debug_assert!(!pos.is_check() && moves.is_empty());
    // Most positions have no en passant square, and no list is handed back to copy then.
    if pos.maybe_ep_square().is_some() {
        moves.extend(pos.en_passant_moves());
    }
    let board = pos.board();
    let us = pos.turn();
    let Some(king) = board.king_of(us) else {
        return;
    };
    let them = board.by_color(!us);
    let occupied = board.occupied();
    let ours = board.by_color(us);
    let pawns = board.pawns() & ours;
    // Pawn captures toward the a-file side and then the h-file side (as seen by White),
    // each first without promotion and then with.
    let forward = if us == Color::White { 8 } else { -8 };
    for (side_step, wrong_file) in [
        (-1, Bitboard::from_file(shakmaty::File::A)),
        (1, Bitboard::from_file(shakmaty::File::H)),
    ] {
        let step = forward + side_step;
        let targets = (pawns & !wrong_file).shift(step) & them;
        for to in targets & !Bitboard::BACKRANKS {
            if let Some(from) = to.offset(-step) {
                moves.push(pawn_move(from, to, board.role_at(to), None));
            }
        }
        for to in targets & Bitboard::BACKRANKS {
            if let Some(from) = to.offset(-step) {
                for p in PROMOTIONS {
                    moves.push(pawn_move(from, to, board.role_at(to), Some(p)));
                }
            }
        }
    }
    for to in pawns.shift(forward) & !occupied & Bitboard::BACKRANKS {
        if let Some(from) = to.offset(-forward) {
            for p in PROMOTIONS {
                moves.push(pawn_move(from, to, None, Some(p)));
            }
        }
    }
    for role in [Role::Knight, Role::Bishop, Role::Rook, Role::Queen] {
        for from in board.by_role(role) & ours {
            let reach = match role {
                Role::Knight => attacks::knight_attacks(from),
                Role::Bishop => attacks::bishop_attacks(from, occupied),
                Role::Rook => attacks::rook_attacks(from, occupied),
                _ => attacks::queen_attacks(from, occupied),
            };
            for to in reach & them {
                moves.push(Move::Normal {
                    role,
                    from,
                    capture: board.role_at(to),
                    to,
                    promotion: None,
                });
            }
        }
    }
    for to in attacks::king_attacks(king) & them {
        if board.attacks_to(to, !us, occupied).is_empty() {
            moves.push(Move::Normal {
                role: Role::King,
                from: king,
                capture: board.role_at(to),
                to,
                promotion: None,
            });
        }
    }
    // A piece pinned to the king moves only along the pin (en passant was checked already).
    let pinned = pinned(pos, king);
    if pinned.any() {
        moves.retain(|m| match *m {
            Move::Normal { from, to, .. } => {
                !pinned.contains(from) || attacks::aligned(from, to, king)
            }
            _ => true,
        });
    }
}

fn pawn_move(from: Square, to: Square, capture: Option<Role>, promotion: Option<Role>) -> Move {
    Move::Normal {
        role: Role::Pawn,
        from,
        capture,
        to,
        promotion,
    }
}

/// The pieces standing alone between `king` and an enemy slider that would otherwise attack
/// it (of either colour; only the side to move's matter).
fn pinned(pos: &Chess, king: Square) -> Bitboard {
    let board = pos.board();
    let enemy = board.by_color(!pos.turn());
    let snipers = (attacks::rook_attacks(king, Bitboard(0)) & (board.rooks() | board.queens()))
        | (attacks::bishop_attacks(king, Bitboard(0)) & (board.bishops() | board.queens()));
    let mut pinned = Bitboard(0);
    for sniper in snipers & enemy {
        let between = attacks::between(king, sniper) & board.occupied();
        if !between.more_than_one() {
            pinned |= between;
        }
    }
    pinned
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::position::Game;
    use crate::basics::rng::Lcg;
    use shakmaty::fen::Fen;

    fn filtered(pos: &Chess) -> Vec<Move> {
        pos.legal_moves()
            .into_iter()
            .filter(|m| m.is_capture() || m.is_promotion())
            .collect()
    }

    /// Random games from positions rich in captures, promotions, pins and en passant: at
    /// every position not in check, the direct generation gives the filtered legal moves in
    /// the same order.
    #[test]
    fn direct_generation_equals_filtered_legal_moves_in_order() {
        let starts = [
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
            "8/1P4k1/8/3pP3/8/8/5p2/K7 w - d6 0 1",
            "4k3/8/8/2KPp2r/8/8/8/8 w - e6 0 1",
            "1r2k2r/8/8/8/8/8/8/R3K2R b KQk - 0 1",
        ];
        let mut rng = Lcg(0x7AC7_1CA1);
        let (mut positions, mut moves, mut pins, mut passant) = (0, 0, 0, 0);
        for fen in starts {
            for _ in 0..60 {
                let mut pos = Game::from_fen(fen, false).unwrap().pos;
                for _ in 0..40 {
                    let legal = pos.legal_moves();
                    if legal.is_empty() {
                        break;
                    }
                    if !pos.is_check() {
                        let direct: Vec<Move> = tactical_moves(&pos).into_iter().collect();
                        assert_eq!(
                            direct,
                            filtered(&pos),
                            "{}",
                            Fen::from_position(&pos, shakmaty::EnPassantMode::Legal)
                        );
                        positions += 1;
                        moves += direct.len();
                        if let Some(k) = pos.board().king_of(pos.turn()) {
                            pins += usize::from(
                                (pinned(&pos, k) & pos.board().by_color(pos.turn())).any(),
                            );
                        }
                        passant += usize::from(direct.iter().any(|m| m.is_en_passant()));
                    }
                    // Captures twice as likely as their share, so material comes off.
                    let captures: Vec<Move> =
                        legal.iter().copied().filter(|m| m.is_capture()).collect();
                    let m = if !captures.is_empty() && rng.next_u31().is_multiple_of(2) {
                        captures[rng.next_u31() as usize % captures.len()]
                    } else {
                        legal[rng.next_u31() as usize % legal.len()]
                    };
                    pos.play_unchecked(m);
                }
            }
        }
        assert!(positions > 10_000 && moves > 20_000, "{positions} {moves}");
        assert!(
            pins > 500 && passant > 20,
            "pins {pins}, en passant {passant}"
        );
    }
}
