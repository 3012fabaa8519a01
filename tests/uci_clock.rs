//! The clock as a game sees it: the lag the GUI's clocks show decides what each move keeps
//! back for the moves ahead (`search/lag.rs`).

mod common;

use common::{Session, after, last_reported, legal_bestmove};
use shakmaty::Position;

/// Plays `moves` of White's moves in sudden death from `clock` ms, as a GUI would that
/// charges each move the time the engine reports plus `lag` ms; Black answers with its
/// first legal move. Returns the depth of each move's last `info` line.
fn play_on_the_clock(s: &mut Session, moves: usize, mut clock: i64, lag: i64) -> Vec<i64> {
    let mut played: Vec<String> = Vec::new();
    let mut depths = Vec::new();
    s.send("ucinewgame");
    for _ in 0..moves {
        s.send(&format!("position startpos moves {}", played.join(" ")));
        s.send(&format!("go wtime {clock} btime 60000"));
        let (lines, best) = s.bestmove();
        let words: Vec<&str> = played.iter().map(String::as_str).collect();
        let pos = after(&words);
        let mv = legal_bestmove(&pos, &best);
        depths.push(last_reported::<i64>(&lines, "depth"));
        clock -= last_reported::<i64>(&lines, "time") + lag;
        let mut next = pos.clone();
        next.play_unchecked(mv);
        let reply = next.legal_moves()[0];
        played.push(mv.to_uci(shakmaty::CastlingMode::Standard).to_string());
        played.push(reply.to_uci(shakmaty::CastlingMode::Standard).to_string());
    }
    depths
}

#[test]
fn a_short_clock_thinks_once_the_clocks_show_little_lag() {
    // Move Overhead 30 keeps 1.5 s back for 50 moves: a 1.2 s clock moves at once, until the
    // clocks of two moves show a GUI that charges no more than the engine took.
    let mut s = Session::start();
    let depths = play_on_the_clock(&mut s, 4, 1200, 0);
    assert_eq!(depths[..2], [1, 1], "{depths:?}");
    assert!(depths[3] > 3, "{depths:?}");
}

#[test]
fn a_lag_the_clocks_show_beyond_move_overhead_is_kept_back() {
    // On 6 s with Move Overhead 30 the engine thinks; once two moves have cost 150 ms more
    // than it took, 50 moves of that lag are more than the clock and it moves at once.
    let mut s = Session::start();
    let depths = play_on_the_clock(&mut s, 4, 6000, 150);
    assert!(depths[0] > 3, "{depths:?}");
    assert_eq!(depths[3], 1, "{depths:?}");
}
