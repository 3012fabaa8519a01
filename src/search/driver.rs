//! Iterative deepening: searches depth 1, 2, ... until a limit, reporting each iteration and
//! keeping the best move of the deepest finished one.

use shakmaty::{Chess, Move, Position};

use super::negamax::Searcher;
use super::score::{INFINITY, MATE, MAX_PLY, is_mate, mated_in};
use super::time::{Clock, Limits};
use super::tt::TranspositionTable;
use crate::position::{Game, zobrist};

/// What one iteration found, as the protocol layer reports it.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: u32,
    pub seldepth: u32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub hashfull: u32,
    pub pv: Vec<Move>,
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    /// None only when the root has no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    /// The last report: depth, score and line behind `best`.
    pub last: Iteration,
}

/// The table's move for the position after `best`, when the PV was cut short by a table hit.
fn reply_from_tt(root: &Chess, best: Move, tt: &TranspositionTable) -> Option<Move> {
    let mut child = root.clone();
    child.play_unchecked(best);
    let hit = tt.probe(zobrist(&child), 1)?;
    child.legal_moves().into_iter().find(|m| hit.mv.matches(*m))
}

/// Aspiration windows start this deep, this wide (centipawns) around the last score, and
/// double on each failure until they give up and open fully.
const ASPIRATION_MIN_DEPTH: i32 = 5;
const ASPIRATION_DELTA: i32 = 25;
const ASPIRATION_MAX_DELTA: i32 = 1000;

/// One iteration, first with a narrow window around the previous score: most iterations land
/// inside it and search fewer nodes; a score outside it is searched again wider.
fn aspiration_search(
    searcher: &mut Searcher,
    root: &Chess,
    depth: i32,
    previous: Option<i32>,
) -> i32 {
    let Some(prev) = previous.filter(|p| depth >= ASPIRATION_MIN_DEPTH && !is_mate(*p)) else {
        return searcher.negamax(root, depth, -INFINITY, INFINITY, 0);
    };
    let mut delta = ASPIRATION_DELTA;
    let (mut alpha, mut beta) = (prev - delta, prev + delta);
    loop {
        let score = searcher.negamax(root, depth, alpha, beta, 0);
        if searcher.stopped || (score > alpha && score < beta) {
            return score;
        }
        delta *= 2;
        if delta > ASPIRATION_MAX_DELTA {
            (alpha, beta) = (-INFINITY, INFINITY);
        } else if score <= alpha {
            alpha = (score - delta).max(-INFINITY);
        } else {
            beta = (score + delta).min(INFINITY);
        }
    }
}

/// Searches `game` within `limits`; `report` is called after every finished iteration.
pub fn search(
    game: &Game,
    limits: &Limits,
    tt: &TranspositionTable,
    clock: &Clock,
    report: &mut dyn FnMut(&Iteration),
) -> SearchResult {
    tt.new_search();
    let root = &game.pos;
    let mut searcher = Searcher::new(tt, clock, game.repetition_keys());
    let legal = root.legal_moves();
    searcher.root_moves = limits
        .searchmoves
        .iter()
        .filter_map(|t| game.parse_move(t).ok())
        .collect();
    let candidates: Vec<Move> = if searcher.root_moves.is_empty() {
        legal.iter().copied().collect()
    } else {
        searcher.root_moves.clone()
    };

    // A mate in n moves is seen by a full-width search of 2n - 1 plies.
    let mate_depth = limits
        .mate
        .map(|n| n.min(MAX_PLY as u32).saturating_mul(2).saturating_add(1));
    let max_depth = limits
        .depth
        .or(mate_depth)
        .map_or(MAX_PLY as u32 - 1, |d| d.clamp(1, MAX_PLY as u32 - 1));
    let mut best: Option<Move> = candidates.first().copied();
    let mut last = Iteration {
        depth: 0,
        seldepth: 0,
        // Without a legal move the root is mate or stalemate.
        score: if candidates.is_empty() && root.is_check() {
            mated_in(0)
        } else {
            0
        },
        nodes: 0,
        elapsed_ms: 0,
        hashfull: 0,
        pv: best.into_iter().collect(),
    };
    let mut pv: Vec<Move> = Vec::new();

    if !candidates.is_empty() {
        for depth in 1..=max_depth {
            searcher.root_best = None;
            searcher.root_hint = if last.depth > 0 { best } else { None };
            searcher.seldepth = 0;
            let previous = (last.depth > 0).then_some(last.score);
            let score = aspiration_search(&mut searcher, root, depth as i32, previous);
            let finished = !searcher.stopped;
            if finished {
                pv = searcher.pv();
                best = pv.first().copied().or(best);
                last = Iteration {
                    depth,
                    seldepth: searcher.seldepth as u32,
                    score,
                    nodes: searcher.nodes,
                    elapsed_ms: clock.elapsed().as_millis() as u64,
                    hashfull: tt.hashfull(),
                    pv: pv.clone(),
                };
                report(&last);
            } else if let Some((m, score)) = searcher.root_best {
                // The move searched first is the previous best, so a move that beat it in the
                // unfinished iteration is the better choice.
                if Some(m) != best || last.depth == 0 {
                    best = Some(m);
                    last.score = score;
                    last.pv = searcher.pv();
                    pv = last.pv.clone();
                }
            }
            if !finished || !clock.iteration_allowed() {
                break;
            }
            if let Some(n) = limits.mate
                && i64::from(score) > i64::from(MATE) - 2 * i64::from(n)
            {
                break;
            }
            // A forced mate found with the whole tree searched cannot get shorter.
            if score.abs() >= MATE - depth as i32 {
                break;
            }
        }
    }

    last.nodes = searcher.nodes;
    last.elapsed_ms = clock.elapsed().as_millis() as u64;
    last.hashfull = tt.hashfull();
    if last.pv.is_empty() {
        last.pv = best.into_iter().collect();
    }
    let ponder = match (best, pv.first().copied() == best) {
        (Some(b), true) => pv.get(1).copied().or_else(|| reply_from_tt(root, b, tt)),
        (Some(b), false) => reply_from_tt(root, b, tt),
        (None, _) => None,
    };
    SearchResult { best, ponder, last }
}
