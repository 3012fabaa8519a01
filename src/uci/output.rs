//! Engine-to-GUI output: one writer that flushes every line, and the formatting of `info` and
//! `bestmove` (vampirc-uci's typed messages, by hand where it cannot say what we need).

use std::io::Write;
use std::sync::{Arc, Mutex};

use shakmaty::uci::UciMove;
use shakmaty::{CastlingMode, Move, Role};
use vampirc_uci::{Duration, Serializable, UciInfoAttribute, UciMessage, UciPiece, UciSquare};

use crate::search::driver::Iteration;
use crate::search::score::{UciScore, to_uci};
use crate::uci::wdl;

/// The one place stdout is written from; lines from different threads never interleave.
#[derive(Clone)]
pub struct Out {
    sink: Arc<Mutex<Box<dyn Write + Send>>>,
    /// The first write that failed, for a subcommand to report (a GUI never reads it).
    failed: Arc<Mutex<Option<String>>>,
}

impl Out {
    pub fn stdout() -> Out {
        Out::to(Box::new(std::io::stdout()))
    }

    pub fn to(sink: Box<dyn Write + Send>) -> Out {
        Out {
            sink: Arc::new(Mutex::new(sink)),
            failed: Arc::new(Mutex::new(None)),
        }
    }

    pub fn line(&self, text: &str) {
        log::debug!(">> {text}");
        // A poisoned lock only means another thread panicked mid-write; the sink is still fine.
        let mut sink = self.sink.lock().unwrap_or_else(|p| p.into_inner());
        // A GUI that closed our stdout can no longer be told anything; keep running quietly
        // (a subcommand asks `checked` at its end).
        if let Err(e) = writeln!(sink, "{text}").and_then(|_| sink.flush()) {
            let mut failed = self.failed.lock().unwrap_or_else(|p| p.into_inner());
            failed.get_or_insert_with(|| e.to_string());
        }
    }

    /// An error naming the first line that could not be written, if one could not: a
    /// subcommand's output lost (a full disk) is an error, not a success.
    pub fn checked(&self) -> Result<(), String> {
        match &*self.failed.lock().unwrap_or_else(|p| p.into_inner()) {
            Some(e) => Err(format!("failed printing to stdout: {e}")),
            None => Ok(()),
        }
    }

    pub fn info_string(&self, text: &str) {
        self.line(&info_string(text));
    }
}

/// The answer to `isready`.
pub const READYOK: &str = "readyok";

/// The report before a `bestmove` that no search stands behind (fastchess wants a score).
pub const NO_SEARCH_INFO: &str = "info depth 0 score cp 0";

/// The answer to `help` (a person typing at the prompt; GUIs never send it): plain lines, as
/// other engines answer, naming the commands and where the rest is described.
pub fn help_lines(name: &str) -> Vec<String> {
    let first =
        format!("{name}, a UCI chess engine: chess GUIs speak to it in UCI on stdin and stdout.");
    let rest = [
        "Commands:",
        "  uci                 name, author and the options (option lines), then uciok",
        "  isready             readyok once earlier commands are done",
        "  setoption name N [value V]   set an option (see the uci answer)",
        "  ucinewgame          forget the previous game (clear the hash table)",
        "  position startpos|fen FEN [moves M1 M2 ...]",
        "  go [depth D] [nodes N] [movetime MS] [wtime MS btime MS winc MS binc MS",
        "     movestogo N] [mate N] [searchmoves M ...] [ponder] [infinite]",
        "  stop, ponderhit, quit",
        "  d                   the position's FEN and key",
        "  eval                the evaluation of the position, term by term",
        "  bench [D]           search the bench positions (depth 10); last line: nodes and nps",
        "  perft D             count the leaves of the move tree, move by move (or go perft D)",
        "  help                this list",
        "Outside UCI: 'ferrum --help' lists the subcommands (bench, perft, epd, datagen, ...).",
    ];
    std::iter::once(first)
        .chain(rest.into_iter().map(str::to_string))
        .collect()
}

/// The answer to `uci`: the engine's name and author, its `option` lines, then `uciok`.
pub fn handshake_lines(name: &str, author: &str, options: Vec<String>) -> Vec<String> {
    let id = |name: Option<&str>, author: Option<&str>| {
        UciMessage::Id {
            name: name.map(str::to_string),
            author: author.map(str::to_string),
        }
        .serialize()
    };
    let mut lines = vec![id(Some(name), None), id(None, Some(author))];
    lines.extend(options);
    lines.push("uciok".to_string());
    lines
}

pub fn info_string(text: &str) -> String {
    // A newline inside would end the info line early and confuse the GUI.
    let text = text.replace(['\n', '\r'], " ");
    UciMessage::Info(vec![UciInfoAttribute::String(text)]).serialize()
}

fn vampirc_move(m: UciMove) -> Option<vampirc_uci::UciMove> {
    let UciMove::Normal {
        from,
        to,
        promotion,
    } = m
    else {
        return None;
    };
    let square =
        |s: shakmaty::Square| UciSquare::from(s.file().char(), s.rank().char() as u8 - b'0');
    let mut out = vampirc_uci::UciMove::from_to(square(from), square(to));
    out.promotion = promotion.map(|r| match r {
        Role::Knight => UciPiece::Knight,
        Role::Bishop => UciPiece::Bishop,
        Role::Rook => UciPiece::Rook,
        Role::Pawn => UciPiece::Pawn,
        Role::King => UciPiece::King,
        Role::Queen => UciPiece::Queen,
    });
    Some(out)
}

