//! Random input lines, deterministic from a seed: valid commands, mangled FENs and move lists,
//! every `go` parameter with odd values, every option with bad values, signals at random
//! moments, random bytes and invalid UTF-8, very long lines, CRLF endings.

use shakmaty::{CastlingMode, Chess, Position};

use super::model::Model;

/// SplitMix64: small, fast, and the same stream on every platform.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    pub fn range(&mut self, low: u64, high: u64) -> u64 {
        low + self.next() % (high - low + 1)
    }

    pub fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// One generated line with its ending; `tame` marks a `go` that ends by itself quickly.
pub struct Line {
    pub bytes: Vec<u8>,
    pub tame: bool,
}

/// Positions to start from: the bench set (openings to endgames) and special cases.
const SPECIAL_FENS: &[&str] = &[
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
    "R5k1/5ppp/8/8/8/8/8/6K1 b - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1",
    "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
    "4k3/8/8/8/8/8/8/4K3 w - -",
    "4k3/8/8/8/8/8/8/4K1R1 w K - 0 1",
    "B6b/8/8/8/2K5/5k2/8/b6B b - - 0 1",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "rnbqk2r/pppp1ppp/5n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4",
    "k7/8/2K5/8/8/8/8/7R w - - 0 1",
    "8/8/8/8/8/8/8/8 w - - 0 1",
    "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 extra",
    "rnbqkbnr/ppppp1pp/5p2/7Q/4P3/8/PPPP1PPP/RNB1KBNR b KQkq - 1 2",
];

/// Tokens that are never legal moves, or only sometimes.
const BAD_MOVES: &[&str] = &[
    "e1e8",
    "zz9z",
    "e2e",
    "E2E4",
    "e7e8x",
    "a1a1",
    "0000",
    "@@@@",
    "P@e4",
    "e2e4e2e4",
    "é2é4",
    "12345",
    "moves",
    "e2e4\u{0}",
    "h7h8q",
    "e1g1",
    "e8c8",
    "(none)",
    "-",
];

/// Words for lines of noise; the commands that end the engine or run unstoppable work
/// (`quit`, `bench`, `perft`) are left out.
const VOCAB: &[&str] = &[
    "x",
    "e2e4",
    "e7e5",
    "moves",
    "fen",
    "startpos",
    "depth",
    "name",
    "value",
    "-1",
    "0",
    "1",
    "3",
    "99999999999999999999",
    "é",
    "∞",
    "wtime",
    "btime",
    "searchmoves",
    "ponder",
    "infinite",
    "position",
    "go",
    "isready",
    "setoption",
    "stop",
    "ponderhit",
    "ucinewgame",
    "d",
    "eval",
    "register",
    "debug",
    "on",
    "off",
    "uci",
    "Hash",
    "Threads",
    "MultiPV",
    "movetime",
    "nodes",
    "mate",
    "movestogo",
    "winc",
    "\u{feff}",
];

const ODD_NUMBERS: &[&str] = &[
    "0",
    "-1",
    "-170",
    "1",
    "2",
    "3",
    "99999999999999999999",
    "-9223372036854775808",
    "9223372036854775807",
    "abc",
    "1.5",
    "+5",
    "0x10",
    "1e3",
];

fn fen_pool(rng: &mut Rng) -> String {
    if rng.chance(50) {
        rng.pick(ferrum::measure::bench::POSITIONS).to_string()
    } else {
        rng.pick(SPECIAL_FENS).to_string()
    }
}

/// Random legal moves from `pos`, written in either castling notation.
fn walk(rng: &mut Rng, mut pos: Chess, plies: usize) -> Vec<String> {
    let mut out = Vec::new();
    for _ in 0..plies {
        let moves = pos.legal_moves();
        if moves.is_empty() {
            break;
        }
        let m = moves[rng.below(moves.len())];
        let mode = if rng.chance(20) {
            CastlingMode::Chess960
        } else {
            CastlingMode::Standard
        };
        out.push(m.to_uci(mode).to_string());
        pos.play_unchecked(m);
    }
    out
}

fn walk_length(rng: &mut Rng) -> usize {
    match rng.below(20) {
        0 => rng.range(40, 300) as usize,
        1..=4 => 0,
        _ => rng.range(1, 14) as usize,
    }
}

