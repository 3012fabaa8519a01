//! A scripted UCI session against the built `ferrum` binary: send lines, wait for answers.

#![allow(dead_code)]

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, Position, fen::Fen};

/// Long enough for any answer on a loaded 2-core machine; only a hang takes this long.
pub const PATIENCE: Duration = Duration::from_secs(30);

pub struct Session {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// Everything read so far, for failure messages.
    pub seen: Vec<String>,
}

impl Session {
    pub fn start() -> Session {
        Session::start_with(&[])
    }

    /// A session of `ferrum ARGS` (`--hce`).
    pub fn start_with(args: &[&str]) -> Session {
        let mut child = Command::new(env!("CARGO_BIN_EXE_ferrum"))
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("start ferrum");
        let stdout = child.stdout.take().expect("stdout");
        let stdin = child.stdin.take();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Session {
            child,
            stdin,
            lines,
            seen: Vec::new(),
        }
    }

    pub fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        writeln!(stdin, "{line}").expect("write to ferrum");
        stdin.flush().expect("flush");
    }

    /// Closes stdin: the engine must treat it as `quit`.
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line, or None when the engine closed stdout or `timeout` passed.
    pub fn next_line(&mut self, timeout: Duration) -> Option<String> {
        self.next_event(timeout).ok()
    }

    /// The next line, or what came instead: the end of the engine's output, or the timeout.
    pub fn next_event(&mut self, timeout: Duration) -> Result<String, RecvTimeoutError> {
        let l = self.lines.recv_timeout(timeout)?;
        self.seen.push(l.clone());
        Ok(l)
    }

    /// Reads the rest of the output until the engine closes stdout; panics if it has not by
    /// `PATIENCE` (an engine that never exits keeps stdout open).
    pub fn read_to_end(&mut self) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        let mut got = Vec::new();
        loop {
            match self.next_event(deadline.saturating_duration_since(Instant::now())) {
                Ok(l) => got.push(l),
                Err(RecvTimeoutError::Disconnected) => return got,
                Err(RecvTimeoutError::Timeout) => {
                    panic!("ferrum kept stdout open; read so far: {:#?}", self.seen)
                }
            }
        }
    }

    /// Waits for the process to exit, failing the test if it has not by `PATIENCE`.
    pub fn wait_for_exit(&mut self) -> std::process::ExitStatus {
        let deadline = Instant::now() + PATIENCE;
        loop {
            if let Some(status) = self.child.try_wait().expect("wait") {
                return status;
            }
            assert!(Instant::now() < deadline, "ferrum did not exit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    /// Reads until a line satisfies `pred`; returns every line read, the match last.
    pub fn read_until(&mut self, pred: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next_line(left) {
                Some(l) => {
                    let done = pred(&l);
                    got.push(l);
                    if done {
                        return got;
                    }
                }
                None => panic!("no expected line; read so far: {:#?}", self.seen),
            }
        }
    }

    pub fn expect_prefix(&mut self, prefix: &str) -> Vec<String> {
        self.read_until(|l| l.starts_with(prefix))
    }

    pub fn bestmove(&mut self) -> (Vec<String>, String) {
        let lines = self.expect_prefix("bestmove");
        let last = lines.last().cloned().unwrap_or_default();
        (lines, last)
    }

    /// Sends `uci` and asserts that this exact option line is among the answers.
    pub fn expect_option(&mut self, option_line: &str) {
        self.send("uci");
        let lines = self.expect_prefix("uciok");
        assert!(
            lines.iter().any(|l| l == option_line),
            "{option_line} not in {lines:?}"
        );
    }

    pub fn is_ready(&mut self) {
        self.send("isready");
        self.expect_prefix("readyok");
    }

    /// Asserts that nothing at all is printed for `wait` (used only where silence is the
    /// behaviour under test, e.g. no `bestmove` during `go infinite`).
    pub fn expect_silence_except_info(&mut self, wait: Duration) {
        let deadline = Instant::now() + wait;
        while let Some(l) = self.next_line(deadline.saturating_duration_since(Instant::now())) {
            assert!(l.starts_with("info"), "unexpected line {l:?}");
        }
    }

    pub fn quit(mut self) -> std::process::ExitStatus {
        self.send("quit");
        self.close_stdin();
        self.wait_for_exit()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The start position after the given UCI moves.
pub fn after(moves: &[&str]) -> Chess {
    let mut pos = Chess::default();
    for m in moves {
        let uci: UciMove = m.parse().expect("uci move");
        let mv = uci.to_move(&pos).expect("legal move");
        pos.play_unchecked(mv);
    }
    pos
}

pub fn position(fen: &str) -> Chess {
    fen.parse::<Fen>()
        .expect("fen")
        .into_position(CastlingMode::Standard)
        .expect("position")
}

/// The move of a `bestmove` line, checked legal in `pos`; a `ponder` move must be legal
/// after it, and nothing else may follow.
pub fn legal_bestmove(pos: &Chess, line: &str) -> shakmaty::Move {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(tokens.first(), Some(&"bestmove"), "{line}");
    let token = tokens.get(1).expect("bestmove token");
    let fen = |p: &Chess| Fen::from_position(p, shakmaty::EnPassantMode::Legal).to_string();
    let uci: UciMove = token.parse().expect("uci move");
    let mv = uci
        .to_move(pos)
        .unwrap_or_else(|_| panic!("illegal bestmove {token} in {}", fen(pos)));
    match tokens[2..] {
        [] => {}
        ["ponder", reply] => {
            let mut next = pos.clone();
            next.play_unchecked(mv);
            let uci: UciMove = reply.parse().expect("uci ponder move");
            assert!(
                uci.to_move(&next).is_ok(),
                "illegal ponder move {reply} after {token} in {}",
                fen(&next)
            );
        }
        _ => panic!("malformed bestmove line {line:?}"),
    }
    mv
}

/// The score of an `info ... score` line: ("cp"|"mate", value).
pub fn score_of(line: &str) -> Option<(String, i32)> {
    let t: Vec<&str> = line.split_whitespace().collect();
    let i = t.iter().position(|w| *w == "score")?;
    Some((t.get(i + 1)?.to_string(), t.get(i + 2)?.parse().ok()?))
}

/// The score of the last `info ... score` line among `lines`: ("cp"|"mate", value).
pub fn last_score(lines: &[String]) -> (String, i32) {
    lines
        .iter()
        .rev()
        .find_map(|l| score_of(l))
        .expect("an info line with a score")
}

/// The last `info depth` line among `lines` (the report of the deepest iteration).
pub fn last_info_depth(lines: &[String]) -> &str {
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info depth"))
        .unwrap_or_else(|| panic!("no info depth line in {lines:?}"))
}

/// The number after `word` (`nodes`, `time`, `depth`) in the last line among `lines` that has
/// one.
pub fn last_reported<T: std::str::FromStr>(lines: &[String], word: &str) -> T {
    lines
        .iter()
        .rev()
        .find_map(|l| {
            let mut words = l.split_whitespace();
            words.find(|w| *w == word)?;
            words.next()?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no {word} reported in {lines:?}"))
}

/// The node count of the last info line among `lines`.
pub fn reported_nodes(lines: &[String]) -> u64 {
    last_reported(lines, "nodes")
}

/// Runs `ferrum` with `args` to its end: exit code (-1 if killed), stdout, stderr.
pub fn ferrum(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ferrum"))
        .args(args)
        .output()
        .unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}
