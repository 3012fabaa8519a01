//! What the engine must have understood, read from the UCI specification and the README, not
//! from the engine's code: which command a line is, which position a `position` line leaves
//! (legal prefix of the move list; a rejected FEN changes nothing), and whether an output
//! line is a UCI message and a `bestmove` legal.

use shakmaty::fen::Fen;
use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Chess, EnPassantMode, Position, PositionError};

/// The words a line is scanned for; unknown words before the first are skipped (UCI spec).
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
];

/// What a line means to the engine, as far as the checks need to know.
#[derive(Debug, PartialEq)]
pub enum Kind {
    /// A search that must end in exactly one `bestmove`.
    Go,
    IsReady,
    Position(Vec<String>),
    SetOption(Vec<String>),
    /// `d`: the current FEN as `info string fen ...`.
    Display,
    Quit,
    /// `perft`, `go perft`, `bench`: their output lines are not UCI messages.
    Extension,
    Other,
}

/// The spec's reading of one input line (decoded as the engine does, invalid UTF-8 replaced).
pub fn classify(line: &[u8]) -> Kind {
    let text = String::from_utf8_lossy(line);
    let tokens: Vec<&str> = text.split_whitespace().collect();
    let Some(at) = tokens.iter().position(|t| COMMANDS.contains(t)) else {
        return Kind::Other;
    };
    let args: Vec<String> = tokens[at + 1..].iter().map(|s| s.to_string()).collect();
    match tokens[at] {
        "go" if args.iter().any(|a| a == "perft") => Kind::Extension,
        "go" => Kind::Go,
        "isready" => Kind::IsReady,
        "position" => Kind::Position(args),
        "setoption" => Kind::SetOption(args),
        "d" => Kind::Display,
        "quit" => Kind::Quit,
        "perft" | "bench" => Kind::Extension,
        _ => Kind::Other,
    }
}

/// The position the engine holds; None after a FEN the rules alone cannot settle (one the
/// engine may accept with impossible castling rights or checks dropped), until it says.
#[derive(Clone, Debug)]
pub struct Model {
    pub pos: Option<Chess>,
    pub chess960: bool,
}

impl Default for Model {
    fn default() -> Model {
        Model {
            pos: Some(Chess::default()),
            chess960: false,
        }
    }
}

enum FenOutcome {
    Rejected,
    Accepted(Chess),
    Unsure,
}

fn mode(chess960: bool) -> CastlingMode {
    if chess960 {
        CastlingMode::Chess960
    } else {
        CastlingMode::Standard
    }
}

fn read_fen(fen: &str, chess960: bool) -> FenOutcome {
    let Ok(parsed) = fen.parse::<Fen>() else {
        return FenOutcome::Rejected;
    };
    match parsed.into_position::<Chess>(mode(chess960)) {
        Ok(pos) => FenOutcome::Accepted(pos),
        Err(_) => FenOutcome::Unsure,
    }
}

/// Plays `moves` from `pos` up to the first one that is malformed or illegal.
pub fn legal_prefix(mut pos: Chess, moves: &[String]) -> Chess {
    for token in moves {
        let next = if token == "0000" {
            // Passing is a move only when not in check.
            if pos.is_check() {
                None
            } else {
                pos.clone().swap_turn().ok()
            }
        } else {
            token
                .parse::<UciMove>()
                .ok()
                .and_then(|u| u.to_move(&pos).ok())
                .map(|m| {
                    let mut next = pos.clone();
                    next.play_unchecked(m);
                    next
                })
        };
        match next {
            Some(p) => pos = p,
            None => break,
        }
    }
    pos
}

impl Model {
    /// `position startpos|fen F [moves ...]`: anything else leaves the position alone.
    pub fn position(&mut self, args: &[String]) {
        let (head, moves) = match args.iter().position(|t| t == "moves") {
            Some(i) => (&args[..i], &args[i + 1..]),
            None => (args, &[][..]),
        };
        let base = match head.first().map(String::as_str) {
            Some("startpos") => FenOutcome::Accepted(Chess::default()),
            Some("fen") if head.len() > 1 => read_fen(&head[1..].join(" "), self.chess960),
            _ => FenOutcome::Rejected,
        };
        match base {
            FenOutcome::Rejected => {}
            FenOutcome::Unsure => self.pos = None,
            FenOutcome::Accepted(pos) => self.pos = Some(legal_prefix(pos, moves)),
        }
    }

    /// `setoption name UCI_Chess960 value true|false` (names and values without regard to
    /// case) decides how later FENs' castling rights are read.
    pub fn setoption(&mut self, args: &[String]) {
        if args.first().map(String::as_str) != Some("name") {
            return;
        }
        let rest = &args[1..];
        let (name, value) = match rest.iter().position(|t| t == "value") {
            Some(i) => (rest[..i].join(" "), Some(rest[i + 1..].join(" "))),
            None => (rest.join(" "), None),
        };
        if !name.trim().eq_ignore_ascii_case("uci_chess960") {
            return;
        }
        match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
            Some("true") => self.chess960 = true,
            Some("false") => self.chess960 = false,
            _ => {}
        }
    }
}

