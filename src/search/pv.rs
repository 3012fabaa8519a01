//! Principal variations collected bottom-up during the search: row `ply` holds the best line
//! found from that ply, rebuilt from the child's row at every improvement.

use shakmaty::Move;

use super::score::MAX_PLY;

pub struct PvTable {
    moves: Vec<[Option<Move>; MAX_PLY + 1]>,
    len: [usize; MAX_PLY + 1],
}

impl Default for PvTable {
    fn default() -> PvTable {
        PvTable {
            moves: vec![[None; MAX_PLY + 1]; MAX_PLY + 1],
            len: [0; MAX_PLY + 1],
        }
    }
}

impl PvTable {
    pub fn clear(&mut self, ply: usize) {
        self.len[ply] = 0;
    }

    /// The line at `ply` becomes `m` followed by the child's line.
    pub fn update(&mut self, ply: usize, m: Move) {
        let child_len = if ply < MAX_PLY { self.len[ply + 1] } else { 0 };
        self.moves[ply][0] = Some(m);
        for i in 0..child_len.min(MAX_PLY - ply) {
            self.moves[ply][i + 1] = self.moves[ply + 1][i];
        }
        self.len[ply] = 1 + child_len.min(MAX_PLY - ply);
    }

    pub fn line(&self, ply: usize) -> Vec<Move> {
        self.moves[ply][..self.len[ply]]
            .iter()
            .flatten()
            .copied()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use shakmaty::{Chess, Position};

    #[test]
    fn a_line_is_the_move_then_the_childs_line() {
        let pos = Chess::default();
        let moves = pos.legal_moves();
        let (a, b, c) = (moves[0], moves[1], moves[2]);
        let mut pv = PvTable::default();
        pv.clear(2);
        pv.update(2, c);
        pv.update(1, b);
        pv.update(0, a);
        assert_eq!(pv.line(0), vec![a, b, c]);
        pv.clear(1);
        pv.update(0, b);
        assert_eq!(pv.line(0), vec![b]);
    }
}
