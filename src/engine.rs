//! Between the protocol and the search: owns the position, options and transposition table,
//! runs each `go` on a search thread, and applies commands in the order they came.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use crossbeam_channel::Receiver;
use shakmaty::{CastlingMode, EnPassantMode, Position, fen::Fen};
use vampirc_uci::{Serializable, UciMessage};

use crate::position::Game;
use crate::search::driver::{self, Iteration, SEARCH_STACK_BYTES, SearchResult};
use crate::search::ordering::Heuristics;
use crate::search::time::{Clock, Limits, StopToken};
use crate::search::tt::TranspositionTable;
use crate::strength::Strength;
use crate::syzygy::{Probe, Tables};
use crate::uci::options::{self, Change, Options};
use crate::uci::output::{Out, bestmove_line, info_line};
use crate::uci::parse::Command;
use crate::{bench, eval, perft};

pub const NAME: &str = concat!("Ferrum ", env!("CARGO_PKG_VERSION"));
pub const AUTHOR: &str = "the Ferrum developers";

/// A command with the stop/ponderhit counters as they were when its line was read.
pub struct Message {
    pub command: Command,
    pub token: StopToken,
}

pub struct Engine {
    out: Out,
    game: Game,
    options: Options,
    tt: Arc<TranspositionTable>,
    /// History and counter moves carried from one search of the game to the next.
    heuristics: Arc<Mutex<Heuristics>>,
    /// Syzygy tables from `SyzygyPath`, shared read-only with the search threads.
    tables: Option<Arc<Tables>>,
    search: Option<JoinHandle<()>>,
    debug: bool,
}

impl Engine {
    pub fn new(out: Out) -> Result<Engine, String> {
        let options = Options::default();
        Ok(Engine {
            out,
            game: Game::default(),
            tt: Arc::new(TranspositionTable::new(options.hash_mb)?),
            options,
            heuristics: Arc::default(),
            tables: None,
            search: None,
            debug: false,
        })
    }

    /// Handles commands until `quit` or the end of input, then lets any search finish.
    pub fn run(mut self, rx: Receiver<Message>) {
        while let Ok(msg) = rx.recv() {
            if !self.handle(msg) {
                break;
            }
        }
        self.wait_for_search();
    }

    /// Commands that change what a search uses wait for the running search to end first.
    fn wait_for_search(&mut self) {
        if let Some(handle) = self.search.take()
            && handle.join().is_err()
        {
            log::error!("search thread ended abnormally");
        }
    }

    fn handle(&mut self, msg: Message) -> bool {
        log::debug!("<< {:?}", msg.command);
        match msg.command {
            Command::Uci => {
                let id = UciMessage::Id {
                    name: Some(NAME.to_string()),
                    author: None,
                };
                self.out.line(&id.serialize());
                let id = UciMessage::Id {
                    name: None,
                    author: Some(AUTHOR.to_string()),
                };
                self.out.line(&id.serialize());
                for line in options::option_lines() {
                    self.out.line(&line);
                }
                self.out.line("uciok");
            }
            Command::IsReady => self.out.line("readyok"),
            Command::Debug(on) => self.debug = on,
            Command::Register => self.out.info_string("no registration needed"),
            Command::UciNewGame => {
                self.wait_for_search();
                self.tt.clear();
                *lock(&self.heuristics) = Heuristics::default();
            }
            Command::Position { fen, moves } => self.set_position(fen.as_deref(), &moves),
            Command::SetOption { name, value } => {
                self.wait_for_search();
                self.set_option(&name, value.as_deref());
            }
            Command::Go(limits) => {
                self.wait_for_search();
                self.start_search(limits, msg.token);
            }
            Command::Perft { depth, divide } => {
                self.wait_for_search();
                let game = self.game.clone();
                let out = self.out.clone();
                let token = msg.token;
                self.spawn_worker(move || {
                    let config = perft::PerftConfig::default();
                    let (nodes, ms) =
                        perft::run_divide(&game, depth, divide, config, Some(&token), &out);
                    log::info!("perft {depth}: {nodes} nodes in {ms} ms");
                });
            }
            Command::Stop => self.wait_for_search(),
            Command::PonderHit => {}
            Command::Quit => return false,
            Command::Bench(depth) => {
                self.wait_for_search();
                let out = self.out.clone();
                self.spawn_worker(move || bench::run(depth, &out));
            }
            Command::Display => {
                let fen = Fen::from_position(&self.game.pos, EnPassantMode::Legal);
                self.out.info_string(&format!("fen {fen}"));
                self.out
                    .info_string(&format!("key {:016x}", self.game.key()));
            }
            Command::Eval => {
                for line in eval::report(&self.game.pos) {
                    self.out.info_string(&line);
                }
            }
        }
        true
    }

