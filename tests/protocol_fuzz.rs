//! A seeded protocol fuzzer: sessions of random lines against the built engine. After each
//! one the engine is alive and answers `readyok`, printed exactly one `bestmove` per `go`,
//! each legal in the position it had accepted (legal prefix of a bad move list included),
//! and nothing on stdout but UCI messages (and the output of extension commands sent).
//!
//! `FERRUM_FUZZ_SEED=S FERRUM_FUZZ_SESSIONS=N cargo test --test protocol_fuzz -- --nocapture`
//! replays sessions S .. S+N-1; a failure names its seed and writes the bytes it sent.

mod fuzz;

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use fuzz::engine::{Engine, Next};
use fuzz::lines::{self, Rng};
use fuzz::model::{self, Kind, Model};
use shakmaty::Chess;

/// The default run: fixed seeds, so CI is repeatable.
const DEFAULT_SEED: u64 = 0x00F0_22ED;
const DEFAULT_SESSIONS: u64 = 48;
/// Longest wait for any answer; only a hang takes this long.
const PATIENCE: Duration = Duration::from_secs(20);

#[derive(Default)]
struct Totals {
    lines: usize,
    bytes: usize,
    gos: usize,
    bestmoves: usize,
    syncs: usize,
    /// Move lists played up to a bad token, and FENs refused, as the engine reported them.
    prefixes: usize,
    refused_fens: usize,
    /// Positions the model learnt from `d` (FENs the engine may accept with repairs).
    resyncs: usize,
}

/// One session: what was sent, what the engine owes, and what it answered.
struct Session {
    engine: Engine,
    model: Model,
    rng: Rng,
    /// The position of each `go` not yet answered, oldest first.
    pending: VecDeque<Chess>,
    /// Tame `go`s only since the last check: the engine may be left to answer alone.
    all_tame: bool,
    isready_sent: usize,
    readyok_seen: usize,
    extensions: bool,
    last_fen: Option<String>,
    totals: Totals,
}

impl Session {
    fn new(seed: u64) -> Session {
        Session {
            engine: Engine::start(),
            model: Model::default(),
            rng: Rng::new(seed),
            pending: VecDeque::new(),
            all_tame: true,
            isready_sent: 0,
            readyok_seen: 0,
            extensions: false,
            last_fen: None,
            totals: Totals::default(),
        }
    }

    /// Sends a line and applies what it means to the model.
    fn send(&mut self, bytes: &[u8], tame: bool) -> Result<(), String> {
        let kind = model::classify(bytes);
        self.engine.send(bytes)?;
        self.totals.lines += 1;
        self.totals.bytes += bytes.len();
        match kind {
            Kind::Go => {
                let pos = self
                    .model
                    .pos
                    .clone()
                    .ok_or("go sent while the model is unsure")?;
                self.pending.push_back(pos);
                self.all_tame &= tame;
                self.totals.gos += 1;
            }
            Kind::IsReady => self.isready_sent += 1,
            Kind::Position(args) => self.model.position(&args),
            Kind::SetOption(args) => self.model.setoption(&args),
            Kind::Extension => self.extensions = true,
            Kind::Display | Kind::Quit | Kind::Other => {}
        }
        Ok(())
    }

    /// Checks one output line.
    fn receive(&mut self, bytes: Vec<u8>) -> Result<(), String> {
        let line = String::from_utf8(bytes).map_err(|e| format!("output is not UTF-8: {e}"))?;
        if !model::is_uci_line(&line, self.extensions) {
            return Err(format!("not a UCI message: {line:?}"));
        }
        if line.starts_with("bestmove") {
            let pos = self
                .pending
                .pop_front()
                .ok_or_else(|| format!("{line:?} with no go unanswered"))?;
            model::check_bestmove(&pos, &line)?;
            self.totals.bestmoves += 1;
        } else if line == "readyok" {
            self.readyok_seen += 1;
            if self.readyok_seen > self.isready_sent {
                return Err("more readyok than isready".to_string());
            }
        } else if let Some(fen) = line.strip_prefix("info string fen ") {
            self.last_fen = Some(fen.to_string());
        } else if line.starts_with("info string error: ") {
            self.totals.prefixes += usize::from(line.contains(" of the move list; kept"));
            self.totals.refused_fens += usize::from(line.ends_with("; position unchanged"));
        }
        Ok(())
    }

    /// Reads output until every `isready` is answered and, if `all_answered`, every `go`.
    fn drain(&mut self, all_answered: bool) -> Result<(), String> {
        let deadline = Instant::now() + PATIENCE;
        while self.readyok_seen < self.isready_sent || (all_answered && !self.pending.is_empty()) {
            match self.engine.next(deadline) {
                Next::Line(bytes) => self.receive(bytes)?,
                Next::Closed => return Err("the engine closed its output".to_string()),
                Next::Timeout => {
                    return Err(format!(
                        "no answer within {PATIENCE:?}: {} readyok of {}, {} go unanswered",
                        self.readyok_seen,
                        self.isready_sent,
                        self.pending.len()
                    ));
                }
            }
        }
        Ok(())
    }

