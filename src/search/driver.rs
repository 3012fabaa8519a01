//! Iterative deepening: searches depth 1, 2, ... until a limit, reporting each iteration and
//! keeping the best move of the deepest finished one.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use shakmaty::{Chess, Move, Position};

use super::params;
use super::pool::{Helpers, Pool, panic_message, start_helpers};
use super::root::{RootMoves, shown_score};
use super::score::{INFINITY, MATE, MAX_PLY, is_mate, mated_in};
use super::searcher::Searcher;
use super::stats::Stats;
use super::thread::ThreadData;
use super::time::{Clock, Limits, StopToken, soft_time_percent};
use super::tt::TranspositionTable;
use crate::basics::position::{Game, zobrist};
use crate::eval::nnue::Network;
use crate::search::syzygy::{Probe, Tables};

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
    /// Every line of the last reported iteration, best first (MultiPV).
    pub lines: Vec<Iteration>,
    /// Nodes searched by each thread, the main thread first; with helpers, `last.nodes` is
    /// their sum.
    pub thread_nodes: Vec<u64>,
    /// The root's result in the tablebases as a score, when the root is in them. `last` and
    /// `lines` keep the search's own scores (the strength limit weighs lines by them); a GUI
    /// is shown `shown(..)`.
    pub table_score: Option<i32>,
    /// What the selective parts of the main thread's search did (counted by a tuning build
    /// only: all zero otherwise).
    pub stats: Stats,
}

impl Iteration {
    /// The line as a GUI is shown it at a root whose tablebase result is `table_score`: the
    /// tables' result unless the line found a mate.
    pub fn shown(&self, table_score: Option<i32>) -> Iteration {
        Iteration {
            score: shown_score(table_score, self.score),
            ..self.clone()
        }
    }
}

impl SearchResult {
    /// A line of this search as a GUI is shown it.
    pub fn shown(&self, it: &Iteration) -> Iteration {
        it.shown(self.table_score)
    }
}

/// The table's move for the position after `best`, when the PV was cut short by a table hit.
fn reply_from_tt(root: &Chess, best: Move, tt: &TranspositionTable) -> Option<Move> {
    let mut child = root.clone();
    child.play_unchecked(best);
    let hit = tt.probe(zobrist(&child), 1)?;
    child.legal_moves().into_iter().find(|m| hit.mv.matches(*m))
}

/// One iteration, first with a narrow window around the previous score: most iterations land
/// inside it and search fewer nodes; a score outside it is searched again wider, the window
/// doubling on each failure until it gives up and opens fully.
fn aspiration_search(
    searcher: &mut Searcher,
    root: &Chess,
    moves: &RootMoves,
    depth: i32,
    previous: Option<i32>,
) -> i32 {
    let (candidates, whole) = (moves.moves(), !moves.restricted());
    let Some(prev) = previous.filter(|p| depth >= params::aspiration_min_depth() && !is_mate(*p))
    else {
        return searcher.search_root(root, candidates, whole, depth, -INFINITY, INFINITY);
    };
    let mut delta = params::aspiration_delta();
    let (mut alpha, mut beta) = (prev - delta, prev + delta);
    loop {
        let score = searcher.search_root(root, candidates, whole, depth, alpha, beta);
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
        if delta > params::aspiration_max_delta() {
            (alpha, beta) = (-INFINITY, INFINITY);
        } else if score <= alpha {
            alpha = (score - delta).max(-INFINITY);
        } else {
            beta = (score + delta).min(INFINITY);
        }
    }
}

/// Searches `game` within `limits` on this thread with the hand-written evaluation (see
/// `search_with_net`); `report` is called for every line of every finished iteration.
pub fn search(
    game: &Game,
    limits: &Limits,
    tt: &TranspositionTable,
    clock: &Clock,
    report: &mut dyn FnMut(&Iteration),
) -> SearchResult {
    search_with_net(game, limits, tt, clock, None, report)
}

/// `search`, evaluating with `net` when given (the hand-written evaluation otherwise).
pub fn search_with_net(
    game: &Game,
    limits: &Limits,
    tt: &TranspositionTable,
    clock: &Clock,
    net: Option<&Arc<Network>>,
    report: &mut dyn FnMut(&Iteration),
) -> SearchResult {
    search_on_thread(
        game,
        limits,
        tt,
        clock,
        net,
        &mut ThreadData::default(),
        report,
    )
}

