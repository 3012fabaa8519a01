//! A game position: shakmaty's `Chess`, its castling notation, and the Zobrist keys of the
//! positions that led to it (for repetition draws).

use super::changes::Changes;
use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::zobrist::{Zobrist64, ZobristValue};
use shakmaty::{
    Bitboard, Castles, CastlingMode, CastlingSide, Chess, Color, EnPassantMode, Move, Piece,
    Position as _, PositionError, PositionErrorKinds, Square, attacks,
};

/// The position's Zobrist key; en passant counts only when a capture is legal, so positions
/// that differ only by an unusable en passant square repeat.
pub fn zobrist(pos: &Chess) -> u64 {
    pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0
}

/// The key of one piece on one square.
fn piece_key(sq: Square, piece: Piece) -> u64 {
    Zobrist64::zobrist_for_piece(sq, piece).0
}

/// The part of the key that stands for the castling rights.
fn castling_key(castles: &Castles) -> u64 {
    let mut key = 0;
    for color in Color::ALL {
        for side in CastlingSide::ALL {
            if castles.has(color, side) {
                key ^= Zobrist64::zobrist_for_castling_right(color, side).0;
            }
        }
    }
    key
}

/// The part of the key that stands for en passant: a file, only when the capture is legal.
fn en_passant_key(pos: &Chess) -> u64 {
    // The cheap test first: most positions have no en passant square at all.
    if pos.maybe_ep_square().is_none() {
        return 0;
    }
    pos.legal_ep_square()
        .map_or(0, |sq| Zobrist64::zobrist_for_en_passant_file(sq.file()).0)
}

/// The key of `child`, reached from `parent` (whose key is `key`) by `m`, updated from the
/// parent's: the pieces that moved, the turn, and the castling and en passant parts when
/// they change.
pub fn child_zobrist(parent: &Chess, key: u64, m: Move, child: &Chess) -> u64 {
    let us = parent.turn();
    let mut key = key ^ Zobrist64::zobrist_for_white_turn().0 ^ en_passant_key(parent);
    if let Move::Put { .. } = m {
        return zobrist(child);
    }
    // The pieces that moved (a Chess960 king or rook that stays where it is comes off and
    // goes back on its square, and the two terms cancel).
    let moved = Changes::of_move(us, m);
    for &(piece, sq) in moved.removed().iter().chain(moved.added()) {
        key ^= piece_key(sq, piece);
    }
    // Only a double push leaves an en passant square behind.
    key ^= en_passant_key(child);
    let (before, after) = (parent.castles(), child.castles());
    if before.castling_rights() != after.castling_rights() {
        key ^= castling_key(before) ^ castling_key(after);
    }
    key
}

/// The key after a null move from `pos` (whose key is `key`): the other side to move and
/// no en passant square.
pub fn null_zobrist(pos: &Chess, key: u64) -> u64 {
    key ^ Zobrist64::zobrist_for_white_turn().0 ^ en_passant_key(pos)
}

/// Whether `m` checks the opponent's king, worked out without making it; `None` for castling
/// and en passant, where the caller makes the move to see.
pub fn gives_check(pos: &Chess, m: Move) -> Option<bool> {
    let Move::Normal {
        role,
        from,
        to,
        promotion,
        ..
    } = m
    else {
        return None;
    };
    let us = pos.turn();
    let board = pos.board();
    let Some(king) = board.king_of(!us) else {
        return Some(false);
    };
    let occupied = (board.occupied() ^ Bitboard::from(from)) | Bitboard::from(to);
    // Directly, by the piece on its new square.
    let moved = promotion.unwrap_or(role).of(us);
    if attacks::attacks(to, moved, occupied).contains(king) {
        return Some(true);
    }
    // Or by one of our sliders whose line the move opened; no other piece of ours can
    // newly reach the king.
    let ours = board.by_color(us) ^ Bitboard::from(from);
    let diagonal = (board.bishops() | board.queens()) & ours;
    let straight = (board.rooks() | board.queens()) & ours;
    let lines = (attacks::bishop_attacks(king, occupied) & diagonal)
        | (attacks::rook_attacks(king, occupied) & straight);
    Some(lines.any())
}

