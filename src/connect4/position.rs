//! A Connect-Four position (7 columns x 6 rows) in two bitboards: the stones of the side to
//! move and the mask of all stones. A move is one addition, a win test a few shifts, and
//! `stones + mask` is a key no two positions share.

/// Columns and rows of the board.
pub const WIDTH: usize = 7;
pub const HEIGHT: usize = 6;
/// Cells of the board: the most moves a game can have.
pub const CELLS: u32 = (WIDTH * HEIGHT) as u32;

// Bit layout: column c holds bits 7c .. 7c+5 from the bottom up; bit 7c+6 is always empty,
// so a vertical or diagonal run that would wrap into the next column meets an empty bit.
//
//   row 5:  5 12 19 26 33 40 47
//   ...
//   row 0:  0  7 14 21 28 35 42
const STRIDE: usize = HEIGHT + 1;
/// Keys are below 2^KEY_BITS.
pub const KEY_BITS: u32 = (WIDTH * STRIDE) as u32;

const fn bottom_row() -> u64 {
    let mut b = 0;
    let mut c = 0;
    while c < WIDTH {
        b |= 1 << (c * STRIDE);
        c += 1;
    }
    b
}

/// The lowest cell of every column.
const BOTTOM: u64 = bottom_row();
/// Every cell of the board.
const BOARD: u64 = BOTTOM * ((1 << HEIGHT) - 1);

const fn column_mask(col: usize) -> u64 {
    ((1 << HEIGHT) - 1) << (col * STRIDE)
}

const fn top_cell(col: usize) -> u64 {
    1 << (HEIGHT - 1 + col * STRIDE)
}

/// The cells that would complete four in a line for `stones`, among the cells not in `mask`.
pub fn winning_cells(stones: u64, mask: u64) -> u64 {
    let p = stones;
    // Vertical: three stones stacked right below.
    let mut r = (p << 1) & (p << 2) & (p << 3);
    // Horizontal (7) and the two diagonals (6, 8): the cell may be at either end of the
    // line or in one of the two inner places.
    for s in [STRIDE, STRIDE - 1, STRIDE + 1] {
        let below = (p << s) & (p << (2 * s));
        r |= below & (p << (3 * s));
        r |= below & (p >> s);
        let above = (p >> s) & (p >> (2 * s));
        r |= above & (p >> (3 * s));
        r |= above & (p << s);
    }
    r & (BOARD ^ mask)
}

/// Whether `stones` hold four in a line.
pub fn has_four(stones: u64) -> bool {
    [1, STRIDE, STRIDE - 1, STRIDE + 1].into_iter().any(|s| {
        let pairs = stones & (stones >> s);
        pairs & (pairs >> (2 * s)) != 0
    })
}

/// Why a line of moves is not a game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    NotAColumn { index: usize, token: char },
    ColumnFull { index: usize, column: usize },
    GameOver { index: usize },
}

