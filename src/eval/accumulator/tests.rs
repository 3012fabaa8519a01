//! The accumulators against sums made afresh: after random games, across king buckets and
//! the mirror line, in AVX2 and portable code alike, under a colour flip, at the trainer's
//! limits.

use super::*;
use crate::basics::position::Game;
use crate::basics::rng::Lcg;
use crate::eval::nnue::{Activation, INPUTS, KingLayout, narrow_w2};
use shakmaty::Position;

/// A net with varied made-up weights, enough to tell any two inputs apart.
fn test_net(activation: Activation) -> Network {
    test_net_with(activation, KingLayout::NONE)
}

/// The same with king buckets.
fn test_net_with(activation: Activation, kings: KingLayout) -> Network {
    let hidden = 8;
    let mut rng = Lcg(99);
    let mut small = || (rng.next_u31() % 201) as i16 - 100;
    Network {
        hidden,
        activation,
        kings,
        settings_hash: 0,
        w1: (0..kings.inputs() * hidden).map(|_| small()).collect(),
        b1: (0..hidden).map(|_| small()).collect(),
        buckets: 1,
        w2: (0..2 * hidden).map(|_| small()).collect(),
        b2: vec![500],
        narrow_w2: true,
    }
}

/// The search sizes its accumulators once, before a search: an update into one made by
/// `with_hidden` writes in place and never allocates.
#[test]
fn an_update_writes_into_the_room_made_beforehand() {
    let net = test_net(Activation::SCReLU);
    let before = Chess::default();
    let mut after = before.clone();
    let e4 = after.legal_moves()[0];
    after.play_unchecked(e4);
    let mut parent = Accumulator::with_hidden(net.hidden);
    parent.refresh(&net, before.board());
    let mut child = Accumulator::with_hidden(net.hidden);
    let places: Vec<*const i16> = child.sums.iter().map(|s| s.as_ptr()).collect();
    assert!(child.sums.iter().all(|s| s.len() == net.hidden));
    child.update_from(&net, &parent, before.board(), after.board());
    let now: Vec<*const i16> = child.sums.iter().map(|s| s.as_ptr()).collect();
    assert_eq!(places, now, "the update allocated");
    let mut fresh = Accumulator::with_hidden(net.hidden);
    fresh.refresh(&net, after.board());
    assert_eq!(child, fresh);
}

/// Random games (with null moves) from standard and Chess960 starts: after every move
/// the incrementally kept sums equal a refresh, and so does the evaluation.
#[test]
fn incremental_sums_equal_a_refresh_after_random_games() {
    random_games_against_refresh(&test_net(Activation::SCReLU));
}

/// The same with each king-bucket layout: a king move into another bucket or across the
/// mirror line has its sums made afresh (by the search's way too, which it must then be
/// told by `crosses`), and one within keeps them incremental.
#[test]
fn with_king_buckets_incremental_sums_equal_a_refresh_after_random_games() {
    for k in [1, 2, 4] {
        let net = test_net_with(Activation::SCReLU, KingLayout::new(k).unwrap());
        let (crossed, kept) = random_games_against_refresh(&net);
        assert!(
            crossed > 20 && kept > 20,
            "{k} buckets: {crossed} crossed, {kept} kept"
        );
    }
    let (crossed, _) = random_games_against_refresh(&test_net(Activation::SCReLU));
    assert_eq!(crossed, 0);
}

