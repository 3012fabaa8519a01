//! Per-thread search state that lives from one search to the next: the search stack, the
//! move-ordering heuristics, the node count, the principal variations and the NNUE's
//! accumulators, with the helpers that play a move on all of them at once.

use std::sync::Arc;

use shakmaty::{Board, Chess, Color, Move, Position};

use super::correction::Correction;
use super::history::{CounterMoves, QuietHistory};
use super::pv::PvTable;
use super::score::MAX_PLY;
use super::stack::SearchStack;
use super::stats::Stats;
use crate::basics::position::child_zobrist;
use crate::eval::accumulator::{Accumulator, Changes};
use crate::eval::nnue::Network;
use crate::eval::{PawnCache, evaluate_with};

/// Accumulators per thread: one per ply up to `MAX_PLY` (quiescence evaluates there) and a
/// spare, as a node at `MAX_PLY - 1` writes its child's.
const ACCUMULATORS: usize = MAX_PLY + 2;

#[derive(Default)]
pub struct ThreadData {
    pub stack: SearchStack,
    /// History and counter moves: true of the game from move to move, so kept.
    pub history: QuietHistory,
    pub counters: CounterMoves,
    /// What searches found against the static evaluation, by pawn structure: kept too.
    pub correction: Correction,
    /// The evaluation's pawn-structure cache, warm from one search to the next.
    pub pawn_cache: PawnCache,
    /// Nodes searched by this thread in the current search.
    pub nodes: u64,
    /// Deepest ply reached in the current iteration.
    pub seldepth: usize,
    /// What the selective parts of the current search did (a tuning build counts it).
    pub stats: Stats,
    pub pv: PvTable,
    /// The net of this search, when it evaluates with the NNUE (`UseNNUE`).
    nnue: Option<Arc<Network>>,
    /// The accumulators of the current line, indexed by ply, sized once to the net. They are
    /// brought up to date only when a node is evaluated (many are not: a table hit gives the
    /// evaluation, a cutoff comes first): `pending[ply]` is the move into `ply` while
    /// `accumulators[ply]` does not include it yet, None once it does.
    accumulators: Vec<Accumulator>,
    pending: Vec<Option<Changes>>,
    /// Evaluations checked against a full refresh (tests only).
    #[cfg(test)]
    pub net_checks: u64,
    /// Evaluations whose sums were made afresh because a king changed bucket (tests only).
    #[cfg(test)]
    pub net_refreshes: u64,
}

impl ThreadData {
    /// Prepares for a search from the game's repetition `keys` (ending with the root's):
    /// the per-search state is cleared, the heuristics are kept.
    pub fn start_search(&mut self, keys: Vec<u64>) {
        self.stack.reset(keys);
        self.nodes = 0;
        self.seldepth = 0;
        self.stats = Stats::default();
    }

    /// Forgets what earlier searches learnt (history, counter moves, correction history), as a
    /// new `ThreadData` would have it, without allocating one.
    pub fn forget_game(&mut self) {
        self.history.clear();
        self.counters.clear();
        self.correction.clear();
    }

    /// Evaluates this search with `net` (the hand-written evaluation when None); with a net,
    /// the accumulators are sized to it (only when it changed) and the root's refreshed.
    pub fn use_net(&mut self, net: Option<Arc<Network>>, root: &Chess) {
        self.nnue = net;
        let Some(net) = &self.nnue else {
            return;
        };
        let sized = self.accumulators.len() == ACCUMULATORS
            && self.accumulators[0].sums[0].len() == net.hidden;
        if !sized {
            self.accumulators = vec![Accumulator::with_hidden(net.hidden); ACCUMULATORS];
            self.pending = vec![None; ACCUMULATORS];
        }
        self.accumulators[0].refresh(net, root.board());
        self.pending[0] = None;
    }

