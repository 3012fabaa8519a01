//! EPD test suites: positions with `bm` (best moves) or `am` (moves to avoid), each searched
//! from a fresh table; reports solved counts and the time each solution was first found.

use std::sync::Arc;
use std::time::Instant;

use shakmaty::san::SanPlus;
use shakmaty::{Move, Position};

use crate::basics::position::Game;
use crate::eval::nnue::Network;
use crate::search::driver::{self, Job};
use crate::search::pool::Pool;
use crate::search::time::{Clock, Limits, StopToken};
use crate::search::tt::TranspositionTable;
use crate::uci::output::Out;

/// One EPD record.
#[derive(Clone, Debug)]
pub struct Record {
    pub id: String,
    pub game: Game,
    pub best: Vec<Move>,
    pub avoid: Vec<Move>,
    /// The moves as written in the file, for the report.
    pub expected_text: String,
}

/// Parses `FEN(4 fields) op args; op args; ...`, e.g. `... w - - bm Qg6; id "WAC.001";`.
pub fn parse_line(line: &str) -> Result<Record, String> {
    let mut fields = line.split_whitespace();
    let fen: Vec<&str> = fields.by_ref().take(4).collect();
    if fen.len() < 4 {
        return Err("fewer than four FEN fields".to_string());
    }
    let game = Game::from_fen(&fen.join(" "), false)?;
    let rest: Vec<&str> = fields.collect();
    let rest = rest.join(" ");
    let mut id = String::new();
    let (mut best, mut avoid) = (Vec::new(), Vec::new());
    let mut expected = Vec::new();
    for op in rest.split(';') {
        let op = op.trim();
        let Some((code, args)) = op.split_once(char::is_whitespace) else {
            continue;
        };
        let args = args.trim();
        match code {
            "id" => id = args.trim_matches('"').to_string(),
            "bm" | "am" => {
                for san in args.split_whitespace() {
                    let m = SanPlus::from_ascii(san.as_bytes())
                        .map_err(|_| format!("bad SAN '{san}'"))
                        .and_then(|s| {
                            s.san
                                .to_move(&game.pos)
                                .map_err(|_| format!("illegal {code} move '{san}'"))
                        })?;
                    if code == "bm" { &mut best } else { &mut avoid }.push(m);
                }
                expected.push(format!("{code} {args}"));
            }
            _ => {}
        }
    }
    if best.is_empty() && avoid.is_empty() {
        return Err("no bm or am".to_string());
    }
    Ok(Record {
        id,
        game,
        best,
        avoid,
        expected_text: expected.join(" "),
    })
}

pub fn is_solution(r: &Record, m: Move) -> bool {
    (r.best.is_empty() || r.best.contains(&m)) && !r.avoid.contains(&m)
}

/// The outcome for one position.
#[derive(Clone, Debug)]
pub struct Outcome {
    pub id: String,
    pub expected: String,
    pub found: String,
    pub solved: bool,
    /// When the final answer was first reached and kept, in ms, and at what depth.
    pub solved_at_ms: Option<u64>,
    pub solved_depth: Option<u32>,
    pub depth: u32,
    /// Nodes searched (all threads) as of the last report.
    pub nodes: u64,
}

/// Search settings for each position of a suite.
#[derive(Clone, Debug)]
pub struct Setup {
    pub hash_mb: usize,
    pub threads: usize,
    /// The net to evaluate with; None for the hand-written evaluation.
    pub net: Option<Arc<Network>>,
}

/// Searches one position on `pool` (cleared first, so every position starts afresh).
pub fn solve(r: &Record, limits: &Limits, setup: &Setup, pool: &Pool) -> Result<Outcome, String> {
    let tt = Arc::new(TranspositionTable::new(setup.hash_mb)?);
    let job = Job {
        threads: setup.threads,
        net: setup.net.clone(),
        ..Job::new(r.game.clone(), limits.clone(), tt)
    };
    let clock = Clock::new(
        limits,
        r.game.pos.turn().is_white(),
        0,
        StopToken::detached(),
    );
    pool.clear();
    let (result, lines) = driver::search_on(pool, job, clock)?;
    // Since when the solution has been the best move without a break.
    let mut since: Option<(u64, u32)> = None;
    for it in &lines {
        match it.pv.first() {
            Some(&m) if is_solution(r, m) => {
                since.get_or_insert((it.elapsed_ms, it.depth));
            }
            _ => since = None,
        }
    }
    let found = result.best;
    let solved = found.is_some_and(|m| is_solution(r, m));
    if !solved {
        since = None;
    } else if since.is_none() {
        // Found in an unfinished last iteration.
        since = Some((result.last.elapsed_ms, result.last.depth));
    }
    Ok(Outcome {
        id: r.id.clone(),
        expected: r.expected_text.clone(),
        found: found.map_or("(none)".to_string(), |m| {
            SanPlus::from_move(r.game.pos.clone(), m).to_string()
        }),
        solved,
        solved_at_ms: since.map(|s| s.0),
        solved_depth: since.map(|s| s.1),
        depth: result.last.depth,
        nodes: result.last.nodes,
    })
}

