//! The search stack: one frame of facts per ply of the current line, and the repetition keys
//! of that line, with push/pop helpers that do all of the ply bookkeeping in one place.

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
    /// Static evaluation (-INFINITY when in check or not known), to tell whether the side to
    /// move is improving on its position two plies earlier.
    pub static_eval: i32,
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
        static_eval: -INFINITY,
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
}

impl Default for SearchStack {
    fn default() -> SearchStack {
        SearchStack {
            frames: Box::new([Frame::EMPTY; MAX_PLY + OFFSET + SPARE]),
            keys: Vec::with_capacity(256),
            null_floor: 0,
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

    /// Plays `m` from `pos` at `ply`: the child's key goes on the line and its frame records
    /// the move. Undone by `pop`.
    pub fn push_move(&mut self, pos: &Chess, m: Move, ply: usize) -> Chess {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let key = self.key();
        self.keys.push(child_zobrist(pos, key, m, &child));
        self.at_mut(ply + 1).played = Some(m);
        child
    }

    pub fn pop(&mut self) {
        self.keys.pop();
    }

    /// Passes the move of `pos` at `ply`; returns what `pop_null` needs to undo it.
    pub fn push_null(&mut self, pos: &Chess, ply: usize) -> usize {
        let key = self.key();
        self.keys.push(null_zobrist(pos, key));
        let floor = std::mem::replace(&mut self.null_floor, self.keys.len() - 1);
        let frame = self.at_mut(ply + 1);
        frame.after_null = true;
        frame.played = None;
        floor
    }

    pub fn pop_null(&mut self, ply: usize, floor: usize) {
        self.at_mut(ply + 1).after_null = false;
        self.null_floor = floor;
        self.keys.pop();
    }

    /// Whether `pos`, `ply` plies from the root, is drawn by rule. Nothing before a null move
    /// can recur: the free tempo is not a real move.
    pub fn is_draw(&self, pos: &Chess, ply: usize) -> bool {
        is_draw_by_rule(pos, &self.keys[self.null_floor..], ply)
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
        let child = s.push_move(&game.pos, e4, 0);
        assert_eq!(s.key(), crate::basics::position::zobrist(&child));
        assert_eq!(s.at(1).played, Some(e4));
        assert_eq!(s.line_len(), 2);
        s.pop();
        assert_eq!((s.key(), s.line_len()), (root_key, 1));
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
        assert!(s.is_draw(&game.pos, 0));
        let null_pos = game.pos.clone().swap_turn().unwrap();
        let floor = s.push_null(&game.pos, 0);
        assert!(s.at(1).after_null && s.at(1).played.is_none());
        assert!(!s.is_draw(&null_pos, 1));
        s.pop_null(0, floor);
        assert!(!s.at(1).after_null);
        assert!(s.is_draw(&game.pos, 0));
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
