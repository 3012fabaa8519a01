//! Between the protocol and the search: owns the position, options and transposition table,
//! runs each `go` on a search thread, and applies commands in the order they came.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::{Arc, Mutex, PoisonError};

use crossbeam_channel::Receiver;
use shakmaty::{CastlingMode, EnPassantMode, Move, Position, fen::Fen};

use crate::basics::memory;
use crate::basics::position::Game;
use crate::eval;
use crate::eval::net_file::{self, LoadedNet};
use crate::eval::nnue::Network;
use crate::measure::{bench, perft};
use crate::play::strength::Strength;
use crate::search::driver::{self, Job, SearchResult, Selectivity};
use crate::search::lag::LagMeter;
use crate::search::pool::{Done, Helpers, Pool, panic_message};
use crate::search::syzygy::Tables;
use crate::search::thread::ThreadData;
use crate::search::time::{Clock, Limits, StopToken};
use crate::search::tt::TranspositionTable;
use crate::uci::options::{self, Change, Options};
use crate::uci::output::{
    NO_SEARCH_INFO, Out, READYOK, bestmove_line, handshake_lines, help_lines, info_line,
};
use crate::uci::parse::Command;
use crate::uci::wdl;

/// "Ferrum 0.2.0 (b89bfb8)": the version and the commit built (`build.rs`; the version alone
/// when built outside a git clone), so a tester knows which build played.
pub const NAME: &str = concat!("Ferrum ", env!("FERRUM_VERSION"));
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
    /// The search threads, parked between searches; None only if none could be started.
    pool: Option<Pool>,
    /// Syzygy tables from `SyzygyPath`, shared read-only with the search threads.
    tables: Option<Arc<Tables>>,
    /// Closes when the work running on the pool (a search, perft, bench) has ended.
    running: Option<Done>,
    /// The NNUE (`EvalFile`), used when `UseNNUE` is on; None only if no net could be read.
    net: Option<LoadedNet>,
    /// The options as the engine started (what `uci` advertises as defaults).
    defaults: Options,
    /// The lag this game's clocks have shown, shared with the search that ends each move.
    lag: Arc<Mutex<LagMeter>>,
}

