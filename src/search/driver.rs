//! Iterative deepening: searches depth 1, 2, ... until a limit, reporting each iteration and
//! keeping the best move of the deepest finished one.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use shakmaty::{Chess, Move, Position};

use super::negamax::Searcher;
use super::ordering::Heuristics;
use super::score::{INFINITY, MATE, MAX_PLY, is_mate, mated_in};
use super::time::{Clock, Limits};
use super::tt::TranspositionTable;
use crate::position::{Game, zobrist};
use crate::syzygy::Probe;

/// What one iteration found, as the protocol layer reports it.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: u32,
    pub seldepth: u32,
    /// 1 for the best line; 2, 3, ... for the next ones under MultiPV.
    pub multipv: u32,
    pub score: i32,
    pub nodes: u64,
    pub elapsed_ms: u64,
    pub hashfull: u32,
    /// Tablebase probes so far, when tables are loaded.
    pub tbhits: Option<u64>,
    pub pv: Vec<Move>,
}

#[derive(Clone, Debug)]
pub struct SearchResult {
    /// None only when the root has no legal move.
    pub best: Option<Move>,
    pub ponder: Option<Move>,
    /// The last report: depth, score and line behind `best`.
    pub last: Iteration,
    /// Nodes searched by each thread, the main thread first; with helpers, `last.nodes` is
    /// their sum.
    pub thread_nodes: Vec<u64>,
}

/// The table's move for the position after `best`, when the PV was cut short by a table hit.
fn reply_from_tt(root: &Chess, best: Move, tt: &TranspositionTable) -> Option<Move> {
    let mut child = root.clone();
    child.play_unchecked(best);
    let hit = tt.probe(zobrist(&child), 1)?;
    child.legal_moves().into_iter().find(|m| hit.mv.matches(*m))
}

