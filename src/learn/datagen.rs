//! `ferrum datagen`: self-play at a fixed node count from varied openings, writing quiet
//! positions labelled with the search score and the game's result: `FEN;result` text for
//! `ferrum tune`, or packed records (`packed.rs`) for net training.

use std::io::Write;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use crossbeam_channel::{Receiver, Sender};

use shakmaty::fen::Fen;
use shakmaty::{Chess, EnPassantMode, Position};

use crate::basics::position::{Game, is_draw_by_rule};
use crate::basics::rng::Lcg;
use crate::eval::nnue::Network;
use crate::learn::adjudication::Adjudication;
use crate::learn::packed::{self, Outcome, Record};
use crate::search::driver;
use crate::search::ordering::is_tactical;
use crate::search::score::is_mate;
use crate::search::thread::ThreadData;
use crate::search::time::{Clock, Limits, StopToken};
use crate::search::tt::TranspositionTable;

#[derive(Clone, Debug)]
pub struct Config {
    pub games: usize,
    pub nodes: u64,
    /// A soft node limit per move (no iteration started past it), under the hard `nodes`.
    pub soft_nodes: Option<u64>,
    /// Opening positions, one FEN per line; the start position when empty.
    pub openings: Vec<String>,
    /// Random legal moves played after the opening, so games differ.
    pub random_plies: usize,
    pub seed: u64,
    /// Games played at once, each on its own thread with its own table.
    pub threads: usize,
    pub format: Format,
    /// The net both sides evaluate with; None for the hand-written evaluation.
    pub net: Option<Arc<Network>>,
}

/// How kept positions are written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `FEN;result` lines, the result 1.0, 0.5 or 0.0 for White (what `ferrum tune` reads).
    Text,
    /// 32-byte records with the search score (see `packed.rs`).
    Packed,
}

/// Games longer than this are called drawn.
const MAX_PLIES: usize = 400;
/// Each worker's hash table: cleared before every game, shared by the game's moves. 1 MB and
/// 2 MB made positions no faster (measured 2026-11-28: 177-199 positions/s at 1, 2 and 16 MB).
const DATAGEN_HASH_MB: usize = 16;

/// A position kept for training, with its search score from the side to move.
pub struct Kept {
    pub pos: Chess,
    pub score: i32,
}

/// An opening one side leads by more than this after its random plies is drawn again, at
/// most `OPENING_TRIES` times: random moves hang pieces, and the side that played the last
/// one loses far more often. Measured over 300 games at 1,000 nodes from the 8moves book,
/// White's wins and losses: 42% and 25% with 4 random plies (39% and 26% with a 300 cp
/// limit, 33% and 30% with this one), 18% and 46% with 3 (26% and 35% with this one), and
/// 30% and 31% with none.
const OPENING_SCORE: i32 = 100;
const OPENING_TRIES: usize = 20;

/// The score of a short search from an empty table (so that it depends on `game` alone).
fn opening_score(game: &Game, tt: &TranspositionTable, limits: &Limits, config: &Config) -> i32 {
    tt.clear();
    let clock = Clock::new(limits, game.pos.turn().is_white(), 0, StopToken::detached());
    driver::search_with_net(game, limits, tt, &clock, config.net.as_ref(), &mut |_| {})
        .last
        .score
}

/// Plays the random plies from `start`, drawing them again while a short search finds one
/// side clearly ahead (the last try is kept). Leaves `tt` empty, whatever it held before, so
/// the game depends on its seed and number alone.
fn random_opening(
    start: &Game,
    config: &Config,
    rng: &mut Lcg,
    tt: &TranspositionTable,
    limits: &Limits,
) -> Game {
    let mut game = start.clone();
    let tries = if config.random_plies == 0 {
        0
    } else {
        OPENING_TRIES
    };
    for _ in 0..tries {
        game = start.clone();
        for _ in 0..config.random_plies {
            let moves = game.pos.legal_moves();
            if moves.is_empty() {
                break;
            }
            let m = moves[(rng.next_u31() as usize) % moves.len()];
            game.play(m);
        }
        if game.pos.legal_moves().is_empty() {
            continue;
        }
        if opening_score(&game, tt, limits, config).abs() <= OPENING_SCORE {
            break;
        }
    }
    tt.clear();
    game
}

