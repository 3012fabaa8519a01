//! Perft: counts the leaf nodes of the legal move tree, to prove move generation right and to
//! measure its speed. Leaves are counted in bulk, interior counts are cached in a lock-free
//! table keyed by Zobrist key and depth, and root moves are shared out between threads.

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use shakmaty::{CastlingMode, Chess, Position};

use crate::basics::position::{Game, zobrist};
use crate::search::time::StopToken;
use crate::search::tt::{Slot, slot_table};
use crate::uci::output::Out;

/// How a perft run is done: table size (0 = none) and threads.
#[derive(Clone, Copy, Debug)]
pub struct PerftConfig {
    pub hash_mb: usize,
    pub threads: usize,
}

impl Default for PerftConfig {
    fn default() -> PerftConfig {
        PerftConfig {
            hash_mb: 64,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        }
    }
}

impl PerftConfig {
    pub const PLAIN: PerftConfig = PerftConfig {
        hash_mb: 0,
        threads: 1,
    };
}

/// Counts of subtrees, in slots that read a torn write as a miss.
struct PerftTable {
    slots: Vec<Slot>,
}

/// Makes a position's key differ per remaining depth (odd multipliers keep it a bijection).
fn depth_key(key: u64, depth: u32) -> u64 {
    key ^ (u64::from(depth)).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

impl PerftTable {
    fn new(mb: usize) -> Option<PerftTable> {
        if mb == 0 {
            return None;
        }
        let slots = slot_table(mb.checked_mul(1 << 20)? / 16)?;
        Some(PerftTable { slots })
    }

    fn slot(&self, key: u64) -> &Slot {
        &self.slots[((u128::from(key) * self.slots.len() as u128) >> 64) as usize]
    }

    fn get(&self, key: u64) -> Option<u64> {
        self.slot(key).load(key)
    }

    fn put(&self, key: u64, n: u64) {
        self.slot(key).store(key, n);
    }
}

/// The deepest perft counted (the recursion takes a frame a ply; UCI's `perft` has the same
/// bound). No position has a perft worth counting anywhere near it.
pub const MAX_DEPTH: u32 = 64;

/// Number of legal move sequences of length `depth`; the last ply is counted, not played.
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    count(pos, depth, None, None)
}

/// Below this depth a subtree is too small to be worth a stop check.
const STOP_CHECK_DEPTH: u32 = 4;

fn count(pos: &Chess, depth: u32, table: Option<&PerftTable>, stop: Option<&StopToken>) -> u64 {
    if depth == 0 {
        return 1;
    }
    if depth >= STOP_CHECK_DEPTH && stop.is_some_and(StopToken::stop_requested) {
        return 0;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    let key = table.map(|t| (t, depth_key(zobrist(pos), depth)));
    if let Some((t, k)) = key
        && let Some(n) = t.get(k)
    {
        return n;
    }
    let n = moves
        .iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            count(&child, depth - 1, table, stop)
        })
        .sum();
    if let Some((t, k)) = key {
        t.put(k, n);
    }
    n
}

/// Counts per root move, in move-generation order, and the total.
pub fn divide(
    pos: &Chess,
    depth: u32,
    mode: CastlingMode,
    config: PerftConfig,
) -> (Vec<(String, u64)>, u64) {
    let table = PerftTable::new(config.hash_mb);
    divide_with(pos, depth, mode, config.threads, table.as_ref(), None)
}

/// As `divide`; a `stop` request makes the counts meaningless (the caller says so).
fn divide_with(
    pos: &Chess,
    depth: u32,
    mode: CastlingMode,
    threads: usize,
    table: Option<&PerftTable>,
    stop: Option<&StopToken>,
) -> (Vec<(String, u64)>, u64) {
    if depth == 0 {
        return (Vec::new(), 1);
    }
    let moves = pos.legal_moves();
    let counts: Vec<AtomicU64> = moves.iter().map(|_| AtomicU64::new(0)).collect();
    let next = AtomicUsize::new(0);
    let work = || {
        // Each thread takes the next root move not yet taken.
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(m) = moves.get(i) else { break };
            let mut child = pos.clone();
            child.play_unchecked(*m);
            counts[i].store(count(&child, depth - 1, table, stop), Ordering::Relaxed);
        }
    };
    let threads = threads.clamp(1, moves.len().max(1));
    std::thread::scope(|s| {
        for _ in 1..threads {
            s.spawn(work);
        }
        work();
    });
    let rows: Vec<(String, u64)> = moves
        .iter()
        .zip(&counts)
        .map(|(m, c)| (m.to_uci(mode).to_string(), c.load(Ordering::Relaxed)))
        .collect();
    let total = rows.iter().map(|(_, n)| n).sum();
    (rows, total)
}

