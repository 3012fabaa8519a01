//! The pool of search threads seen from the protocol: searches after `Threads` changes,
//! `stop` before the first iteration is done, and a pool rebuilt while idle.

mod common;

use common::{Session, after, legal_bestmove, reported_nodes};
use shakmaty::Chess;

/// Nodes of `go depth {depth}` from the start position in a fresh engine with one thread.
fn fresh_nodes(depth: u32) -> u64 {
    let mut s = Session::start();
    s.send("position startpos");
    s.send(&format!("go depth {depth}"));
    let (lines, _) = s.bestmove();
    assert!(s.quit().success());
    reported_nodes(&lines)
}

#[test]
fn after_threads_change_back_to_one_a_search_matches_a_fresh_engine() {
    let expected = fresh_nodes(7);
    let mut s = Session::start();
    for threads in [3, 2, 1] {
        s.send(&format!("setoption name Threads value {threads}"));
        s.send("position startpos moves d2d4");
        s.send("go depth 5");
        let (_, best) = s.bestmove();
        legal_bestmove(&after(&["d2d4"]), &best);
    }
    // One thread again, and nothing learnt kept: the search is the fresh engine's.
    s.send("ucinewgame");
    s.send("position startpos");
    s.send("go depth 7");
    let (lines, best) = s.bestmove();
    legal_bestmove(&Chess::default(), &best);
    assert_eq!(reported_nodes(&lines), expected);
    assert!(s.quit().success());
}

#[test]
fn stop_sent_with_go_gives_a_legal_move_at_once_and_the_pool_searches_again() {
    for threads in [1, 2] {
        let mut s = Session::start();
        s.send(&format!("setoption name Threads value {threads}"));
        s.send("position startpos moves e2e4");
        // The stop arrives while the first iteration may still be running.
        s.send("go infinite");
        s.send("stop");
        let (lines, best) = s.bestmove();
        legal_bestmove(&after(&["e2e4"]), &best);
        assert!(
            lines
                .iter()
                .any(|l| l.starts_with("info ") && l.contains(" score ")),
            "threads {threads}: {lines:?}"
        );
        s.is_ready();
        s.send("go depth 4");
        let (_, best) = s.bestmove();
        legal_bestmove(&after(&["e2e4"]), &best);
        assert!(s.quit().success(), "threads {threads}");
    }
}

#[test]
fn threads_set_during_a_search_waits_for_it_then_applies() {
    let mut s = Session::start();
    s.send("position startpos");
    s.send("go infinite");
    s.expect_prefix("info depth 3");
    s.send("stop");
    s.send("setoption name Threads value 4");
    let (_, best) = s.bestmove();
    legal_bestmove(&Chess::default(), &best);
    s.is_ready();
    s.send("go nodes 30000");
    let (lines, best) = s.bestmove();
    legal_bestmove(&Chess::default(), &best);
    // Four threads share the node budget: each node is claimed from the shared count, so
    // together they search exactly the budget (the README's promise for `go nodes`).
    assert_eq!(reported_nodes(&lines), 30_000);
    assert!(s.quit().success());
}
