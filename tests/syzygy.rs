//! Syzygy tablebases end to end: `ferrum tb` against python-chess's prober on random 3- and
//! 4-man positions; won endings converted by Ferrum with tables against Ferrum without, and
//! drawn ones held; the UCI options.

mod common;

use std::io::Write;
use std::process::{Command, Stdio};
use std::sync::Arc;

use ferrum::basics::position::Game;
use ferrum::basics::rng::Lcg;
use ferrum::search::driver::{self, Job};
use ferrum::search::pool::Pool;
use ferrum::search::syzygy::Tables;
use ferrum::search::time::{Clock, Limits, StopToken};
use ferrum::search::tt::TranspositionTable;
use shakmaty::fen::Fen;
use shakmaty::{
    Board, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Role, Setup, Square,
};
use shakmaty_syzygy::Wdl;

const TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");

fn tables() -> Tables {
    let (tables, messages) = Tables::load(TABLES);
    tables.unwrap_or_else(|| panic!("{messages:?}"))
}

fn piece(c: char) -> Piece {
    let role = Role::from_char(c).unwrap();
    Piece {
        color: Color::from_white(c.is_ascii_uppercase()),
        role,
    }
}

/// A random legal position with these pieces (kings included), or None when the draw
/// gave an illegal one. Pawns stay off the first and last ranks.
fn random_position(rng: &mut Lcg, pieces: &str, turn: Color) -> Option<Chess> {
    let mut board = Board::empty();
    for c in pieces.chars() {
        let p = piece(c);
        let sq = loop {
            let sq = Square::new((rng.next_u31() % 64) as u32);
            let back_rank = matches!(sq.rank(), shakmaty::Rank::First | shakmaty::Rank::Eighth);
            if board.piece_at(sq).is_none() && !(p.role == Role::Pawn && back_rank) {
                break sq;
            }
        };
        board.set_piece_at(sq, p);
    }
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = turn;
    Chess::from_setup(setup, shakmaty::CastlingMode::Standard).ok()
}

/// A KPvKP position just after a double pawn push that can be taken en passant.
fn en_passant_position(rng: &mut Lcg) -> Option<Chess> {
    let file = 1 + (rng.next_u31() % 6) as u32;
    let side = if rng.next_u31().is_multiple_of(2) {
        -1
    } else {
        1
    };
    let mut board = Board::empty();
    // White to move: a black pawn has just gone from rank 7 to rank 5 beside a white pawn.
    let pushed = Square::from_coords(
        shakmaty::File::new((file as i32 + side) as u32),
        shakmaty::Rank::Fifth,
    );
    board.set_piece_at(
        Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::Fifth),
        piece('P'),
    );
    board.set_piece_at(pushed, piece('p'));
    for c in ['K', 'k'] {
        let sq = loop {
            let sq = Square::new((rng.next_u31() % 64) as u32);
            if board.piece_at(sq).is_none() {
                break sq;
            }
        };
        board.set_piece_at(sq, piece(c));
    }
    let mut setup = Setup::empty();
    setup.board = board;
    setup.turn = Color::White;
    setup.ep_square = Some(Square::from_coords(pushed.file(), shakmaty::Rank::Sixth));
    let pos = Chess::from_setup(setup, shakmaty::CastlingMode::Standard).ok()?;
    pos.ep_square(EnPassantMode::Legal).is_some().then_some(pos)
}

const MATERIALS: [&str; 14] = [
    "KQk", "KRk", "KBk", "KNk", "KPk", "KQkr", "KRkr", "KBkp", "KPkp", "KBNk", "KQkp", "KRkp",
    "KPPk", "KNkn",
];

fn random_positions(count: usize, seed: u64) -> Vec<Chess> {
    let mut rng = Lcg(seed);
    let mut out = Vec::new();
    while out.len() < count {
        let pos = if out.len() % 10 == 9 {
            en_passant_position(&mut rng)
        } else {
            let material = MATERIALS[(rng.next_u31() as usize) % MATERIALS.len()];
            let turn = Color::from_white(rng.next_u31().is_multiple_of(2));
            random_position(&mut rng, material, turn)
        };
        out.extend(pos.filter(|p| !p.legal_moves().is_empty()));
    }
    out
}

fn fen(pos: &Chess) -> String {
    Fen::from_position(pos, EnPassantMode::Legal).to_string()
}

