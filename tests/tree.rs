//! `ferrum tree`: the drawn tree is the search's tree (same node count, same root value),
//! its values obey negamax, and the SVG is well-formed XML showing those figures.

use std::process::Command;

use ferrum::basics::position::Game as ChessGame;
use ferrum::connect4::{Board, Position};
use ferrum::negamax::{Effort, Exit, Game, Silent};
use ferrum::search::reference::ChessLine;
use ferrum::tree::games::{chess_picture, chess_value, connect4_picture, connect4_value};
use ferrum::tree::svg::render;
use ferrum::tree::{Algorithm, BUDGET, Limited, Picture, Settings, run};

const ALGORITHMS: [Algorithm; 3] = [
    Algorithm::Negamax,
    Algorithm::AlphaBeta,
    Algorithm::AlphaBetaTable,
];

/// A Connect-Four position of the test set with 8 empty cells and transpositions.
const C4: &str = "5512371662253342337574526766763245";
const MIDDLEGAME: &str = "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4";

fn settings(algorithm: Algorithm, depth: u32, max_moves: Option<usize>) -> Settings {
    Settings {
        algorithm,
        depth,
        max_moves,
        max_nodes: 5000,
    }
}

/// The same search without a recorder: its value and node count.
fn silent<G: Game>(game: G, s: Settings) -> (i32, u64) {
    let mut game = Limited {
        inner: game,
        max_moves: s.max_moves,
    };
    let mut effort = Effort::with_budget(BUDGET);
    let value = run(&mut game, s.algorithm, s.depth, &mut effort, &mut Silent);
    (value.expect("within budget"), effort.nodes)
}

fn check_picture(p: &Picture, value: i32, nodes: u64) {
    assert_eq!(p.value, value);
    assert_eq!(p.nodes, nodes);
    assert_eq!(p.tree.nodes.len() as u64, nodes);
    assert_eq!(p.tree.nodes[0].value, value);
    // Every searched node's value is its best child's, negated (fail-soft alpha-beta
    // included: a cut-off node returns the child value that cut).
    for n in &p.tree.nodes {
        if n.exit == Exit::Searched && n.cutoff.is_none() {
            let best = n.children.iter().map(|&c| -p.tree.nodes[c].value).max();
            assert_eq!(best, Some(n.value), "{n:?}");
        }
    }
    if p.settings.algorithm == Algorithm::Negamax {
        assert_eq!(p.negamax_nodes, Some(nodes));
        assert!(p.tree.nodes.iter().all(|n| n.cutoff.is_none()));
    } else {
        assert!(p.negamax_nodes.is_some_and(|all| all > nodes), "{p:?}");
        assert!(p.tree.nodes.iter().any(|n| n.cutoff.is_some()));
    }
}

fn chess_line_value(fen: &str, s: Settings) -> (i32, u64) {
    let game = ChessGame::from_fen(fen, false).unwrap();
    let mut keys = game.repetition_keys();
    let mut line = ChessLine::new(&game.pos, 0, &mut keys);
    line.order_moves = true;
    line.prune_quiescence = true;
    silent(line, s)
}

#[test]
fn the_chess_picture_is_the_search_tree() {
    for algorithm in ALGORITHMS {
        let s = settings(algorithm, 3, Some(3));
        let (value, nodes) = chess_line_value(MIDDLEGAME, s);
        let (p, _) = chess_picture(Some(MIDDLEGAME), s).unwrap();
        check_picture(&p, value, nodes);
    }
}

#[test]
fn the_connect4_picture_is_the_search_tree_and_solves_the_position() {
    let pos = Position::from_moves(C4).unwrap();
    for algorithm in ALGORITHMS {
        let s = settings(algorithm, 8, None);
        let (value, nodes) = silent(Board(pos), s);
        let (p, _) = connect4_picture(C4, s).unwrap();
        check_picture(&p, value, nodes);
        // To the end of the game: the exact score of the test set's line.
        assert_eq!(p.value, 3);
    }
    // The table saves nodes on this tree (its leaves include table hits).
    let (ab, _) = connect4_picture(C4, settings(Algorithm::AlphaBeta, 8, None)).unwrap();
    let (tt, _) = connect4_picture(C4, settings(Algorithm::AlphaBetaTable, 8, None)).unwrap();
    assert!(tt.nodes < ab.nodes);
    assert!(tt.tree.nodes.iter().any(|n| n.exit == Exit::Table));
}

