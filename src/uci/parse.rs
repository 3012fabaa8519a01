//! Our own tokenizer for GUI-to-engine lines. It never panics and never drops data silently:
//! anything it cannot use comes back as a warning naming the token.

use crate::search::time::{Limits, MAX_TIME_MS};

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Command {
    Uci,
    Debug(bool),
    IsReady,
    SetOption {
        name: String,
        value: Option<String>,
    },
    Register,
    UciNewGame,
    /// `fen` is None for `startpos`.
    Position {
        fen: Option<String>,
        moves: Vec<String>,
    },
    Go(Limits),
    Perft {
        depth: u32,
        divide: bool,
    },
    Stop,
    PonderHit,
    Quit,
    /// Extensions: `bench [depth]`, `d` (show the position), `eval`, `help` (the commands, for
    /// a person at the prompt).
    Bench(Option<u32>),
    Display,
    Eval,
    Help,
}

/// A parsed line: the command (if any) and what was wrong with the rest.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Parsed {
    pub command: Option<Command>,
    pub warnings: Vec<String>,
}

const COMMANDS: &[&str] = &[
    "uci",
    "debug",
    "isready",
    "setoption",
    "register",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "quit",
    "bench",
    "d",
    "eval",
    "perft",
    "help",
];

/// Parses one line. Leading unknown tokens are skipped, as the UCI spec asks
/// ("joho debug on" is "debug on").
pub fn parse_line(line: &str) -> Parsed {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let mut out = Parsed::default();
    let Some(start) = tokens.iter().position(|t| COMMANDS.contains(t)) else {
        if !tokens.is_empty() {
            out.warnings
                .push(format!("unknown command '{}'", shorten(tokens[0])));
        }
        return out;
    };
    if start > 0 {
        out.warnings.push(format!(
            "skipped unknown token(s) before '{}': {}",
            tokens[start],
            shorten(&tokens[..start].join(" "))
        ));
    }
    let args = &tokens[start + 1..];
    let cmd = tokens[start];
    let extra = |out: &mut Parsed| {
        if !args.is_empty() {
            out.warnings.push(format!(
                "ignored extra token(s) after '{cmd}': {}",
                shorten(&args.join(" "))
            ));
        }
    };
    out.command = match cmd {
        "uci" => {
            extra(&mut out);
            Some(Command::Uci)
        }
        "isready" => {
            extra(&mut out);
            Some(Command::IsReady)
        }
        "ucinewgame" => {
            extra(&mut out);
            Some(Command::UciNewGame)
        }
        "stop" => {
            extra(&mut out);
            Some(Command::Stop)
        }
        "ponderhit" => {
            extra(&mut out);
            Some(Command::PonderHit)
        }
        "quit" => Some(Command::Quit),
        "register" => Some(Command::Register),
        "d" => Some(Command::Display),
        "eval" => Some(Command::Eval),
        "help" => {
            extra(&mut out);
            Some(Command::Help)
        }
        "debug" => match args.first() {
            Some(&"on") | None => Some(Command::Debug(true)),
            Some(&"off") => Some(Command::Debug(false)),
            Some(t) => {
                out.warnings
                    .push(format!("debug expects 'on' or 'off', got '{}'", shorten(t)));
                None
            }
        },
        "setoption" => parse_setoption(args, &mut out.warnings),
        "position" => parse_position(args, &mut out.warnings),
        "go" => parse_go(args, &mut out.warnings),
        "perft" => parse_perft(args, &mut out.warnings),
        "bench" => match args.first() {
            None => Some(Command::Bench(None)),
            Some(t) => match t.parse::<u32>() {
                Ok(d) if d > 0 => Some(Command::Bench(Some(d))),
                _ => {
                    out.warnings
                        .push(format!("bench: bad depth '{}'", shorten(t)));
                    None
                }
            },
        },
        _ => None,
    };
    out
}