    /// The static evaluation of `pos`, the current node, from the side to move.
    #[inline]
    pub fn evaluate(&mut self, pos: &Chess) -> i32 {
        let ply = self.stack.ply();
        match &self.nnue {
            None => evaluate_with(pos, &mut self.pawn_cache),
            Some(net) => {
                if self.pending[ply].is_some() {
                    let _refreshed = Self::catch_up(
                        net,
                        &mut self.accumulators,
                        &mut self.pending,
                        ply,
                        pos.board(),
                    );
                    #[cfg(test)]
                    {
                        self.net_refreshes += u64::from(_refreshed);
                    }
                }
                let acc = &self.accumulators[ply];
                #[cfg(test)]
                {
                    let mut fresh = Accumulator::default();
                    fresh.refresh(net, pos.board());
                    assert_eq!(
                        *acc, fresh,
                        "accumulator at ply {ply} differs from a refresh"
                    );
                    assert_eq!(acc.evaluate(net, pos), net.evaluate(pos));
                    self.net_checks += 1;
                }
                acc.evaluate(net, pos)
            }
        }
    }

    /// Plays `m` from `pos`, the current node: the child's key and frame (see
    /// `SearchStack::push_move`) and its accumulator. Undone by `pop_move`.
    #[inline]
    pub fn push_move(&mut self, pos: &Chess, m: Move) -> Chess {
        let child = self.stack.push_move(pos, m);
        self.follow(pos.turn(), m);
        child
    }

    pub fn pop_move(&mut self) {
        self.stack.pop();
    }

    /// Plays a move in quiescence: the child's key (for the table), ply, check and
    /// accumulator. Undone by `pop_quiescence`.
    #[inline]
    pub fn push_quiescence(&mut self, pos: &Chess, m: Move) -> Chess {
        let mut child = pos.clone();
        child.play_unchecked(m);
        let key = child_zobrist(pos, self.stack.key(), m, &child);
        self.stack.push_quiescence(child.is_check(), key);
        self.follow(pos.turn(), m);
        child
    }

    pub fn pop_quiescence(&mut self) {
        self.stack.pop_quiescence();
    }

    /// Passes the move of `pos`, the current node (see `SearchStack::push_null`): the
    /// child's accumulator is the parent's, the board being the same.
    pub fn push_null(&mut self, pos: &Chess) -> usize {
        let floor = self.stack.push_null(pos);
        if self.nnue.is_some() {
            self.pending[self.stack.ply()] = Some(Changes::NONE);
        }
        floor
    }

    pub fn pop_null(&mut self, floor: usize) {
        self.stack.pop_null(floor);
    }

    /// Notes `m`, played by `mover` into the current node (just pushed): its sums are made
    /// only when it is evaluated (`catch_up`).
    #[inline]
    fn follow(&mut self, mover: Color, m: Move) {
        if self.nnue.is_some() {
            self.pending[self.stack.ply()] = Some(Changes::of_move(mover, m));
        }
    }

