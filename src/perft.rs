//! Perft: counts the leaf nodes of the legal move tree, to prove move generation right.

use std::time::Instant;

use shakmaty::{Chess, Position};

use crate::position::Game;
use crate::uci::output::Out;

/// Number of legal move sequences of length `depth`; the last ply is counted, not played.
pub fn perft(pos: &Chess, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = pos.legal_moves();
    if depth == 1 {
        return moves.len() as u64;
    }
    moves
        .iter()
        .map(|m| {
            let mut child = pos.clone();
            child.play_unchecked(*m);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Counts per root move (`e2e4: 20`), like Stockfish's `go perft`, then the total.
pub fn divide(game: &Game, depth: u32) -> (Vec<(String, u64)>, u64) {
    let mut rows = Vec::new();
    let mut total = 0;
    if depth == 0 {
        return (rows, 1);
    }
    for m in game.pos.legal_moves() {
        let mut child = game.pos.clone();
        child.play_unchecked(m);
        let n = perft(&child, depth - 1);
        total += n;
        rows.push((game.uci(m), n));
    }
    (rows, total)
}

/// `go perft N` on the UCI prompt and `ferrum perft N --divide`.
pub fn run_divide(game: &Game, depth: u32, show_moves: bool, out: &Out) {
    let start = Instant::now();
    let (rows, total) = if show_moves {
        divide(game, depth)
    } else {
        (Vec::new(), perft(&game.pos, depth))
    };
    for (m, n) in rows {
        out.line(&format!("{m}: {n}"));
    }
    let ms = start.elapsed().as_millis() as u64;
    out.line("");
    out.line(&format!("Nodes searched: {total}"));
    log::info!(
        "perft {depth}: {total} nodes in {ms} ms ({} nps)",
        total * 1000 / ms.max(1)
    );
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
}