/// Keeps warnings readable when a GUI sends a 10,000-character token.
/// A token as it is quoted in an error: at most 80 characters, then `...`.
pub(crate) fn shorten(s: &str) -> String {
    const MAX: usize = 80;
    if s.chars().count() <= MAX {
        s.to_string()
    } else {
        let head: String = s.chars().take(MAX).collect();
        format!("{head}...")
    }
}

fn parse_setoption(args: &[&str], warnings: &mut Vec<String>) -> Option<Command> {
    if args.first() != Some(&"name") {
        warnings.push("setoption: expected 'name'".to_string());
        return None;
    }
    let rest = &args[1..];
    let value_at = rest.iter().position(|t| *t == "value");
    let (name, value) = match value_at {
        Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
        None => (rest.join(" "), None),
    };
    if name.is_empty() {
        warnings.push("setoption: missing option name".to_string());
        return None;
    }
    Some(Command::SetOption { name, value })
}

fn parse_position(args: &[&str], warnings: &mut Vec<String>) -> Option<Command> {
    let moves_at = args.iter().position(|t| *t == "moves");
    let (head, moves) = match moves_at {
        Some(i) => (
            &args[..i],
            args[i + 1..].iter().map(|s| s.to_string()).collect(),
        ),
        None => (args, Vec::new()),
    };
    match head.first() {
        Some(&"startpos") => {
            if head.len() > 1 {
                warnings.push(format!(
                    "position: ignored token(s) after 'startpos': {}",
                    shorten(&head[1..].join(" "))
                ));
            }
            Some(Command::Position { fen: None, moves })
        }
        Some(&"fen") if head.len() > 1 => Some(Command::Position {
            fen: Some(head[1..].join(" ")),
            moves,
        }),
        Some(&"fen") => {
            warnings.push("position: 'fen' without a FEN".to_string());
            None
        }
        Some(t) => {
            warnings.push(format!(
                "position: expected 'startpos' or 'fen', got '{}'",
                shorten(t)
            ));
            None
        }
        None => {
            warnings.push("position: expected 'startpos' or 'fen'".to_string());
            None
        }
    }
}

const GO_KEYWORDS: &[&str] = &[
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "mate",
    "infinite",
    "ponder",
    "searchmoves",
    "perft",
];

/// A whole number; values too large for the type saturate (a clock of 10^15 ms is still
/// "plenty of time"), anything else is an error naming the token.
fn number<T: TryFrom<i128> + Copy>(
    token: Option<&&str>,
    key: &str,
    min: T,
    max: T,
) -> Result<T, String>
where
    i128: From<T>,
{
    let Some(t) = token else {
        return Err(format!("go: '{key}' needs a value"));
    };
    let digits = t.strip_prefix('-').unwrap_or(t);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!("go: bad value '{}' for '{key}'", shorten(t)));
    }
    let negative = t.starts_with('-');
    let v: i128 = digits.parse().unwrap_or(i128::MAX);
    let v = if negative { -v } else { v };
    let clamped = v.clamp(i128::from(min), i128::from(max));
    T::try_from(clamped).map_err(|_| format!("go: bad value '{}' for '{key}'", shorten(t)))
}

/// Milliseconds, clamped so no time arithmetic can overflow.
fn time(token: Option<&&str>, key: &str) -> Result<i64, String> {
    number(token, key, -MAX_TIME_MS, MAX_TIME_MS)
}

