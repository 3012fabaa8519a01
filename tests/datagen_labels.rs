//! Datagen's result labels on games whose winner is known from the start: a label given to
//! the wrong side (a flipped colour or score sign) fails here.

use ferrum::learn::datagen::{Config, Format, run};
use ferrum::learn::packed::{MAX_RECORDS, Outcome, read_records};

/// The result label of every position written for games played from `fen` (no random plies,
/// so every game starts there).
fn labels(fen: &str) -> Vec<String> {
    let config = Config {
        games: 2,
        nodes: 300,
        soft_nodes: None,
        openings: vec![fen.to_string()],
        random_plies: 0,
        seed: 1,
        threads: 1,
        format: Format::Text,
        net: None,
    };
    // The packed records of the same games carry the same results.
    let mut packed = Vec::new();
    run(
        &Config {
            format: Format::Packed,
            ..config.clone()
        },
        &mut packed,
        &mut |_, _| {},
    )
    .unwrap();
    let mut records = Vec::new();
    read_records(packed.as_slice(), &mut records, MAX_RECORDS).unwrap();
    let mut out = Vec::new();
    let (games, positions) = run(&config, &mut out, &mut |_, _| {}).unwrap();
    assert_eq!(games, 2);
    let text = String::from_utf8(out).unwrap();
    let labels: Vec<String> = text
        .lines()
        .map(|l| l.rsplit_once(';').expect("FEN;result").1.to_string())
        .collect();
    assert_eq!(labels.len(), positions);
    assert_eq!(records.len(), positions);
    for (r, label) in records.iter().zip(&labels) {
        let expected = match label.as_str() {
            "1.0" => Outcome::WhiteWon,
            "0.0" => Outcome::BlackWon,
            _ => Outcome::Draw,
        };
        assert_eq!(r.outcome(), Some(expected));
    }
    // Each game writes a few quiet positions before it is adjudicated.
    assert!(positions >= 4, "{fen}: {text}");
    labels
}

#[test]
fn games_won_by_white_are_labelled_1_and_games_won_by_black_0() {
    // Queen and rook against pawns: the stronger side wins whoever moves first.
    for (fen, label) in [
        ("4k3/pppp4/8/8/8/8/PPPP4/QR2K3 w - - 0 1", "1.0"),
        ("4k3/pppp4/8/8/8/8/PPPP4/QR2K3 b - - 0 1", "1.0"),
        ("qr2k3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1", "0.0"),
        ("qr2k3/pppp4/8/8/8/8/PPPP4/4K3 b - - 0 1", "0.0"),
    ] {
        let got = labels(fen);
        assert!(got.iter().all(|l| l == label), "{fen}: {got:?}");
    }
}

/// With a net in the configuration both sides search with it: the games (their packed
/// records) differ from the hand-written evaluation's and are the same again on a second run.
#[test]
fn games_are_played_with_the_net_when_one_is_given() {
    let config = Config {
        games: 1,
        nodes: 300,
        soft_nodes: None,
        openings: vec!["rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1".to_string()],
        random_plies: 2,
        seed: 3,
        threads: 1,
        format: Format::Packed,
        net: None,
    };
    let play = |c: &Config| {
        let mut bytes = Vec::new();
        run(c, &mut bytes, &mut |_, _| {}).unwrap();
        bytes
    };
    let net = ferrum::eval::net_file::embedded().unwrap().net;
    let with_net = Config {
        net: Some(net),
        ..config.clone()
    };
    let hand_written = play(&config);
    let first = play(&with_net);
    assert!(!first.is_empty());
    assert_ne!(first, hand_written);
    assert_eq!(first, play(&with_net));
}