/// Spoils a move list now and then: a bad token put in or swapped in, one cut short.
fn corrupt(rng: &mut Rng, moves: &mut Vec<String>) {
    if !rng.chance(45) {
        return;
    }
    let at = rng.below(moves.len() + 1);
    let bad = rng.pick(BAD_MOVES).to_string();
    match rng.below(4) {
        0 if at < moves.len() => moves[at] = bad,
        1 if at < moves.len() => {
            moves[at].pop();
        }
        2 if at < moves.len() => moves[at] = moves[at].to_uppercase(),
        _ => moves.insert(at, bad),
    }
}

fn position_startpos(rng: &mut Rng) -> String {
    let mut moves = if rng.chance(3) {
        // Hundreds of plies of knights shuffling: long lines, repetitions.
        let n = rng.range(50, 400) as usize;
        ["g1f3", "g8f6", "f3g1", "f6g8"]
            .iter()
            .cycle()
            .take(4 * n)
            .map(|s| s.to_string())
            .collect()
    } else {
        let plies = walk_length(rng);
        walk(rng, Chess::default(), plies)
    };
    corrupt(rng, &mut moves);
    let mut line = "position startpos".to_string();
    if !moves.is_empty() || rng.chance(20) {
        line.push_str(" moves");
        for m in &moves {
            line.push(' ');
            line.push_str(m);
        }
    }
    line
}

fn mangle_fen(rng: &mut Rng, fen: &str) -> String {
    const CHARS: &[u8] = b"pnbrqkPNBRQK123456789/ wb-KQkqAHah0x";
    const FIELDS: &[&str] = &[
        "x",
        "-",
        "KQkqZ",
        "e9",
        "z3",
        "e3",
        "-1",
        "99999999999999999999",
        "abc",
        "0",
        "w",
        "b",
        "HAha",
        "8/8/8/8/8/8/8/8",
        "9/8/8/8/8/8/8/8",
        "KQkqKQkq",
    ];
    let mut bytes = fen.as_bytes().to_vec();
    for _ in 0..rng.range(1, 3) {
        let at = rng.below(bytes.len().max(1));
        match rng.below(6) {
            0 if !bytes.is_empty() => {
                bytes.remove(at);
            }
            1 => bytes.insert(at.min(bytes.len()), *rng.pick(CHARS)),
            2 if !bytes.is_empty() => bytes[at] = *rng.pick(CHARS),
            3 => {
                let mut fields: Vec<String> = String::from_utf8_lossy(&bytes)
                    .split(' ')
                    .map(String::from)
                    .collect();
                let keep = rng.below(fields.len().max(1)) + 1;
                fields.truncate(keep);
                bytes = fields.join(" ").into_bytes();
            }
            4 => {
                let mut fields: Vec<String> = String::from_utf8_lossy(&bytes)
                    .split(' ')
                    .map(String::from)
                    .collect();
                let i = rng.below(fields.len());
                fields[i] = rng.pick(FIELDS).to_string();
                bytes = fields.join(" ").into_bytes();
            }
            _ => {
                bytes.push(b' ');
                bytes.extend_from_slice(rng.pick(FIELDS).as_bytes());
            }
        }
    }
    String::from_utf8_lossy(&bytes).into_owned()
}

fn position_fen(rng: &mut Rng) -> String {
    let pool = fen_pool(rng);
    let fen = if rng.chance(45) {
        mangle_fen(rng, &pool)
    } else {
        pool
    };
    let start = fen
        .parse::<shakmaty::fen::Fen>()
        .ok()
        .and_then(|f| f.into_position::<Chess>(CastlingMode::Chess960).ok());
    let mut moves = match start {
        Some(pos) => {
            let plies = walk_length(rng);
            walk(rng, pos, plies)
        }
        None => (0..rng.below(4))
            .map(|_| rng.pick(BAD_MOVES).to_string())
            .collect(),
    };
    corrupt(rng, &mut moves);
    let mut line = format!("position fen {fen}");
    if !moves.is_empty() || rng.chance(10) {
        line.push_str(" moves ");
        line.push_str(&moves.join(" "));
    }
    line
}