/// Plays the random games; returns how many king moves crossed into another view and
/// how many stayed within one.
fn random_games_against_refresh(net: &Network) -> (usize, usize) {
    let (mut crossed, mut kept) = (0, 0);
    let starts = [
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
            false,
        ),
        // Castling both ways, en passant and promotions come up quickly from these.
        (
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            false,
        ),
        ("8/2P5/8/3pP3/8/8/5p2/k1K5 w - d6 0 1", false),
        (
            "r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
            false,
        ),
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            true,
        ),
        ("2r1kr2/8/8/8/8/8/8/1R2K1R1 w GBfc - 0 1", true),
    ];
    let mut rng = Lcg(2024);
    let (mut castles, mut en_passants, mut promotions, mut nulls) = (0, 0, 0, 0);
    for (fen, chess960) in starts {
        for _ in 0..40 {
            let mut game = Game::from_fen(fen, chess960).unwrap();
            let mut acc = Accumulator::default();
            acc.refresh(net, game.pos.board());
            for _ in 0..60 {
                let moves = game.pos.legal_moves();
                if moves.is_empty() {
                    break;
                }
                let before = game.pos.clone();
                let null = rng.next_u31().is_multiple_of(10) && !before.is_check();
                let mut played = None;
                if null {
                    game.pos = before.clone().swap_turn().unwrap();
                    nulls += 1;
                } else {
                    // En passant is rare in random play: take it when it comes up.
                    let m = match moves.iter().find(|m| m.is_en_passant()) {
                        Some(&ep) => ep,
                        None => moves[(rng.next_u31() as usize) % moves.len()],
                    };
                    castles += usize::from(m.is_castle());
                    en_passants += usize::from(m.is_en_passant());
                    promotions += usize::from(m.is_promotion());
                    game.play(m);
                    played = Some(m);
                }
                let mut next = Accumulator::default();
                next.update_from(net, &acc, before.board(), game.pos.board());
                let mut fresh = Accumulator::default();
                fresh.refresh(net, game.pos.board());
                // The search's way: the changes read from the move (none for a null
                // move), applied later, or a refresh when they cross.
                let changes = played.map_or(Changes::NONE, |m| Changes::of_move(before.turn(), m));
                let king_moved = played.is_some_and(|m| m.role() == shakmaty::Role::King);
                if net.crosses(&changes) {
                    crossed += 1;
                    assert!(king_moved, "{played:?}");
                    // The king's side sees the board from another bucket or mirrored.
                    assert_ne!(acc.views, fresh.views, "{played:?}");
                } else {
                    kept += usize::from(king_moved);
                    let mut by_move = Accumulator::default();
                    by_move.apply(net, &acc, &changes);
                    assert_eq!(by_move, fresh, "{played:?}");
                }
                assert_eq!(
                    next,
                    fresh,
                    "{}",
                    shakmaty::fen::Fen::from_position(&game.pos, shakmaty::EnPassantMode::Legal)
                );
                assert_eq!(next.evaluate(net, &game.pos), net.evaluate(&game.pos));
                acc = next;
            }
        }
    }
    assert!(
        castles > 20 && en_passants > 5 && promotions > 20 && nulls > 100,
        "{castles} castles, {en_passants} en passant, {promotions} promotions, {nulls} nulls"
    );
    (crossed, kept)
}

/// Where the CPU has AVX2, the code compiled for it gives exactly the portable code's
/// integers: sums refreshed and updated over random games, and the outputs of both
/// activations, with a hidden size that leaves a remainder past any vector width and one
/// that takes the written-out AVX2 kernels (320: a multiple of 16, and more than one of
/// the output's i32 chunks), and output weights over the whole i16 range.
#[test]
fn the_avx2_code_gives_the_portable_codes_integers() {
    avx2_against_portable(37, KingLayout::NONE);
    avx2_against_portable(320, KingLayout::NONE);
    avx2_against_portable(64, KingLayout::new(4).unwrap());
}

fn avx2_against_portable(hidden: usize, kings: KingLayout) {
    let mut rng = Lcg(7);
    let mut net = test_net_with(Activation::SCReLU, kings);
    net.hidden = hidden;
    net.w1 = (0..kings.inputs() * hidden)
        .map(|_| (rng.next_u31() % 121) as i16 - 40)
        .collect();
    net.b1 = (0..hidden)
        .map(|_| (rng.next_u31() % 201) as i16 - 60)
        .collect();
    let mut outputs = 0;
    for game in 0..20 {
        // Output weights over the whole i16 range (the wide path) in even games, within
        // ±128 (the narrow one) in odd games.
        let narrow = game % 2 == 1;
        net.w2 = (0..2 * hidden)
            .map(|_| match narrow {
                false => (rng.next_u31() % 65536) as i32 as i16,
                true => (rng.next_u31() % 257) as i16 - 128,
            })
            .collect();
        net.narrow_w2 = narrow_w2(&net.w2);
        assert_eq!(net.narrow_w2, narrow, "game {game}");
        let mut pos = Game::from_fen(crate::basics::position::STARTPOS, false)
            .unwrap()
            .pos;
        let mut acc = Accumulator::with_hidden(hidden);
        acc.refresh(&net, pos.board());
        for _ in 0..(40 + game * 5) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.next_u31() as usize % moves.len()];
            let child = pos.clone().play(m).unwrap();
            let (mut fast, mut portable) = (acc.clone(), acc.clone());
            fast.update_from(&net, &acc, pos.board(), child.board());
            let c = Changes::between(pos.board(), child.board());
            if net.crosses(&c) {
                portable.refresh_portable(&net, child.board());
            } else {
                portable.apply_portable(&net, &acc, &c);
            }
            assert_eq!(fast, portable);
            let mut fresh = Accumulator::default();
            fresh.refresh_portable(&net, child.board());
            assert_eq!(fast, fresh);
            for activation in [Activation::CReLU, Activation::SCReLU] {
                net.activation = activation;
                let (us, them) = (&fast.sums[0], &fast.sums[1]);
                for pieces in [3, 17, 32] {
                    assert_eq!(
                        net.output(us, them, pieces),
                        net.output_portable(us, them, pieces)
                    );
                }
                outputs += 1;
            }
            (pos, acc) = (child, fast);
        }
    }
    assert!(outputs > 1000, "{outputs} outputs compared");
}