fn parse_go(args: &[&str], warnings: &mut Vec<String>) -> Option<Command> {
    let warnings_before = warnings.len();
    let mut limits = Limits::default();
    let mut i = 0;
    while i < args.len() {
        let key = args[i];
        let value = args.get(i + 1);
        let mut consumed = 2;
        let result: Result<(), String> = match key {
            "wtime" => time(value, key).map(|v| limits.wtime = Some(v)),
            "btime" => time(value, key).map(|v| limits.btime = Some(v)),
            "winc" => time(value, key).map(|v| limits.winc = Some(v)),
            "binc" => time(value, key).map(|v| limits.binc = Some(v)),
            "movetime" => time(value, key).map(|v| limits.movetime = Some(v)),
            // `movestogo 0` is sent by some GUIs for "no time control ahead": treat as absent.
            "movestogo" => {
                number(value, key, 0, u32::MAX).map(|v| limits.movestogo = (v > 0).then_some(v))
            }
            "depth" => number(value, key, 1, u32::MAX).map(|v| limits.depth = Some(v)),
            "nodes" => number(value, key, 1, u64::MAX).map(|v| limits.nodes = Some(v)),
            "mate" => number(value, key, 1, u32::MAX).map(|v| limits.mate = Some(v)),
            "perft" => return parse_perft(&args[i + 1..], warnings),
            "infinite" => {
                consumed = 1;
                limits.infinite = true;
                Ok(())
            }
            "ponder" => {
                consumed = 1;
                limits.ponder = true;
                Ok(())
            }
            "searchmoves" => {
                let moves: Vec<String> = args[i + 1..]
                    .iter()
                    .take_while(|t| !GO_KEYWORDS.contains(t))
                    .map(|s| s.to_string())
                    .collect();
                consumed = 1 + moves.len();
                limits.searchmoves = moves;
                Ok(())
            }
            other => {
                consumed = 1;
                Err(format!("go: unknown parameter '{}'", shorten(other)))
            }
        };
        if let Err(e) = result {
            // A bad value is skipped only if it is not itself the next keyword.
            if value.is_some_and(|v| GO_KEYWORDS.contains(v)) {
                consumed = 1;
            }
            warnings.push(e);
        }
        i += consumed;
    }
    // A bad limit with nothing else to bound the search would leave the GUI waiting for a
    // `bestmove` that comes only after `stop`: search for a while instead, and say so.
    let bad = warnings.len() > warnings_before;
    if bad && !bounded(&limits) {
        limits.movetime = Some(FALLBACK_MOVETIME_MS);
        warnings.push(format!(
            "go: no valid limit left; searching for {FALLBACK_MOVETIME_MS} ms instead"
        ));
    }
    Some(Command::Go(limits))
}

/// The search time given to a `go` whose only limits were bad.
pub const FALLBACK_MOVETIME_MS: i64 = 1000;

/// Does anything in `limits` end the search (a clock, a fixed time, depth, nodes, mate), or
/// ask for one that ends only at `stop` (`infinite`, `ponder`)?
fn bounded(limits: &Limits) -> bool {
    limits.wtime.is_some()
        || limits.btime.is_some()
        || limits.winc.is_some()
        || limits.binc.is_some()
        || limits.movetime.is_some()
        || limits.depth.is_some()
        || limits.nodes.is_some()
        || limits.mate.is_some()
        || limits.infinite
        || limits.ponder
}