    fn set_position(&mut self, fen: Option<&str>, moves: &[String]) {
        let game = match fen {
            None => Ok(Game {
                mode: if self.options.chess960 {
                    CastlingMode::Chess960
                } else {
                    CastlingMode::Standard
                },
                ..Game::default()
            }),
            Some(f) => Game::from_fen(f, self.options.chess960),
        };
        // A broken FEN leaves nothing to play on; a bad move keeps the moves before it.
        match game {
            Ok(mut g) => {
                if let Err(e) = g.apply_moves(moves) {
                    self.out.info_string(&format!("error: {e}"));
                }
                self.game = g;
            }
            Err(e) => self
                .out
                .info_string(&format!("error: {e}; position unchanged")),
        }
    }

    fn set_option(&mut self, name: &str, value: Option<&str>) {
        match options::parse(name, value) {
            Ok(Change::Hash(mb)) => self.resize_hash(mb),
            Ok(Change::ClearHash) => self.tt.clear(),
            Ok(Change::MoveOverhead(ms)) => self.options.move_overhead_ms = ms,
            Ok(Change::Threads(n)) => self.options.threads = n,
            Ok(Change::MultiPv(n)) => self.options.multipv = n,
            Ok(Change::Ponder(on)) => self.options.ponder = on,
            Ok(Change::SyzygyPath(path)) => self.load_tables(&path),
            Ok(Change::SyzygyProbeDepth(d)) => self.options.syzygy_probe_depth = d,
            Ok(Change::SyzygyProbeLimit(n)) => self.options.syzygy_probe_limit = n,
            Ok(Change::LimitStrength(on)) => self.options.limit_strength = on,
            Ok(Change::Elo(elo)) => self.options.elo = elo,
            Ok(Change::Chess960(on)) => {
                self.options.chess960 = on;
                self.game.mode = if on {
                    CastlingMode::Chess960
                } else {
                    CastlingMode::Standard
                };
            }
            Err(e) => self.out.info_string(&format!("error: {e}")),
        }
    }

    /// Replaces the tables with those in `path` (none when it is empty), saying what was found.
    fn load_tables(&mut self, path: &str) {
        self.tables = None;
        if path.is_empty() {
            self.out.info_string("Syzygy tables unloaded");
            return;
        }
        let (tables, messages) = Tables::load(path);
        for m in messages {
            self.out.info_string(&m);
        }
        self.tables = tables.map(Arc::new);
    }

    /// The old table is freed before the new one is made, so both never need memory at
    /// once; if the new size cannot be had, the old size is made again.
    fn resize_hash(&mut self, mb: usize) {
        let old_mb = self.options.hash_mb;
        match TranspositionTable::new(1) {
            Ok(small) => self.tt = Arc::new(small),
            Err(e) => {
                self.out.info_string(&format!("error: {e}"));
                return;
            }
        }
        match TranspositionTable::new(mb).or_else(|e| {
            self.out
                .info_string(&format!("error: {e}; keeping {old_mb} MB"));
            TranspositionTable::new(old_mb)
        }) {
            Ok(tt) => {
                self.options.hash_mb = tt.size_mb().max(1);
                self.tt = Arc::new(tt);
            }
            Err(e) => {
                self.options.hash_mb = 1;
                self.out
                    .info_string(&format!("error: {e}; using a 1 MB table"));
            }
        }
    }

    /// Runs long work (a search, perft, bench) off the engine thread, so `isready` is still
    /// answered; the next state-changing command waits for it.
    fn spawn_worker(&mut self, work: impl FnOnce() + Send + 'static) -> bool {
        let spawned = std::thread::Builder::new()
            .name("search".to_string())
            .stack_size(SEARCH_STACK_BYTES)
            .spawn(work);
        match spawned {
            Ok(handle) => {
                self.search = Some(handle);
                true
            }
            Err(e) => {
                log::error!("cannot start a worker thread: {e}");
                self.out
                    .info_string(&format!("error: cannot start a worker thread: {e}"));
                false
            }
        }
    }

    /// Keeps the legal `searchmoves`, naming each token that is not.
    fn checked_searchmoves(&self, tokens: &[String]) -> Vec<String> {
        let mut good = Vec::new();
        for t in tokens {
            match self.game.parse_move(t) {
                Ok(_) => good.push(t.clone()),
                Err(e) => self.out.info_string(&format!("error: searchmoves: {e}")),
            }
        }
        if good.is_empty() && !tokens.is_empty() {
            self.out
                .info_string("error: no legal move among searchmoves; searching all moves");
        }
        good
    }

