//! The `epd` and `bench` subcommands as users run them.

mod common;

use common::ferrum;

#[test]
fn bench_node_count_is_deterministic() {
    let (code_a, a, _) = ferrum(&["bench", "3"]);
    let (code_b, b, _) = ferrum(&["bench", "3"]);
    assert_eq!((code_a, code_b), (0, 0));
    let nodes = |s: &str| {
        let last = s.lines().last().unwrap().to_string();
        let t: Vec<&str> = last.split_whitespace().collect();
        assert_eq!((t.len(), t[1], t[3]), (4, "nodes", "nps"), "{last}");
        t[0].parse::<u64>().unwrap()
    };
    assert_eq!(nodes(&a), nodes(&b));
    assert!(nodes(&a) > 1000);
    assert_eq!(
        a.lines().filter(|l| l.starts_with("position")).count(),
        ferrum::measure::bench::POSITIONS.len()
    );
}

#[test]
fn epd_suite_reports_each_position_and_the_solved_count() {
    let dir = std::env::temp_dir().join(format!("ferrum-epd-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("mini.epd");
    std::fs::write(
        &file,
        "6k1/5ppp/8/8/8/8/8/R5K1 w - - bm Ra8#; id \"mate1\";\n\
         this line is not epd\n\
         r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - bm Qxf7#; id \"scholar\";\n\
         6k1/5ppp/8/8/8/8/8/R5K1 w - - am Ra8#; id \"avoid\";\n",
    )
    .unwrap();
    let json = dir.join("out.json");
    let path = file.to_str().unwrap();
    let (code, out, _) = ferrum(&[
        "epd",
        path,
        "--depth",
        "3",
        "--json",
        json.to_str().unwrap(),
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("mate1") && out.contains("scholar") && out.contains("avoid"),
        "{out}"
    );
    assert!(out.contains("line 2: skipped"), "{out}");
    assert_eq!(out.lines().last().unwrap(), format!("{path} solved 2/4"));
    let j = std::fs::read_to_string(&json).unwrap();
    assert!(
        j.contains("\"solved\": 2") && j.contains("\"searched\": 3"),
        "{j}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// The score at the end of an `eval` report's last line: "... side to move (colour) N cp".
fn side_to_move_score(report: &str) -> i32 {
    let last = report.lines().last().unwrap_or_default();
    let words: Vec<&str> = last.split_whitespace().collect();
    assert_eq!(words.last(), Some(&"cp"), "{report}");
    words[words.len() - 2].parse().unwrap()
}

#[test]
fn eval_prints_each_term_per_colour_and_negates_with_the_side_to_move() {
    let fen = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R";
    let (code, white, _) = ferrum(&["eval", "--hce", "--fen", &format!("{fen} w KQkq - 0 1")]);
    assert_eq!(code, 0, "{white}");
    for term in ["material", "squares", "pawns", "threats", "tempo", "phase"] {
        assert!(white.contains(term), "{term} missing:\n{white}");
    }
    assert!(
        white
            .lines()
            .next()
            .is_some_and(|l| l.contains("white") && l.contains("black"))
    );
    // Every term but tempo is the same whoever moves; tempo goes to the side to move.
    let (_, black, _) = ferrum(&["eval", "--hce", "--fen", &format!("{fen} b KQkq - 0 1")]);
    let term = |report: &str, name: &str| -> Vec<String> {
        let line = report.lines().find(|l| l.starts_with(name)).unwrap();
        line[name.len()..]
            .split_whitespace()
            .map(String::from)
            .collect()
    };
    for name in [
        "material", "squares", "mobility", "pawns", "pieces", "king", "threats",
    ] {
        assert_eq!(term(&white, name), term(&black, name), "{name}");
    }
    let tempo = term(&white, "tempo");
    assert_eq!(tempo[1], "0/0", "{white}");
    let (mg, eg) = tempo[0].split_once('/').unwrap();
    let (mg, eg): (i32, i32) = (mg.parse().unwrap(), eg.parse().unwrap());
    assert_eq!(
        term(&black, "tempo"),
        [
            "0/0".to_string(),
            tempo[0].clone(),
            format!("{}/{}", -mg, -eg)
        ],
        "{black}"
    );
    // All the pieces are on the board (phase 24 of 24), so the middlegame tempo counts whole:
    // the two side-to-move scores differ by exactly twice it.
    assert!(white.contains("phase 24/24"), "{white}");
    let (w, b) = (side_to_move_score(&white), side_to_move_score(&black));
    assert!(w != 0 && mg != 0, "{white}");
    assert_eq!(w + b, 2 * mg, "{w} {b}");
    let (code, bad, _) = ferrum(&["eval", "--fen", "not a fen"]);
    assert_eq!(code, 2, "{bad}");
}
