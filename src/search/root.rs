//! The root: its moves as a typed list (score, previous score, line, seldepth) kept by the
//! main thread, and the entry to the search of the root node (`negamax::<Root>`), which is
//! the only one to know that list.

use shakmaty::{Chess, Move, Position};

use super::node::Root;
use super::score::{INFINITY, is_mate};
use super::searcher::Searcher;

/// The score a GUI is shown for a line that searched to `score`: the tablebases' result
/// (`table_score`) when the root is in them, unless the search found a mate, which is surer
/// and outranks it. The search itself goes on with its own scores.
pub fn shown_score(table_score: Option<i32>, score: i32) -> i32 {
    match table_score {
        Some(table) if !is_mate(score) => table,
        _ => score,
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RootMove {
    pub mv: Move,
    /// Score of the latest line through this move (-INFINITY until it has one).
    pub score: i32,
    /// Its score in the iteration before.
    pub previous_score: i32,
    pub pv: Vec<Move>,
    pub seldepth: usize,
}

impl RootMove {
    fn new(mv: Move) -> RootMove {
        RootMove {
            mv,
            score: -INFINITY,
            previous_score: -INFINITY,
            pv: Vec::new(),
            seldepth: 0,
        }
    }
}

/// The moves the root may play. The first `lines` of them are this iteration's MultiPV
/// lines, best first once sorted; the rest keep the order of the legal move list.
#[derive(Clone, Debug, Default)]
pub struct RootMoves {
    moves: Vec<RootMove>,
    /// Fewer moves than the position has (`searchmoves`, tablebases): the root's own result
    /// says nothing true of the position and is not stored.
    restricted: bool,
    /// The root's result in the tablebases, as a score, when the tables rank it.
    table_score: Option<i32>,
}

impl RootMoves {
    /// The legal moves of `pos`, or those of them in `only` when it is not empty.
    pub fn new(pos: &Chess, only: &[Move]) -> RootMoves {
        let moves = pos
            .legal_moves()
            .into_iter()
            .filter(|m| only.is_empty() || only.contains(m))
            .map(RootMove::new)
            .collect();
        RootMoves {
            moves,
            restricted: !only.is_empty(),
            table_score: None,
        }
    }

    /// Keeps only the moves in `keep`, the tablebases' choice, whose result is `table_score`.
    pub fn restrict(&mut self, keep: &[Move], table_score: i32) {
        self.moves.retain(|r| keep.contains(&r.mv));
        self.restricted = true;
        self.table_score = Some(table_score);
    }

    /// The root's result in the tablebases as a score, when the tables rank it.
    pub fn table_score(&self) -> Option<i32> {
        self.table_score
    }

    pub fn restricted(&self) -> bool {
        self.restricted
    }

    pub fn moves(&self) -> &[RootMove] {
        &self.moves
    }

    pub fn len(&self) -> usize {
        self.moves.len()
    }

    pub fn is_empty(&self) -> bool {
        self.moves.is_empty()
    }

    /// An iteration begins: each move's score becomes its previous one.
    pub fn start_iteration(&mut self) {
        for r in &mut self.moves {
            r.previous_score = r.score;
            r.score = -INFINITY;
        }
    }

    /// The `k`-th line of the iteration was found: its first move goes to slot `k` (the rest
    /// keep their order) with the line's score, moves and seldepth.
    pub fn complete_line(&mut self, k: usize, score: i32, pv: Vec<Move>, seldepth: usize) {
        let Some(j) = pv
            .first()
            .and_then(|first| self.moves.iter().position(|r| r.mv == *first))
        else {
            return;
        };
        self.moves[k..=j].rotate_right(1);
        let r = &mut self.moves[k];
        (r.score, r.pv, r.seldepth) = (score, pv, seldepth);
    }

    /// Orders the first `n` lines best first; equal scores keep the order they were found in.
    pub fn sort_lines(&mut self, n: usize) {
        self.moves[..n].sort_by_key(|r| std::cmp::Reverse(r.score));
    }
}

impl Searcher<'_> {
    /// Searches the root: `candidates` (the root moves not yet given a line), in the order
    /// the picker gives them, the previous iteration's best first (`root_hint`). `whole`
    /// says the candidates are every legal move, so the result may be stored.
    pub fn search_root(
        &mut self,
        pos: &Chess,
        candidates: &[RootMove],
        whole: bool,
        depth: i32,
        alpha: i32,
        beta: i32,
    ) -> i32 {
        debug_assert_eq!(self.td.stack.ply(), 0);
        self.root_depth = depth;
        self.root_candidates.clear();
        self.root_candidates.extend(candidates.iter().map(|r| r.mv));
        self.root_whole = whole;
        self.td.stack.at_mut(0).in_check = pos.is_check();
        self.negamax::<Root>(pos, alpha, beta, depth)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::MATE;
    use shakmaty::CastlingMode;

    fn uci(m: Move) -> String {
        m.to_uci(CastlingMode::Standard).to_string()
    }

    fn find(pos: &Chess, s: &str) -> Move {
        pos.legal_moves()
            .into_iter()
            .find(|m| uci(*m) == s)
            .unwrap()
    }

    fn names(root: &RootMoves) -> Vec<String> {
        root.moves().iter().map(|r| uci(r.mv)).collect()
    }

    #[test]
    fn searchmoves_and_tablebases_narrow_the_list_in_legal_order() {
        let pos = Chess::default();
        assert_eq!(RootMoves::new(&pos, &[]).len(), 20);
        let only = [find(&pos, "g1f3"), find(&pos, "a2a3"), find(&pos, "e2e4")];
        let mut root = RootMoves::new(&pos, &only);
        assert!(root.restricted);
        let legal_order: Vec<String> = pos
            .legal_moves()
            .into_iter()
            .filter(|m| only.contains(m))
            .map(uci)
            .collect();
        assert_eq!(names(&root), legal_order);
        assert_eq!(root.table_score(), None);
        assert_eq!(shown_score(root.table_score(), 25), 25);
        root.restrict(&[find(&pos, "e2e4")], 0);
        assert_eq!(names(&root), ["e2e4"]);
        // The tables' result replaces every score but a mate.
        assert_eq!(root.table_score(), Some(0));
        assert_eq!(shown_score(Some(0), 25), 0);
        assert_eq!(shown_score(Some(0), -MATE + 7), -MATE + 7);
        assert_eq!(shown_score(Some(0), MATE - 3), MATE - 3);
    }

    #[test]
    fn lines_move_to_the_front_and_sort_best_first_keeping_ties_in_found_order() {
        let pos = Chess::default();
        let mut root = RootMoves::new(&pos, &[]);
        let all = names(&root);
        let (a, b, c) = (find(&pos, "h2h4"), find(&pos, "b1c3"), find(&pos, "d2d4"));
        root.complete_line(0, 10, vec![a], 5);
        root.complete_line(1, 30, vec![b, find(&after(&pos, b), "e7e5")], 7);
        root.complete_line(2, 10, vec![c], 6);
        assert_eq!(names(&root)[..3], ["h2h4", "b1c3", "d2d4"]);
        // The moves without a line keep the legal order.
        let rest: Vec<String> = all
            .iter()
            .filter(|s| !["h2h4", "b1c3", "d2d4"].contains(&s.as_str()))
            .cloned()
            .collect();
        assert_eq!(names(&root)[3..], rest[..]);
        root.sort_lines(3);
        assert_eq!(names(&root)[..3], ["b1c3", "h2h4", "d2d4"]);
        assert_eq!((root.moves()[0].score, root.moves()[0].seldepth), (30, 7));
        assert_eq!(root.moves()[0].pv.len(), 2);
        root.start_iteration();
        assert_eq!(root.moves()[0].previous_score, 30);
        assert_eq!(root.moves()[0].score, -INFINITY);
        assert_eq!(root.moves()[5].previous_score, -INFINITY);
    }

    fn after(pos: &Chess, m: Move) -> Chess {
        let mut p = pos.clone();
        p.play_unchecked(m);
        p
    }
}
