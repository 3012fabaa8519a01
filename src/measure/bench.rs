//! `bench`: a fixed set of positions searched to a fixed depth with a fresh table. Its node
//! count is a signature of the search and the net it evaluates with (the hand-written
//! evaluation's with `--hce`): the same code gives the same count on any machine.

use std::sync::Arc;
use std::time::Instant;

use crate::basics::position::Game;
use crate::eval::nnue::Network;
use crate::search::driver;
use crate::search::time::{Clock, Limits, StopToken};
use crate::search::tt::TranspositionTable;
use crate::uci::output::Out;

pub const DEFAULT_DEPTH: u32 = 10;
const BENCH_HASH_MB: usize = 16;

/// The bench positions (`basics::positions`).
pub use crate::basics::positions::POSITIONS;

/// Searches every bench position to `depth`, evaluating with `net` when given, until `stop`
/// says stop; returns (nodes, elapsed ms, and when stopped, the positions searched before).
pub fn bench(
    depth: u32,
    net: Option<&Arc<Network>>,
    out: Option<&Out>,
    stop: &StopToken,
) -> (u64, u64, Option<usize>) {
    let mut total = 0;
    let start = Instant::now();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    for (i, fen) in POSITIONS.iter().enumerate() {
        let Ok(game) = Game::from_fen(fen, false) else {
            log::error!("bench position {} does not parse: {fen}", i + 1);
            continue;
        };
        // A fresh table per position keeps each count independent of the ones before.
        let Ok(tt) = TranspositionTable::new(BENCH_HASH_MB) else {
            log::error!("bench: cannot allocate the hash table");
            return (total, 0, None);
        };
        let clock = Clock::unlimited(stop.clone());
        let result = driver::search_with_net(&game, &limits, &tt, &clock, net, &mut |_| {});
        total += result.last.nodes;
        if stop.stop_requested() {
            return (total, start.elapsed().as_millis() as u64, Some(i));
        }
        if let Some(o) = out {
            o.line(&format!(
                "position {:2}: {:>10} nodes  bestmove {}",
                i + 1,
                result.last.nodes,
                result.best.map_or("0000".to_string(), |m| game.uci(m))
            ));
        }
    }
    (total, start.elapsed().as_millis() as u64, None)
}

/// `bench [depth]`: per-position lines, then `<nodes> nodes <nps> nps` as the last line; or,
/// stopped by `stop` (UCI's `stop` or `quit`), an `info string` that says so, no signature.
pub fn run(depth: Option<u32>, net: Option<&Arc<Network>>, out: &Out, stop: &StopToken) {
    let (nodes, ms, stopped) = bench(depth.unwrap_or(DEFAULT_DEPTH), net, Some(out), stop);
    if let Some(searched) = stopped {
        out.info_string(&format!(
            "bench stopped after {searched} of {} positions ({nodes} nodes)",
            POSITIONS.len()
        ));
    } else {
        out.line(&format!("{nodes} nodes {} nps", nodes * 1000 / ms.max(1)));
    }
}