/// Runs `program` with `input` on stdin and returns its stdout lines.
fn run_with_input(mut command: Command, input: &str) -> Vec<String> {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {command:?}: {e}"));
    child
        .stdin
        .take()
        .unwrap()
        .write_all(input.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "{command:?} failed");
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect()
}

const PYTHON_PROBE: &str = r#"
import sys
try:
    import chess, chess.syzygy
except ImportError:
    sys.exit("python-chess is needed: run bash scripts/test.sh, or pip install chess")
tb = chess.syzygy.open_tablebase(sys.argv[1])
for line in sys.stdin:
    board = chess.Board(line.strip())
    print(f"wdl {tb.probe_wdl(board)} dtz {tb.probe_dtz(board)}")
"#;

#[test]
fn ferrum_tb_agrees_with_python_chess_on_1200_random_positions() {
    let positions = random_positions(1200, 20);
    let with_ep = positions
        .iter()
        .filter(|p| p.ep_square(EnPassantMode::Legal).is_some())
        .count();
    let black = positions.iter().filter(|p| p.turn().is_black()).count();
    assert!(
        with_ep >= 100 && black >= 400,
        "{with_ep} en passant, {black} black to move"
    );
    let input: String = positions.iter().map(|p| fen(p) + "\n").collect();

    let mut ours = Command::new(env!("CARGO_BIN_EXE_ferrum"));
    ours.args(["tb", "--path", TABLES]);
    let ours = run_with_input(ours, &input);
    // scripts/test.sh names the Python that has python-chess (perhaps its own .venv).
    let python = std::env::var("FERRUM_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let mut theirs = Command::new(python);
    theirs.args(["-c", PYTHON_PROBE, TABLES]);
    let theirs = run_with_input(theirs, &input);

    assert_eq!(ours.len(), positions.len());
    assert_eq!(theirs.len(), positions.len());
    let disagree: Vec<String> = positions
        .iter()
        .zip(ours.iter().zip(&theirs))
        .filter(|(_, (a, b))| a != b)
        .map(|(p, (a, b))| format!("{}: ferrum '{a}', python-chess '{b}'", fen(p)))
        .collect();
    assert!(
        disagree.is_empty(),
        "{} disagreements: {disagree:#?}",
        disagree.len()
    );
    // Every result class occurs, so agreement is not a run of identical answers.
    for wdl in ["wdl -2 ", "wdl 0 ", "wdl 2 "] {
        assert!(ours.iter().any(|l| l.starts_with(wdl)), "no '{wdl}'");
    }
}

#[test]
fn ferrum_tb_names_a_position_outside_the_tables() {
    let out = Command::new(env!("CARGO_BIN_EXE_ferrum"))
        .args(["tb", "8/8/8/3k4/8/8/8/KNNN4 w - - 0 1", "--path", TABLES])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("not in the tables: '8/8/8/3k4/8/8/8/KNNN4"),
        "{err}"
    );
}

/// How a game from a tablebase position ended, for the side that had tables.
#[derive(Debug, PartialEq)]
enum Ending {
    Mated,
    Mates,
    Drawn,
    Unfinished,
}

/// Plays `start` out: `with_tables` moves with tables (when given), the other side without;
/// 1,500 nodes a move each, up to 200 plies.
fn play_out(start: &Chess, tb: Option<&Arc<Tables>>, with_tables: Color) -> Ending {
    let mut game = Game::from_fen(&fen(start), false).unwrap();
    // Each side has its own table, and its own thread that keeps its history.
    let tts = [
        Arc::new(TranspositionTable::new(8).unwrap()),
        Arc::new(TranspositionTable::new(8).unwrap()),
    ];
    let pools = [Pool::new(1).unwrap(), Pool::new(1).unwrap()];
    let limits = Limits {
        nodes: Some(1500),
        ..Limits::default()
    };
    for _ in 0..200 {
        let pos = &game.pos;
        if pos.is_checkmate() {
            return if pos.turn() == with_tables {
                Ending::Mated
            } else {
                Ending::Mates
            };
        }
        let keys = game.repetition_keys();
        if pos.is_stalemate()
            || pos.is_insufficient_material()
            || pos.halfmoves() >= 100
            || ferrum::basics::position::is_repetition_draw(&keys, pos.halfmoves(), 0)
        {
            return Ending::Drawn;
        }
        let side = pos.turn();
        let clock = Clock::new(&limits, side.is_white(), 0, StopToken::detached());
        let i = side as usize;
        let tables = tb.filter(|_| side == with_tables);
        let job = Job {
            tables: tables.cloned(),
            probe_limit: tables.map_or(0, |t| t.max_pieces),
            ..Job::new(game.clone(), limits.clone(), Arc::clone(&tts[i]))
        };
        let (r, _) = driver::search_on(&pools[i], job, clock).unwrap();
        game.play(r.best.expect("a legal move"));
    }
    Ending::Unfinished
}