/// A few legal (and sometimes illegal) moves of the current position, for `searchmoves`.
fn some_moves(rng: &mut Rng, model: &Model) -> Vec<String> {
    let mut out: Vec<String> = match &model.pos {
        Some(pos) => pos
            .legal_moves()
            .iter()
            .filter(|_| rng.chance(30))
            .map(|m| m.to_uci(CastlingMode::Standard).to_string())
            .collect(),
        None => Vec::new(),
    };
    if rng.chance(30) {
        out.push(rng.pick(BAD_MOVES).to_string());
    }
    out
}

fn go(rng: &mut Rng, model: &Model) -> (String, bool) {
    if rng.chance(50) {
        let line = match rng.below(8) {
            0 => format!("go depth {}", rng.range(1, 3)),
            1 => format!("go nodes {}", rng.range(1, 4000)),
            2 => format!("go movetime {}", rng.range(1, 30)),
            3 => {
                let (w, b) = (rng.range(20, 500), rng.range(20, 500));
                let inc = rng.range(0, 20);
                let mtg = if rng.chance(30) {
                    format!(" movestogo {}", rng.range(1, 10))
                } else {
                    String::new()
                };
                format!("go wtime {w} btime {b} winc {inc} binc {inc}{mtg}")
            }
            4 => format!("go mate {}", rng.range(1, 2)),
            // Clocks at or near zero, or already below it (Cutechess sends `btime -170`).
            5 => {
                let w = rng.range(0, 60) as i64 - 30;
                let b = rng.range(0, 60) as i64 - 30;
                let inc = rng.range(0, 3);
                format!("go wtime {w} btime {b} winc {inc} binc {inc}")
            }
            // Pondering on a short clock: held until a `ponderhit` or `stop` comes.
            6 => {
                let (w, b) = (rng.range(1, 300), rng.range(1, 300));
                let mtg = if rng.chance(30) {
                    format!(" movestogo {}", rng.range(1, 5))
                } else {
                    String::new()
                };
                return (format!("go ponder wtime {w} btime {b}{mtg}"), false);
            }
            _ => {
                let moves = some_moves(rng, model);
                format!("go depth 2 searchmoves {}", moves.join(" "))
            }
        };
        return (line, true);
    }
    const KEYS: &[&str] = &[
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
        "sideways",
    ];
    let mut line = "go".to_string();
    for _ in 0..rng.range(0, 5) {
        let key = *rng.pick(KEYS);
        line.push(' ');
        line.push_str(key);
        match key {
            "infinite" | "ponder" => {}
            "searchmoves" => {
                for m in some_moves(rng, model) {
                    line.push(' ');
                    line.push_str(&m);
                }
            }
            // Sometimes the value is missing, at the end of the line.
            _ if rng.chance(8) => {}
            _ => {
                line.push(' ');
                line.push_str(rng.pick::<&str>(ODD_NUMBERS));
            }
        }
    }
    (line, false)
}

fn setoption(rng: &mut Rng) -> String {
    let (name, good, bad): (&str, &[&str], &[&str]) = match rng.below(16) {
        0 => (
            "Hash",
            &["1", "2", "8", "16", "32"],
            &["0", "-1", "65537", "lots", "", "1e3"],
        ),
        1 => ("Threads", &["1", "2", "3", "4"], &["0", "257", "-2", "x"]),
        2 => ("MultiPV", &["1", "2", "3", "4"], &["0", "257", "many"]),
        3 => ("Clear Hash", &[], &["x"]),
        4 => (
            "Move Overhead",
            &["0", "30", "100", "5000"],
            &["-1", "5001", "x"],
        ),
        5 => ("Ponder", &["true", "false", "TRUE"], &["maybe", "", "1"]),
        6 => ("UCI_Chess960", &["true", "false", "True"], &["yes", ""]),
        7 => ("hash", &["4"], &["99999999999999999999"]),
        8 => ("UCI_LimitStrength", &["true", "false"], &["on", ""]),
        9 => ("UCI_Elo", &["1200", "1750", "2050"], &["1199", "2051", "x"]),
        10 => (
            "SyzygyPath",
            &[
                concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy"),
                "<empty>",
            ],
            &["/no/such/dir", "::", ""],
        ),
        11 => ("SyzygyProbeDepth", &["1", "5", "100"], &["0", "101", "x"]),
        12 => ("SyzygyProbeLimit", &["0", "3", "7"], &["8", "-1", "x"]),
        13 => ("UseNNUE", &["true", "false", "TRUE"], &["on", ""]),
        14 => (
            "EvalFile",
            &[
                "<embedded>",
                concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.bin"),
            ],
            &[
                "/no/such/net.bin",
                concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"),
                "",
            ],
        ),
        _ => (
            *rng.pick(&["Contempt", "Skill Level", "", "value"]),
            &["10"],
            &["-"],
        ),
    };
    let value = if good.is_empty() || rng.chance(35) {
        bad.first().map(|_| *rng.pick(bad))
    } else {
        Some(*rng.pick(good))
    };
    match (rng.below(12), value) {
        (0, _) => "setoption value 3".to_string(),
        (1, _) => format!("setoption name {name} value"),
        (2, _) | (_, None) => format!("setoption name {name}"),
        (_, Some(v)) => format!("setoption name {name} value {v}"),
    }
}