    fn start_search(&mut self, mut limits: Limits, token: StopToken) {
        limits.searchmoves = self.checked_searchmoves(&limits.searchmoves);
        limits.multipv = self.options.multipv;
        let mut threads = self.options.threads;
        // Weakened play: one thread, a node budget, and several root lines to choose from.
        let strength = self
            .options
            .limit_strength
            .then(|| Strength::new(self.options.elo));
        if let Some(s) = strength {
            limits.nodes = Some(limits.nodes.map_or(s.nodes(), |n| n.min(s.nodes())));
            limits.multipv = s.lines();
            threads = 1;
        }
        let game = self.game.clone();
        let tt = Arc::clone(&self.tt);
        let out = self.out.clone();
        let overhead = self.options.move_overhead_ms;
        let heuristics = Arc::clone(&self.heuristics);
        let tables = self.tables.clone();
        let (probe_depth, probe_limit) = (
            self.options.syzygy_probe_depth,
            self.options.syzygy_probe_limit,
        );
        let started = self.spawn_worker(move || {
            let mut heuristics = lock(&heuristics);
            let tb = tables.as_deref().map(|tables| Probe {
                tables,
                depth: probe_depth,
                limit: probe_limit.min(tables.max_pieces),
            });
            let setup = SearchSetup {
                tt: &tt,
                tb,
                heuristics: &mut heuristics,
                overhead,
                threads,
                strength,
            };
            search_and_report(&game, &limits, setup, &out, token)
        });
        if !started {
            let first = self.game.pos.legal_moves().first().copied();
            self.out.line("info depth 0 score cp 0");
            self.out.line(&bestmove_line(first, None, self.game.mode));
        }
    }
}

/// The heuristics, even if the lock was poisoned (they are only move-ordering hints, so any
/// state is safe to use). A search that panics leaves them empty.
fn lock(h: &Mutex<Heuristics>) -> std::sync::MutexGuard<'_, Heuristics> {
    h.lock().unwrap_or_else(PoisonError::into_inner)
}

/// What a search runs with besides the position and limits.
pub struct SearchSetup<'a> {
    pub tt: &'a TranspositionTable,
    pub tb: Option<Probe<'a>>,
    pub heuristics: &'a mut Heuristics,
    pub overhead: i64,
    pub threads: usize,
    /// Play below full strength: choose among the root lines (see `strength.rs`).
    pub strength: Option<Strength>,
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}

/// Replaces the result's move, score and line by one of the last iteration's lines, chosen
/// as `strength` says; the seed makes the choice repeatable for a position.
fn choose_weaker_line(r: &mut SearchResult, lines: &[Iteration], strength: Strength, seed: u64) {
    let scores: Vec<i32> = lines.iter().map(|l| l.score).collect();
    let Some(chosen) = lines.get(strength.choose(&scores, seed)) else {
        return;
    };
    let Some(&first) = chosen.pv.first() else {
        return;
    };
    r.best = Some(first);
    r.ponder = chosen.pv.get(1).copied();
    r.last.depth = chosen.depth;
    r.last.seldepth = chosen.seldepth;
    r.last.score = chosen.score;
    r.last.pv = chosen.pv.clone();
}

/// Runs one `go` to its `bestmove`. A panic in the search is reported and a legal move is
/// still played, so the GUI never waits for an answer that will not come.
pub fn search_and_report(
    game: &Game,
    limits: &Limits,
    setup: SearchSetup,
    out: &Out,
    token: StopToken,
) {
    let clock = Clock::new(limits, game.pos.turn().is_white(), setup.overhead, token);
    let mode = game.mode;
    let (tt, tb, threads) = (setup.tt, setup.tb, setup.threads);
    let heuristics = setup.heuristics;
    // Under a strength limit only the first line of each iteration is shown while searching;
    // the lines of the last iteration are kept to choose from.
    let mut lines: Vec<Iteration> = Vec::new();
    let result = catch_unwind(AssertUnwindSafe(|| {
        driver::search_threads(
            game,
            limits,
            tt,
            tb,
            &clock,
            threads,
            heuristics,
            &mut |it| {
                if setup.strength.is_some() {
                    if it.multipv == 1 {
                        lines.clear();
                    }
                    lines.push(it.clone());
                    if it.multipv > 1 {
                        return;
                    }
                }
                out.line(&info_line(it, mode))
            },
        )
    }));
    // `go infinite` and unanswered `go ponder` hold the answer until `stop` or `ponderhit`.
    while clock.must_wait_for_bestmove() {
        std::thread::sleep(Duration::from_millis(1));
    }
    match result {
        Ok(mut r) => {
            if let Some(strength) = setup.strength {
                choose_weaker_line(&mut r, &lines, strength, game.key());
            }
            out.line(&info_line(&r.last, mode));
            out.line(&bestmove_line(r.best, r.ponder, mode));
        }
        Err(payload) => {
            let msg = panic_message(payload.as_ref());
            log::error!("search panicked: {msg}");
            out.info_string(&format!(
                "error: search failed ({msg}); playing a legal move"
            ));
            out.line("info depth 0 score cp 0");
            let first = game.pos.legal_moves().first().copied();
            out.line(&bestmove_line(first, None, mode));
        }
    }
}
