//! Perft counts: the project's own positions, the standard suite (a copy in epd/), and the binary's
//! `perft` subcommand as users call it.

use std::process::Command;

use ferrum::measure::perft::{PerftConfig, run_suite};
use ferrum::uci::output::Out;

fn quiet() -> Out {
    Out::to(Box::new(std::io::sink()))
}

#[test]
fn project_perft_positions_pass_to_depth_4() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/epd/perft.epd")).unwrap();
    let (passed, failed) = run_suite(&text, 4, PerftConfig::default(), &quiet());
    assert_eq!((passed, failed), (7, 0));
}

#[test]
fn project_perft_positions_pass_to_depth_5_with_table_and_threads() {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/epd/perft.epd")).unwrap();
    let config = PerftConfig {
        hash_mb: 32,
        threads: 2,
    };
    let (passed, failed) = run_suite(&text, 5, config, &quiet());
    assert_eq!((passed, failed), (7, 0));
}

#[test]
fn standard_suite_passes_to_depth_4() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/epd/standard.epd");
    let text = std::fs::read_to_string(path).expect("epd/standard.epd in the checkout");
    let (passed, failed) = run_suite(&text, 4, PerftConfig::default(), &quiet());
    assert_eq!((passed, failed), (128, 0));
}

#[test]
fn a_wrong_count_is_reported_as_a_failure() {
    let text = "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 67\n";
    let (passed, failed) = run_suite(text, 5, PerftConfig::PLAIN, &quiet());
    assert_eq!((passed, failed), (0, 1));
}

#[test]
fn perft_subcommand_divides_like_stockfish() {
    let out = Command::new(env!("CARGO_BIN_EXE_ferrum"))
        .args([
            "perft",
            "3",
            "--divide",
            "--fen",
            "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = text.lines().filter(|l| l.contains(": ")).collect();
    assert_eq!(rows.len(), 14 + 1, "{text}");
    assert!(text.lines().any(|l| l == "Nodes searched: 2812"), "{text}");
}

#[test]
fn perft_subcommand_rejects_bad_arguments() {
    for args in [
        &["perft"][..],
        &["perft", "x"],
        &["perft", "3", "--fen", "bad fen"],
        &["perft", "--suite", "/nonexistent"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_ferrum"))
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(!out.stderr.is_empty());
    }
}

#[test]
fn chess960_suite_slice_passes_to_depth_4() {
    // Every tenth position of the 960-position suite (lines 1, 11, 21, ...).
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/epd/fischer-slice.epd");
    let text = std::fs::read_to_string(path).expect("epd/fischer-slice.epd in the checkout");
    let (passed, failed) = run_suite(&text, 4, PerftConfig::default(), &quiet());
    assert_eq!((passed, failed), (96, 0));
}