/// `info depth .. seldepth .. score .. [wdl W D L] nodes .. nps .. hashfull .. time [tbhits ..]
/// pv ..`; `wdl` (as Stockfish places it) when `wdl_material` gives the root's material
/// (`UCI_ShowWDL` on).
pub fn info_line(it: &Iteration, mode: CastlingMode, wdl_material: Option<i32>) -> String {
    let (cp, mate) = match to_uci(it.score) {
        UciScore::Cp(c) => (Some(c), None),
        UciScore::Mate(m) => (None, Some(m.clamp(-127, 127) as i8)),
    };
    let nps = it.nodes * 1000 / it.elapsed_ms.max(1);
    let pv: Vec<vampirc_uci::UciMove> = it
        .pv
        .iter()
        .filter_map(|m| vampirc_move(m.to_uci(mode)))
        .collect();
    let head = vec![
        UciInfoAttribute::Depth(it.depth.min(255) as u8),
        UciInfoAttribute::SelDepth(it.seldepth.min(255) as u8),
        UciInfoAttribute::MultiPv(it.multipv.clamp(1, 256) as u16),
        UciInfoAttribute::Score {
            cp,
            mate,
            lower_bound: None,
            upper_bound: None,
        },
    ];
    let mut attributes = vec![
        UciInfoAttribute::Nodes(it.nodes),
        UciInfoAttribute::Nps(nps),
        UciInfoAttribute::HashFull(it.hashfull.min(1000) as u16),
        UciInfoAttribute::Time(Duration::milliseconds(it.elapsed_ms as i64)),
    ];
    if let Some(hits) = it.tbhits {
        attributes.push(UciInfoAttribute::TbHits(hits));
    }
    attributes.push(UciInfoAttribute::Pv(pv));
    // vampirc-uci has no `wdl`: the line is written in two parts with it between them.
    let mut line = UciMessage::Info(head).serialize();
    if let Some(m) = wdl_material {
        let [w, d, l] = wdl::wdl(it.score, m);
        line += &format!(" wdl {w} {d} {l}");
    }
    let rest = UciMessage::Info(attributes).serialize();
    line + rest.strip_prefix("info").unwrap_or(&rest)
}

/// `bestmove e2e4 ponder e7e5`, or `bestmove 0000` when there is no legal move (which
/// vampirc-uci cannot write).
pub fn bestmove_line(best: Option<Move>, ponder: Option<Move>, mode: CastlingMode) -> String {
    match best {
        None => "bestmove 0000".to_string(),
        Some(b) => match ponder {
            Some(p) => format!("bestmove {} ponder {}", b.to_uci(mode), p.to_uci(mode)),
            None => format!("bestmove {}", b.to_uci(mode)),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::score::MATE;
    use shakmaty::{Chess, Position};

    #[test]
    fn info_line_has_every_field_in_order() {
        let pos = Chess::default();
        let m = pos.legal_moves()[0];
        let it = Iteration {
            depth: 5,
            seldepth: 9,
            multipv: 1,
            score: -MATE + 4,
            nodes: 5000,
            elapsed_ms: 250,
            hashfull: 12,
            tbhits: None,
            pv: vec![m],
        };
        let line = info_line(&it, CastlingMode::Standard, None);
        assert_eq!(
            line,
            format!(
                "info depth 5 seldepth 9 multipv 1 score mate -2 nodes 5000 nps 20000 hashfull 12 time 250 pv {}",
                m.to_uci(CastlingMode::Standard)
            )
        );
        // With UCI_ShowWDL, `wdl` follows the score: being mated is a certain loss.
        let line = info_line(&it, CastlingMode::Standard, Some(78));
        assert!(
            line.starts_with(
                "info depth 5 seldepth 9 multipv 1 score mate -2 wdl 0 0 1000 nodes 5000 nps 20000 "
            ),
            "{line}"
        );
        let even = Iteration { score: 0, ..it };
        let line = info_line(&even, CastlingMode::Standard, Some(78));
        let [w, d, l] = wdl::wdl(0, 78);
        assert!(
            line.contains(&format!(" score cp 0 wdl {w} {d} {l} nodes 5000 ")),
            "{line}"
        );
    }

    #[test]
    fn bestmove_without_a_move_is_0000() {
        assert_eq!(
            bestmove_line(None, None, CastlingMode::Standard),
            "bestmove 0000"
        );
    }

    #[test]
    fn help_names_every_uci_command_and_the_extensions() {
        let text = help_lines("Ferrum 1").join("\n");
        assert!(text.starts_with("Ferrum 1, a UCI chess engine"));
        // Each command opens a line of the list ("stop, ponderhit, quit" share one).
        let listed: Vec<&str> = text
            .lines()
            .filter_map(|l| l.strip_prefix("  "))
            .flat_map(|l| l.split("   ").next().unwrap_or("").split(", "))
            .map(|c| c.split_whitespace().next().unwrap_or(""))
            .collect();
        for word in [
            "uci",
            "isready",
            "setoption",
            "ucinewgame",
            "position",
            "go",
            "stop",
            "ponderhit",
            "quit",
            "d",
            "eval",
            "bench",
            "perft",
            "help",
        ] {
            assert!(listed.contains(&word), "{word}: {listed:?}");
        }
    }

    #[test]
    fn info_strings_stay_on_one_line() {
        assert_eq!(info_string("a\nb"), "info string a b");
    }
}