/// Plays one game with `tt` (emptied by `random_opening`); returns its quiet positions and the
/// result for White (1, 0.5 or 0).
fn play_game(
    start: Game,
    config: &Config,
    rng: &mut Lcg,
    td: &mut ThreadData,
    tt: &TranspositionTable,
) -> Played {
    let limits = Limits {
        nodes: Some(config.nodes),
        soft_nodes: config.soft_nodes,
        ..Limits::default()
    };
    let mut game = random_opening(&start, config, rng, tt, &limits);
    let mut quiet = Vec::new();
    let mut adjudication = Adjudication::default();
    for ply in 0..MAX_PLIES {
        let pos = &game.pos;
        if pos.legal_moves().is_empty() {
            let result = if pos.is_check() {
                // The side to move is mated.
                if pos.turn().is_white() { 0.0 } else { 1.0 }
            } else {
                0.5
            };
            return Ok((quiet, result));
        }
        let keys = game.repetition_keys();
        // No legal move was handled above, so this is no mate: only the rules can draw.
        if is_draw_by_rule(pos, &keys, 0) {
            return Ok((quiet, 0.5));
        }
        let clock = Clock::new(&limits, pos.turn().is_white(), 0, StopToken::detached());
        // Each move's search starts afresh, as with a new thread's data.
        td.forget_game();
        let r = driver::search_on_thread(
            &game,
            &limits,
            tt,
            &clock,
            config.net.as_ref(),
            td,
            &mut |_| {},
        );
        let Some(best) = r.best else {
            return Ok((quiet, 0.5));
        };
        let score = r.last.score;
        if !pos.is_check() && !is_tactical(best) && !is_mate(score) {
            quiet.push(Kept {
                pos: pos.clone(),
                score,
            });
        }
        if let Some(result) = adjudication.after(ply, pos.turn().is_white(), score) {
            return Ok((quiet, result));
        }
        game.play(best);
    }
    Ok((quiet, 0.5))
}

/// The random generator of game `g`: each game's opening and random plies depend only on
/// the seed and its number, so a run gives the same games whatever the thread count.
fn game_rng(seed: u64, g: usize) -> Lcg {
    let mut rng = Lcg(seed ^ 0x5eed_5eed ^ (g as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15));
    // A few steps mix the game number into the state.
    for _ in 0..4 {
        rng.next_u31();
    }
    rng
}

/// A game's quiet positions and its result for White, or why it could not be played.
type Played = Result<(Vec<Kept>, f32), String>;

/// Plays game `g` of the run with a worker's thread data and hash table.
fn play_numbered(
    config: &Config,
    g: usize,
    td: &mut ThreadData,
    tt: &TranspositionTable,
) -> Played {
    let mut rng = game_rng(config.seed, g);
    let start = if config.openings.is_empty() {
        Game::default()
    } else {
        let fen = &config.openings[(rng.next_u31() as usize) % config.openings.len()];
        Game::from_fen(fen, false)?
    };
    play_game(start, config, &mut rng, td, tt)
}

/// One worker: takes the next game number not yet taken and sends the game, until every
/// game is taken or one fails.
fn worker(config: &Config, next: &AtomicUsize, tx: &Sender<Played>) {
    // One thread's search data for all its games' searches (each starts it afresh), and
    // one table for all its games (each clears it): allocated once, not once a game.
    let mut td = ThreadData::default();
    let tt = match TranspositionTable::new(DATAGEN_HASH_MB) {
        Ok(tt) => tt,
        Err(e) => {
            let _ = tx.send(Err(format!("datagen: {e}")));
            return;
        }
    };
    loop {
        let g = next.fetch_add(1, Ordering::Relaxed);
        if g >= config.games {
            break;
        }
        // A game that panics ends the run with its number named instead of taking the
        // process down: the games finished before it are written (those in play on other
        // workers are dropped, as at any failure).
        let played = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            play_numbered(config, g, &mut td, &tt)
        }))
        .unwrap_or_else(|payload| {
            Err(format!(
                "datagen: game {g} failed: {}",
                crate::search::pool::panic_message(payload.as_ref())
            ))
        });
        let failed = played.is_err();
        if tx.send(played).is_err() || failed {
            break;
        }
    }
}

