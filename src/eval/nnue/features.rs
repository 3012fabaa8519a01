//! The network's inputs: a piece on a square seen from one side (its own pieces first, its
//! first rank as rank 1), and where a side's inputs lie when they depend on its own king
//! (`KingLayout`: king buckets, files mirrored).

use shakmaty::{Board, Color, File, Piece, Square};

/// The inputs of one king bucket (all of them in a net without king buckets).
pub const INPUTS: usize = 768;

/// The input index of `piece` on `sq` seen from `perspective`: its own pieces first, and
/// Black's view flipped so that its first rank is rank 1.
pub fn feature(perspective: Color, sq: Square, piece: Piece) -> usize {
    let theirs = usize::from(piece.color != perspective);
    let sq = if perspective.is_white() {
        sq as usize
    } else {
        sq as usize ^ 56
    };
    theirs * 384 + (piece.role as usize - 1) * 64 + sq
}

/// How a perspective's inputs depend on its own king: `NONE` (the first nets: 768 inputs), or
/// the board seen with files mirrored whenever that king stands on files e-h, so that it is
/// always on a-d, and the 768 inputs repeated for each of 1, 2 or 4 buckets of the king's
/// mirrored square (seen from its own side, its first rank being rank 1):
/// - 1: one bucket (mirroring only);
/// - 2: the king on its first rank, or off it;
/// - 4: a1-b1 (castled short, mirrored, or long to b1), c1-d1 (at home or castled long), the
///   second rank, ranks 3-8.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct KingLayout(pub(super) u8);

/// Where a perspective's inputs lie for its king's square: `index` of an input of
/// `feature` is its bucket's offset plus the feature with its file mirrored or not.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct View {
    base: u16,
    flip: u16,
}

impl View {
    /// The first nets' inputs: the feature itself.
    pub const PLAIN: View = View { base: 0, flip: 0 };

    #[inline(always)]
    pub fn index(self, feature: usize) -> usize {
        usize::from(self.base) + (feature ^ usize::from(self.flip))
    }
}

impl KingLayout {
    pub const NONE: KingLayout = KingLayout(0);

    /// The layout of `buckets` king buckets (0: none; 1, 2 or 4).
    pub fn new(buckets: usize) -> Result<KingLayout, String> {
        match buckets {
            0 | 1 | 2 | 4 => Ok(KingLayout(buckets as u8)),
            _ => Err(format!(
                "unsupported king buckets {buckets} (0 for none, 1, 2 or 4)"
            )),
        }
    }

    /// The number of king buckets (0 when the inputs do not depend on the king).
    pub fn count(self) -> usize {
        usize::from(self.0)
    }

    /// The first layer's rows: 768 per bucket.
    pub fn inputs(self) -> usize {
        INPUTS * self.count().max(1)
    }

    /// The view of a perspective whose king stands on `king`, seen from that side (Black's
    /// view flipped so that its first rank is rank 1, as `feature` does).
    #[inline]
    pub fn view(self, king: Square) -> View {
        if self.0 == 0 {
            return View::PLAIN;
        }
        let flip = if king.file() >= File::E { 7 } else { 0 };
        let k = king as usize ^ flip;
        let (rank, file) = (k / 8, k % 8);
        let bucket = match self.0 {
            1 => 0,
            2 => usize::from(rank > 0),
            _ => match (rank, file) {
                (0, 0 | 1) => 0,
                (0, _) => 1,
                (1, _) => 2,
                _ => 3,
            },
        };
        // At most 3 x 768 and 7: both fit 16 bits, so a pair of views is one word to copy.
        View {
            base: (bucket * INPUTS) as u16,
            flip: flip as u16,
        }
    }

    /// The view of `perspective` on `board` (a board without that king takes a1's).
    #[inline]
    pub fn view_of(self, perspective: Color, board: &Board) -> View {
        if self.0 == 0 {
            return View::PLAIN;
        }
        self.view_at(
            perspective,
            board.king_of(perspective).unwrap_or(Square::A1),
        )
    }