/// How much of the soft time limit to use after an iteration, in percent: more while the best
/// move keeps changing (by how many iterations it has stood) and when the score falls.
pub fn soft_time_percent(stable_iterations: u32, score_drop: i32) -> u32 {
    let stability = match stable_iterations {
        0 => 140,
        1 => 120,
        2 => 105,
        3 => 95,
        _ => 80,
    };
    let drop = match score_drop {
        d if d > 60 => 140,
        d if d > 25 => 120,
        _ => 100,
    };
    stability * drop / 100
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
        // A move that failed high is searched first next time, so if time runs out during
        // the re-search the partial result already prefers it.
        if score >= beta
            && let Some((m, _)) = searcher.root_best
        {
            searcher.root_hint = Some(m);
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

/// Searches `game` within `limits` on this thread; `report` is called for every line of every
/// finished iteration.
pub fn search(
    game: &Game,
    limits: &Limits,
    tt: &TranspositionTable,
    clock: &Clock,
    report: &mut dyn FnMut(&Iteration),
) -> SearchResult {
    tt.new_search();
    let mut heuristics = Heuristics::default();
    let context = Context {
        game,
        limits,
        tt,
        tb: None,
    };
    main_search(&context, clock, None, &mut heuristics, report)
}

/// What every thread of one search shares: the root, the limits and the tables.
#[derive(Clone, Copy)]
struct Context<'a> {
    game: &'a Game,
    limits: &'a Limits,
    tt: &'a TranspositionTable,
    tb: Option<Probe<'a>>,
}

/// Stack for search threads: recursion to the maximum ply copies a position per ply.
pub const SEARCH_STACK_BYTES: usize = 64 << 20;

/// Lazy SMP: `threads - 1` helpers search the same root through the shared table, so the
/// main thread finds more of its tree already searched. Helpers start at alternating depths
/// to spread out; only the main thread reports, decides time and picks the move. Node counts
/// are summed over all threads. The main thread orders quiet moves by `heuristics`, the
/// history of the game so far, and leaves in it what this search learnt; helpers start with
/// empty heuristics each time.
///
/// With tablebases, a root in the tables is searched over the moves that keep its best
/// result (see `syzygy::Tables::root_moves`), and positions below it are probed.
#[allow(clippy::too_many_arguments)]
pub fn search_threads(
    game: &Game,
    limits: &Limits,
    tt: &TranspositionTable,
    tb: Option<Probe>,
    clock: &Clock,
    threads: usize,
    heuristics: &mut Heuristics,
    report: &mut dyn FnMut(&Iteration),
) -> SearchResult {
    tt.new_search();
    let restricted = tb.and_then(|tb| {
        tb.tables.reset_hits();
        tablebase_root_moves(game, limits, tb)
    });
    let limits = restricted.as_ref().unwrap_or(limits);
    let context = Context {
        game,
        limits,
        tt,
        tb,
    };
    if threads <= 1 {
        return main_search(&context, clock, None, heuristics, report);
    }
    let shared = AtomicU64::new(0);
    let abort = Arc::new(AtomicBool::new(false));
    let mut result = std::thread::scope(|scope| {
        let mut helpers = Vec::new();
        for id in 1..threads {
            let helper_clock =
                Clock::helper(clock.token().clone(), Arc::clone(&abort), limits.nodes);
            let shared = &shared;
            let spawned = std::thread::Builder::new()
                .name(format!("helper {id}"))
                .stack_size(SEARCH_STACK_BYTES)
                .spawn_scoped(scope, move || {
                    helper_search(&context, &helper_clock, shared, id)
                });
            match spawned {
                Ok(handle) => helpers.push(handle),
                Err(e) => log::warn!("helper thread {id} not started: {e}"),
            }
        }
        let mut result = main_search(&context, clock, Some(&shared), heuristics, report);
        abort.store(true, Ordering::Relaxed);
        for handle in helpers {
            // A helper's panic is the search's panic, as if the scope had passed it on.
            let nodes = handle
                .join()
                .unwrap_or_else(|payload| std::panic::resume_unwind(payload));
            result.thread_nodes.push(nodes);
        }
        result
    });
    // Every thread has added all its nodes by now.
    result.last.nodes = shared.load(Ordering::Relaxed);
    result
}

/// A helper's iterative deepening: no reports, no time of its own; it stops when the main
/// thread is done. Returns its node count.
fn helper_search(context: &Context, clock: &Clock, shared: &AtomicU64, id: usize) -> u64 {
    let (game, limits) = (context.game, context.limits);
    let mut searcher = Searcher::new(context.tt, clock, game.repetition_keys());
    searcher.tb = context.tb;
    searcher.share_nodes(shared);
    searcher.root_moves = limits
        .searchmoves
        .iter()
        .filter_map(|t| game.parse_move(t).ok())
        .collect();
    for depth in (1 + id % 2)..MAX_PLY {
        searcher.negamax(&game.pos, depth as i32, -INFINITY, INFINITY, 0);
        if searcher.stopped {
            break;
        }
    }
    searcher.flush_nodes();
    searcher.nodes
}

/// The limits with `searchmoves` narrowed to the moves the tables keep, when the root is in
/// the tables; None otherwise.
fn tablebase_root_moves(game: &Game, limits: &Limits, tb: Probe) -> Option<Limits> {
    let root = &game.pos;
    if root.board().occupied().count() > tb.limit {
        return None;
    }
    let allowed: Vec<Move> = root
        .legal_moves()
        .into_iter()
        .filter(|m| limits.searchmoves.is_empty() || limits.searchmoves.contains(&game.uci(*m)))
        .collect();
    let kept = tb.tables.root_moves(root, &allowed)?;
    Some(Limits {
        searchmoves: kept.iter().map(|m| game.uci(*m)).collect(),
        ..limits.clone()
    })
}

fn main_search(
    context: &Context,
    clock: &Clock,
    shared: Option<&AtomicU64>,
    heuristics: &mut Heuristics,
    report: &mut dyn FnMut(&Iteration),
) -> SearchResult {
    let (game, limits, tt) = (context.game, context.limits, context.tt);
    let root = &game.pos;
    let mut searcher = Searcher::new(tt, clock, game.repetition_keys());
    searcher.tb = context.tb;
    searcher.heuristics = std::mem::take(heuristics);
    searcher.heuristics.new_search();
    if let Some(counter) = shared {
        searcher.share_nodes(counter);
    }
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
        multipv: 1,
        // Without a legal move the root is mate or stalemate.
        score: if candidates.is_empty() && root.is_check() {
            mated_in(0)
        } else {
            0
        },
        nodes: 0,
        elapsed_ms: 0,
        hashfull: 0,
        tbhits: None,
        pv: best.into_iter().collect(),
    };
    let mut pv: Vec<Move> = Vec::new();
    let lines_wanted = limits.multipv.clamp(1, candidates.len().max(1));
    let mut stable_iterations = 0;
    let mut previous_best: Option<Move> = None;
    let mut previous_score: Option<i32> = None;

    if !candidates.is_empty() {
        for depth in 1..=max_depth {
            searcher.seldepth = 0;
            // MultiPV: the k-th line is the best move once the k - 1 better ones are excluded.
            let mut lines: Vec<(i32, Vec<Move>)> = Vec::new();
            searcher.excluded.clear();
            for k in 0..lines_wanted {
                searcher.root_best = None;
                searcher.root_hint = if k == 0 && last.depth > 0 { best } else { None };
                let score = if k == 0 {
                    let previous = (last.depth > 0).then_some(last.score);
                    aspiration_search(&mut searcher, root, depth as i32, previous)
                } else {
                    searcher.negamax(root, depth as i32, -INFINITY, INFINITY, 0)
                };
                if searcher.stopped {
                    break;
                }
                let line = searcher.pv();
                let Some(&first) = line.first() else { break };
                searcher.excluded.push(first);
                lines.push((score, line));
            }
            searcher.excluded.clear();
            let finished = !searcher.stopped;
            if !lines.is_empty() {
                // Stable: equal scores keep the order they were found in.
                lines.sort_by_key(|(score, _)| std::cmp::Reverse(*score));
                pv = lines[0].1.clone();
                best = pv.first().copied().or(best);
                for (k, (score, line)) in lines.iter().enumerate() {
                    let it = Iteration {
                        depth,
                        seldepth: searcher.seldepth as u32,
                        multipv: k as u32 + 1,
                        score: *score,
                        nodes: searcher.total_nodes(),
                        elapsed_ms: clock.elapsed().as_millis() as u64,
                        hashfull: tt.hashfull(),
                        tbhits: context.tb.map(|tb| tb.tables.hits()),
                        pv: line.clone(),
                    };
                    report(&it);
                    if k == 0 {
                        last = it;
                    }
                }
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
            let score = last.score;
            if finished && depth > 1 {
                stable_iterations = if pv.first() == previous_best.as_ref() {
                    stable_iterations + 1
                } else {
                    0
                };
                let drop = previous_score.map_or(0, |p| p - score);
                clock.set_soft_percent(soft_time_percent(stable_iterations, drop));
            }
            previous_best = pv.first().copied();
            previous_score = (!is_mate(score)).then_some(score);
            if !finished || !clock.iteration_allowed() {
                break;
            }
            if let Some(n) = limits.mate
                && i64::from(score) > i64::from(MATE) - 2 * i64::from(n)
            {
                break;
            }
            // A mate seen well inside the search depth is played; with pruning a shorter one
            // could still exist, but only rarely, and the mate is kept.
            if lines_wanted == 1 && 2 * (MATE - score.abs()) <= depth as i32 {
                break;
            }
        }
    }

    searcher.flush_nodes();
    last.nodes = searcher.total_nodes();
    last.elapsed_ms = clock.elapsed().as_millis() as u64;
    last.hashfull = tt.hashfull();
    last.tbhits = context.tb.map(|tb| tb.tables.hits());
    if last.pv.is_empty() {
        last.pv = best.into_iter().collect();
    }
    let ponder = match (best, pv.first().copied() == best) {
        (Some(b), true) => pv.get(1).copied().or_else(|| reply_from_tt(root, b, tt)),
        (Some(b), false) => reply_from_tt(root, b, tt),
        (None, _) => None,
    };
    *heuristics = std::mem::take(&mut searcher.heuristics);
    SearchResult {
        best,
        ponder,
        last,
        thread_nodes: vec![searcher.nodes],
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn soft_time_grows_while_the_best_move_changes_and_when_the_score_falls() {
        // ((iterations the best move has stood, score drop in cp), percent of the soft limit)
        let cases = [
            ((0, 0), 140),
            ((1, 0), 120),
            ((2, 0), 105),
            ((3, 0), 95),
            ((4, 0), 80),
            ((30, 0), 80),
            ((4, 25), 80),
            ((4, 26), 96),
            ((4, 60), 96),
            ((4, 61), 112),
            ((0, 61), 196),
            // A rising score is no reason to think longer.
            ((0, -300), 140),
            ((4, -300), 80),
        ];
        for ((stable, drop), percent) in cases {
            assert_eq!(
                soft_time_percent(stable, drop),
                percent,
                "stable {stable}, drop {drop}"
            );
        }
    }
}