/// Won positions of each material, the winner to move, with a clean win (not cursed).
fn won_positions(t: &Tables, per_material: usize, seed: u64) -> Vec<Chess> {
    let mut rng = Lcg(seed);
    let mut out = Vec::new();
    for material in ["KQk", "KRk", "KBNk", "KPk", "KQkr"] {
        let mut found = 0;
        while found < per_material {
            let Some(pos) = random_position(&mut rng, material, Color::White) else {
                continue;
            };
            if t.probe_wdl(&pos) == Some(Wdl::Win) && !pos.is_check() {
                out.push(pos);
                found += 1;
            }
        }
    }
    out
}

#[test]
fn with_tables_ferrum_converts_won_four_man_endings_and_holds_draws() {
    let t = Arc::new(tables());
    let won = won_positions(&t, 11, 77);
    assert_eq!(won.len(), 55);
    let mut failed = Vec::new();
    for pos in &won {
        let ending = play_out(pos, Some(&t), Color::White);
        if ending != Ending::Mates {
            failed.push(format!("{}: {ending:?}", fen(pos)));
        }
    }
    assert!(failed.is_empty(), "not converted with tables: {failed:#?}");

    // Without tables the same engine fails some of them; the count is reported, not asserted.
    let unconverted = won
        .iter()
        .filter(|p| play_out(p, None, Color::White) != Ending::Mates)
        .count();
    println!(
        "won 4-man endings: {} of {} converted with tables, {} of {} without",
        won.len(),
        won.len(),
        won.len() - unconverted,
        won.len()
    );

    // Drawn KRvKR and KBvKP, the side with tables to defend against the side without.
    let mut rng = Lcg(78);
    let mut held = 0;
    for (material, defender) in [("KRkr", Color::Black), ("KBkp", Color::White)] {
        let mut tried = 0;
        while tried < 5 {
            let turn = defender.other();
            let Some(pos) = random_position(&mut rng, material, turn) else {
                continue;
            };
            if t.probe_wdl(&pos) != Some(Wdl::Draw) || pos.is_check() {
                continue;
            }
            tried += 1;
            let ending = play_out(&pos, Some(&t), defender);
            assert_ne!(ending, Ending::Mated, "{} lost with tables", fen(&pos));
            held += 1;
        }
    }
    assert_eq!(held, 10);
}

/// The last `info depth` line before the next `bestmove`.
fn last_info(s: &mut common::Session) -> String {
    let (lines, _) = s.bestmove();
    common::last_info_depth(&lines).to_string()
}