/// Repetition draw for the last of `keys` (which reach back to the last irreversible move at
/// most `halfmoves` plies). A position repeated inside the search tree (at most `ply` plies
/// back) is a draw at once, since the side that could avoid it did not; one that only
/// repeats positions from before the root needs two earlier occurrences, a real threefold.
pub fn is_repetition_draw(keys: &[u64], halfmoves: u32, ply: usize) -> bool {
    let n = keys.len();
    let current = keys[n - 1];
    let reach = (halfmoves as usize).min(n - 1);
    let mut earlier = 0;
    for back in (4..=reach).step_by(2) {
        if keys[n - 1 - back] == current {
            if back <= ply {
                return true;
            }
            earlier += 1;
            if earlier >= 2 {
                return true;
            }
        }
    }
    false
}

/// Whether `pos`, the last of `keys`, is drawn by rule `ply` plies below the search's root:
/// by repetition, by insufficient material, or by the fifty-move rule unless this is mate.
pub fn is_draw_by_rule(pos: &Chess, keys: &[u64], ply: usize) -> bool {
    is_repetition_draw(keys, pos.halfmoves(), ply)
        || pos.is_insufficient_material()
        || (pos.halfmoves() >= 100 && !pos.is_checkmate())
}

#[derive(Clone, Debug)]
pub struct Game {
    pub pos: Chess,
    pub mode: CastlingMode,
    /// Keys of earlier positions, oldest first; the current position's key is not included.
    pub past_keys: Vec<u64>,
}

pub const STARTPOS: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

impl Default for Game {
    fn default() -> Game {
        Game {
            pos: Chess::default(),
            mode: CastlingMode::Standard,
            past_keys: Vec::new(),
        }
    }
}

/// Accepts a position whose only faults are tolerated ones, dropping impossible castling
/// rights and en passant squares.
fn drop_tolerated(e: PositionError<Chess>) -> Result<Chess, Box<PositionError<Chess>>> {
    let e = match e.ignore_impossible_check() {
        Ok(p) => return Ok(p),
        Err(e) => e,
    };
    let e = match e.ignore_invalid_castling_rights() {
        Ok(p) => return Ok(p),
        Err(e) => e,
    };
    e.ignore_invalid_ep_square().map_err(Box::new)
}