fn json_escape(s: &str) -> String {
    let mut o = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if (c as u32) < 0x20 => o.push_str(&format!("\\u{:04x}", c as u32)),
            c => o.push(c),
        }
    }
    o
}

pub fn to_json(file: &str, outcomes: &[Outcome]) -> String {
    let rows: Vec<String> = outcomes
        .iter()
        .map(|o| {
            format!(
                "    {{\"id\": \"{}\", \"expected\": \"{}\", \"found\": \"{}\", \"solved\": {}, \"solved_at_ms\": {}, \"depth\": {}, \"nodes\": {}}}",
                json_escape(&o.id),
                json_escape(&o.expected),
                json_escape(&o.found),
                o.solved,
                o.solved_at_ms.map_or("null".to_string(), |t| t.to_string()),
                o.depth,
                o.nodes
            )
        })
        .collect();
    let solved = outcomes.iter().filter(|o| o.solved).count();
    format!(
        "{{\n  \"file\": \"{}\",\n  \"solved\": {solved},\n  \"searched\": {},\n  \"positions\": [\n{}\n  ]\n}}\n",
        json_escape(file),
        outcomes.len(),
        rows.join(",\n")
    )
}

/// Runs a suite's text; prints one line per position and `<file> solved X/N` last.
pub fn run(name: &str, text: &str, limits: &Limits, setup: Setup, out: &Out) -> Vec<Outcome> {
    run_with(name, text, limits, setup, out, &mut |_| {})
}

/// `run`, telling `progress` after each position whether it was solved.
pub fn run_with(
    name: &str,
    text: &str,
    limits: &Limits,
    setup: Setup,
    out: &Out,
    progress: &mut dyn FnMut(bool),
) -> Vec<Outcome> {
    let mut outcomes = Vec::new();
    let mut total = 0;
    let start = Instant::now();
    let pool = match Pool::new(setup.threads) {
        Ok(pool) => pool,
        Err(e) => {
            out.line(&format!("error: {e}"));
            return outcomes;
        }
    };
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() || line.trim_start().starts_with('#') {
            continue;
        }
        total += 1;
        let record = match parse_line(line) {
            Ok(r) => r,
            Err(e) => {
                out.line(&format!("line {}: skipped: {e}", i + 1));
                progress(false);
                continue;
            }
        };
        match solve(&record, limits, &setup, &pool) {
            Ok(o) => {
                out.line(&format!(
                    "{:<12} {:<24} found {:<8} {:<8} time {:>6} depth {} nodes {}",
                    if o.id.is_empty() {
                        format!("line {}", i + 1)
                    } else {
                        o.id.clone()
                    },
                    o.expected,
                    o.found,
                    if o.solved { "solved" } else { "missed" },
                    o.solved_at_ms.map_or("-".to_string(), |t| format!("{t}ms")),
                    o.solved_depth.map_or(o.depth, |d| d),
                    o.nodes,
                ));
                progress(o.solved);
                outcomes.push(o);
            }
            Err(e) => {
                out.line(&format!("line {}: error: {e}", i + 1));
                progress(false);
            }
        }
    }
    let solved = outcomes.iter().filter(|o| o.solved).count();
    log::info!("{name}: {} s", start.elapsed().as_secs());
    out.line(&format!("{name} solved {solved}/{total}"));
    outcomes
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_bm_am_and_id() {
        let r = parse_line(
            r#"2rr3k/pp3pp1/1nnqbN1p/3pN3/2pP4/2P3Q1/PPB4P/R4RK1 w - - bm Qg6; id "WAC.001";"#,
        )
        .unwrap();
        assert_eq!(r.id, "WAC.001");
        assert_eq!(r.best.len(), 1);
        assert_eq!(r.game.uci(r.best[0]), "g3g6");
        let r = parse_line("6k1/5ppp/8/8/8/8/8/R5K1 w - - am Ra2 Ra3; id \"x\";").unwrap();
        assert_eq!(r.avoid.len(), 2);
        assert!(is_solution(&r, r.game.parse_move("a1a8").unwrap()));
        assert!(!is_solution(&r, r.avoid[0]));
    }

    #[test]
    fn bad_lines_are_errors_naming_the_problem() {
        assert!(parse_line("8/8 w").unwrap_err().contains("four"));
        assert!(
            parse_line("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Qz9;")
                .unwrap_err()
                .contains("Qz9")
        );
        assert!(
            parse_line("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Rh8;")
                .unwrap_err()
                .contains("Rh8")
        );
        assert!(parse_line("6k1/5ppp/8/8/8/8/8/R5K1 w - - id \"y\";").is_err());
    }

    #[test]
    fn mate_in_one_is_solved_with_its_time() {
        let r = parse_line("6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"m1\";").unwrap();
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let setup = Setup {
            hash_mb: 1,
            threads: 1,
            net: None,
        };
        let o = solve(&r, &limits, &setup, &Pool::new(1).unwrap()).unwrap();
        assert!(o.solved);
        assert_eq!(o.found, "Ra8#");
        assert_eq!(o.solved_depth, Some(1));
    }
}
