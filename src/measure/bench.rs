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

/// Searches every bench position to `depth`, evaluating with `net` when given; returns
/// (nodes, elapsed ms).
pub fn bench(depth: u32, net: Option<&Arc<Network>>, out: Option<&Out>) -> (u64, u64) {
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
            return (total, 0);
        };
        let clock = Clock::unlimited(StopToken::detached());
        let result = driver::search_with_net(&game, &limits, &tt, &clock, net, &mut |_| {});
        total += result.last.nodes;
        if let Some(o) = out {
            o.line(&format!(
                "position {:2}: {:>10} nodes  bestmove {}",
                i + 1,
                result.last.nodes,
                result.best.map_or("0000".to_string(), |m| game.uci(m))
            ));
        }
    }
    (total, start.elapsed().as_millis() as u64)
}

/// `bench [depth]`: per-position lines, then `<nodes> nodes <nps> nps` as the last line.
pub fn run(depth: Option<u32>, net: Option<&Arc<Network>>, out: &Out) {
    let (nodes, ms) = bench(depth.unwrap_or(DEFAULT_DEPTH), net, Some(out));
    out.line(&format!("{nodes} nodes {} nps", nodes * 1000 / ms.max(1)));
}
