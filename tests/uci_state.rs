//! End-to-end UCI sessions about state between searches: what `position` leaves after bad
//! input (the legal prefix of a move list, the old position after a broken FEN), and what
//! Hash, Clear Hash and `ucinewgame` do to later searches.

mod common;

use common::{Session, after, legal_bestmove, reported_nodes};
use shakmaty::Chess;

/// The engine's current position, as `d` reports it.
fn current_fen(s: &mut Session) -> String {
    s.send("d");
    let lines = s.expect_prefix("info string fen ");
    let fen = lines.last().unwrap()["info string fen ".len()..].to_string();
    s.expect_prefix("info string key ");
    fen
}

#[test]
fn bad_lines_are_reported_and_the_engine_goes_on() {
    const AFTER_D4: &str = "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq - 0 1";
    const AFTER_E4: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1";
    const AFTER_E4_PASS: &str = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 1";
    // (line, what the error names, the position afterwards)
    let bad: &[(&str, &str, &str)] = &[
        ("position fen not/a/fen w - - 0 1", "not/a/fen", AFTER_D4),
        // A bad move keeps the moves before it and ignores the rest.
        (
            "position startpos moves e2e4 e7e9 d7d5",
            "'e7e9' at index 1",
            AFTER_E4,
        ),
        ("position startpos moves d2d4", "", AFTER_D4),
        (
            "position startpos moves e2e4 e2e4",
            "'e2e4' at index 1",
            AFTER_E4,
        ),
        (
            "position startpos moves e2e4 0000 e7e5",
            "'e7e5' at index 2",
            AFTER_E4_PASS,
        ),
        // Passing is refused in check, by its own error.
        (
            "position startpos moves e2e4 f7f6 d1h5 0000 g7g6",
            "null move '0000' while in check at index 3",
            "rnbqkbnr/ppppp1pp/5p2/7Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2",
        ),
        ("position startpos moves d2d4", "", AFTER_D4),
        ("position fen", "fen", AFTER_D4),
        ("position sideways", "sideways", AFTER_D4),
        ("setoption name Contempt value 10", "Contempt", AFTER_D4),
        ("setoption name Hash value lots", "lots", AFTER_D4),
        ("setoption name Hash value 0", "Hash", AFTER_D4),
        ("setoption name Ponder value maybe", "maybe", AFTER_D4),
        ("go depth x", "'x'", AFTER_D4),
        ("go sideways 5 depth 1", "sideways", AFTER_D4),
        ("frobnicate", "frobnicate", AFTER_D4),
    ];
    let mut s = Session::start();
    s.send("position startpos moves d2d4");
    for (line, token, fen) in bad {
        s.send(line);
        if !token.is_empty() {
            let lines = s.read_until(|l| l.starts_with("info string"));
            let msg = lines.last().unwrap();
            assert!(msg.contains(token), "{line}: {msg}");
        }
        if line.starts_with("go") {
            // The valid parts of a bad `go` still start a search.
            s.send("stop");
            s.bestmove();
        }
        s.is_ready();
        assert_eq!(current_fen(&mut s), *fen, "after {line}");
    }
    // The last good position is still in force: after d2d4 it is Black's move.
    s.send("go depth 2");
    let (_, best) = s.bestmove();
    legal_bestmove(&after(&["d2d4"]), &best);
}

#[test]
fn an_illegal_move_in_the_list_plays_on_from_the_moves_before_it() {
    let mut s = Session::start();
    // A finished game first: the bad list must not leave the engine there.
    s.send("position fen R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1");
    s.send("position startpos moves e2e4 e7e5 e1e8 g1f3");
    let lines = s.read_until(|l| l.starts_with("info string"));
    let msg = lines.last().unwrap();
    assert!(
        msg.starts_with("info string error: illegal move 'e1e8' at index 2 of the move list"),
        "{msg}"
    );
    s.send("go depth 5");
    let (_, best) = s.bestmove();
    legal_bestmove(&after(&["e2e4", "e7e5"]), &best);
    // A broken FEN has no prefix to keep: the position before it stays.
    s.send("position fen 8/8/8/8 w - - 0 1 moves e2e4");
    s.read_until(|l| l.contains("position unchanged"));
    assert_eq!(
        current_fen(&mut s),
        "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
    );
}

/// The `hashfull` of the last info line among `lines`.
fn reported_hashfull(lines: &[String]) -> u32 {
    let line = lines
        .iter()
        .rev()
        .find(|l| l.contains(" hashfull "))
        .unwrap();
    let t: Vec<&str> = line.split_whitespace().collect();
    let i = t.iter().position(|w| *w == "hashfull").unwrap();
    t[i + 1].parse().unwrap()
}