/// Writes one game's positions as one block, so a run stopped between games leaves whole
/// games behind.
fn write_game(
    sink: &mut dyn Write,
    format: Format,
    kept: &[Kept],
    result: f32,
) -> std::io::Result<()> {
    match format {
        Format::Text => {
            let mut block = String::new();
            for k in kept {
                let fen = Fen::from_position(&k.pos, EnPassantMode::Legal);
                block.push_str(&format!("{fen};{result:.1}\n"));
            }
            sink.write_all(block.as_bytes())?;
            sink.flush()
        }
        Format::Packed => {
            let outcome = Outcome::from_white_score(result);
            let records: Vec<Record> = kept
                .iter()
                .enumerate()
                .map(|(i, k)| Record::pack(&k.pos, Some(k.score), outcome, i == 0))
                .collect();
            packed::write_records(sink, &records)
        }
    }
}

/// Writes each game as it arrives; returns (games, positions).
fn write_games(
    rx: &Receiver<Played>,
    format: Format,
    sink: &mut dyn Write,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(usize, usize), String> {
    let (mut games, mut positions) = (0, 0);
    for played in rx {
        let (kept, result) = played?;
        write_game(sink, format, &kept, result).map_err(|e| format!("cannot write data: {e}"))?;
        positions += kept.len();
        games += 1;
        progress(games, positions);
    }
    Ok((games, positions))
}

/// Plays `config.games` games on `config.threads` threads and writes `FEN;result` lines, a
/// game at a time as games finish; returns (games, positions). A failed game or write stops
/// the workers after the games they are playing.
pub fn run(
    config: &Config,
    sink: &mut dyn Write,
    progress: &mut dyn FnMut(usize, usize),
) -> Result<(usize, usize), String> {
    let threads = config.threads.clamp(1, config.games.max(1));
    let next = AtomicUsize::new(0);
    let (tx, rx) = crossbeam_channel::unbounded();
    std::thread::scope(|scope| {
        let spawned = (0..threads).try_for_each(|_| {
            let (tx, next) = (tx.clone(), &next);
            std::thread::Builder::new()
                .name("datagen".to_string())
                .stack_size(driver::SEARCH_STACK_BYTES)
                .spawn_scoped(scope, move || worker(config, next, &tx))
                .map(drop)
                .map_err(|e| format!("datagen: cannot start a thread: {e}"))
        });
        // Only the workers hold senders now, so the receiver ends when the last one does.
        drop(tx);
        let outcome = spawned.and_then(|()| write_games(&rx, config.format, sink, progress));
        if outcome.is_err() {
            next.store(config.games, Ordering::Relaxed);
        }
        outcome
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The settings the tests start from: one quick game from the start position, as text.
    fn test_config() -> Config {
        Config {
            games: 1,
            nodes: 300,
            soft_nodes: None,
            openings: Vec::new(),
            random_plies: 0,
            seed: 1,
            threads: 1,
            format: Format::Text,
            net: None,
        }
    }

    /// The result of one game from `fen`, no random plies, and the number of plies it took.
    fn result_from(fen: &str) -> (f32, usize) {
        let config = Config {
            nodes: 2000,
            ..test_config()
        };
        let (kept, result) = play_game(
            Game::from_fen(fen, false).unwrap(),
            &config,
            &mut Lcg(1),
            &mut ThreadData::default(),
            &TranspositionTable::new(DATAGEN_HASH_MB).unwrap(),
        )
        .unwrap_or_else(|e| panic!("{fen}: {e}"));
        (result, kept.len())
    }

    #[test]
    fn every_seed_and_game_number_draws_its_own_random_moves() {
        // Seeds one apart (1906 and 1907 differ in the lowest bit only) and the games of one
        // run must not share their random openings: the first numbers each draws differ.
        let draws = |seed: u64, g: usize| -> Vec<u64> {
            let mut rng = game_rng(seed, g);
            (0..4).map(|_| rng.next_u31()).collect()
        };
        let mut seen = std::collections::HashSet::new();
        for seed in [0, 1, 2, 3, 1906, 1907, 1908] {
            for g in 0..8 {
                assert!(seen.insert(draws(seed, g)), "seed {seed} game {g}");
            }
        }
        // And the same seed and number draw the same again, in every build: the commands of
        // docs/training-data.md remake recorded data files from their seeds (these are the
        // draws the runs of seeds 1901 and 1907 were made with).
        assert_eq!(draws(1907, 5), draws(1907, 5));
        assert_eq!(
            draws(1901, 0),
            [2_073_507_769, 2_142_443_731, 1_567_221_732, 367_289_672]
        );
        assert_eq!(
            draws(1907, 3),
            [1_982_238_989, 692_196_247, 1_926_997_488, 383_516_812]
        );
    }

    #[test]
    fn kept_positions_are_never_in_check() {
        // A middlegame where checks come early: the positions written are those not in check.
        let config = Config {
            games: 4,
            openings: vec![
                "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/5N2/PPPP1PPP/RNBQK2R w KQkq - 4 4".to_string(),
            ],
            random_plies: 2,
            seed: 5,
            ..test_config()
        };
        let mut in_check = 0;
        let mut shared = ThreadData::default();
        let shared_tt = TranspositionTable::new(DATAGEN_HASH_MB).unwrap();
        for g in 0..config.games {
            let (kept, result) = play_numbered(&config, g, &mut shared, &shared_tt).unwrap();
            assert!(!kept.is_empty());
            in_check += kept.iter().filter(|k| k.pos.is_check()).count();
            // A worker's thread data and table, kept from game to game and search to search,
            // play the games that new ones for each game would.
            let fresh_tt = TranspositionTable::new(DATAGEN_HASH_MB).unwrap();
            let (fresh, fresh_result) =
                play_numbered(&config, g, &mut ThreadData::default(), &fresh_tt).unwrap();
            assert_eq!(result, fresh_result, "game {g}");
            assert!(
                kept.iter()
                    .zip(&fresh)
                    .all(|(a, b)| a.pos == b.pos && a.score == b.score)
                    && kept.len() == fresh.len(),
                "game {g}"
            );
        }
        assert_eq!(in_check, 0);
    }

    #[test]
    fn a_reused_table_replays_a_game_without_random_plies_as_a_new_table_does() {
        // No random plies, so no opening search clears the table: the game itself must. The
        // same game played twice on one table meets its own entries the second time unless
        // they were cleared.
        let config = Config {
            nodes: 1000,
            openings: vec![
                "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3".to_string(),
            ],
            ..test_config()
        };
        let fresh_tt = TranspositionTable::new(DATAGEN_HASH_MB).unwrap();
        let (fresh, fresh_result) =
            play_numbered(&config, 0, &mut ThreadData::default(), &fresh_tt).unwrap();
        assert!(!fresh.is_empty());
        let shared_tt = TranspositionTable::new(DATAGEN_HASH_MB).unwrap();
        let mut shared = ThreadData::default();
        for round in 0..2 {
            let (kept, result) = play_numbered(&config, 0, &mut shared, &shared_tt).unwrap();
            assert_eq!(result, fresh_result, "round {round}");
            assert!(
                kept.len() == fresh.len()
                    && kept
                        .iter()
                        .zip(&fresh)
                        .all(|(a, b)| a.pos == b.pos && a.score == b.score),
                "round {round}"
            );
        }
    }

    #[test]
    fn a_game_that_ends_in_mate_on_the_board_is_won_by_the_side_that_mates() {
        // Mates in one and two for either side: the game ends on the board within three
        // plies, before adjudication (six plies beyond 1000 cp) could call it, so the label
        // comes from the checkmate itself. Mate scores keep no position, so none is written.
        for (fen, white_result) in [
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", 1.0),
            ("r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1", 0.0),
            ("k7/8/2K5/8/8/8/8/7R w - - 0 1", 1.0),
            ("7r/8/8/8/8/2k5/8/K7 b - - 0 1", 0.0),
        ] {
            assert_eq!(result_from(fen), (white_result, 0), "{fen}");
        }
        // Stalemate on the board is a draw.
        assert_eq!(result_from("7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"), (0.5, 0));
    }

    #[test]
    fn a_few_games_give_labelled_quiet_positions() {
        let config = Config {
            games: 2,
            random_plies: 6,
            threads: 2,
            ..test_config()
        };
        let mut out = Vec::new();
        let (games, positions) = run(&config, &mut out, &mut |_, _| {}).unwrap();
        assert_eq!(games, 2);
        let text = String::from_utf8(out).unwrap();
        assert_eq!(text.lines().count(), positions);
        assert!(positions > 10);
        for line in text.lines() {
            let (fen, result) = line.split_once(';').unwrap();
            assert!(Game::from_fen(fen, false).is_ok(), "{fen}");
            assert!(["1.0", "0.5", "0.0"].contains(&result), "{line}");
        }
    }

    #[test]
    fn the_games_do_not_depend_on_the_thread_count() {
        let config = |threads| Config {
            games: 4,
            nodes: 200,
            random_plies: 8,
            seed: 7,
            threads,
            ..test_config()
        };
        let lines = |threads| {
            let mut out = Vec::new();
            run(&config(threads), &mut out, &mut |_, _| {}).unwrap();
            let mut lines: Vec<String> = String::from_utf8(out)
                .unwrap()
                .lines()
                .map(String::from)
                .collect();
            lines.sort();
            lines
        };
        let one = lines(1);
        assert!(one.len() > 20);
        assert_eq!(one, lines(3));
    }

    /// A soft node limit reaches the games' searches: the games differ from those of the
    /// hard limit alone and of a hard limit at the soft one, and are the same on a second run.
    #[test]
    fn a_soft_node_limit_plays_its_own_games_again_and_again() {
        let text = |soft_nodes, nodes| {
            let config = Config {
                games: 2,
                nodes,
                soft_nodes,
                random_plies: 4,
                seed: 11,
                ..test_config()
            };
            let mut out = Vec::new();
            run(&config, &mut out, &mut |_, _| {}).unwrap();
            String::from_utf8(out).unwrap()
        };
        let soft = text(Some(300), 3000);
        assert!(soft.lines().count() > 10);
        assert_eq!(soft, text(Some(300), 3000));
        assert_ne!(soft, text(None, 3000));
        assert_ne!(soft, text(None, 300));
    }

    #[test]
    fn packed_games_decode_with_scores_and_one_start_per_game() {
        let config = Config {
            games: 3,
            random_plies: 6,
            seed: 5,
            threads: 2,
            format: Format::Packed,
            ..test_config()
        };
        let mut out = Vec::new();
        let (games, positions) = run(&config, &mut out, &mut |_, _| {}).unwrap();
        let mut records = Vec::new();
        let warning =
            packed::read_records(out.as_slice(), &mut records, packed::MAX_RECORDS).unwrap();
        assert_eq!(warning, None);
        assert_eq!(records.len(), positions);
        assert_eq!(records.iter().filter(|r| r.starts_game()).count(), games);
        for r in &records {
            let pos = r.position().unwrap();
            assert!(!pos.is_check());
            let score = r.score().unwrap();
            assert!(!is_mate(i32::from(score)));
            assert!(r.outcome().is_some());
        }
        // Every record of a game carries that game's result.
        let mut current = None;
        for r in &records {
            if r.starts_game() {
                current = r.outcome();
            }
            assert_eq!(r.outcome(), current);
        }
    }

    #[test]
    fn random_openings_that_hang_material_are_drawn_again() {
        let config = Config {
            random_plies: 8,
            ..test_config()
        };
        let tt = TranspositionTable::new(1).unwrap();
        let limits = Limits {
            nodes: Some(config.nodes),
            soft_nodes: config.soft_nodes,
            ..Limits::default()
        };
        let start = Game::default();
        let (mut redrawn, mut unbalanced_first_tries) = (0, 0);
        for g in 0..16 {
            let mut rng = game_rng(9, g);
            let mut first = Lcg(rng.0);
            let game = random_opening(&start, &config, &mut rng, &tt, &limits);
            let plies =
                2 * (game.pos.fullmoves().get() - 1) + u32::from(game.pos.turn().is_black());
            assert_eq!(plies as usize, config.random_plies);
            assert!(opening_score(&game, &tt, &limits, &config).abs() <= OPENING_SCORE);
            // What the first try alone would have given.
            let mut single = start.clone();
            for _ in 0..config.random_plies {
                let moves = single.pos.legal_moves();
                single.play(moves[(first.next_u31() as usize) % moves.len()]);
            }
            if opening_score(&single, &tt, &limits, &config).abs() > OPENING_SCORE {
                unbalanced_first_tries += 1;
            }
            if single.pos.board() != game.pos.board() {
                redrawn += 1;
            }
        }
        // Some first tries hang material, and exactly those are drawn again.
        assert!(unbalanced_first_tries > 0);
        assert_eq!(redrawn, unbalanced_first_tries);
    }

    /// A sink that refuses every write.
    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_failed_write_ends_the_run_with_an_error() {
        let config = Config {
            games: 6,
            nodes: 200,
            random_plies: 4,
            seed: 3,
            threads: 2,
            ..test_config()
        };
        let mut games = 0;
        let err = run(&config, &mut Full, &mut |g, _| games = g).unwrap_err();
        assert!(err.contains("cannot write data: disk full"), "{err}");
        assert_eq!(games, 0);
    }
}