/// Boards that are no move apart: a piece taken off alone, put on alone, or one piece
/// taken off and two put on, take the row-by-row arm of the update, and more than two
/// changes a refresh; each gives a refresh's sums.
#[test]
fn updates_between_boards_no_move_apart_equal_a_refresh() {
    let net = test_net(Activation::SCReLU);
    let start = Chess::default();
    let mut parent = Accumulator::default();
    parent.refresh(&net, start.board());
    let mut fewer = start.board().clone();
    fewer.discard_piece_at(Square::D1);
    let mut more = start.board().clone();
    more.set_piece_at(Square::E4, Piece::from_char('N').unwrap());
    let mut swapped = fewer.clone();
    swapped.set_piece_at(Square::E4, Piece::from_char('q').unwrap());
    swapped.set_piece_at(Square::E5, Piece::from_char('q').unwrap());
    let mut emptied = start.board().clone();
    for sq in [Square::A2, Square::B2, Square::C2] {
        emptied.discard_piece_at(sq);
    }
    for after in [fewer, more, swapped, emptied] {
        let mut child = Accumulator::default();
        child.update_from(&net, &parent, start.board(), &after);
        let mut fresh = Accumulator::default();
        fresh.refresh(&net, &after);
        assert_eq!(child, fresh, "{after:?}");
    }
}

/// A position and its colour flip (board mirrored, colours swapped, the other side to
/// move) get the same evaluation: the network sees each side from its own view.
#[test]
fn the_evaluation_is_symmetric_under_a_colour_flip() {
    for k in [0, 1, 2, 4] {
        colour_flip_symmetry(&test_net_with(
            Activation::CReLU,
            KingLayout::new(k).unwrap(),
        ));
    }
}

fn colour_flip_symmetry(net: &Network) {
    for fen in [
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
        "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
        "8/2P5/8/3pP3/8/8/5p2/k1K5 w - - 0 1",
    ] {
        let pos = Game::from_fen(fen, false).unwrap().pos;
        let flipped = crate::eval::testing::colour_flip(fen);
        assert_eq!(net.evaluate(&pos), net.evaluate(&flipped), "{fen}");
    }
}

/// With king buckets, each side sees the board with its king on files a-d: a position
/// and its mirror image (files a and h swapped, no castling rights) get the same sums,
/// which a net without them does not give.
#[test]
fn with_king_buckets_a_mirrored_position_has_the_same_sums() {
    let pairs = [
        (
            "4k3/1p6/8/8/3N4/8/5PK1/8 w - - 0 40",
            "3k4/6p1/8/8/4N3/8/1KP5/8 w - - 0 40",
        ),
        (
            "r4rk1/pp3ppp/2n5/8/3P4/8/PP3PPP/2KR3R b - - 0 1",
            "1kr4r/ppp3pp/5n2/8/4P3/8/PPP3PP/R3RK2 b - - 0 1",
        ),
    ];
    for k in [0, 1, 2, 4] {
        let net = test_net_with(Activation::SCReLU, KingLayout::new(k).unwrap());
        for (fen, mirror) in pairs {
            let (a, b) = (
                Game::from_fen(fen, false).unwrap().pos,
                Game::from_fen(mirror, false).unwrap().pos,
            );
            let (mut x, mut y) = (Accumulator::default(), Accumulator::default());
            x.refresh(&net, a.board());
            y.refresh(&net, b.board());
            assert_eq!(x.sums == y.sums, k > 0, "{k} buckets: {fen}");
            assert_eq!(
                net.evaluate(&a) == net.evaluate(&b),
                k > 0,
                "{k} buckets: {fen}"
            );
        }
    }
}

