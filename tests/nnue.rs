//! The NNUE seen from outside: `UseNNUE` and `EvalFile` in UCI sessions (good, missing and
//! corrupt nets), and `bench`, `eval` and `epd` with the embedded net, `--eval-file` and
//! `--hce`.

mod common;

use std::path::PathBuf;

use common::{Session, ferrum, legal_bestmove, position, reported_nodes};

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrum-nnue-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The net compiled into the binary, as a file.
fn embedded_bytes() -> Vec<u8> {
    std::fs::read(concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.bin")).unwrap()
}

/// Nodes of `go depth {depth}` from `fen` in a fresh engine after the `setup` lines, with
/// every line the engine printed.
fn nodes_after(setup: &[&str], fen: &str, depth: u32) -> (u64, Vec<String>) {
    let mut s = Session::start();
    for line in setup {
        s.send(line);
    }
    s.send(&format!("position fen {fen}"));
    s.send(&format!("go depth {depth}"));
    let (lines, best) = s.bestmove();
    legal_bestmove(&position(fen), &best);
    let seen = s.seen.clone();
    assert!(s.quit().success());
    (reported_nodes(&lines), seen)
}

#[test]
fn use_nnue_searches_to_depth_6_and_plays_legal_moves() {
    let mut s = Session::start();
    s.expect_option("option name UseNNUE type check default true");
    s.expect_option("option name EvalFile type string default <embedded>");
    // Off and on again, so that the switch back is exercised too.
    s.send("setoption name UseNNUE value false");
    s.read_until(|l| l == "info string hand-written evaluation");
    s.send("setoption name UseNNUE value true");
    let lines = s.read_until(|l| l.starts_with("info string NNUE evaluation with the embedded"));
    assert!(lines.last().unwrap().contains("hidden "), "{lines:?}");
    for fen in [
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        KIWIPETE,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        "r1bq2rk/pp3pbp/2p1p1pQ/7P/3P4/2PB1N2/PP3PPR/2KR4 w - - 0 1",
    ] {
        s.send(&format!("position fen {fen}"));
        s.send("go depth 6");
        let (lines, best) = s.bestmove();
        assert!(
            lines.iter().any(|l| l.starts_with("info depth 6 ")),
            "{lines:?}"
        );
        legal_bestmove(&position(fen), &best);
    }
    s.send("eval");
    let lines = s.read_until(|l| l.starts_with("info string nnue: embedded net"));
    assert!(lines.last().unwrap().ends_with(" cp"), "{lines:?}");
    assert!(s.quit().success());
}

#[test]
fn a_missing_or_corrupt_eval_file_is_named_and_changes_nothing() {
    let dir = scratch("bad");
    let missing = dir.join("no-such-net.bin");
    let corrupt = dir.join("corrupt.bin");
    let mut bytes = embedded_bytes();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&corrupt, &bytes).unwrap();
    let (missing, corrupt) = (missing.to_str().unwrap(), corrupt.to_str().unwrap());

    let (with_net, _) = nodes_after(&[], KIWIPETE, 6);
    let (hand_written, _) = nodes_after(&["setoption name UseNNUE value false"], KIWIPETE, 6);
    assert_ne!(with_net, hand_written, "the net is not used");
    for use_nnue in ["true", "false"] {
        let set_missing = format!("setoption name EvalFile value {missing}");
        let set_corrupt = format!("setoption name EvalFile value {corrupt}");
        let setup = [
            format!("setoption name UseNNUE value {use_nnue}"),
            set_missing,
            set_corrupt,
        ];
        let setup: Vec<&str> = setup.iter().map(String::as_str).collect();
        let (nodes, seen) = nodes_after(&setup, KIWIPETE, 6);
        let expected = if use_nnue == "true" {
            with_net
        } else {
            hand_written
        };
        assert_eq!(nodes, expected, "UseNNUE {use_nnue}: {seen:?}");
        for (file, reason) in [(missing, "cannot read"), (corrupt, "bytes, expected")] {
            assert!(
                seen.iter()
                    .any(|l| l.starts_with("info string error: EvalFile")
                        && l.contains(file)
                        && l.contains(reason)
                        && l.contains("keeping the embedded net")),
                "no error for {file}: {seen:?}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_good_eval_file_is_loaded_and_named() {
    let dir = scratch("good");
    let file = dir.join("copy.bin");
    std::fs::write(&file, embedded_bytes()).unwrap();
    let path = file.to_str().unwrap();
    let (with_file, seen) = nodes_after(
        &[
            &format!("setoption name EvalFile value {path}"),
            "setoption name UseNNUE value true",
        ],
        KIWIPETE,
        5,
    );
    assert!(
        seen.iter()
            .any(|l| l.starts_with(&format!("info string loaded the net {path} (hidden "))),
        "{seen:?}"
    );
    let (embedded, _) = nodes_after(&["setoption name UseNNUE value true"], KIWIPETE, 5);
    assert_eq!(with_file, embedded);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The last line's node count: "<nodes> nodes <nps> nps".
fn bench_nodes(out: &str) -> u64 {
    let last = out.lines().last().unwrap_or_default();
    let t: Vec<&str> = last.split_whitespace().collect();
    assert_eq!((t.len(), t[1], t[3]), (4, "nodes", "nps"), "{out}");
    t[0].parse().unwrap()
}

#[test]
fn bench_with_the_net_is_deterministic_and_names_it() {
    let (code_a, a, _) = ferrum(&["bench", "4"]);
    let (code_b, b, _) = ferrum(&["bench", "4"]);
    assert_eq!((code_a, code_b), (0, 0), "{a}");
    assert_eq!(bench_nodes(&a), bench_nodes(&b));
    assert!(a.starts_with("nnue: embedded net (hidden "), "{a}");
    let (_, hand_written, _) = ferrum(&["bench", "4", "--hce"]);
    assert!(!hand_written.contains("nnue"), "{hand_written}");
    assert_ne!(bench_nodes(&a), bench_nodes(&hand_written));
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.bin");
    let (code, c, _) = ferrum(&["bench", "4", "--eval-file", file]);
    assert_eq!(code, 0, "{c}");
    assert_eq!(bench_nodes(&c), bench_nodes(&a));
    let (code, _, err) = ferrum(&["bench", "4", "--eval-file", "/no/such/net.bin"]);
    assert_ne!(code, 0);
    assert!(err.contains("/no/such/net.bin"), "{err}");
}

/// The FEN of `fen` with the board mirrored and the colours swapped (castling rights kept
/// as they are symmetric here, no en passant).
fn colour_flip(fen: &str) -> String {
    let fields: Vec<&str> = fen.split(' ').collect();
    let board: Vec<String> = fields[0]
        .split('/')
        .rev()
        .map(|rank| {
            rank.chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect()
        })
        .collect();
    let turn = if fields[1] == "w" { "b" } else { "w" };
    format!("{} {turn} {} - 0 1", board.join("/"), fields[2])
}

/// The net's score on the last line of `ferrum eval`.
fn nnue_score(out: &str) -> i32 {
    let last = out.lines().last().unwrap_or_default();
    assert!(last.starts_with("nnue: embedded net (hidden "), "{out}");
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words.last(), Some(&"cp"), "{out}");
    words[words.len() - 2].parse().unwrap()
}

#[test]
fn eval_shows_the_net_next_to_the_hand_written_terms() {
    let (code, w, _) = ferrum(&["eval", "--fen", KIWIPETE]);
    assert_eq!(code, 0, "{w}");
    assert!(
        w.contains("material") && w.contains("side to move (white)"),
        "{w}"
    );
    // The colour-flipped position is the same position for the side to move.
    let flipped = colour_flip(KIWIPETE);
    let (_, b, _) = ferrum(&["eval", "--fen", &flipped]);
    assert!(
        b.lines().last().unwrap().contains("side to move (black)"),
        "{b}"
    );
    assert_eq!(nnue_score(&w), nnue_score(&b), "{w}\n{b}");
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.bin");
    let (code, f, _) = ferrum(&["eval", "--eval-file", file, "--fen", KIWIPETE]);
    assert_eq!(code, 0, "{f}");
    let last = f.lines().last().unwrap();
    assert!(
        last.starts_with(&format!("nnue: net {file} (hidden ")),
        "{f}"
    );
    assert!(last.ends_with(&format!(" {} cp", nnue_score(&w))), "{f}");
    let (_, plain, _) = ferrum(&["eval", "--hce", "--fen", KIWIPETE]);
    assert!(!plain.contains("nnue"), "{plain}");
}

/// `go` under `UCI_LimitStrength` searches with the evaluation `UseNNUE` selects: at 2050
/// (one line, a budget above these searches) a depth-4 search visits the nodes of the full
/// strength search with the same evaluation, and the two evaluations visit different ones.
#[test]
fn limit_strength_evaluates_as_use_nnue_says() {
    let limit = [
        "setoption name UCI_LimitStrength value true",
        "setoption name UCI_Elo value 2050",
    ];
    let on = [&limit[..], &["setoption name UseNNUE value true"]].concat();
    let off = [&limit[..], &["setoption name UseNNUE value false"]].concat();
    let (limited_net, _) = nodes_after(&on, KIWIPETE, 4);
    let (limited_hand_written, _) = nodes_after(&off, KIWIPETE, 4);
    let (full_strength, _) = nodes_after(&[], KIWIPETE, 4);
    let (hand_written, _) = nodes_after(&["setoption name UseNNUE value false"], KIWIPETE, 4);
    assert_eq!(limited_net, full_strength);
    assert_eq!(limited_hand_written, hand_written);
    assert_ne!(limited_net, limited_hand_written, "one evaluation for both");
}

/// The node count at the end of suite line `id`.
fn epd_nodes(out: &str, id: &str) -> u64 {
    let line = out
        .lines()
        .find(|l| l.starts_with(&format!("{id} ")))
        .unwrap_or_else(|| panic!("no line {id}: {out}"));
    let (_, n) = line.rsplit_once(" nodes ").expect("a node count");
    n.parse().unwrap()
}

/// `ferrum epd` solves with the embedded net by default, with a net file under `--eval-file`
/// and with the hand-written evaluation under `--hce` (it says which on stderr): all find the
/// mate in one, the net and its file search the same nodes, the hand-written evaluation others.
#[test]
fn epd_evaluates_with_the_net_unless_told_otherwise() {
    let dir = scratch("epd");
    let suite = dir.join("suite.epd");
    std::fs::write(
        &suite,
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"m1\";\n\
         rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - bm e5; id \"quiet\";\n",
    )
    .unwrap();
    let suite = suite.to_str().unwrap();
    let (code, net, err) = ferrum(&["epd", suite, "--depth", "6"]);
    assert_eq!(code, 0, "{net}{err}");
    assert!(
        err.contains("evaluating with the embedded net (hidden "),
        "{err}"
    );
    let file = concat!(env!("CARGO_MANIFEST_DIR"), "/nets/default.bin");
    let (code, from_file, err) = ferrum(&["epd", suite, "--depth", "6", "--eval-file", file]);
    assert_eq!(code, 0, "{from_file}{err}");
    assert!(
        err.contains(&format!("evaluating with the net {file}")),
        "{err}"
    );
    let (code, hce, err) = ferrum(&["epd", suite, "--depth", "6", "--hce"]);
    assert_eq!(code, 0, "{hce}{err}");
    assert!(!err.contains("evaluating with"), "{err}");
    for out in [&net, &from_file, &hce] {
        assert!(
            out.lines()
                .any(|l| l.starts_with("m1 ") && l.contains(" solved ")),
            "{out}"
        );
    }
    // A quiet position's tree depends on the evaluation (a mating attack's may not: with
    // exchange pruning on, WAC's Qxh7+ attack took the same nodes under both).
    assert_eq!(epd_nodes(&net, "quiet"), epd_nodes(&from_file, "quiet"));
    assert_ne!(
        epd_nodes(&net, "quiet"),
        epd_nodes(&hce, "quiet"),
        "{net}{hce}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A bad net or book is refused before datagen touches its output file.
#[test]
fn datagen_with_a_bad_net_or_book_leaves_no_file() {
    let dir = scratch("datagen");
    let out = dir.join("games.bin");
    let out = out.to_str().unwrap();
    for bad in [
        ["--eval-file", "/no/such/net.bin"],
        ["--book", "/no/such/book.epd"],
    ] {
        let (code, _, err) = ferrum(&["datagen", "--out", out, "--games", "1", bad[0], bad[1]]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(bad[1]), "{err}");
        assert!(!std::path::Path::new(out).exists(), "{bad:?} made {out}");
    }
    // A book whose third line is no position is refused whole, naming the line, though a
    // game might never have drawn it; an EPD line's operations are dropped, not refused.
    let book = dir.join("book.epd");
    std::fs::write(
        &book,
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1\n\
         4k3/8/8/8/8/8/8/R3K3 w Q - bm Ra8+; id \"epd\";\n\
         not a position\n",
    )
    .unwrap();
    let book = book.to_str().unwrap();
    let (code, _, err) = ferrum(&["datagen", "--out", out, "--games", "1", "--book", book]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("line 3") && err.contains("not a position"),
        "{err}"
    );
    assert!(
        !std::path::Path::new(out).exists(),
        "the bad book made {out}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The last figure after `what` ("validation loss ", ", loss ") on `err`.
fn last_figure(err: &str, what: &str) -> f64 {
    err.rsplit(what)
        .next()
        .and_then(|rest| rest.split(|c: char| c == ',' || c.is_whitespace()).next())
        .and_then(|x| x.parse().ok())
        .unwrap_or_else(|| panic!("no '{what}' figure in: {err}"))
}

/// The line of a `train --init` run's stderr that names the net it starts from.
fn starting_line(err: &str) -> &str {
    err.lines()
        .find(|l| l.contains("starting from"))
        .unwrap_or_else(|| panic!("no 'starting from' line in: {err}"))
}

/// `train --init NET` starts from that net's weights: its first validation loss is the one
/// the net ended on (up to the quantisation), its training loss stays where the net's was
/// while a fresh net's starts far above; a wider run starts from the same loss, and a
/// narrower one is refused.
#[test]
fn training_from_a_net_starts_where_it_ended_widens_and_refuses_narrowing() {
    use ferrum::learn::datagen::{Config, Format, run};
    let dir = scratch("init");
    let data = dir.join("games.bin");
    let config = Config {
        games: 24,
        nodes: 300,
        soft_nodes: None,
        openings: vec![
            KIWIPETE.to_string(),
            shakmaty::fen::Fen::default().to_string(),
        ],
        random_plies: 2,
        seed: 5,
        threads: 1,
        format: Format::Packed,
        net: None,
    };
    let mut bytes = Vec::new();
    run(&config, &mut bytes, &mut |_, _| {}).unwrap();
    std::fs::write(&data, bytes).unwrap();
    let data = data.to_str().unwrap();
    let train = |out: &str, hidden: &str, extra: &[&str]| {
        let out = dir.join(out);
        let mut args = vec![
            "train",
            "--data",
            data,
            "--out",
            out.to_str().unwrap(),
            "--wdl",
            "0",
            "--hold-out",
            "0.2",
            "--batch",
            "16",
            "--hidden",
            hidden,
            "--threads",
            "1",
        ];
        args.extend_from_slice(extra);
        ferrum(&args)
    };
    let (code, _, first) = train("first", "8", &["--epochs", "10", "--lr", "0.01"]);
    assert_eq!(code, 0, "{first}");
    let net = dir.join("first").join("net.bin");
    let net = net.to_str().unwrap();
    // One epoch at a learning rate too small to move the weights.
    let still = ["--epochs", "1", "--lr", "0.000001"];
    let (code, _, second) = train("second", "8", &[&["--init", net][..], &still].concat());
    assert_eq!(code, 0, "{second}");
    let start = starting_line(&second);
    assert!(start.contains(net), "{start}");
    let (ended, started) = (
        last_figure(&first, "validation loss "),
        last_figure(start, "validation loss "),
    );
    assert!(
        (started - ended).abs() <= 0.05 * ended,
        "ended at {ended}, started from {started}"
    );
    let (code, _, fresh) = train("fresh", "8", &still);
    assert_eq!(code, 0, "{fresh}");
    let (trained, from_net, from_random) = (
        last_figure(&first, ", loss "),
        last_figure(&second, ", loss "),
        last_figure(&fresh, ", loss "),
    );
    assert!(
        from_net < 2.0 * trained && from_random > 4.0 * from_net,
        "trained {trained}, from the net {from_net}, from random weights {from_random}"
    );
    // A wider net from it starts where it ended too: its new neurons are silent.
    let (code, _, wide) = train("wide", "16", &[&["--init", net][..], &still].concat());
    assert_eq!(code, 0, "{wide}");
    assert!(wide.contains("from 8 to 16 hidden neurons"), "{wide}");
    assert!(wide.contains("16x2"), "{wide}");
    let widened = last_figure(starting_line(&wide), "validation loss ");
    assert!(
        (widened - started).abs() <= 2e-6,
        "the 8-wide net started from {started}, the 16-wide one from {widened}"
    );
    let (code, _, err) = train("narrow", "4", &["--init", net]);
    assert_ne!(code, 0);
    assert!(err.contains("8x2") && err.contains("4x2"), "{err}");
    assert!(
        !dir.join("narrow").exists(),
        "a refused run wrote its directory"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
