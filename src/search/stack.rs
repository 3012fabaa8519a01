//! The search stack: one frame of facts per ply of the current line, the repetition keys of
//! that line and the current ply, with push/pop helpers that do all of the ply bookkeeping in
//! one place.

use shakmaty::{Chess, Move, Position};

use super::score::{INFINITY, MAX_PLY};
use crate::basics::position::{child_zobrist, is_draw_by_rule, null_zobrist};

/// Frames below ply 0, so that `ply - OFFSET` is always a valid index.
pub const OFFSET: usize = 2;
/// Frames above the deepest ply: a node at `MAX_PLY` may still write its child's frame.
const SPARE: usize = 2;

/// What the search knows of one ply of the current line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Frame {
    /// Whether the side to move is in check (written by the move into the ply).
    pub in_check: bool,
    /// Static evaluation (-INFINITY when in check or not known), to tell whether the side to
    /// move is improving on its position two plies earlier.
    pub static_eval: i32,
    /// Whether the static evaluation is better than two plies earlier (or nothing is known
    /// there), as the node found it.
    pub improving: bool,
    /// The move into this ply (None at the root and after a null move), for counter moves.
    pub played: Option<Move>,
    /// The last two quiet moves that caused a cutoff at this ply, newest first.
    pub killers: [Option<Move>; 2],
    /// A move this node must not search (the search of a singular extension).
    pub excluded: Option<Move>,
    /// Whether the move into this ply was a null move.
    pub after_null: bool,
}

impl Frame {
    const EMPTY: Frame = Frame {
        in_check: false,
        static_eval: -INFINITY,
        improving: false,
        played: None,
        killers: [None; 2],
        excluded: None,
        after_null: false,
    };
}

pub struct SearchStack {
    frames: Box<[Frame; MAX_PLY + OFFSET + SPARE]>,
    /// Zobrist keys from the last irreversible move of the game up to the current node.
    keys: Vec<u64>,
    /// Index in `keys` of the position after the latest null move on the current line (0 if
    /// none): repetitions are looked for only from there.
    null_floor: usize,
    /// Plies from the root to the current node.
    ply: usize,
}

impl Default for SearchStack {
    fn default() -> SearchStack {
        SearchStack {
            frames: Box::new([Frame::EMPTY; MAX_PLY + OFFSET + SPARE]),
            keys: Vec::with_capacity(256),
            null_floor: 0,
            ply: 0,
        }
    }
}

impl SearchStack {
    /// Starts a search from the game's repetition `keys`, ending with the root's key; frames
    /// (killers included) are forgotten, as they belong to the plies of the last search.
    pub fn reset(&mut self, keys: Vec<u64>) {
        *self.frames = [Frame::EMPTY; MAX_PLY + OFFSET + SPARE];
        self.keys = keys;
        self.null_floor = 0;
        self.ply = 0;
    }

    /// Plies from the root to the current node.
    pub fn ply(&self) -> usize {
        self.ply
    }

    /// The frame of `ply`; `ply` may be up to `OFFSET` below 0 when written as `ply - k`.
    pub fn at(&self, ply: usize) -> &Frame {
        &self.frames[ply + OFFSET]
    }

    pub fn at_mut(&mut self, ply: usize) -> &mut Frame {
        &mut self.frames[ply + OFFSET]
    }

    /// The frame two plies before `ply` (an empty frame near the root).
    pub fn two_back(&self, ply: usize) -> &Frame {
        &self.frames[ply + OFFSET - 2]
    }

    /// The current position's key.
    pub fn key(&self) -> u64 {
        self.keys[self.keys.len() - 1]
    }

    /// Plays `m` from `pos`, the current node: the child's key goes on the line, its frame
    /// records the move and whether it gives check, and it becomes the current node. Undone
    /// by `pop`.
    pub fn push_move(&mut self, pos: &Chess, m: Move) -> Chess {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let key = self.key();
        self.keys.push(child_zobrist(pos, key, m, &child));
        let frame = self.at_mut(self.ply + 1);
        frame.played = Some(m);
        frame.in_check = child.is_check();
        self.ply += 1;
        child
    }

    pub fn pop(&mut self) {
        self.keys.pop();
        self.ply -= 1;
    }

    /// Passes the move of `pos`, the current node; returns what `pop_null` needs to undo it.
    pub fn push_null(&mut self, pos: &Chess) -> usize {
        let key = self.key();
        self.keys.push(null_zobrist(pos, key));
        let floor = std::mem::replace(&mut self.null_floor, self.keys.len() - 1);
        let frame = self.at_mut(self.ply + 1);
        frame.after_null = true;
        frame.played = None;
        // A legal position never leaves the side that just moved in check.
        frame.in_check = false;
        self.ply += 1;
        floor
    }

    pub fn pop_null(&mut self, floor: usize) {
        self.ply -= 1;
        self.at_mut(self.ply + 1).after_null = false;
        self.null_floor = floor;
        self.keys.pop();
    }