    /// Brings the sums at `ply` (of `board`) up to date: from the nearest ply above it whose
    /// sums are, each ply's pending move applied in turn (the root's are always, from
    /// `use_net`). Every ply between was entered by the current line, whose moves `follow`
    /// left pending. When one of those moves takes a king into another bucket
    /// (`Network::crosses`), the sums at `ply` are made afresh from `board` instead, and the
    /// plies between stay pending (their sums are made if they are evaluated). Returns
    /// whether it made them afresh.
    fn catch_up(
        net: &Network,
        accumulators: &mut [Accumulator],
        pending: &mut [Option<Changes>],
        ply: usize,
        board: &Board,
    ) -> bool {
        let mut from = ply;
        let mut crossed = false;
        while from > 0
            && let Some(changes) = &pending[from]
        {
            crossed |= net.crosses(changes);
            from -= 1;
        }
        if crossed {
            accumulators[ply].refresh(net, board);
            pending[ply] = None;
            return true;
        }
        for p in from + 1..=ply {
            if let Some(changes) = pending[p].take() {
                let (below, above) = accumulators.split_at_mut(p);
                above[0].apply(net, &below[p - 1], &changes);
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::position::Game;
    use crate::eval::net_file;
    use crate::search::root::RootMoves;
    use crate::search::score::INFINITY;
    use crate::search::searcher::Searcher;
    use crate::search::time::{Clock, StopToken};
    use crate::search::tt::TranspositionTable;

    /// Searches `fen` with `net` to `depth` (every evaluation checked against a refresh);
    /// returns the evaluations checked and those made afresh after a king changed bucket.
    fn checked_search(net: &Arc<Network>, fen: &str, depth: i32) -> (u64, u64) {
        let game = Game::from_fen(fen, false).unwrap();
        let tt = TranspositionTable::new(4).unwrap();
        let clock = Clock::unlimited(StopToken::detached());
        let mut td = ThreadData::default();
        let mut s = Searcher::new(&tt, &clock, &mut td, game.repetition_keys());
        s.td.use_net(Some(Arc::clone(net)), &game.pos);
        let root = RootMoves::new(&game.pos, &[]);
        for d in 1..=depth {
            s.search_root(&game.pos, root.moves(), true, d, -INFINITY, INFINITY);
        }
        (s.td.net_checks, s.td.net_refreshes)
    }

    /// Searches with the embedded net: `evaluate` checks (under `cfg(test)`) that the
    /// accumulator of every evaluated node equals a refresh of its board, so a wrong update
    /// on any move, null move or quiescence capture fails here.
    #[test]
    fn every_evaluation_in_a_search_equals_a_full_refresh() {
        let net = net_file::embedded().unwrap().net;
        let mut checks = 0;
        for fen in [
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
            "8/2P5/8/3pP3/8/8/5p2/k1K5 w - d6 0 1",
        ] {
            checks += checked_search(&net, fen, 6).0;
        }
        assert!(checks > 5000, "only {checks} evaluations checked");
    }

    /// The same with a made-up net of four king buckets: where a king went into another
    /// bucket on the way, the evaluated ply's sums are made afresh and the plies between
    /// left pending; every evaluation still equals a refresh.
    #[test]
    fn with_king_buckets_every_evaluation_in_a_search_equals_a_full_refresh() {
        use crate::basics::rng::Lcg;
        use crate::eval::nnue::{Activation, KingLayout};
        let kings = KingLayout::new(4).unwrap();
        let hidden = 16;
        let mut rng = Lcg(5);
        let mut small = |n: u64| (rng.next_u31() % (2 * n + 1)) as i16 - n as i16;
        let net = Arc::new(Network {
            hidden,
            activation: Activation::SCReLU,
            kings,
            settings_hash: 0,
            w1: (0..kings.inputs() * hidden).map(|_| small(60)).collect(),
            b1: (0..hidden).map(|_| small(100) + 120).collect(),
            buckets: 1,
            w2: (0..2 * hidden).map(|_| small(100)).collect(),
            b2: vec![0],
            narrow_w2: true,
        });
        let (mut checks, mut refreshes) = (0, 0);
        // Endgames, where kings move often and the trees stay small (each evaluation here
        // is checked against a refresh, slow in the test profile).
        for fen in [
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
            "4k3/8/8/3p4/3P4/8/8/4K3 w - - 0 1",
        ] {
            let (c, r) = checked_search(&net, fen, 5);
            checks += c;
            refreshes += r;
        }
        assert!(
            checks > 500 && refreshes > 20,
            "{checks} evaluations checked, {refreshes} made afresh"
        );
    }

    /// Without a net the static evaluation is the hand-written one, and a thread that had a
    /// net forgets it when the next search has none.
    #[test]
    fn without_a_net_the_evaluation_is_the_hand_written_one() {
        let game = Game::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            false,
        )
        .unwrap();
        let mut td = ThreadData::default();
        let net = net_file::embedded().unwrap().net;
        td.use_net(Some(Arc::clone(&net)), &game.pos);
        assert_eq!(td.evaluate(&game.pos), net.evaluate(&game.pos));
        td.use_net(None, &game.pos);
        let mut cache = PawnCache::default();
        assert_eq!(td.evaluate(&game.pos), evaluate_with(&game.pos, &mut cache));
    }
}