/// `search_with_net` with the caller's thread data, which keeps what it has learnt (history,
/// counter moves): a caller that plays many searches saves making a new one for each, and one
/// that wants each search to start afresh calls `ThreadData::forget_game` first.
pub fn search_on_thread(
    game: &Game,
    limits: &Limits,
    tt: &TranspositionTable,
    clock: &Clock,
    net: Option<&Arc<Network>>,
    td: &mut ThreadData,
    report: &mut dyn FnMut(&Iteration),
) -> SearchResult {
    tt.new_search();
    let root = RootMoves::new(&game.pos, &[]);
    let context = Context {
        game,
        limits,
        tt,
        tb: None,
        root: &root,
        net,
        selectivity: Selectivity::Full,
    };
    main_search(&context, clock, None, td, report)
}

/// What every thread of one search shares: the root and its moves, the limits and the tables.
#[derive(Clone, Copy)]
struct Context<'a> {
    game: &'a Game,
    limits: &'a Limits,
    tt: &'a TranspositionTable,
    tb: Option<Probe<'a>>,
    root: &'a RootMoves,
    /// The net every thread evaluates with (`UseNNUE`), or None for the hand-written one.
    net: Option<&'a Arc<Network>>,
    selectivity: Selectivity,
}

/// How selective a search is: the engine's (`Full`), or, to be compared with the plain
/// negamax of `reference`, without any of its pruning, reductions and extensions, with the
/// table (its moves and exact cutoffs: the value is still exact) or without it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Selectivity {
    #[default]
    Full,
    Unpruned,
    UnprunedWithoutTable,
}

impl Selectivity {
    /// Sets a searcher's switches to this selectivity.
    fn apply(self, searcher: &mut Searcher) {
        searcher.prune = self == Selectivity::Full;
        searcher.use_tt = self != Selectivity::UnprunedWithoutTable;
    }
}

pub use super::pool::SEARCH_STACK_BYTES;

/// A search the pool runs: what its threads share, owned, since the threads outlive the `go`.
pub struct Job {
    pub game: Game,
    pub limits: Limits,
    pub tt: Arc<TranspositionTable>,
    pub tables: Option<Arc<Tables>>,
    pub probe_depth: i32,
    pub probe_limit: usize,
    pub threads: usize,
    /// The root moves `go searchmoves` allows (all when empty).
    pub searchmoves: Vec<Move>,
    /// The net to evaluate with (`UseNNUE`), shared read-only by the threads; None for the
    /// hand-written evaluation.
    pub net: Option<Arc<Network>>,
    pub selectivity: Selectivity,
}

impl Job {
    /// One thread, every root move, no tablebases, the hand-written evaluation: set the
    /// fields for more.
    pub fn new(game: Game, limits: Limits, tt: Arc<TranspositionTable>) -> Job {
        Job {
            game,
            limits,
            tt,
            tables: None,
            probe_depth: 1,
            probe_limit: 0,
            threads: 1,
            searchmoves: Vec::new(),
            net: None,
            selectivity: Selectivity::Full,
        }
    }

    fn probe(&self) -> Option<Probe<'_>> {
        self.tables.as_deref().map(|tables| Probe {
            tables,
            depth: self.probe_depth,
            limit: self.probe_limit.min(tables.max_pieces),
        })
    }
}