impl std::fmt::Display for MoveError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match *self {
            MoveError::NotAColumn { index, token } => {
                write!(f, "move {index} '{token}' is not a column 1-7")
            }
            MoveError::ColumnFull { index, column } => {
                write!(f, "move {index}: column {column} is full")
            }
            MoveError::GameOver { index } => {
                write!(f, "move {index} comes after the game was won")
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub struct Position {
    /// Stones of the side to move.
    current: u64,
    /// All stones.
    mask: u64,
    moves: u32,
}

impl Position {
    /// The position after `line` (columns '1'..'7' from the empty board). The last move may
    /// win; a move after that, a full column or any other character is an error.
    pub fn from_moves(line: &str) -> Result<Position, MoveError> {
        let mut pos = Position::default();
        for (i, token) in line.chars().enumerate() {
            let index = i + 1;
            if pos.is_lost() {
                return Err(MoveError::GameOver { index });
            }
            let col = match token.to_digit(10) {
                Some(d @ 1..=7) => d as usize - 1,
                _ => return Err(MoveError::NotAColumn { index, token }),
            };
            if !pos.can_play(col) {
                return Err(MoveError::ColumnFull {
                    index,
                    column: col + 1,
                });
            }
            pos.play_col(col);
        }
        Ok(pos)
    }

    pub fn moves(&self) -> u32 {
        self.moves
    }

    /// Stones the side to move has on the board.
    pub fn current(&self) -> u64 {
        self.current
    }

    pub fn mask(&self) -> u64 {
        self.mask
    }

    /// Unique: the mask marks each column's height by its first empty bit once the side to
    /// move's stones are added.
    pub fn key(&self) -> u64 {
        self.current + self.mask
    }

    pub fn can_play(&self, col: usize) -> bool {
        self.mask & top_cell(col) == 0
    }

    /// The cell a stone dropped in `col` lands on (the column must not be full).
    pub fn drop_cell(&self, col: usize) -> u64 {
        (self.mask + (1 << (col * STRIDE))) & column_mask(col)
    }

    /// Plays the stone at `cell`, one of `playable()`.
    pub fn play(&mut self, cell: u64) {
        self.current ^= self.mask;
        self.mask |= cell;
        self.moves += 1;
    }

    /// Takes back the stone at `cell`, the last one played.
    pub fn undo(&mut self, cell: u64) {
        self.mask ^= cell;
        self.current ^= self.mask;
        self.moves -= 1;
    }

    pub fn play_col(&mut self, col: usize) {
        self.play(self.drop_cell(col));
    }

    /// The cells of `col`.
    pub fn column_cells(&self, col: usize) -> u64 {
        column_mask(col)
    }

    /// The top stone of `col`, for taking it back.
    pub fn top_stone(&self, col: usize) -> u64 {
        let stones = self.mask & column_mask(col);
        if stones == 0 {
            0
        } else {
            1 << (63 - stones.leading_zeros())
        }
    }

    /// The cells a stone can be dropped on now, one per column that is not full.
    pub fn playable(&self) -> u64 {
        (self.mask + BOTTOM) & BOARD
    }

    /// Whether the last move made four in a line: the side to move has lost.
    pub fn is_lost(&self) -> bool {
        has_four(self.current ^ self.mask)
    }

    pub fn is_full(&self) -> bool {
        self.moves == CELLS
    }

    /// Cells where the side to move would complete four.
    pub fn own_wins(&self) -> u64 {
        winning_cells(self.current, self.mask)
    }

    /// Cells where the opponent would complete four.
    pub fn opponent_wins(&self) -> u64 {
        winning_cells(self.current ^ self.mask, self.mask)
    }

    pub fn can_win_next(&self) -> bool {
        self.own_wins() & self.playable() != 0
    }

    /// Whether dropping a stone in `col` wins at once.
    pub fn is_winning_move(&self, col: usize) -> bool {
        self.own_wins() & self.drop_cell(col) != 0
    }

    /// The playable cells that do not lose at once, when the side to move cannot win now:
    /// a cell the opponent would win on must be taken (two such cells cannot both be, so
    /// none is left), and no stone goes right under a cell the opponent would win on.
    pub fn non_losing_moves(&self) -> u64 {
        let mut playable = self.playable();
        let threats = self.opponent_wins();
        let forced = playable & threats;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            playable = forced;
        }
        playable & !(threats >> 1)
    }

    /// How many cells the side to move would threaten to win on after playing `cell`.
    pub fn threats_after(&self, cell: u64) -> u32 {
        winning_cells(self.current | cell, self.mask | cell).count_ones()
    }

    /// The column of a one-cell bitboard.
    pub fn column_of(cell: u64) -> usize {
        cell.trailing_zeros() as usize / STRIDE
    }

    /// The stone on (col, row) from the bottom: Some(true) for the side to move's, Some(false)
    /// for the opponent's.
    pub fn stone(&self, col: usize, row: usize) -> Option<bool> {
        let bit = 1u64 << (col * STRIDE + row);
        (self.mask & bit != 0).then_some(self.current & bit != 0)
    }

    /// Whether the first player (the one who opened the game) is to move.
    pub fn first_player_to_move(&self) -> bool {
        self.moves.is_multiple_of(2)
    }
}

/// The score of a lost position for the side to move: the winner has just played its last
/// stone, its (moves + 1) / 2-th.
pub fn loss_score(moves: u32) -> i32 {
    -(22 - (moves as i32 + 1) / 2)
}

/// The score of winning with the next stone, for the side to move after `moves` moves.
pub fn win_now_score(moves: u32) -> i32 {
    (CELLS as i32 + 1 - moves as i32) / 2
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `winning_cells` against the plain way: for every empty cell, put a stone there and
    /// look for four in a row through it along each of the four lines, by coordinates. Over
    /// random boards, so that every direction and every place of the gap in a line comes up.
    #[test]
    fn winning_cells_are_the_empty_cells_that_complete_four_in_any_line() {
        let cell = |c: i32, r: i32| -> Option<u64> {
            ((0..WIDTH as i32).contains(&c) && (0..HEIGHT as i32).contains(&r))
                .then(|| 1u64 << (c as usize * STRIDE + r as usize))
        };
        let mut rng = crate::basics::rng::Lcg(17);
        let (mut found, mut by_direction) = (0, [0; 4]);
        for _ in 0..3000 {
            // Columns filled to random heights, each stone ours or theirs: stones stand on
            // each other, as in a game (a vertical four is completed only on its top).
            let (mut ours, mut mask) = (0u64, 0u64);
            for c in 0..WIDTH as i32 {
                let height = (rng.next_u31() % (HEIGHT as u64 + 1)) as i32;
                for r in 0..height {
                    let bit = cell(c, r).unwrap_or(0);
                    mask |= bit;
                    if rng.next_u31().is_multiple_of(2) {
                        ours |= bit;
                    }
                }
            }
            let mut expected = 0u64;
            for c in 0..WIDTH as i32 {
                for r in 0..HEIGHT as i32 {
                    let Some(bit) = cell(c, r) else { continue };
                    if mask & bit != 0 {
                        continue;
                    }
                    let with = ours | bit;
                    let has = |c: i32, r: i32| cell(c, r).is_some_and(|b| with & b != 0);
                    for (d, (dc, dr)) in [(0, 1), (1, 0), (1, 1), (1, -1)].into_iter().enumerate() {
                        // The four-cell windows along this line that hold (c, r).
                        let four = (-3..=0).any(|start| {
                            (0..4).all(|k| has(c + dc * (start + k), r + dr * (start + k)))
                        });
                        if four {
                            expected |= bit;
                            by_direction[d] += 1;
                        }
                    }
                }
            }
            assert_eq!(
                winning_cells(ours, mask),
                expected,
                "ours {ours:#x} mask {mask:#x}"
            );
            found += expected.count_ones();
        }
        assert!(
            found > 1000 && by_direction.iter().all(|&n| n > 100),
            "{found} winning cells, by direction {by_direction:?}"
        );
    }

    fn pos(line: &str) -> Position {
        match Position::from_moves(line) {
            Ok(p) => p,
            Err(e) => panic!("{line}: {e}"),
        }
    }

    #[test]
    fn four_in_a_line_is_found_in_every_direction() {
        // Vertical, horizontal, and both diagonals for the first player (who just moved).
        for line in ["1212121", "1122334", "12233434544", "76655454344"] {
            assert!(pos(line).is_lost(), "{line}");
            assert!(!pos(&line[..line.len() - 1]).is_lost(), "{line}");
        }
    }

    #[test]
    fn a_run_does_not_wrap_from_one_column_into_the_next() {
        // First player: column 1 rows 3-5 and column 2 row 0 are bits 3, 4, 5 and 7, with
        // the always-empty bit 6 between them: not a line.
        let p = pos("21716116171");
        // The mask holds every stone played: the opponent's are the mask less ours.
        assert_eq!(p.mask().count_ones(), p.moves());
        assert_eq!(p.current() & !p.mask(), 0);
        assert!(!p.is_lost() && !has_four(p.current() ^ p.mask()));
    }

    #[test]
    fn winning_cells_include_the_gap_in_a_broken_line() {
        // First player holds columns 1, 2 and 4 on the bottom row; column 3 completes it.
        let p = pos("1727466");
        // Second player to move: the first player's win cells are the opponent's.
        let cell = p.drop_cell(2);
        assert_eq!(p.opponent_wins() & p.playable(), cell);
        assert_eq!(p.non_losing_moves(), cell);
    }

    #[test]
    fn two_threats_cannot_both_be_blocked() {
        // First player has 2, 3, 4 on the bottom row with 1 and 5 both open.
        let p = pos("27374");
        assert_eq!(p.non_losing_moves(), 0);
    }

    #[test]
    fn a_stone_is_not_played_under_the_opponent_winning_cell() {
        // The first player holds columns 1-3 of row 1 and would win on column 4 row 1;
        // column 4 is empty, so the second player must not fill its bottom cell.
        let p = pos("1213273");
        let under = p.drop_cell(3);
        assert_eq!(p.opponent_wins(), under << 1);
        assert_eq!(p.non_losing_moves(), p.playable() & !under);
    }

    #[test]
    fn bad_lines_are_refused_with_the_move_named() {
        assert_eq!(
            Position::from_moves("4448"),
            Err(MoveError::NotAColumn {
                index: 4,
                token: '8'
            })
        );
        assert_eq!(
            Position::from_moves("12a"),
            Err(MoveError::NotAColumn {
                index: 3,
                token: 'a'
            })
        );
        assert_eq!(
            Position::from_moves("4444444"),
            Err(MoveError::ColumnFull {
                index: 7,
                column: 4
            })
        );
        assert_eq!(
            Position::from_moves("12121215"),
            Err(MoveError::GameOver { index: 8 })
        );
    }

    #[test]
    fn play_and_undo_restore_the_position_and_keys_differ() {
        let mut p = pos("44455554221");
        let before = p;
        for col in 0..WIDTH {
            if p.can_play(col) {
                let cell = p.drop_cell(col);
                p.play(cell);
                assert_ne!(p.key(), before.key());
                assert_eq!(p.top_stone(col), cell);
                p.undo(cell);
                assert_eq!(p, before);
            }
        }
    }

    #[test]
    fn scores_count_the_winner_stones() {
        // "4455": the side to move wins with its 4th stone at best; winning now (if it
        // could) would be its 3rd.
        assert_eq!(win_now_score(4), 19);
        assert_eq!(win_now_score(5), 19);
        // The first player won with its 4th stone at move 7.
        assert_eq!(loss_score(7), -18);
        assert_eq!(loss_score(8), -18);
        assert_eq!(loss_score(41), -1);
    }

    #[test]
    fn a_board_is_full_only_after_the_forty_second_stone() {
        // A whole game without four in a line (found by random play).
        let line = "225344533673453576212645522737771141641166";
        let full = pos(line);
        assert!(full.is_full() && !full.is_lost());
        assert!(!pos(&line[..41]).is_full());
    }

    #[test]
    fn a_winning_move_is_the_one_that_completes_four() {
        // The first player has three in column 1 and the second three in column 2.
        let p = pos("121212");
        assert!(p.is_winning_move(0));
        assert!((1..7).all(|col| !p.is_winning_move(col)));
    }

    #[test]
    fn stones_read_back_as_played_with_the_side_to_move_first() {
        for line in [
            "",
            "1",
            "12213",
            "4455443",
            "225344533673453576212645522737771141641166",
        ] {
            // A plain grid of who played where (0: the first player), filled move by move.
            let mut grid = [[None; HEIGHT]; WIDTH];
            let mut heights = [0; WIDTH];
            for (i, c) in line.bytes().enumerate() {
                let col = usize::from(c - b'1');
                grid[col][heights[col]] = Some(i % 2);
                heights[col] += 1;
            }
            let p = pos(line);
            let to_move = line.len() % 2;
            assert_eq!(p.first_player_to_move(), to_move == 0, "{line:?}");
            for (col, column) in grid.iter().enumerate() {
                for (row, player) in column.iter().enumerate() {
                    let want = player.map(|who| who == to_move);
                    assert_eq!(p.stone(col, row), want, "{line:?} ({col}, {row})");
                }
            }
        }
    }

    #[test]
    fn threats_after_a_stone_count_only_empty_cells() {
        // First player: columns 1 and 2 at the bottom; the second's stone on column 4 blocks
        // the cell that a stone on column 3 would otherwise threaten.
        let p = pos("1427");
        assert_eq!(p.threats_after(p.drop_cell(2)), 0);
        // With column 4 free the same stone threatens its bottom cell.
        let q = pos("1727");
        assert_eq!(q.threats_after(q.drop_cell(2)), 1);
    }
}