/// `go perft N` on the UCI prompt and `ferrum perft N [--divide]`: optional `move: count`
/// lines, then `Nodes searched: N`; time and speed go to the log (stderr).
pub fn run_divide(
    game: &Game,
    depth: u32,
    show_moves: bool,
    config: PerftConfig,
    stop: Option<&StopToken>,
    out: &Out,
) -> (u64, u64) {
    let start = Instant::now();
    let table = PerftTable::new(config.hash_mb);
    let (rows, total) = divide_with(
        &game.pos,
        depth,
        game.mode,
        config.threads,
        table.as_ref(),
        stop,
    );
    if stop.is_some_and(StopToken::stop_requested) {
        out.info_string(&format!("perft {depth} stopped; no count"));
        return (0, start.elapsed().as_millis() as u64);
    }
    if show_moves {
        for (m, n) in rows {
            out.line(&format!("{m}: {n}"));
        }
        out.line("");
    }
    out.line(&format!("Nodes searched: {total}"));
    let ms = start.elapsed().as_millis() as u64;
    (total, ms)
}

/// One line of a perft suite: `FEN ;D1 20 ;D2 400 ...`.
#[derive(Debug)]
pub struct SuiteEntry {
    pub fen: String,
    pub expected: Vec<(u32, u64)>,
}

pub fn parse_suite_line(line: &str) -> Result<SuiteEntry, String> {
    let mut parts = line.split(';');
    let fen = parts.next().unwrap_or("").trim().to_string();
    if fen.is_empty() {
        return Err("empty FEN".to_string());
    }
    let mut expected = Vec::new();
    for p in parts {
        let p = p.trim();
        let mut t = p.split_whitespace();
        let (Some(d), Some(n), None) = (t.next(), t.next(), t.next()) else {
            return Err(format!("bad depth field '{p}'"));
        };
        let depth = d
            .strip_prefix('D')
            .and_then(|d| d.parse().ok())
            .ok_or_else(|| format!("bad depth '{d}'"))?;
        if depth > MAX_DEPTH {
            return Err(format!(
                "depth {depth} beyond the deepest perft, {MAX_DEPTH}"
            ));
        }
        let nodes = n.parse().map_err(|_| format!("bad node count '{n}'"))?;
        expected.push((depth, nodes));
    }
    Ok(SuiteEntry { fen, expected })
}

/// Runs a suite file's text; prints a line per failure and `N passed, M failed` last.
/// Returns (passed, failed). Chess960 castling (Shredder-FEN) is recognised per line.
pub fn run_suite(text: &str, max_depth: u32, config: PerftConfig, out: &Out) -> (usize, usize) {
    run_suite_with(text, max_depth, config, out, &mut |_| {})
}

/// `run_suite`, telling `progress` after each position whether it passed.
pub fn run_suite_with(
    text: &str,
    max_depth: u32,
    config: PerftConfig,
    out: &Out,
    progress: &mut dyn FnMut(bool),
) -> (usize, usize) {
    let (mut passed, mut failed) = (0, 0);
    // One table for the whole suite: its keys include the depth, so positions share it safely.
    let table = PerftTable::new(config.hash_mb);
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let entry = match parse_suite_line(line) {
            Ok(e) => e,
            Err(e) => {
                out.line(&format!("line {}: skipped: {e}", i + 1));
                failed += 1;
                progress(false);
                continue;
            }
        };
        let game = match Game::from_fen(&entry.fen, false) {
            Ok(g) => g,
            Err(e) => {
                out.line(&format!("line {}: FAIL {e}", i + 1));
                failed += 1;
                progress(false);
                continue;
            }
        };
        let mut ok = true;
        for &(depth, want) in entry.expected.iter().filter(|(d, _)| *d <= max_depth) {
            let got = divide_with(
                &game.pos,
                depth,
                game.mode,
                config.threads,
                table.as_ref(),
                None,
            )
            .1;
            if got != want {
                out.line(&format!(
                    "line {}: FAIL {} depth {depth} expected {want} got {got}",
                    i + 1,
                    entry.fen
                ));
                ok = false;
            }
        }
        if ok {
            passed += 1;
        } else {
            failed += 1;
        }
        progress(ok);
    }
    out.line(&format!("{passed} passed, {failed} failed"));
    (passed, failed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn startpos_counts() {
        let pos = Chess::default();
        assert_eq!(
            (1..=4).map(|d| perft(&pos, d)).collect::<Vec<_>>(),
            vec![20, 400, 8902, 197_281]
        );
    }

    #[test]
    fn table_and_threads_give_the_same_counts() {
        let game = Game::from_fen(
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            false,
        )
        .unwrap();
        let fast = PerftConfig {
            hash_mb: 1,
            threads: 2,
        };
        let (rows_a, a) = divide(&game.pos, 4, game.mode, PerftConfig::PLAIN);
        let (rows_b, b) = divide(&game.pos, 4, game.mode, fast);
        assert_eq!((a, b), (4_085_603, 4_085_603));
        assert_eq!(rows_a, rows_b);
    }

    #[test]
    fn suite_lines_parse_and_bad_ones_are_named() {
        let e = parse_suite_line("4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66").unwrap();
        assert_eq!(e.fen, "4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        assert_eq!(e.expected, vec![(1, 15), (2, 66)]);
        assert!(parse_suite_line("8/8 w ;D1 x").unwrap_err().contains("'x'"));
        assert!(
            parse_suite_line("8/8 w ;Dx 5")
                .unwrap_err()
                .contains("'Dx'")
        );
        // A depth beyond the deepest perft would recurse past the stack: refused.
        assert!(parse_suite_line("8/8 w ;D64 1").is_ok());
        assert!(parse_suite_line("8/8 w ;D65 1").unwrap_err().contains("65"));
    }
}