impl Engine {
    /// An engine whose options start as `defaults` (`Options::default()`, or with `UseNNUE`
    /// off for `ferrum --hce`).
    pub fn new(out: Out, defaults: Options) -> Result<Engine, String> {
        let options = defaults.clone();
        Ok(Engine {
            defaults,
            out,
            game: Game::default(),
            tt: Arc::new(TranspositionTable::new(options.hash_mb)?),
            pool: Some(Pool::new(options.threads)?),
            options,
            tables: None,
            running: None,
            net: net_file::embedded().map_err(|e| log::error!("{e}")).ok(),
            lag: Arc::default(),
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
        if let Some(done) = self.running.take() {
            done.wait();
        }
    }

    fn handle(&mut self, msg: Message) -> bool {
        log::debug!("<< {:?}", msg.command);
        match msg.command {
            Command::Uci => {
                for line in handshake_lines(NAME, AUTHOR, options::option_lines(&self.defaults)) {
                    self.out.line(&line);
                }
            }
            Command::IsReady => self.out.line(READYOK),
            Command::Debug(_) => {}
            Command::Register => self.out.info_string("no registration needed"),
            Command::UciNewGame => {
                self.wait_for_search();
                self.tt.clear();
                if let Some(pool) = &self.pool {
                    pool.clear();
                }
                lock(&self.lag).clear();
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
                let token = msg.token.commands_only();
                self.run_on_pool(move |_, _| {
                    reported(&out, "perft", || {
                        let config = perft::PerftConfig::default();
                        let (nodes, ms) =
                            perft::run_divide(&game, depth, divide, config, Some(&token), &out);
                        log::info!("perft {depth}: {nodes} nodes in {ms} ms");
                    });
                });
            }
            Command::Stop => self.wait_for_search(),
            Command::PonderHit => {}
            Command::Quit => return false,
            Command::Bench(depth) => {
                self.wait_for_search();
                let out = self.out.clone();
                let net = self.search_net();
                let stop = msg.token.commands_only();
                self.run_on_pool(move |_, _| {
                    reported(&out, "bench", || {
                        bench::run(depth, net.as_ref(), &out, &stop)
                    });
                });
            }
            Command::Display => {
                let fen = Fen::from_position(&self.game.pos, EnPassantMode::Legal);
                self.out.info_string(&format!("fen {fen}"));
                self.out
                    .info_string(&format!("key {:016x}", self.game.key()));
            }
            Command::Help => {
                for line in help_lines(NAME) {
                    self.out.line(&line);
                }
            }
            Command::Eval => {
                for line in eval::report(&self.game.pos) {
                    self.out.info_string(&line);
                }
                if let Some(net) = self.net.as_ref().filter(|_| self.options.use_nnue) {
                    self.out
                        .info_string(&net_file::report_line(net, &self.game.pos));
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
            Ok(Change::Threads(n)) => self.set_threads(n),
            Ok(Change::MultiPv(n)) => self.options.multipv = n,
            // The GUI says whether it will send `go ponder`; nothing to set here.
            Ok(Change::Ponder(_)) => {}
            Ok(Change::SyzygyPath(path)) => self.load_tables(&path),
            Ok(Change::SyzygyProbeDepth(d)) => self.options.syzygy_probe_depth = d,
            Ok(Change::SyzygyProbeLimit(n)) => self.options.syzygy_probe_limit = n,
            Ok(Change::LimitStrength(on)) => self.options.limit_strength = on,
            Ok(Change::Elo(elo)) => self.options.elo = elo,
            Ok(Change::UseNnue(on)) => self.set_use_nnue(on),
            Ok(Change::ShowWdl(on)) => self.options.show_wdl = on,
            Ok(Change::EvalFile(spec)) => self.load_net(&spec),
            Ok(Change::Tuned) => {}
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

    /// The net a search evaluates with: the loaded one when `UseNNUE` is on.
    fn search_net(&self) -> Option<Arc<Network>> {
        self.net
            .as_ref()
            .filter(|_| self.options.use_nnue)
            .map(|n| Arc::clone(&n.net))
    }

    /// Switches between the NNUE and the hand-written evaluation. The table is cleared on a
    /// change, as the static evaluations it keeps are the other evaluation's.
    fn set_use_nnue(&mut self, on: bool) {
        if on != self.options.use_nnue {
            self.tt.clear();
        }
        self.options.use_nnue = on;
        match (&self.net, on) {
            (Some(net), true) => self
                .out
                .info_string(&format!("NNUE evaluation with the {}", net.describe())),
            (None, true) => self.out.info_string(
                "error: UseNNUE: no net is loaded (set EvalFile); the hand-written evaluation stays",
            ),
            (_, false) => self.out.info_string("hand-written evaluation"),
        }
    }

    /// Loads the net `spec` names (`<embedded>` or a file); a missing or malformed file is
    /// named with the reason and changes nothing.
    fn load_net(&mut self, spec: &str) {
        match net_file::load(spec) {
            Ok(net) => {
                self.out
                    .info_string(&format!("loaded the {}", net.describe()));
                if self.options.use_nnue {
                    self.tt.clear();
                }
                self.net = Some(net);
            }
            Err(e) => {
                let current = self
                    .net
                    .as_ref()
                    .map_or("no net".to_string(), |n| format!("the {}", n.describe()));
                self.out
                    .info_string(&format!("error: EvalFile: {e}; keeping {current}"));
            }
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
    /// once; if the new size cannot be had, the old size is made again. A size larger than
    /// the machine's free memory is refused at once, and the old table is kept.
    fn resize_hash(&mut self, mb: usize) {
        let old_mb = self.options.hash_mb;
        let free = memory::available_mb();
        if !memory::fits_in_memory(mb, old_mb, free) {
            let can = free.unwrap_or(0) + old_mb;
            self.out.info_string(&format!(
                "error: Hash {mb} MB is more than this machine can give (about {can} MB); \
                 keeping {old_mb} MB"
            ));
            return;
        }
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

    /// `n` search threads: the pool's helpers are replaced (it is idle: the search has been
    /// waited for); its main thread, and the history it holds, stays.
    fn set_threads(&mut self, n: usize) {
        match &mut self.pool {
            Some(pool) => pool.set_threads(n),
            None => match Pool::new(n) {
                Ok(pool) => self.pool = Some(pool),
                Err(e) => self.out.info_string(&format!("error: {e}")),
            },
        }
        let size = self.pool.as_ref().map_or(1, Pool::size);
        if size < n {
            self.out.info_string(&format!(
                "error: only {size} search threads could be started"
            ));
        }
        self.options.threads = size;
    }

    /// Runs long work (a search, perft, bench) on the pool's main thread, so `isready` is
    /// still answered; the next state-changing command waits for it.
    fn run_on_pool(
        &mut self,
        work: impl FnOnce(&mut ThreadData, &Helpers) + Send + 'static,
    ) -> bool {
        match &self.pool {
            Some(pool) => {
                self.running = Some(pool.run(work));
                true
            }
            None => {
                self.out
                    .info_string("error: no search thread could be started");
                false
            }
        }
    }

    /// The legal moves among the `searchmoves` tokens (parsed here, once), naming each token
    /// that is not one.
    fn checked_searchmoves(&self, tokens: &[String]) -> Vec<Move> {
        let mut good = Vec::new();
        for t in tokens {
            match self.game.parse_move(t) {
                Ok(m) => good.push(m),
                Err(e) => self.out.info_string(&format!("error: searchmoves: {e}")),
            }
        }
        if good.is_empty() && !tokens.is_empty() {
            self.out
                .info_string("error: no legal move among searchmoves; searching all moves");
        }
        good
    }

    /// Reads this `go`'s clock into the lag meter and notes the search if the GUI's clock
    /// runs with it (not pondering, not infinite, no fixed time); the lag to keep back.
    fn measure_lag(&self, limits: &Limits) -> Option<i64> {
        let (own, inc) = limits.side(self.game.pos.turn().is_white());
        let mut meter = lock(&self.lag);
        meter.observe(&self.game.past_keys, own);
        if let Some(clock) =
            own.filter(|_| !limits.ponder && !limits.infinite && limits.movetime.is_none())
        {
            let plies = self.game.past_keys.len();
            meter.start(self.game.key(), plies, clock, inc.unwrap_or(0));
        }
        log::debug!("lag meter: {meter:?}");
        meter.lag()
    }

    fn start_search(&mut self, mut limits: Limits, token: StopToken) {
        let searchmoves = self.checked_searchmoves(&limits.searchmoves);
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
        let job = Arc::new(Job {
            game: self.game.clone(),
            limits,
            tt: Arc::clone(&self.tt),
            tables: self.tables.clone(),
            probe_depth: self.options.syzygy_probe_depth,
            probe_limit: self.options.syzygy_probe_limit,
            threads,
            searchmoves,
            net: self.search_net(),
            selectivity: Selectivity::Full,
        });
        let lag = self.measure_lag(&job.limits);
        let meter = Arc::clone(&self.lag);
        let out = self.out.clone();
        let overhead = self.options.move_overhead_ms;
        let wdl_material = self
            .options
            .show_wdl
            .then(|| wdl::material(self.game.pos.board()));
        let started = self.run_on_pool(move |td, helpers| {
            let setup = SearchSetup {
                td,
                helpers,
                overhead,
                lag,
                meter,
                strength,
                wdl_material,
            };
            search_and_report(&job, setup, &out, token)
        });
        if !started {
            play_any_legal_move(&self.out, &self.game);
        }
    }
}

/// What a search runs with besides the job.
pub struct SearchSetup<'a> {
    pub td: &'a mut ThreadData,
    pub helpers: &'a Helpers,
    pub overhead: i64,
    /// The lag to keep back for each move ahead when the game's clocks have shown it.
    pub lag: Option<i64>,
    /// Told how long the search took, for the next move's measurement.
    pub meter: Arc<Mutex<LagMeter>>,
    /// Play below full strength: choose among the root lines (see `strength.rs`).
    pub strength: Option<Strength>,
    /// The root's material when `info` lines carry `wdl` (`UCI_ShowWDL`).
    pub wdl_material: Option<i32>,
}

/// Replaces the result's move, score and line by one of the last iteration's lines, chosen
/// as `strength` says; the seed makes the choice repeatable for a position.
fn choose_weaker_line(r: &mut SearchResult, strength: Strength, seed: u64) {
    let scores: Vec<i32> = r.lines.iter().map(|l| l.score).collect();
    let Some(chosen) = r.lines.get(strength.choose(&scores, seed)).cloned() else {
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
    r.last.pv = chosen.pv;
}

/// The answer when no search result is to be had: depth 0 and the first legal move.
fn play_any_legal_move(out: &Out, game: &Game) {
    let first = game.pos.legal_moves().first().copied();
    out.line(NO_SEARCH_INFO);
    out.line(&bestmove_line(first, None, game.mode));
}

/// Runs one `go` to its `bestmove`. A panic in the search is reported and a legal move is
/// still played, so the GUI never waits for an answer that will not come.
pub fn search_and_report(job: &Arc<Job>, setup: SearchSetup, out: &Out, token: StopToken) {
    let game = &job.game;
    let clock = Clock::with_lag(
        &job.limits,
        game.pos.turn().is_white(),
        setup.overhead,
        setup.lag,
        token,
    );
    let mode = game.mode;
    let (td, helpers) = (setup.td, setup.helpers);
    // Under a strength limit only the first line of each iteration is shown while searching;
    // the result keeps the lines of the last iteration to choose from.
    let result = catch_unwind(AssertUnwindSafe(|| {
        driver::search_pool(job, helpers, &clock, td, &mut |it| {
            if setup.strength.is_none() || it.multipv == 1 {
                out.line(&info_line(it, mode, setup.wdl_material));
            }
        })
    }));
    // `go infinite` and unanswered `go ponder` hold the answer until `stop` or `ponderhit`.
    clock.wait_for_bestmove();
    match result {
        Ok(mut r) => {
            if let Some(strength) = setup.strength {
                choose_weaker_line(&mut r, strength, game.key());
            }
            out.line(&info_line(&r.shown(&r.last), mode, setup.wdl_material));
            out.line(&bestmove_line(r.best, r.ponder, mode));
            let spent = i64::try_from(clock.elapsed().as_millis()).unwrap_or(i64::MAX);
            lock(&setup.meter).finish(spent);
        }
        Err(payload) => {
            let msg = panic_message(payload.as_ref());
            log::error!("search panicked: {msg}");
            out.info_string(&format!(
                "error: search failed ({msg}); playing a legal move"
            ));
            play_any_legal_move(out, game);
        }
    }
}

/// Runs `work` (a UCI `perft` or `bench`); if it panics, an info string says so, so that the
/// GUI learns why its answer will not come. The thread's search data is not reset (the pool
/// resets it only after a panic reaches it), which is safe as neither uses it.
fn reported(out: &Out, what: &str, work: impl FnOnce()) {
    if let Err(payload) = catch_unwind(AssertUnwindSafe(work)) {
        let msg = panic_message(payload.as_ref());
        log::error!("{what} panicked: {msg}");
        out.info_string(&format!("error: {what} failed ({msg})"));
    }
}

/// The lag meter, even if a search thread panicked while holding it.
fn lock(meter: &Mutex<LagMeter>) -> std::sync::MutexGuard<'_, LagMeter> {
    meter.lock().unwrap_or_else(PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A sink the test reads back.
    #[derive(Clone, Default)]
    struct Shared(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Shared {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            lock_buf(&self.0).extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    fn lock_buf(m: &Mutex<Vec<u8>>) -> std::sync::MutexGuard<'_, Vec<u8>> {
        m.lock().unwrap_or_else(PoisonError::into_inner)
    }

    #[test]
    fn a_panicking_perft_or_bench_is_told_in_an_info_string() {
        let buf = Shared::default();
        let out = Out::to(Box::new(buf.clone()));
        reported(&out, "perft", || panic!("depth went wrong"));
        reported(&out, "bench", || out.line("bench done"));
        let text = String::from_utf8(lock_buf(&buf.0).clone()).unwrap();
        assert_eq!(
            text.lines().collect::<Vec<_>>(),
            [
                "info string error: perft failed (depth went wrong)",
                "bench done"
            ]
        );
    }
}
