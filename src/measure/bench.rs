//! `bench`: a fixed set of positions searched to a fixed depth with a fresh table. Its node
//! count is a signature of the search and the net it evaluates with (the hand-written
//! evaluation's with `--hce`): the same code gives the same count on any machine.

use std::sync::Arc;
use std::time::Instant;

use crate::basics::position::Game;
use crate::eval::nnue::Network;
use crate::search::driver;
use crate::search::stats::{DEPTHS, Event, Stats};
use crate::search::time::{Clock, Limits, StopToken};
use crate::search::tt::TranspositionTable;
use crate::uci::output::Out;

pub const DEFAULT_DEPTH: u32 = 10;
const BENCH_HASH_MB: usize = 16;

/// The bench positions (`basics::positions`).
pub use crate::basics::positions::POSITIONS;

/// Searches every bench position to `depth`, evaluating with `net` when given, until `stop`
/// says stop; returns (nodes, elapsed ms, and when stopped, the positions searched before).
/// What the selective parts of the search did is added to `stats` (a tuning build counts it).
pub fn bench(
    depth: u32,
    net: Option<&Arc<Network>>,
    out: Option<&Out>,
    stop: &StopToken,
    stats: &mut Stats,
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
        stats.merge(&result.stats);
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
    let mut stats = Stats::default();
    let depth = depth.unwrap_or(DEFAULT_DEPTH);
    let (nodes, ms, stopped) = bench(depth, net, Some(out), stop, &mut stats);
    if let Some(searched) = stopped {
        say_stopped(out, searched, nodes);
    } else {
        out.line(&format!("{nodes} nodes {} nps", nodes * 1000 / ms.max(1)));
    }
}

/// The `info string` of a bench stopped after `searched` positions and `nodes` nodes.
fn say_stopped(out: &Out, searched: usize, nodes: u64) {
    out.info_string(&format!(
        "bench stopped after {searched} of {} positions ({nodes} nodes)",
        POSITIONS.len()
    ));
}

/// `bench --pruning`: the bench positions searched to `depth`, then a table of how often each
/// selective part of the search acted at each depth left (a tuning build's counts, summed
/// over the positions). Node events are per 100 nodes that came with that depth, move events
/// per node that searched its moves at that depth.
pub fn pruning(depth: Option<u32>, net: Option<&Arc<Network>>, out: &Out, stop: &StopToken) {
    let mut stats = Stats::default();
    let depth = depth.unwrap_or(DEFAULT_DEPTH);
    let (nodes, _, stopped) = bench(depth, net, None, stop, &mut stats);
    if let Some(searched) = stopped {
        say_stopped(out, searched, nodes);
        return;
    }
    for line in pruning_table(&stats, nodes) {
        out.line(&line);
    }
}

/// Columns of the pruning table: the event, its heading, and what it is set beside: the
/// nodes that came with the row's depth (node events, per 100) or the nodes that searched
/// their moves at it (move events, which can be many at one node; per node).
const COLUMNS: [(Event, &str, Per); 13] = [
    (Event::TableCut, "table cut %", Per::HundredNodes),
    (
        Event::ReverseFutilityCut,
        "reverse futility %",
        Per::HundredNodes,
    ),
    (Event::NullMoveCut, "null move cut %", Per::HundredNodes),
    (Event::InternalReduction, "IIR %", Per::HundredNodes),
    (
        Event::SingularExtension,
        "singular ext %",
        Per::HundredNodes,
    ),
    (Event::MultiCut, "multi-cut %", Per::HundredNodes),
    (Event::CheckExtension, "check ext %", Per::HundredNodes),
    (
        Event::LateMovePruned,
        "late moves pruned / move loop",
        Per::MoveLoop,
    ),
    (
        Event::FutilityPruned,
        "futile moves pruned / move loop",
        Per::MoveLoop,
    ),
    (
        Event::ExchangePruned,
        "exchange pruned / move loop",
        Per::MoveLoop,
    ),
    (Event::Reduced, "reduced / move loop", Per::MoveLoop),
    (
        Event::ReducedLessByHistory,
        "reduced less by history / move loop",
        Per::MoveLoop,
    ),
    (
        Event::ReducedMoreByHistory,
        "reduced more by history / move loop",
        Per::MoveLoop,
    ),
];