#[test]
fn the_root_shows_the_tables_result_until_the_search_finds_a_mate() {
    let mut s = common::Session::start();
    s.send(&format!("setoption name SyzygyPath value {TABLES}"));
    let root_scores = |s: &mut common::Session, fen: &str, depth: u32| {
        s.send(&format!("position fen {fen}"));
        s.send(&format!("go depth {depth}"));
        let (lines, best) = s.bestmove();
        common::legal_bestmove(&common::position(fen), &best);
        let scores: Vec<(String, i32)> = lines
            .iter()
            .filter(|l| l.starts_with("info depth"))
            .filter_map(|l| common::score_of(l))
            .collect();
        assert!(scores.len() >= depth as usize, "{lines:?}");
        scores
    };
    // A tablebase win shows as 20000 cp less the plies to the next capture, pawn move or
    // mate (at most 100 within the fifty-move rule); a loss as its negative; a draw as 0.
    let won = |(kind, v): &(String, i32)| kind == "cp" && (19_900..20_000).contains(v);
    let lost = |(kind, v): &(String, i32)| kind == "cp" && (-20_000..-19_900).contains(v);
    let krk = "8/8/8/4k3/8/8/8/R3K3";
    let scores = root_scores(&mut s, &format!("{krk} w - - 0 1"), 12);
    assert!(scores.iter().all(won), "won root: {scores:?}");
    // A clock past the fifty-move rule, here the largest a FEN holds, leaves no win to
    // convert in time: the root is a draw (adding the plies to it overflowed once).
    let scores = root_scores(&mut s, &format!("{krk} w - - 4294967295 1"), 6);
    assert!(
        scores.iter().all(|(kind, v)| kind == "cp" && *v == 0),
        "clock past the rule: {scores:?}"
    );
    // Under the strength limit the line played is chosen by the search's own scores, and
    // the info line printed with the move shows the tables' result too.
    s.send("setoption name UCI_LimitStrength value true");
    let scores = root_scores(&mut s, &format!("{krk} w - - 0 1"), 4);
    assert!(scores.iter().all(won), "won root, limited: {scores:?}");
    s.send("setoption name UCI_LimitStrength value false");
    let scores = root_scores(&mut s, &format!("{krk} b - - 0 1"), 12);
    assert!(scores.iter().all(lost), "lost root: {scores:?}");
    let scores = root_scores(&mut s, "8/8/3k4/8/8/2K5/r7/7R b - - 0 1", 12);
    assert!(
        scores.iter().all(|(kind, v)| kind == "cp" && *v == 0),
        "drawn root: {scores:?}"
    );
    // Mate in two: the first iterations see only the tables' win, the deeper ones the mate,
    // which is shown instead.
    let scores = root_scores(&mut s, "k7/8/8/2K5/8/8/8/1Q6 w - - 0 1", 6);
    assert!(won(&scores[0]), "{scores:?}");
    assert_eq!(scores.last(), Some(&("mate".to_string(), 2)), "{scores:?}");
    // Without the tables the won root is an ordinary evaluation, so the tables made the
    // difference above.
    s.send("setoption name SyzygyPath value <empty>");
    let scores = root_scores(&mut s, &format!("{krk} w - - 0 1"), 12);
    assert!(!scores.iter().any(won), "no tables: {scores:?}");
    assert!(s.quit().success());
}

#[test]
fn syzygy_options_load_unload_and_limit() {
    let mut s = common::Session::start();
    s.send("uci");
    s.expect_prefix("uciok");
    s.send("setoption name SyzygyPath value /no/such/dir");
    s.is_ready();
    let bad = s.seen.join("\n");
    assert!(
        bad.contains("cannot read directory '/no/such/dir'"),
        "{bad}"
    );
    assert!(bad.contains("no Syzygy tables found"), "{bad}");

    // Loaded twice over (the second path replaces the first), then probed at the root.
    s.send(&format!("setoption name SyzygyPath value {TABLES}"));
    s.send(&format!(
        "setoption name SyzygyPath value {TABLES}:{TABLES}"
    ));
    s.is_ready();
    let found = s
        .seen
        .iter()
        .filter(|l| l.contains("found 35 WDL and 35 DTZ tables, up to 4 pieces"))
        .count();
    assert_eq!(found, 2);
    s.send("position fen 8/8/8/8/8/k7/8/K6R w - - 0 1");
    s.send("go depth 6");
    let info = last_info(&mut s);
    assert!(info.contains(" tbhits "), "{info}");

    // With the probe limit at 3 a 4-man root is not probed, nor anything below it (the
    // pawns are blocked and the kings too far away to capture within the depth); at 4 it is.
    let blocked = "7k/8/8/4p3/4P3/8/8/K7 w - - 0 1";
    s.send("setoption name SyzygyProbeLimit value 3");
    s.send(&format!("position fen {blocked}"));
    s.send("go depth 4");
    let info = last_info(&mut s);
    assert!(info.contains(" tbhits 0 "), "{info}");
    s.send("setoption name SyzygyProbeLimit value 4");
    s.send("go depth 4");
    let info = last_info(&mut s);
    assert!(!info.contains(" tbhits 0 "), "{info}");

    // An empty path unloads them: no tbhits field at all.
    s.send("setoption name SyzygyPath value <empty>");
    s.is_ready();
    assert!(
        s.seen
            .iter()
            .any(|l| l == "info string Syzygy tables unloaded")
    );
    s.send("go depth 4");
    let info = last_info(&mut s);
    assert!(!info.contains("tbhits"), "{info}");
    assert!(s.quit().success());
}