/// Node count of `go depth 10` from the start position after `setup` lines, in a new engine
/// that first searched the same position once.
fn nodes_after_a_first_search(setup: &[&str]) -> u64 {
    let mut s = Session::start();
    s.send("position startpos");
    s.send("go depth 10");
    s.bestmove();
    for line in setup {
        s.send(line);
    }
    s.is_ready();
    s.send("go depth 10");
    let (lines, _) = s.bestmove();
    reported_nodes(&lines)
}

#[test]
fn hash_resize_and_new_game_are_applied_before_readyok() {
    let mut s = Session::start();
    // A depth-12 search fills much of a 1 MB table and little of a 64 MB one. Each `go`
    // follows its `setoption` at once: the resize must be done before the search starts.
    s.send("setoption name Hash value 1");
    s.send("position startpos");
    s.send("go depth 12");
    let (lines, best) = s.bestmove();
    legal_bestmove(&Chess::default(), &best);
    let small = reported_hashfull(&lines);
    s.send("setoption name Hash value 64");
    s.send("go depth 12");
    let (lines, _) = s.bestmove();
    let large = reported_hashfull(&lines);
    assert!(
        small >= 200 && large <= 50,
        "hashfull {small} with 1 MB, {large} with 64 MB"
    );
    // After ucinewgame (answered by readyok only once applied) a search runs as in a new engine.
    s.send("ucinewgame");
    s.is_ready();
    s.send("go depth 10");
    let (lines, _) = s.bestmove();
    let mut new_engine = Session::start();
    new_engine.send("setoption name Hash value 64");
    new_engine.send("go depth 10");
    let (fresh, _) = new_engine.bestmove();
    assert_eq!(reported_nodes(&lines), reported_nodes(&fresh));

    // Clear Hash leaves the table as a new one (a resize to the same size makes one) ...
    let cleared = nodes_after_a_first_search(&["setoption name Clear Hash"]);
    let renewed = nodes_after_a_first_search(&["setoption name Hash value 16"]);
    assert_eq!(cleared, renewed);
    // ... which is not what the first search left in it.
    let kept = nodes_after_a_first_search(&[]);
    assert_ne!(cleared, kept);
}

#[test]
fn a_hash_size_the_machine_cannot_give_is_refused_and_the_old_table_kept() {
    // The old 16 MB table counts as free once it is given back.
    let free = ferrum::basics::memory::available_mb();
    if free.is_none_or(|mb| mb + 16 >= 65536) {
        eprintln!("skipped: this machine could give a 64 GB table ({free:?} MB free)");
        return;
    }
    let mut s = Session::start();
    s.send("setoption name Hash value 65536");
    s.is_ready();
    let said = s.seen.join("\n");
    assert!(
        said.contains("info string error: Hash 65536 MB is more than this machine can give")
            && said.contains("keeping 16 MB"),
        "{said}"
    );
    // The search after the refusal finds the first search's table as it was: the same nodes
    // as with no setoption at all, and not those of a new table.
    let refused = nodes_after_a_first_search(&["setoption name Hash value 65536"]);
    assert_eq!(refused, nodes_after_a_first_search(&[]));
    assert_ne!(
        refused,
        nodes_after_a_first_search(&["setoption name Hash value 16"])
    );
}

#[test]
fn ucinewgame_forgets_what_earlier_searches_learnt() {
    // Searches carry the table and the move-ordering history from move to move; after
    // `ucinewgame` a search must run exactly as in a fresh engine.
    let target = "position startpos moves d2d4 g8f6 c2c4 e7e6";
    let mut fresh = Session::start();
    fresh.send(target);
    fresh.send("go depth 8");
    let (lines, _) = fresh.bestmove();
    let expected = reported_nodes(&lines);
    assert!(fresh.quit().success());

    let mut s = Session::start();
    for (setup, depth) in [
        ("position startpos", 8),
        ("position startpos moves e2e4 c7c5", 9),
    ] {
        s.send(setup);
        s.send(&format!("go depth {depth}"));
        s.bestmove();
    }
    // Without the table, only the history of the earlier searches can make a difference.
    s.send("setoption name Clear Hash");
    s.send(target);
    s.send("go depth 8");
    let (lines, _) = s.bestmove();
    let carried = reported_nodes(&lines);
    s.send("ucinewgame");
    s.send(target);
    s.send("go depth 8");
    let (lines, _) = s.bestmove();
    assert_eq!(reported_nodes(&lines), expected);
    // The history the earlier searches left did change this one, or the comparison above
    // proves nothing.
    assert_ne!(carried, expected);
    assert!(s.quit().success());
}