/// What a column of the pruning table is divided by.
#[derive(Clone, Copy)]
enum Per {
    HundredNodes,
    MoveLoop,
}

/// The pruning table as Markdown lines: a row per depth left that saw a node, then totals.
/// `nodes` is the search's own count (quiescence nodes included), for the share of them
/// the main search's nodes are.
pub fn pruning_table(stats: &Stats, nodes: u64) -> Vec<String> {
    let mut lines = Vec::new();
    let mut heading = String::from("| depth | nodes | move loops |");
    let mut rule = String::from("| ---: | ---: | ---: |");
    for (_, name, _) in COLUMNS {
        heading.push_str(&format!(" {name} |"));
        rule.push_str(" ---: |");
    }
    lines.push(heading);
    lines.push(rule);
    let row = |label: String, count: &dyn Fn(Event) -> u64| {
        let (n, loops) = (count(Event::Node), count(Event::MoveLoop));
        let mut row = format!("| {label} | {n} | {loops} |");
        for (event, _, per) in COLUMNS {
            let (scale, base) = match per {
                Per::HundredNodes => (100.0, n),
                Per::MoveLoop => (1.0, loops),
            };
            let value = if base == 0 {
                0.0
            } else {
                scale * count(event) as f64 / base as f64
            };
            row.push_str(&format!(" {value:.2} |"));
        }
        row
    };
    for d in 0..DEPTHS {
        if stats.count_at(Event::Node, d) == 0 && stats.count_at(Event::MoveLoop, d) == 0 {
            continue;
        }
        let label = if d == DEPTHS - 1 {
            format!("{d}+")
        } else {
            d.to_string()
        };
        lines.push(row(label, &|e| stats.count_at(e, d)));
    }
    lines.push(row("all".to_string(), &|e| stats.count(e)));
    let main = stats.count(Event::Node);
    lines.push(String::new());
    lines.push(format!(
        "{main} of {nodes} nodes were the main search's ({:.1}%), the rest quiescence's.",
        100.0 * main as f64 / nodes.max(1) as f64
    ));
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pruning_table_sets_node_events_beside_nodes_and_move_events_beside_move_loops() {
        let mut stats = Stats::default();
        for _ in 0..4 {
            stats.add(Event::Node, 3);
        }
        stats.add(Event::NullMoveCut, 3);
        // Two of the four searched their moves at depth 3, one (an internal reduction) at 2.
        stats.add(Event::MoveLoop, 3);
        stats.add(Event::MoveLoop, 3);
        stats.add(Event::MoveLoop, 2);
        for _ in 0..6 {
            stats.add(Event::LateMovePruned, 3);
        }
        let lines = pruning_table(&stats, 10);
        if !Stats::counting() {
            // Nothing counted: the table has its headings and totals only.
            assert_eq!(lines.len(), 5);
            return;
        }
        let cells = |depth: &str| {
            lines
                .iter()
                .find(|l| l.starts_with(&format!("| {depth} |")))
                .map(|l| l.split('|').map(str::trim).collect::<Vec<_>>())
        };
        let (Some(row3), Some(row2)) = (cells("3"), cells("2")) else {
            panic!("no rows for depths 3 and 2 in {lines:?}");
        };
        // | 3 | nodes | loops | table | rfp | null ... | late ...: null move cuts at 1 node
        // in 4, 3 late moves pruned a move loop.
        assert_eq!((row3[2], row3[3]), ("4", "2"));
        assert_eq!(row3[6], "25.00");
        assert_eq!(row3[11], "3.00");
        // A depth with move loops but no nodes of its own still has its row.
        assert_eq!((row2[2], row2[3]), ("0", "1"));
        assert!(lines.last().is_some_and(|l| l.starts_with("4 of 10 nodes")));
    }
}