    /// The view of `perspective` with its king on `king` (a square of the board).
    #[inline]
    pub fn view_at(self, perspective: Color, king: Square) -> View {
        self.view(oriented(perspective, king))
    }
}

/// A square seen from `perspective`: Black's flipped so that its first rank is rank 1.
#[inline(always)]
fn oriented(perspective: Color, sq: Square) -> Square {
    if perspective.is_white() {
        sq
    } else {
        sq.flip_vertical()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::Role;

    #[test]
    fn features_mirror_between_the_two_sides() {
        let p = Piece {
            color: Color::White,
            role: Role::Knight,
        };
        assert_eq!(feature(Color::White, Square::G1, p), 64 + 6);
        // White's knight on g1 is, for Black, an enemy knight on its own side's g8.
        assert_eq!(feature(Color::Black, Square::G1, p), 384 + 64 + 62);
    }

    /// Each side sees its king on files a-d (the board mirrored when it is on e-h), in the
    /// bucket of that mirrored square from its own side.
    #[test]
    fn king_buckets_see_the_board_from_the_kings_side() {
        let view = |base: usize, flip: u16| View {
            base: base as u16,
            flip,
        };
        let four = KingLayout::new(4).unwrap();
        let white = |sq| four.view_at(Color::White, sq);
        assert_eq!(white(Square::G1), view(0, 7));
        assert_eq!(white(Square::B1), view(0, 0));
        assert_eq!(white(Square::E1), view(INPUTS, 7));
        assert_eq!(white(Square::C1), view(INPUTS, 0));
        assert_eq!(white(Square::H2), view(2 * INPUTS, 7));
        assert_eq!(white(Square::D5), view(3 * INPUTS, 0));
        assert_eq!(white(Square::E8), view(3 * INPUTS, 7));
        // Black's king on g8 stands on its own g1.
        assert_eq!(four.view_at(Color::Black, Square::G8), white(Square::G1));
        assert_eq!(four.view_at(Color::Black, Square::E8), white(Square::E1));
        assert_eq!(four.view_at(Color::Black, Square::A1), white(Square::A8));
        let two = KingLayout::new(2).unwrap();
        assert_eq!(two.view_at(Color::White, Square::H1), view(0, 7));
        assert_eq!(two.view_at(Color::White, Square::A3), view(INPUTS, 0));
        assert_eq!(two.view_at(Color::Black, Square::A7), view(INPUTS, 0));
        assert_eq!(two.view_at(Color::Black, Square::F8), view(0, 7));
        let one = KingLayout::new(1).unwrap();
        assert_eq!(one.view_at(Color::White, Square::H8), view(0, 7));
        assert_eq!(one.view_at(Color::White, Square::D4), view(0, 0));
        assert_eq!(
            KingLayout::NONE.view_at(Color::White, Square::H8),
            View::PLAIN
        );
        // A knight on g1, seen by White with its king on e1, is a knight on b1 in bucket 1.
        let knight = Piece {
            color: Color::White,
            role: shakmaty::Role::Knight,
        };
        assert_eq!(
            white(Square::E1).index(feature(Color::White, Square::G1, knight)),
            INPUTS + feature(Color::White, Square::B1, knight)
        );
        // Every bucket is some square's, and its inputs lie within the layout's.
        for layout in [KingLayout::NONE, one, two, four] {
            let mut bases: Vec<usize> = Square::ALL
                .iter()
                .map(|&sq| usize::from(layout.view_at(Color::White, sq).base))
                .collect();
            bases.sort_unstable();
            bases.dedup();
            assert_eq!(bases.len(), layout.count().max(1));
            assert_eq!(bases.last().map(|b| b + INPUTS), Some(layout.inputs()));
        }
        assert!(KingLayout::new(3).is_err() && KingLayout::new(8).is_err());
    }
}