#[test]
fn the_svg_is_well_formed_and_shows_the_figures() {
    let s = settings(Algorithm::AlphaBeta, 3, Some(3));
    for (p, style, root_text) in [
        {
            let (p, style) = chess_picture(None, s).unwrap();
            let text = chess_value(p.value);
            (p, style, text)
        },
        {
            let (p, style) = connect4_picture(C4, settings(Algorithm::AlphaBeta, 8, None)).unwrap();
            let text = connect4_value(p.value);
            (p, style, text)
        },
    ] {
        let svg = render(&p, &style);
        let doc = roxmltree::Document::parse(&svg).unwrap_or_else(|e| panic!("{e}\n{svg}"));
        let groups = |class: &str| {
            doc.descendants()
                .filter(|n| n.attribute("class") == Some(class))
                .count()
        };
        assert_eq!(groups("node") as u64, p.nodes);
        let pruned: usize = p
            .tree
            .nodes
            .iter()
            .filter_map(|n| n.cutoff.as_ref())
            .map(|c| {
                if c.pruned.len() > 4 {
                    4
                } else {
                    c.pruned.len()
                }
            })
            .sum();
        assert_eq!(groups("pruned"), pruned);
        let texts: Vec<&str> = doc.descendants().filter_map(|n| n.text()).collect();
        let all = p.negamax_nodes.unwrap();
        let legend = format!(
            "Nodes visited: {} by alpha-beta against {all} by plain",
            p.nodes
        );
        assert!(texts.iter().any(|t| t.starts_with(&legend)), "{legend}");
        // The first value drawn is the root's.
        let first_value = doc
            .descendants()
            .find(|n| n.attribute("class") == Some("value"))
            .and_then(|n| n.text());
        assert_eq!(first_value, Some(root_text.as_str()));
    }
}

#[test]
fn values_read_as_pawns_mates_and_scores() {
    assert_eq!(chess_value(35), "+0.35");
    assert_eq!(chess_value(-120), "-1.20");
    assert_eq!(chess_value(0), "0.00");
    assert_eq!(chess_value(31_999), "#1");
    assert_eq!(chess_value(-31_999), "-#1");
    assert_eq!(chess_value(31_997), "#3");
    assert_eq!(connect4_value(3), "+3");
    assert_eq!(connect4_value(-5), "-5");
}

#[test]
fn too_large_a_tree_is_refused() {
    let s = Settings {
        max_nodes: 50,
        ..settings(Algorithm::Negamax, 3, None)
    };
    let e = chess_picture(None, s).unwrap_err();
    assert!(e.contains("more than 50 nodes"), "{e}");
}

/// The command's own defaults (the start position, 3 plies, alpha-beta, 3 moves a node) draw
/// a tree within the default --max-nodes, and its legend counts the nodes visited.
#[test]
fn the_command_with_no_flags_draws_the_start_position() {
    let exe = env!("CARGO_BIN_EXE_ferrum");
    let out = Command::new(exe).args(["tree"]).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let svg = String::from_utf8_lossy(&out.stdout);
    assert!(roxmltree::Document::parse(&svg).is_ok());
    // Three moves a node: at most 1 + 3 + 9 + 27 nodes.
    let (same, _) = chess_picture(None, settings(Algorithm::AlphaBeta, 3, Some(3))).unwrap();
    assert!(same.nodes <= 40, "{}", same.nodes);
    assert!(
        svg.contains(&format!("Nodes visited: {} by alpha-beta", same.nodes)),
        "{svg}"
    );
}

#[test]
fn the_command_answers_help_and_writes_svg() {
    let exe = env!("CARGO_BIN_EXE_ferrum");
    let help = Command::new(exe).args(["tree", "--help"]).output().unwrap();
    assert!(help.status.success());
    assert!(String::from_utf8_lossy(&help.stdout).contains("--algorithm A"));
    let out = Command::new(exe)
        .args(["tree", "--connect4", C4, "--depth", "8"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let svg = String::from_utf8_lossy(&out.stdout);
    assert!(roxmltree::Document::parse(&svg).is_ok());
    let bad = Command::new(exe)
        .args(["tree", "--connect4", "12345678"])
        .output()
        .unwrap();
    assert_eq!(bad.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&bad.stderr).contains("move 8 '8' is not a column 1-7"));
}