/// A FEN the engine printed, read as leniently as it may have accepted it.
pub fn lenient_position(fen: &str) -> Option<Chess> {
    let parsed: Fen = fen.parse().ok()?;
    [CastlingMode::Chess960, CastlingMode::Standard]
        .into_iter()
        .find_map(|m| match parsed.clone().into_position::<Chess>(m) {
            Ok(pos) => Some(pos),
            Err(e) => repaired(e),
        })
}

/// The position without the faults an engine may forgive: impossible checks, castling
/// rights or en passant squares.
fn repaired(e: PositionError<Chess>) -> Option<Chess> {
    let e = match e.ignore_impossible_check() {
        Ok(pos) => return Some(pos),
        Err(e) => e,
    };
    let e = match e.ignore_invalid_castling_rights() {
        Ok(pos) => return Some(pos),
        Err(e) => e,
    };
    e.ignore_invalid_ep_square().ok()
}

/// Same pieces, side, castling rooks, usable en passant square and move counters.
pub fn same_position(a: &Chess, b: &Chess) -> bool {
    a.to_setup(EnPassantMode::Legal) == b.to_setup(EnPassantMode::Legal)
}

pub fn fen_of(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// A `bestmove` line for a search of `pos`: `0000` exactly when there is no legal move,
/// otherwise a legal move, and a ponder move (if any) legal after it.
pub fn check_bestmove(pos: &Chess, line: &str) -> Result<(), String> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let fen = fen_of(pos);
    if pos.legal_moves().is_empty() {
        return if tokens == ["bestmove", "0000"] {
            Ok(())
        } else {
            Err(format!("{line:?} where no move is legal ({fen})"))
        };
    }
    let legal = |p: &Chess, t: &str| t.parse::<UciMove>().ok()?.to_move(p).ok();
    let Some(best) = tokens.get(1).and_then(|t| legal(pos, t)) else {
        return Err(format!("{line:?}: not a legal move in {fen}"));
    };
    match tokens[2..] {
        [] => Ok(()),
        ["ponder", reply] => {
            let mut after = pos.clone();
            after.play_unchecked(best);
            legal(&after, reply)
                .map(drop)
                .ok_or_else(|| format!("{line:?}: ponder move illegal in {}", fen_of(&after)))
        }
        _ => Err(format!("{line:?}: malformed bestmove line")),
    }
}

const INFO_KEYS: &[&str] = &[
    "depth",
    "seldepth",
    "time",
    "nodes",
    "pv",
    "multipv",
    "score",
    "currmove",
    "currmovenumber",
    "hashfull",
    "nps",
    "tbhits",
    "sbhits",
    "cpuload",
    "string",
    "refutation",
    "currline",
];

/// An engine-to-GUI message of the UCI spec; with `extensions` (after `perft` or `bench` was
/// sent) also their plain-text lines.
pub fn is_uci_line(line: &str, extensions: bool) -> bool {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let uci = match tokens.first().copied() {
        Some("uciok" | "readyok") => tokens.len() == 1,
        Some("id") => matches!(tokens.get(1), Some(&"name" | &"author")) && tokens.len() > 2,
        Some("option") => tokens.get(1) == Some(&"name"),
        Some("bestmove") => tokens.len() == 2 || (tokens.len() == 4 && tokens[2] == "ponder"),
        Some("info") => tokens.get(1).is_some_and(|k| INFO_KEYS.contains(k)),
        Some("copyprotection" | "registration") => tokens.len() == 2,
        _ => false,
    };
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let extension = line.is_empty()
        || line.strip_prefix("Nodes searched: ").is_some_and(digits)
        || line.starts_with("position ")
        || line.ends_with(" nps")
        || line
            .split_once(": ")
            .is_some_and(|(m, n)| m.len() <= 5 && digits(n));
    (uci && line.trim_end() == line) || (extensions && extension)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_model_reads_lines_as_the_spec_says() {
        assert_eq!(classify(b"joho isready"), Kind::IsReady);
        assert_eq!(classify(b"go depth 3 perft 2"), Kind::Extension);
        assert_eq!(classify(b"x\xffgo\r"), Kind::Other);
        assert_eq!(classify(b"x \xff go\r"), Kind::Go);
        let mut m = Model::default();
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        m.position(&args("startpos moves e2e4 e7e5 e1e8 g1f3"));
        let pos = m.pos.clone().unwrap();
        assert_eq!(
            fen_of(&pos),
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 0 2"
        );
        m.position(&args("fen not a fen moves e2e4"));
        assert!(same_position(m.pos.as_ref().unwrap(), &pos));
        m.position(&args("fen 4k3/8/8/8/8/8/8/4K1R1 w K - 0 1"));
        assert!(m.pos.is_none());
        assert!(is_uci_line("bestmove e2e4 ponder e7e5", false));
        assert!(!is_uci_line("Nodes searched: 20", false));
        assert!(is_uci_line("Nodes searched: 20", true));
        assert!(!is_uci_line("info foo", true));
    }
}