    /// A check point. With `stop`, every search ends now and `readyok` comes after all its
    /// `bestmove`s; without, tame searches are left to end by themselves. With `show`, the
    /// engine's position (`d`) must be the model's, or becomes it when the model is unsure.
    fn sync(&mut self, stop: bool, show: bool) -> Result<(), String> {
        self.totals.syncs += 1;
        if stop {
            self.send(b"stop\n", false)?;
        }
        if show {
            self.last_fen = None;
            self.send(b"d\n", false)?;
        }
        self.send(b"isready\n", false)?;
        self.drain(true)?;
        self.all_tame = true;
        if show {
            let fen = self.last_fen.take().ok_or("no 'info string fen' after d")?;
            let shown = model::lenient_position(&fen)
                .ok_or_else(|| format!("the engine shows an unreadable FEN {fen:?}"))?;
            match &self.model.pos {
                Some(expected) if !model::same_position(expected, &shown) => {
                    return Err(format!(
                        "the engine is at {fen}, the model at {}",
                        model::fen_of(expected)
                    ));
                }
                Some(_) => {}
                None => {
                    self.totals.resyncs += 1;
                    self.model.pos = Some(shown);
                }
            }
        }
        Ok(())
    }

    fn run(&mut self) -> Result<(), String> {
        let lines = self.rng.range(40, 160);
        for _ in 0..lines {
            let line = lines::line(&mut self.rng, &self.model);
            if model::classify(&line.bytes) == Kind::Quit {
                continue;
            }
            self.send(&line.bytes, line.tame)?;
            if self.model.pos.is_none() {
                self.sync(true, true)?;
            } else if self.rng.chance(6) {
                let stop = !self.all_tame || self.rng.chance(50);
                let show = self.rng.chance(50);
                self.sync(stop, show)?;
            }
        }
        self.sync(true, true)?;
        self.finish()
    }

    /// Ends the session as a GUI might: `quit` or end of input, idle or during a search.
    fn finish(&mut self) -> Result<(), String> {
        match self.rng.below(4) {
            0 => self.send(b"quit\n", false)?,
            1 => self.engine.close_stdin(),
            2 => {
                self.send(b"go infinite\n", false)?;
                self.send(b"quit\r\n", false)?;
            }
            _ => {
                self.send(b"go depth 30\n", false)?;
                self.engine.close_stdin();
            }
        }
        let deadline = Instant::now() + PATIENCE;
        loop {
            match self.engine.next(deadline) {
                Next::Line(bytes) => self.receive(bytes)?,
                Next::Closed => break,
                Next::Timeout => return Err("the engine did not close stdout".to_string()),
            }
        }
        match self.engine.wait_for_exit(deadline) {
            Some(status) if status.success() => {}
            Some(status) => return Err(format!("the engine exited with {status}")),
            None => return Err("the engine did not exit".to_string()),
        }
        if !self.pending.is_empty() {
            return Err(format!("{} go without bestmove", self.pending.len()));
        }
        Ok(())
    }
}

fn env_number(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

#[test]
fn random_sessions_keep_the_protocol() {
    let first = env_number("FERRUM_FUZZ_SEED", DEFAULT_SEED);
    let sessions = env_number("FERRUM_FUZZ_SESSIONS", DEFAULT_SESSIONS);
    let started = Instant::now();
    let mut totals = Totals::default();
    for seed in first..first + sessions {
        let mut session = Session::new(seed);
        if let Err(e) = session.run() {
            let replay =
                std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!("fuzz-{seed}.in"));
            let _ = std::fs::write(&replay, &session.engine.sent);
            panic!(
                "protocol fuzz session {seed} failed: {e}\n\
                 replay: FERRUM_FUZZ_SEED={seed} FERRUM_FUZZ_SESSIONS=1 cargo test --test \
                 protocol_fuzz -- --nocapture\nbytes sent: {}\nlast lines read:\n{}",
                replay.display(),
                session.engine.tail.join("\n")
            );
        }
        let t = &session.totals;
        totals.lines += t.lines;
        totals.bytes += t.bytes;
        totals.gos += t.gos;
        totals.bestmoves += t.bestmoves;
        totals.syncs += t.syncs;
        totals.prefixes += t.prefixes;
        totals.refused_fens += t.refused_fens;
        totals.resyncs += t.resyncs;
    }
    eprintln!(
        "protocol fuzz: {sessions} sessions from seed {first}: {} lines ({} bytes), {} go and \
         as many bestmove checked, {} check points; {} move lists cut at a bad token, {} FENs \
         refused, {} positions read back from the engine; {:.1} s",
        totals.lines,
        totals.bytes,
        totals.gos,
        totals.syncs,
        totals.prefixes,
        totals.refused_fens,
        totals.resyncs,
        started.elapsed().as_secs_f64()
    );
    assert_eq!(totals.gos, totals.bestmoves);
}