    /// A move in quiescence search, which looks for no repetitions: the child's `key` (for
    /// the table), the ply and whether the child is in check. Undone by `pop_quiescence`.
    pub fn push_quiescence(&mut self, child_in_check: bool, key: u64) {
        self.keys.push(key);
        self.at_mut(self.ply + 1).in_check = child_in_check;
        self.ply += 1;
    }

    pub fn pop_quiescence(&mut self) {
        self.keys.pop();
        self.ply -= 1;
    }

    /// Whether `pos`, the current node, is drawn by rule. Nothing before a null move can
    /// recur: the free tempo is not a real move.
    pub fn is_draw(&self, pos: &Chess) -> bool {
        is_draw_by_rule(pos, &self.keys[self.null_floor..], self.ply)
    }

    /// A quiet move refuted the position at `ply`: it becomes the newest killer.
    pub fn add_killer(&mut self, ply: usize, m: Move) {
        let k = &mut self.at_mut(ply).killers;
        if k[0] != Some(m) {
            k[1] = k[0];
            k[0] = Some(m);
        }
    }

    /// How many plies deep the current line is, counted in keys (for tests).
    #[cfg(test)]
    fn line_len(&self) -> usize {
        self.keys.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::position::Game;
    use shakmaty::CastlingMode;

    fn find(pos: &Chess, uci: &str) -> Move {
        pos.legal_moves()
            .into_iter()
            .find(|m| m.to_uci(CastlingMode::Standard).to_string() == uci)
            .unwrap()
    }

    #[test]
    fn frames_two_plies_before_the_root_exist_and_are_empty() {
        let s = SearchStack::default();
        assert_eq!(*s.two_back(0), Frame::EMPTY);
        assert_eq!(*s.two_back(1), Frame::EMPTY);
        assert_eq!(s.two_back(2) as *const Frame, s.at(0) as *const Frame);
        assert_eq!(s.at(MAX_PLY + 1).static_eval, -INFINITY);
    }

    #[test]
    fn push_and_pop_keep_the_key_line_and_record_the_move() {
        let game = Game::default();
        let mut s = SearchStack::default();
        s.reset(game.repetition_keys());
        let root_key = s.key();
        let e4 = find(&game.pos, "e2e4");
        let child = s.push_move(&game.pos, e4);
        assert_eq!(s.key(), crate::basics::position::zobrist(&child));
        assert_eq!((s.at(1).played, s.at(1).in_check), (Some(e4), false));
        assert_eq!((s.line_len(), s.ply()), (2, 1));
        s.pop();
        assert_eq!((s.key(), s.line_len(), s.ply()), (root_key, 1, 0));
    }

    #[test]
    fn a_move_that_gives_check_marks_the_childs_frame_and_quiescence_moves_the_ply() {
        let game = Game::from_fen("4k3/8/8/8/8/8/8/R3K3 w - - 0 1", false).unwrap();
        let mut s = SearchStack::default();
        s.reset(game.repetition_keys());
        s.push_move(&game.pos, find(&game.pos, "a1a8"));
        assert!(s.at(1).in_check);
        s.pop();
        s.push_move(&game.pos, find(&game.pos, "a1a7"));
        assert!(!s.at(1).in_check);
        s.push_quiescence(true, 77);
        assert!(s.at(2).in_check && s.ply() == 2 && s.key() == 77);
        s.pop_quiescence();
        s.pop();
        assert_eq!((s.ply(), s.line_len()), (0, 1));
    }

    #[test]
    fn a_null_move_hides_earlier_repetitions_until_it_is_undone() {
        // Knights out and back twice: the start position has occurred three times.
        let mut game = Game::default();
        let moves: Vec<String> = "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8"
            .split(' ')
            .map(String::from)
            .collect();
        game.apply_moves(&moves).unwrap();
        let mut s = SearchStack::default();
        s.reset(game.repetition_keys());
        assert!(s.is_draw(&game.pos));
        let null_pos = game.pos.clone().swap_turn().unwrap();
        let floor = s.push_null(&game.pos);
        assert!(s.at(1).after_null && s.at(1).played.is_none() && s.ply() == 1);
        assert!(!s.is_draw(&null_pos));
        s.pop_null(floor);
        assert!(!s.at(1).after_null && s.ply() == 0);
        assert!(s.is_draw(&game.pos));
    }

    #[test]
    fn a_new_killer_pushes_the_old_one_down_once() {
        let pos = Chess::default();
        let (a, b) = (find(&pos, "g1f3"), find(&pos, "d2d4"));
        let mut s = SearchStack::default();
        s.add_killer(3, a);
        s.add_killer(3, a);
        assert_eq!(s.at(3).killers, [Some(a), None]);
        s.add_killer(3, b);
        assert_eq!(s.at(3).killers, [Some(b), Some(a)]);
        s.reset(Vec::from([0]));
        assert_eq!(s.at(3).killers, [None, None]);
    }
}