fn noise(rng: &mut Rng) -> Vec<u8> {
    const SPACES: &[&str] = &[" ", "\t", "  ", "\u{b}", "\u{c}", "\r", " \u{a0} "];
    match rng.below(6) {
        0 => (0..rng.range(1, 120))
            .map(|_| {
                loop {
                    let b = rng.next() as u8;
                    if b != b'\n' {
                        break b;
                    }
                }
            })
            .collect(),
        1 | 2 => {
            let mut s = String::new();
            for _ in 0..rng.range(1, 12) {
                s.push_str(rng.pick::<&str>(VOCAB));
                s.push_str(rng.pick::<&str>(SPACES));
            }
            s.into_bytes()
        }
        3 => {
            // A valid command with an invalid UTF-8 byte inside.
            let mut bytes = rng
                .pick(&["go depth 2", "isready", "position startpos moves e2e4", "d"])
                .as_bytes()
                .to_vec();
            let at = rng.below(bytes.len() + 1);
            bytes.insert(at, *rng.pick(&[0xff, 0xc3, 0x80, 0xfe]));
            bytes
        }
        4 => {
            // Very long lines.
            let n = rng.range(10_000, 200_000) as usize;
            match rng.below(3) {
                0 => vec![b'x'; n],
                1 => format!("position fen {}", "rnbqkbnr/".repeat(n / 9)).into_bytes(),
                _ => "go searchmoves e2e4 ".repeat(n / 20).into_bytes(),
            }
        }
        _ => rng.pick(&["", " ", "\t", "\r"]).as_bytes().to_vec(),
    }
}

/// The next line of a session.
pub fn line(rng: &mut Rng, model: &Model) -> Line {
    let mut tame = false;
    let text: Vec<u8> = match rng.below(100) {
        0..=13 => position_startpos(rng).into_bytes(),
        14..=25 => position_fen(rng).into_bytes(),
        26..=45 => {
            let (line, t) = go(rng, model);
            tame = t;
            line.into_bytes()
        }
        46..=55 => setoption(rng).into_bytes(),
        56..=61 => b"stop".to_vec(),
        62..=65 => b"ponderhit".to_vec(),
        66..=71 => b"isready".to_vec(),
        72..=73 => b"ucinewgame".to_vec(),
        74 => b"uci".to_vec(),
        75 => rng
            .pick(&["debug on", "debug off", "debug maybe"])
            .as_bytes()
            .to_vec(),
        76 => b"register later".to_vec(),
        77..=78 => b"d".to_vec(),
        79 => b"eval".to_vec(),
        80..=81 => {
            let depth = rng.range(0, 3);
            rng.pick(&[
                format!("perft {depth}"),
                format!("go perft {depth}"),
                "go perft x".into(),
            ])
            .clone()
            .into_bytes()
        }
        82 if rng.chance(30) => b"bench 1".to_vec(),
        _ => noise(rng),
    };
    let mut bytes = Vec::new();
    if rng.chance(5) {
        bytes.extend_from_slice(rng.pick(&[" ", "\t", "  "]).as_bytes());
    }
    bytes.extend_from_slice(&text);
    if rng.chance(5) {
        bytes.extend_from_slice(b" \t");
    }
    bytes.extend_from_slice(if rng.chance(15) { b"\r\n" } else { b"\n" });
    Line { bytes, tame }
}