impl Game {
    /// Parses a FEN (4 to 6 fields, X-FEN or Shredder-FEN castling). Positions that are legal
    /// but cannot arise in a game (a double check by two bishops) are accepted; so is a FEN
    /// whose castling rights or en passant square are impossible, with those dropped.
    pub fn from_fen(fen: &str, chess960: bool) -> Result<Game, String> {
        let parsed: Fen = fen
            .trim()
            .parse()
            .map_err(|e| format!("invalid FEN '{}': {e}", fen.trim()))?;
        let mut mode = if chess960 {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        let tolerated = PositionErrorKinds::IMPOSSIBLE_CHECK
            | PositionErrorKinds::INVALID_CASTLING_RIGHTS
            | PositionErrorKinds::INVALID_EP_SQUARE;
        let pos = match parsed.clone().into_position::<Chess>(mode) {
            Ok(p) => p,
            Err(e) => {
                // Castling rights written as file letters (Shredder-FEN, X-FEN inner rooks)
                // are Chess960 even when the GUI did not say so; plain KQkq rights that do
                // not fit the board are dropped below instead.
                let kinds = e.kinds();
                let file_letters = fen
                    .split_whitespace()
                    .nth(2)
                    .is_some_and(|c| c.chars().any(|ch| !"KQkq-".contains(ch)));
                let as_960 = (kinds.contains(PositionErrorKinds::INVALID_CASTLING_RIGHTS)
                    && !chess960
                    && file_letters)
                    .then(|| {
                        parsed
                            .clone()
                            .into_position::<Chess>(CastlingMode::Chess960)
                            .ok()
                    })
                    .flatten();
                if let Some(p) = as_960 {
                    mode = CastlingMode::Chess960;
                    p
                } else if (kinds & !tolerated).is_empty() {
                    drop_tolerated(e)
                        .map_err(|e| format!("illegal position '{}': {e}", fen.trim()))?
                } else {
                    return Err(format!("illegal position '{}': {e}", fen.trim()));
                }
            }
        };
        Ok(Game {
            pos,
            mode,
            past_keys: Vec::new(),
        })
    }

    pub fn key(&self) -> u64 {
        zobrist(&self.pos)
    }

    /// Plays a legal move, remembering the key of the position it leaves.
    pub fn play(&mut self, m: Move) {
        self.past_keys.push(self.key());
        self.pos.play_unchecked(m);
    }

    /// Plays `0000`: the other side moves next. Not allowed in check (the king would be taken).
    fn play_null(&mut self) -> Result<(), String> {
        if self.pos.is_check() {
            return Err("null move '0000' while in check".to_string());
        }
        let setup_pos = self
            .pos
            .clone()
            .swap_turn()
            .map_err(|_| "null move '0000' is not possible here".to_string())?;
        // A null move is irreversible for repetition purposes: nothing before it can recur.
        self.past_keys.clear();
        self.pos = setup_pos;
        Ok(())
    }

    /// Parses one UCI move token in this position, naming the token when it is malformed or
    /// illegal.
    pub fn parse_move(&self, token: &str) -> Result<Move, String> {
        let uci: UciMove = token
            .parse()
            .map_err(|_| format!("malformed move '{token}'"))?;
        uci.to_move(&self.pos)
            .map_err(|_| format!("illegal move '{token}'"))
    }

    /// Applies UCI move tokens in order up to the first malformed or illegal one. The moves
    /// before it stay played: a GUI that sends a broken list most likely played that far (as
    /// other engines read it too). The error names the bad token and its 0-based index.
    pub fn apply_moves<S: AsRef<str>>(&mut self, tokens: &[S]) -> Result<(), String> {
        for (index, t) in tokens.iter().enumerate() {
            let t = t.as_ref();
            let played = if t == "0000" {
                self.play_null()
            } else {
                self.parse_move(t).map(|m| self.play(m))
            };
            if let Err(e) = played {
                return Err(format!(
                    "{e} at index {index} of the move list; kept the position after the {index} \
                     move(s) before it, ignored {} token(s) from there",
                    tokens.len() - index
                ));
            }
        }
        Ok(())
    }

    /// How a move is written on the wire: `e1g1`, or `e1h1` in Chess960.
    pub fn uci(&self, m: Move) -> String {
        m.to_uci(self.mode).to_string()
    }

    /// Keys of the positions a repetition could reach back to: since the last irreversible
    /// move, oldest first, then the current key.
    pub fn repetition_keys(&self) -> Vec<u64> {
        let reach = (self.pos.halfmoves() as usize).min(self.past_keys.len());
        let mut keys = self.past_keys[self.past_keys.len() - reach..].to_vec();
        keys.push(self.key());
        keys
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    #[test]
    fn child_keys_match_keys_computed_afresh() {
        use shakmaty::fen::Fen;
        // Castling, en passant, double pushes, promotions and captures all occur here.
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
        ] {
            let pos: Chess = fen
                .parse::<Fen>()
                .unwrap()
                .into_position(CastlingMode::Standard)
                .unwrap();
            let key = zobrist(&pos);
            for m in pos.legal_moves() {
                let mut child = pos.clone();
                child.play_unchecked(m);
                assert_eq!(
                    child_zobrist(&pos, key, m, &child),
                    zobrist(&child),
                    "{m:?}"
                );
            }
        }
    }

    /// Plays seeded random games from `fen`, preferring castling, en passant, promotions and
    /// double pushes when there are any and passing now and then, and checks the updated key
    /// against the full hash and the check test against the move made, at every ply.
    /// Returns how many castlings, en passant captures, promotions and null moves it played.
    fn random_games(fen: &str, mode: CastlingMode, seed: u64) -> [usize; 4] {
        use crate::basics::rng::Lcg;
        let mut rng = Lcg(seed);
        let mut seen = [0; 4];
        let start: Chess = fen.parse::<Fen>().unwrap().into_position(mode).unwrap();
        for _ in 0..20 {
            let mut pos = start.clone();
            let mut key = zobrist(&pos);
            for _ in 0..120 {
                let moves = pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                for &m in &moves {
                    let mut child = pos.clone();
                    child.play_unchecked(m);
                    if let Some(check) = gives_check(&pos, m) {
                        assert_eq!(check, child.is_check(), "{m:?} in {fen}");
                    }
                }
                if !pos.is_check() && rng.next_u31().is_multiple_of(8) {
                    let passed = pos.clone().swap_turn().unwrap();
                    key = null_zobrist(&pos, key);
                    pos = passed;
                    assert_eq!(key, zobrist(&pos), "null move in {fen}");
                    seen[3] += 1;
                    continue;
                }
                let special: Vec<Move> = moves
                    .iter()
                    .copied()
                    .filter(|m| {
                        m.is_castle()
                            || m.is_en_passant()
                            || m.is_promotion()
                            || (m.role() == Role::Pawn
                                && m.from().is_some_and(|f| f.distance(m.to()) == 2))
                    })
                    .collect();
                let m = if !special.is_empty() && rng.next_u31().is_multiple_of(2) {
                    special[rng.next_u31() as usize % special.len()]
                } else {
                    moves[rng.next_u31() as usize % moves.len()]
                };
                seen[0] += usize::from(m.is_castle());
                seen[1] += usize::from(m.is_en_passant());
                seen[2] += usize::from(m.is_promotion());
                let mut child = pos.clone();
                child.play_unchecked(m);
                key = child_zobrist(&pos, key, m, &child);
                pos = child;
                assert_eq!(key, zobrist(&pos), "{m:?} in a game from {fen}");
            }
        }
        seen
    }

    #[test]
    fn updated_keys_equal_full_hashes_through_random_games() {
        let mut seen = [0; 4];
        let standard = [
            STARTPOS,
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            // En passant that is not legal: the pawn that could take is pinned.
            "8/8/8/8/k2Pp2Q/8/8/3K4 b - d3 0 1",
        ];
        let chess960 = [
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            // Kings next to their rooks: castling lands the king on the rook's square.
            "rkrbbnnq/pppppppp/8/8/8/8/PPPPPPPP/RKRBBNNQ w CAca - 0 1",
            "qnbbrnkr/pppppppp/8/8/8/8/PPPPPPPP/QNBBRNKR w HEhe - 0 1",
            "1r2k2r/8/8/8/8/8/8/1R2K2R w BHbh - 0 1",
        ];
        for (i, fen) in standard.iter().enumerate() {
            let s = random_games(fen, CastlingMode::Standard, i as u64 + 1);
            seen.iter_mut().zip(s).for_each(|(a, b)| *a += b);
        }
        for (i, fen) in chess960.iter().enumerate() {
            let s = random_games(fen, CastlingMode::Chess960, i as u64 + 100);
            seen.iter_mut().zip(s).for_each(|(a, b)| *a += b);
        }
        // Every kind of move the update treats apart was played.
        assert!(seen.iter().all(|&n| n >= 5), "{seen:?}");
    }

    #[test]
    fn a_discovered_check_and_a_promotion_check_are_seen_before_the_move() {
        // The knight leaving d4 uncovers the queen's check along the long diagonal; the rook
        // checks from c8 but not from c2; b7-b8=Q checks along the rank, b7-b8=N does not.
        let pos: Chess = "7k/1P6/8/8/3N4/8/8/Q1R1K3 w - - 0 1"
            .parse::<Fen>()
            .unwrap()
            .into_position(CastlingMode::Standard)
            .unwrap();
        let mv = |u: &str| u.parse::<UciMove>().unwrap().to_move(&pos).unwrap();
        assert_eq!(gives_check(&pos, mv("d4e6")), Some(true));
        assert_eq!(gives_check(&pos, mv("c1c8")), Some(true));
        assert_eq!(gives_check(&pos, mv("c1c2")), Some(false));
        assert_eq!(gives_check(&pos, mv("b7b8q")), Some(true));
        assert_eq!(gives_check(&pos, mv("b7b8n")), Some(false));
        assert_eq!(gives_check(&pos, mv("e1d2")), Some(false));
    }

    #[test]
    fn bad_fen_is_an_error_naming_it() {
        let e = Game::from_fen("rnbqkbnr/pppppppp/8/8 w KQkq - 0 1", false).unwrap_err();
        assert!(e.contains("rnbqkbnr/pppppppp/8/8"), "{e}");
        assert!(Game::from_fen("8/8/8/8/8/8/8/8 w - - 0 1", false).is_err());
    }

    #[test]
    fn four_field_and_shredder_fens_parse() {
        assert!(Game::from_fen("4k3/8/8/8/8/8/8/4K3 w - -", false).is_ok());
        let g = Game::from_fen(
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            false,
        )
        .unwrap();
        assert_eq!(g.mode, CastlingMode::Chess960);
    }

    #[test]
    fn impossible_kqkq_rights_are_dropped_not_read_as_chess960() {
        let g = Game::from_fen("4k3/8/8/8/8/8/8/4K1R1 w K - 0 1", false).unwrap();
        assert_eq!(g.mode, CastlingMode::Standard);
        assert!(g.parse_move("e1g1").is_err());
        assert_eq!(fen_of(&g), "4k3/8/8/8/8/8/8/4K1R1 w - - 0 1");
    }

    #[test]
    fn impossible_double_check_is_accepted() {
        let fen = "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1";
        let g = Game::from_fen(fen, false).unwrap();
        assert_eq!(fen_of(&g), fen);
        assert!(g.pos.is_check());
    }

    fn fen_of(g: &Game) -> String {
        Fen::from_position(&g.pos, EnPassantMode::Legal).to_string()
    }

    /// Drawn by rule: bare kings; fifty moves (a hundred plies) unless the last one mates.
    #[test]
    fn draws_by_rule_are_insufficient_material_and_fifty_moves_without_mate() {
        let draw = |fen: &str| {
            let g = Game::from_fen(fen, false).unwrap();
            is_draw_by_rule(&g.pos, &[1], 0)
        };
        assert!(draw("8/8/4k3/8/8/4K3/8/8 w - - 0 1"));
        assert!(!draw("8/8/4k3/8/8/4K3/4P3/8 w - - 99 80"));
        assert!(draw("8/8/4k3/8/8/4K3/4P3/8 w - - 100 80"));
        // Mated on the hundredth ply: the mate stands.
        assert!(!draw("R5k1/5ppp/8/8/8/8/8/6K1 b - - 100 80"));
        assert!(draw("6k1/5ppp/8/8/8/8/8/R5K1 b - - 100 80"));
    }

    #[test]
    fn an_illegal_move_keeps_the_legal_prefix_and_names_the_token_and_index() {
        let mut g = Game::default();
        g.apply_moves(&["e2e4"]).unwrap();
        let e = g.apply_moves(&["e7e5", "e1e3", "d2d4"]).unwrap_err();
        assert!(e.contains("'e1e3' at index 1"), "{e}");
        assert!(e.contains("ignored 2 token(s)"), "{e}");
        // e7e5 was played, e1e3 and d2d4 were not.
        assert_eq!(
            fen_of(&g),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        assert_eq!(g.past_keys.len(), 2);
        let before = g.key();
        let e = g.apply_moves(&["e7e9"]).unwrap_err();
        assert!(e.contains("malformed move 'e7e9' at index 0"), "{e}");
        assert_eq!(g.key(), before);
    }

    #[test]
    fn null_move_passes_the_turn() {
        let mut g = Game::default();
        g.apply_moves(&["e2e4", "0000", "d2d4"]).unwrap();
        assert_eq!(
            Fen::from_position(&g.pos, EnPassantMode::Legal).to_string(),
            "rnbqkbnr/pppppppp/8/8/3PP3/8/PPP2PPP/RNBQKBNR b KQkq - 0 1"
        );
    }

    #[test]
    fn null_move_in_check_is_refused_and_keeps_the_moves_before_it() {
        // After e2e4 f7f6 d1h5, Black is in check: passing is not a move.
        let mut g = Game::default();
        let e = g
            .apply_moves(&["e2e4", "f7f6", "d1h5", "0000", "g7g6"])
            .unwrap_err();
        assert!(
            e.starts_with("null move '0000' while in check at index 3"),
            "{e}"
        );
        assert!(g.pos.is_check());
        assert_eq!(g.past_keys.len(), 3);
    }

    #[test]
    fn repetition_keys_reach_back_to_the_last_irreversible_move() {
        let mut g = Game::default();
        g.apply_moves(&["e2e4", "e7e5", "g1f3", "b8c6", "f3g1", "c6b8"])
            .unwrap();
        let keys = g.repetition_keys();
        assert_eq!(keys.len(), 5);
        assert_eq!(keys[0], keys[4]);
    }

    /// A repetition inside the search tree is a draw at once; one of positions before the
    /// root only as a threefold; only even distances within the halfmove clock count.
    #[test]
    fn repetitions_in_the_tree_draw_at_once_and_before_the_root_at_the_third() {
        let (a, b, c, d) = (11, 22, 33, 44);
        let twice = [a, b, c, d, a];
        // The earlier occurrence 4 plies back lies inside a tree of 4 plies: drawn.
        assert!(is_repetition_draw(&twice, 4, 4));
        assert!(is_repetition_draw(&twice, 4, 6));
        // Before the root (a tree of 3 plies or none): a second occurrence is not enough.
        assert!(!is_repetition_draw(&twice, 4, 3));
        assert!(!is_repetition_draw(&twice, 4, 0));
        // A third occurrence is, wherever the earlier two are.
        let thrice = [a, b, c, d, a, b, c, d, a];
        assert!(is_repetition_draw(&thrice, 8, 0));
        // The clock bounds the look back: an irreversible move 3 plies ago hides both.
        assert!(!is_repetition_draw(&thrice, 3, 8));
        // Only positions with the same side to move (an even distance) count.
        let e = 55;
        assert!(!is_repetition_draw(&[a, b, c, d, e, a], 5, 8));
    }
}