/// Tells the helpers to stop when the main search ends, even by a panic.
struct AbortOnDrop(Arc<AtomicBool>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Lazy SMP on the pool: this thread (the pool's main one, with its own `td`) searches and
/// reports; `job.threads - 1` helpers search the same root through the shared table with
/// their own state, which they keep from one search to the next. A helper's panic is passed
/// on as this search's panic.
pub fn search_pool(
    job: &Arc<Job>,
    helpers: &Helpers,
    clock: &Clock,
    td: &mut ThreadData,
    report: &mut dyn FnMut(&Iteration),
) -> SearchResult {
    job.tt.new_search();
    let tb = job.probe();
    let root = Arc::new(root_moves(&job.game, &job.searchmoves, tb));
    let context = Context {
        game: &job.game,
        limits: &job.limits,
        tt: &job.tt,
        tb,
        root: &root,
        net: job.net.as_ref(),
        selectivity: job.selectivity,
    };
    let n = job.threads.saturating_sub(1).min(helpers.len());
    if n == 0 {
        return main_search(&context, clock, None, td, report);
    }
    let shared = Arc::new(AtomicU64::new(0));
    let abort = AbortOnDrop(Arc::new(AtomicBool::new(false)));
    let results = {
        let (job, root, shared) = (Arc::clone(job), Arc::clone(&root), Arc::clone(&shared));
        let (token, abort) = (clock.token().clone(), Arc::clone(&abort.0));
        start_helpers(helpers, n, move |id, td| {
            let clock = Clock::helper(token.clone(), Arc::clone(&abort), job.limits.nodes);
            let context = Context {
                game: &job.game,
                limits: &job.limits,
                tt: &job.tt,
                tb: job.probe(),
                root: &root,
                net: job.net.as_ref(),
                selectivity: job.selectivity,
            };
            helper_search(&context, &clock, &shared, id, td)
        })
    };
    let mut result = main_search(&context, clock, Some(&shared), td, report);
    drop(abort);
    for r in results.iter().take(n) {
        match r {
            Ok(nodes) => result.thread_nodes.push(nodes),
            Err(msg) => std::panic::resume_unwind(Box::new(msg)),
        }
    }
    // Every thread has added all its nodes by now.
    result.last.nodes = shared.load(Ordering::Relaxed);
    result
}

/// Runs `job` on `pool` and waits for it: the result and every line reported on the way.
/// For tools and tests that search one position at a time; each thread keeps what it learnt
/// for the next search unless the pool is cleared. Err with the panic's message if the
/// search panicked (the pool survives).
pub fn search_on(
    pool: &Pool,
    job: Job,
    clock: Clock,
) -> Result<(SearchResult, Vec<Iteration>), String> {
    let (tx, rx) = crossbeam_channel::bounded(1);
    let job = Arc::new(job);
    pool.run(move |td, helpers| {
        let mut lines = Vec::new();
        let run = catch_unwind(AssertUnwindSafe(|| {
            search_pool(&job, helpers, &clock, td, &mut |it| lines.push(it.clone()))
        }));
        let _ = tx.send(
            run.map(|r| (r, lines))
                .map_err(|p| panic_message(p.as_ref())),
        );
    })
    .wait();
    match rx.recv() {
        Ok(Ok(result)) => Ok(result),
        Ok(Err(msg)) => Err(format!("the search panicked: {msg}")),
        Err(_) => Err("the search thread is gone".to_string()),
    }
}

/// The search as tools and tests reach it: `job` (a position, its limits, the table and how
/// to search) on a pool of its own, with a clock made from the limits alone (no move
/// overhead, nothing to stop it from outside); the result and every line reported.
pub fn run(job: Job) -> Result<(SearchResult, Vec<Iteration>), String> {
    let pool = Pool::new(job.threads.max(1))?;
    let clock = Clock::new(
        &job.limits,
        job.game.pos.turn().is_white(),
        0,
        StopToken::detached(),
    );
    search_on(&pool, job, clock)
}

/// A helper's iterative deepening: no reports, no time of its own; it stops when the main
/// thread is done. Returns its node count.
fn helper_search(
    context: &Context,
    clock: &Clock,
    shared: &AtomicU64,
    id: usize,
    td: &mut ThreadData,
) -> u64 {
    let (game, root) = (context.game, context.root);
    let mut searcher = Searcher::new(context.tt, clock, td, game.repetition_keys());
    searcher.td.use_net(context.net.cloned(), &game.pos);
    searcher.tb = context.tb;
    context.selectivity.apply(&mut searcher);
    searcher.share_nodes(shared);
    let (candidates, whole) = (root.moves(), !root.restricted());
    for depth in (1 + id % 2)..MAX_PLY {
        searcher.search_root(
            &game.pos,
            candidates,
            whole,
            depth as i32,
            -INFINITY,
            INFINITY,
        );
        if searcher.stopped {
            break;
        }
    }
    searcher.flush_nodes();
    searcher.nodes()
}

/// The root moves: the legal ones, or those among `searchmoves`; when the root is in the
/// tables, narrowed to the moves that keep its best result (see `syzygy::Tables::root_moves`).
fn root_moves(game: &Game, searchmoves: &[Move], tb: Option<Probe>) -> RootMoves {
    let mut root = RootMoves::new(&game.pos, searchmoves);
    if let Some(tb) = tb {
        tb.tables.reset_hits();
        if game.pos.board().occupied().count() <= tb.limit {
            let allowed: Vec<Move> = root.moves().iter().map(|r| r.mv).collect();
            if let Some((kept, rank)) = tb.tables.root_moves(&game.pos, &allowed) {
                root.restrict(&kept, rank.score());
            }
        }
    }
    root
}

fn main_search(
    context: &Context,
    clock: &Clock,
    shared: Option<&AtomicU64>,
    td: &mut ThreadData,
    report: &mut dyn FnMut(&Iteration),
) -> SearchResult {
    let (game, limits, tt) = (context.game, context.limits, context.tt);
    let root = &game.pos;
    let mut searcher = Searcher::new(tt, clock, td, game.repetition_keys());
    searcher.td.use_net(context.net.cloned(), &game.pos);
    searcher.tb = context.tb;
    context.selectivity.apply(&mut searcher);
    if let Some(counter) = shared {
        searcher.share_nodes(counter);
    }
    let mut moves = context.root.clone();
    // A mate in n moves is seen by a full-width search of 2n - 1 plies.
    let mate_depth = limits
        .mate
        .map(|n| n.min(MAX_PLY as u32).saturating_mul(2).saturating_add(1));
    let max_depth = limits
        .depth
        .or(mate_depth)
        .map_or(MAX_PLY as u32 - 1, |d| d.clamp(1, MAX_PLY as u32 - 1));
    let mut best: Option<Move> = moves.moves().first().map(|r| r.mv);
    let mut last = Iteration {
        depth: 0,
        seldepth: 0,
        multipv: 1,
        // Without a legal move the root is mate or stalemate.
        score: if moves.is_empty() && root.is_check() {
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
    let lines_wanted = limits.multipv.clamp(1, moves.len().max(1));
    let mut lines: Vec<Iteration> = Vec::new();
    let mut stable_iterations = 0;
    let mut previous_best: Option<Move> = None;
    let mut previous_score: Option<i32> = None;

    if !moves.is_empty() {
        for depth in 1..=max_depth {
            searcher.td.seldepth = 0;
            moves.start_iteration();
            // MultiPV: the k-th line is the best move once the k - 1 better ones are excluded.
            let mut found = 0;
            for k in 0..lines_wanted {
                searcher.root_best = None;
                searcher.root_hint = if k == 0 && last.depth > 0 { best } else { None };
                let score = if k == 0 {
                    let previous = (last.depth > 0).then_some(last.score);
                    aspiration_search(&mut searcher, root, &moves, depth as i32, previous)
                } else {
                    let candidates = &moves.moves()[k..];
                    searcher.search_root(root, candidates, false, depth as i32, -INFINITY, INFINITY)
                };
                if searcher.stopped {
                    break;
                }
                let line = searcher.pv();
                if line.is_empty() {
                    break;
                }
                moves.complete_line(k, score, line, searcher.td.seldepth);
                found += 1;
            }
            let finished = !searcher.stopped;
            if found > 0 {
                moves.sort_lines(found);
                pv = moves.moves()[0].pv.clone();
                best = pv.first().copied().or(best);
                lines.clear();
                for (k, line) in moves.moves()[..found].iter().enumerate() {
                    let it = Iteration {
                        depth,
                        seldepth: searcher.td.seldepth as u32,
                        multipv: k as u32 + 1,
                        score: line.score,
                        nodes: searcher.total_nodes(),
                        elapsed_ms: clock.elapsed().as_millis() as u64,
                        hashfull: tt.hashfull(),
                        tbhits: context.tb.map(|tb| tb.tables.hits()),
                        pv: line.pv.clone(),
                    };
                    report(&it.shown(moves.table_score()));
                    if k == 0 {
                        last = it.clone();
                    }
                    lines.push(it);
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
            if !finished
                || !clock.iteration_allowed()
                || limits
                    .soft_nodes
                    .is_some_and(|soft| searcher.total_nodes() >= soft)
            {
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
    SearchResult {
        best,
        ponder,
        last,
        lines,
        thread_nodes: vec![searcher.nodes()],
        table_score: moves.table_score(),
        stats: searcher.td.stats,
    }
}