fn parse_perft(args: &[&str], warnings: &mut Vec<String>) -> Option<Command> {
    // At most 64, `measure::perft::MAX_DEPTH`, as on the command line.
    match number(args.first(), "perft", 1u32, 64) {
        Ok(depth) => Some(Command::Perft {
            depth,
            divide: true,
        }),
        Err(e) => {
            warnings.push(e);
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_word_is_its_own_command() {
        for (line, command) in [
            ("uci", Command::Uci),
            ("isready", Command::IsReady),
            ("ucinewgame", Command::UciNewGame),
            ("stop", Command::Stop),
            ("ponderhit", Command::PonderHit),
            ("quit", Command::Quit),
            ("register later", Command::Register),
            ("d", Command::Display),
            ("eval", Command::Eval),
            ("help", Command::Help),
            ("debug off", Command::Debug(false)),
            ("bench", Command::Bench(None)),
            ("bench 1", Command::Bench(Some(1))),
            ("bench 12", Command::Bench(Some(12))),
            (
                "perft 3",
                Command::Perft {
                    depth: 3,
                    divide: true,
                },
            ),
            (
                "go perft 4",
                Command::Perft {
                    depth: 4,
                    divide: true,
                },
            ),
        ] {
            let p = parse_line(line);
            assert_eq!(p.command, Some(command), "{line}");
            assert!(p.warnings.is_empty(), "{line}: {:?}", p.warnings);
        }
        // `position startpos` warns only about tokens after it; `fen` needs a FEN after it.
        let p = parse_line("position startpos moves e2e4");
        let e2e4 = vec!["e2e4".to_string()];
        let startpos = Command::Position {
            fen: None,
            moves: e2e4.clone(),
        };
        assert_eq!((p.command, p.warnings.len()), (Some(startpos.clone()), 0));
        let p = parse_line("position startpos junk moves e2e4");
        assert_eq!(p.command, Some(startpos));
        assert!(p.warnings[0].contains("after 'startpos': junk"), "{p:?}");
        let p = parse_line("position fen moves e2e4");
        assert_eq!(p.command, None);
        assert_eq!(p.warnings, ["position: 'fen' without a FEN"]);
        let p = parse_line("position fen 8/8/8/8/8/8/8/K1k5 w - - 0 1 moves e2e4");
        let fen = Some("8/8/8/8/8/8/8/K1k5 w - - 0 1".to_string());
        assert_eq!(p.command, Some(Command::Position { fen, moves: e2e4 }));
        // A bench depth must be a whole number above zero.
        for line in ["bench 0", "bench -3", "bench x"] {
            let p = parse_line(line);
            assert_eq!(p.command, None, "{line}");
            assert!(p.warnings[0].starts_with("bench: bad depth"), "{line}");
        }
    }

    fn go(line: &str) -> (Limits, Vec<String>) {
        let p = parse_line(line);
        match p.command {
            Some(Command::Go(l)) => (l, p.warnings),
            other => panic!("{line}: {other:?}"),
        }
    }

    #[test]
    fn go_depth_256_mate_300_movestogo_300_do_not_panic() {
        assert_eq!(go("go depth 256").0.depth, Some(256));
        assert_eq!(go("go mate 300").0.mate, Some(300));
        assert_eq!(go("go movestogo 300 wtime 1000").0.movestogo, Some(300));
    }

    #[test]
    fn ponder_is_kept_when_times_follow() {
        let (l, w) = go("go ponder wtime 1000 btime 2000 winc 10 binc 20");
        assert!(l.ponder && w.is_empty());
        assert_eq!(
            (l.wtime, l.btime, l.winc, l.binc),
            (Some(1000), Some(2000), Some(10), Some(20))
        );
        let (l, _) = go("go ponder movetime 15000");
        assert!(l.ponder);
        assert_eq!(l.movetime, Some(15000));
    }

    #[test]
    fn negative_clocks_and_long_numbers_parse() {
        let (l, w) = go("go wtime 1000 btime -170 nodes 1234567890123456");
        assert!(w.is_empty());
        assert_eq!(l.btime, Some(-170));
        assert_eq!(l.nodes, Some(1_234_567_890_123_456));
        let (l, _) = go("go nodes 99999999999999999999999999");
        assert_eq!(l.nodes, Some(u64::MAX));
        let (l, _) = go("go movetime -9223372036854775808 wtime 99999999999999999999 movestogo 0");
        assert_eq!(
            (l.movetime, l.wtime, l.movestogo),
            (Some(-MAX_TIME_MS), Some(MAX_TIME_MS), None)
        );
    }

    #[test]
    fn every_go_parameter_in_any_order() {
        let (l, w) = go(
            "go searchmoves e2e4 d2d4 wtime 1 btime 2 winc 3 binc 4 movestogo 5 movetime 6 depth 7 nodes 8 mate 9 infinite ponder",
        );
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(l.searchmoves, vec!["e2e4", "d2d4"]);
        assert_eq!(
            (l.wtime, l.btime, l.winc, l.binc, l.movestogo, l.movetime),
            (Some(1), Some(2), Some(3), Some(4), Some(5), Some(6))
        );
        assert_eq!((l.depth, l.nodes, l.mate), (Some(7), Some(8), Some(9)));
        assert!(l.infinite && l.ponder);
    }

    #[test]
    fn bad_go_values_are_named_and_skipped() {
        let (l, w) = go("go depth x wtime 100 nodes");
        assert_eq!(l.wtime, Some(100));
        assert_eq!(l.depth, None);
        assert!(w[0].contains("'x'"), "{w:?}");
        assert!(w[1].contains("nodes"), "{w:?}");
        let (l, w) = go("go depth wtime 100");
        assert_eq!(l.wtime, Some(100));
        assert_eq!(w.len(), 1);
    }

    #[test]
    fn a_go_whose_only_limits_are_bad_searches_for_a_bounded_time_and_says_so() {
        for line in [
            "go depth abc",
            "go nodes -",
            "go movetime x depth",
            "go frobnicate 3",
        ] {
            let (l, w) = go(line);
            assert_eq!(l.movetime, Some(FALLBACK_MOVETIME_MS), "{line}");
            assert_eq!((l.depth, l.nodes), (None, None), "{line}");
            let said = w.last().map(String::as_str).unwrap_or_default();
            assert!(
                said.contains("searching for 1000 ms instead"),
                "{line}: {w:?}"
            );
        }
        // A good limit beside the bad one, `infinite`, or no limit at all: no fallback.
        for line in [
            "go depth abc nodes 500",
            "go depth abc infinite",
            "go",
            "go ponder x",
        ] {
            let (l, _) = go(line);
            assert_eq!(l.movetime, None, "{line}");
        }
    }

    #[test]
    fn null_move_in_position_is_kept_for_the_game_to_judge() {
        let p = parse_line("position startpos moves e2e4 0000 e7e5");
        assert_eq!(
            p.command,
            Some(Command::Position {
                fen: None,
                moves: vec!["e2e4".into(), "0000".into(), "e7e5".into()]
            })
        );
    }

    #[test]
    fn isready_with_garbage_still_answers_and_warns() {
        let p = parse_line("isready garbage");
        assert_eq!(p.command, Some(Command::IsReady));
        assert!(p.warnings[0].contains("garbage"));
    }

    #[test]
    fn shredder_and_four_field_fens_are_passed_whole() {
        let p = parse_line(
            "position fen bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9 moves a2a3",
        );
        assert_eq!(
            p.command,
            Some(Command::Position {
                fen: Some(
                    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9".into()
                ),
                moves: vec!["a2a3".into()]
            })
        );
        let p = parse_line("position fen 4k3/8/8/8/8/8/8/4K3 w - -");
        assert!(
            matches!(p.command, Some(Command::Position { fen: Some(f), .. }) if f == "4k3/8/8/8/8/8/8/4K3 w - -")
        );
    }

    #[test]
    fn unknown_leading_tokens_are_skipped() {
        let p = parse_line("joho debug on");
        assert_eq!(p.command, Some(Command::Debug(true)));
        assert_eq!(p.warnings.len(), 1);
        let p = parse_line("xyzzy");
        assert_eq!(p.command, None);
        assert!(p.warnings[0].contains("xyzzy"));
    }

    #[test]
    fn setoption_names_and_values_may_have_spaces() {
        let p = parse_line("setoption name Move Overhead value 100");
        assert_eq!(
            p.command,
            Some(Command::SetOption {
                name: "Move Overhead".into(),
                value: Some("100".into())
            })
        );
        let p = parse_line("setoption name Clear Hash");
        assert_eq!(
            p.command,
            Some(Command::SetOption {
                name: "Clear Hash".into(),
                value: None
            })
        );
        assert_eq!(parse_line("setoption value 3").command, None);
    }

    #[test]
    fn huge_lines_are_handled_and_warnings_stay_short() {
        let long = "x".repeat(10_000);
        let p = parse_line(&long);
        assert!(p.command.is_none());
        assert!(p.warnings[0].len() < 200);
    }
}
