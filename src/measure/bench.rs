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

/// Openings, middlegames, endgames and mates, chosen to exercise every part of the search.
pub const POSITIONS: &[&str] = &[
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
    "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
    "rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
    "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
    "rnbqkb1r/pp1p1ppp/4pn2/2p5/2PP4/5N2/PP2PPPP/RNBQKB1R w KQkq - 0 4",
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "r1bq1rk1/ppp2ppp/2np1n2/2b1p3/2B1P3/2PP1N2/PP3PPP/RNBQ1RK1 w - - 0 7",
    "rnbqk2r/ppp1bppp/4pn2/3p4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQkq - 4 5",
    "r2q1rk1/pp2bppp/2n1pn2/2pp4/3P1B2/2P1PN1P/PP1N1PP1/R2QKB1R w KQ - 0 9",
    "2rq1rk1/pb1nbppp/1p2pn2/2pp4/2PP4/1PN1PN2/PB2BPPP/2RQ1RK1 w - - 4 11",
    "r1b2rk1/2q1bppp/p2p1n2/np2p3/3PP3/5N1P/PPBN1PP1/R1BQR1K1 w - - 1 13",
    "r2qr1k1/1p1bbppp/p1nppn2/8/3NPP2/1BN1B3/PPP3PP/R2Q1RK1 w - - 5 12",
    "1k1r3r/pp2qpp1/2p1bn1p/4p3/4P3/2N1BP2/PPPQ2PP/2KR3R w - - 2 17",
    "r1bqk2r/pp2bppp/2p5/3pP3/P2Q1P2/2N1B3/1PP3PP/R4RK1 b kq - 0 14",
    "3r1rk1/p4ppp/1pb1p3/8/2PN4/1P2P3/P4PPP/3R1RK1 w - - 0 20",
    "2r2rk1/1bqnbppp/p2ppn2/1p6/3NP3/1BN1BP2/PPPQ2PP/2KR3R w - - 2 13",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "8/8/4k3/3p4/3P4/4K3/8/8 w - - 0 1",
    "8/5pk1/6p1/7p/7P/6P1/5PK1/8 w - - 0 1",
    "8/8/8/3k4/8/8/3PK3/8 w - - 0 1",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
    "8/8/1p1k4/1P6/2P5/3K4/8/8 w - - 0 1",
    "8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/3N4 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "2K5/p7/7P/5pR1/8/5k2/r7/8 w - - 0 1",
    "8/8/3P3k/8/1p6/8/1P6/1K3n2 b - - 0 1",
    "8/R7/2q5/8/6k1/8/1P5p/K6R w - - 0 124",
    "6k1/3b3r/1p1p4/p1n2p2/1PPNpP1q/P3Q1p1/1R1RB1P1/5K2 b - - 0 1",
    "r2r1n2/pp2bk2/2p1p2p/3q4/3PN1QP/2P3R1/P4PP1/5RK1 w - - 0 1",
    "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
    "5rk1/1ppb3p/p1pb4/6q1/3P1p1r/2P1R2P/PP1BQ1P1/5RKN w - - 0 1",
    "r1b1k2r/ppppnppp/2n2q2/2b5/3NP3/2P1B3/PP3PPP/RN1QKB1R w KQkq - 0 1",
    "3r1k2/4npp1/1ppr3p/p6P/P2PPPP1/1NR5/5K2/2R5 w - - 0 1",
    "2k5/8/8/8/8/8/3R4/4K3 w - - 0 1",
    "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1",
    "7k/8/5K2/8/8/8/8/6Q1 w - - 0 1",
];

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