/// First-layer weights and biases at the trainer's limit, where a capture's sums pass
/// i16 on the way (its row is added before two are taken off): the 16-bit sums still
/// equal i32 sums of the same rows, incrementally and afresh, through random games.
#[test]
fn sums_at_the_trainers_limit_stay_exact() {
    use crate::eval::nnue::MAX_W1;
    let hidden = 16;
    let mut rng = Lcg(31);
    // Every weight of a neuron has its sign (plus in even neurons, minus in odd ones)
    // and nearly the limit's size, so that 32 pieces bring its sum near ±32,767.
    let mut big = |j: usize| {
        let size = MAX_W1 - (rng.next_u31() % 7) as i16;
        if j.is_multiple_of(2) { size } else { -size }
    };
    let mut net = test_net(Activation::SCReLU);
    net.hidden = hidden;
    net.w1 = (0..INPUTS * hidden).map(|i| big(i % hidden)).collect();
    net.b1 = (0..hidden).map(&mut big).collect();
    net.w2 = vec![1; 2 * hidden];
    net.narrow_w2 = narrow_w2(&net.w2);
    assert_eq!(widest_sum(hidden, &net.w1, &net.b1), None);
    // The same sums in i32, from scratch.
    let wide = |board: &shakmaty::Board, perspective: Color| -> Vec<i32> {
        let mut sums: Vec<i32> = net.b1.iter().map(|&b| i32::from(b)).collect();
        for (sq, piece) in board.iter() {
            for (a, &w) in sums
                .iter_mut()
                .zip(net.row(feature(perspective, sq, piece)))
            {
                *a += i32::from(w);
            }
        }
        sums
    };
    let mut past_i16 = 0;
    for game in 0..30 {
        let mut pos = Game::from_fen(crate::basics::position::STARTPOS, false)
            .unwrap()
            .pos;
        let mut acc = Accumulator::with_hidden(hidden);
        acc.refresh(&net, pos.board());
        for _ in 0..(60 + game) {
            let moves = pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[rng.next_u31() as usize % moves.len()];
            let child = pos.clone().play(m).unwrap();
            let mut next = Accumulator::default();
            next.update_from(&net, &acc, pos.board(), child.board());
            let c = Changes::between(pos.board(), child.board());
            for perspective in Color::ALL {
                let exact = wide(child.board(), perspective);
                let parent = wide(pos.board(), perspective);
                // The first row is added to the parent's sums before any is taken off:
                // count the sums that passed i16 there.
                if c.adds > 0 {
                    let (piece, sq) = c.added[0];
                    let row = net.row(feature(perspective, sq, piece));
                    past_i16 += parent
                        .iter()
                        .zip(row)
                        .filter(|&(&p, &w)| (p + i32::from(w)).abs() > i32::from(i16::MAX))
                        .count();
                }
                let got: Vec<i32> = next.sums[perspective as usize]
                    .iter()
                    .map(|&s| i32::from(s))
                    .collect();
                assert_eq!(got, exact, "game {game}");
            }
            let mut fresh = Accumulator::default();
            fresh.refresh(&net, child.board());
            assert_eq!(next, fresh);
            (pos, acc) = (child, next);
        }
    }
    assert!(past_i16 > 0, "no partial sum came near the i16 limit");
}

/// A net file may hold any output bias: the evaluation stays within `OUTPUT_LIMIT` either
/// way (below the search's tablebase and mate scores), in AVX2 and portable code alike.
#[test]
fn an_extreme_output_bias_gives_at_most_the_output_limit() {
    use crate::eval::nnue::OUTPUT_LIMIT;
    let pos = Chess::default();
    for (bias, expected) in [(i32::MAX, OUTPUT_LIMIT), (i32::MIN, -OUTPUT_LIMIT)] {
        let mut net = test_net(Activation::SCReLU);
        net.b2 = vec![bias];
        assert_eq!(i64::from(net.evaluate(&pos)), expected, "{bias}");
        let mut acc = Accumulator::with_hidden(net.hidden);
        acc.refresh(&net, pos.board());
        let (ours, theirs) = (&acc.sums[0], &acc.sums[1]);
        assert_eq!(i64::from(net.output_portable(ours, theirs, 32)), expected);
    }
    // An ordinary bias is not touched: 500 as the test net has it stays well inside.
    let net = test_net(Activation::SCReLU);
    assert!(i64::from(net.evaluate(&pos)).abs() < OUTPUT_LIMIT);
}
