//! `UCI_LimitStrength` and `UCI_Elo` in a scripted UCI session: advertised, checked, obeyed
//! (the node budget, a legal move whose line the last `info` shows, the same move for the
//! same position), and no effect with the limit off.

mod common;

use common::{Session, last_info_depth, legal_bestmove, position};
use ferrum::play::strength::{ELO_MAX, ELO_MIN, Strength};

/// The `nodes` and `pv` of the last `info depth` line.
fn last_info(lines: &[String]) -> (u64, Vec<String>) {
    let info = last_info_depth(lines);
    let words: Vec<&str> = info.split_whitespace().collect();
    let at = |key: &str| words.iter().position(|w| *w == key);
    let nodes = at("nodes")
        .and_then(|i| words.get(i + 1))
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no nodes in {info}"));
    let pv = at("pv")
        .map(|i| words[i + 1..].iter().map(|w| w.to_string()).collect())
        .unwrap_or_default();
    (nodes, pv)
}

const FEN: &str = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3";

fn play(s: &mut Session) -> (u64, Vec<String>, String) {
    s.send(&format!("position fen {FEN}"));
    s.send("go wtime 60000 btime 60000");
    let (lines, best) = s.bestmove();
    legal_bestmove(&position(FEN), &best);
    let (nodes, pv) = last_info(&lines);
    (nodes, pv, best)
}

#[test]
fn the_options_are_advertised_and_bad_values_named() {
    let mut s = Session::start();
    s.expect_option("option name UCI_LimitStrength type check default false");
    s.expect_option(&format!(
        "option name UCI_Elo type spin default 1800 min {ELO_MIN} max {ELO_MAX}"
    ));
    s.send("setoption name UCI_Elo value 5000");
    s.send("setoption name UCI_Elo value strong");
    s.send("setoption name UCI_LimitStrength value maybe");
    s.is_ready();
    let seen = s.seen.join("\n");
    assert!(
        seen.contains("value 5000 out of range 1200 to 2050"),
        "{seen}"
    );
    assert!(seen.contains("bad value 'strong'"), "{seen}");
    assert!(seen.contains("bad value 'maybe'"), "{seen}");
    assert!(s.quit().success());
}

#[test]
fn a_limited_search_keeps_to_its_budget_and_shows_the_line_it_plays() {
    let mut s = Session::start();
    s.send("uci");
    s.expect_prefix("uciok");
    s.send("setoption name UCI_LimitStrength value true");
    for elo in [ELO_MIN, 1500, ELO_MAX] {
        s.send(&format!("setoption name UCI_Elo value {elo}"));
        s.send("ucinewgame");
        let (nodes, pv, best) = play(&mut s);
        let budget = Strength::new(elo).nodes();
        // The node at which the search notices the budget is counted too.
        assert!(
            nodes <= budget + 1,
            "Elo {elo}: {nodes} nodes, budget {budget}"
        );
        // The info line before bestmove is the line of the move played.
        assert_eq!(
            pv.first(),
            best.split_whitespace().nth(1).map(String::from).as_ref()
        );
        // The same position gives the same move.
        s.send("ucinewgame");
        let (_, _, again) = play(&mut s);
        assert_eq!(again, best, "Elo {elo}");
    }
    // With the limit off again, a clocked search is no longer held to the budget.
    s.send("setoption name UCI_LimitStrength value false");
    let (nodes, _, _) = play(&mut s);
    assert!(
        nodes > Strength::new(ELO_MIN).nodes() * 10,
        "{nodes} nodes without the limit"
    );
    assert!(s.quit().success());
}

#[test]
fn stop_and_isready_answer_at_once_under_the_limit() {
    let mut s = Session::start();
    s.send("setoption name UCI_LimitStrength value true");
    s.send(&format!("setoption name UCI_Elo value {ELO_MAX}"));
    s.send(&format!("position fen {FEN}"));
    s.send("go infinite");
    s.is_ready();
    s.send("stop");
    let (_, best) = s.bestmove();
    legal_bestmove(&position(FEN), &best);
    assert!(s.quit().success());
}
