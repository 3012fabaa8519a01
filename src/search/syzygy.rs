//! Syzygy endgame tablebases: loading the tables named by `SyzygyPath`, WDL probes for the
//! search, and ranking root moves by DTZ so won endings are converted within the fifty-move
//! rule and drawn ones held. The tables are read through shakmaty-syzygy.

use std::io::Read;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

use shakmaty::{Chess, Move, Position};
use shakmaty_syzygy::{Dtz, Tablebase, Wdl};

use crate::search::score::{DRAW, tb_win_in};

/// The first four bytes of every WDL and DTZ file.
const WDL_MAGIC: [u8; 4] = [0x71, 0xe8, 0x23, 0x5d];
const DTZ_MAGIC: [u8; 4] = [0xd7, 0x66, 0x0c, 0xa5];

/// Directories in `SyzygyPath` are separated as in the system's PATH.
const SEPARATOR: char = if cfg!(windows) { ';' } else { ':' };

/// The loaded tables, shared read-only by every search thread.
pub struct Tables {
    tb: Tablebase<Chess>,
    pub wdl_files: usize,
    pub dtz_files: usize,
    pub max_pieces: usize,
    /// File names of the tables added.
    names: std::collections::BTreeSet<std::ffi::OsString>,
    /// Probes answered since the counter was last reset (one search's `tbhits`).
    hits: AtomicU64,
}

/// What the search needs to probe: the tables and the `SyzygyProbeDepth`/`SyzygyProbeLimit`
/// settings.
#[derive(Clone, Copy)]
pub struct Probe<'a> {
    pub tables: &'a Tables,
    pub depth: i32,
    pub limit: usize,
}

/// The outcome of a root move under the fifty-move rule, for the side that plays it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum RootClass {
    Loss,
    /// Drawn, or won or lost only beyond the fifty-move rule.
    Draw,
    Win,
}

/// A root move's place in the tables: its class, then how many plies to the next capture,
/// pawn move or mate on the way (fewer is better when winning, more when losing).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootRank {
    pub class: RootClass,
    pub plies: u32,
    /// Among zeroing moves that win, the winner's distance after it (smaller is better).
    pub tiebreak: u32,
}

impl RootRank {
    /// The root's result as a score: a tablebase win (less the plies to the next capture,
    /// pawn move or mate), its negative for a loss, 0 for a draw. Below every mate, so a mate
    /// the search finds still outranks it.
    pub fn score(&self) -> i32 {
        // A win or loss counts at most 100 plies (the fifty-move rule; beyond, it is a draw),
        // well inside the tablebase range of `MAX_PLY` plies.
        let plies = self.plies as usize;
        match self.class {
            RootClass::Win => tb_win_in(plies),
            RootClass::Loss => -tb_win_in(plies),
            RootClass::Draw => DRAW,
        }
    }
}

impl Tables {
    /// Loads every table in the directories of `path`; the messages say what was found and
    /// what was skipped (a missing directory, an unreadable or corrupt file).
    pub fn load(path: &str) -> (Option<Tables>, Vec<String>) {
        let mut tables = Tables {
            tb: Tablebase::new(),
            wdl_files: 0,
            dtz_files: 0,
            max_pieces: 0,
            names: Default::default(),
            hits: AtomicU64::new(0),
        };
        let mut messages = Vec::new();
        for dir in path
            .split(SEPARATOR)
            .map(str::trim)
            .filter(|d| !d.is_empty())
        {
            if let Err(e) = tables.add_directory(Path::new(dir), &mut messages) {
                messages.push(format!(
                    "error: SyzygyPath: cannot read directory '{dir}': {e}"
                ));
            }
        }
        tables.max_pieces = tables.tb.max_pieces();
        let is_wdl = |n: &&std::ffi::OsString| n.to_string_lossy().ends_with(".rtbw");
        tables.wdl_files = tables.names.iter().filter(is_wdl).count();
        tables.dtz_files = tables.names.len() - tables.wdl_files;
        if tables.wdl_files == 0 {
            messages.push("no Syzygy tables found; tablebases are off".to_string());
            return (None, messages);
        }
        messages.push(format!(
            "found {} WDL and {} DTZ tables, up to {} pieces",
            tables.wdl_files, tables.dtz_files, tables.max_pieces
        ));
        (Some(tables), messages)
    }

    fn add_directory(&mut self, dir: &Path, messages: &mut Vec<String>) -> std::io::Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .collect();
        entries.sort();
        for file in entries {
            let magic = match file.extension().and_then(|e| e.to_str()) {
                Some("rtbw") => WDL_MAGIC,
                Some("rtbz") => DTZ_MAGIC,
                _ => continue,
            };
            let shown = file.display();
            match read_magic(&file) {
                Ok(m) if m == magic => {}
                Ok(_) => {
                    messages.push(format!("error: Syzygy table '{shown}' is corrupt, skipped"));
                    continue;
                }
                Err(e) => {
                    messages.push(format!(
                        "error: Syzygy table '{shown}' cannot be read ({e}), skipped"
                    ));
                    continue;
                }
            }
            match self.tb.add_file(&file) {
                // The same table found again in another directory replaces the first.
                Ok(()) => {
                    if let Some(name) = file.file_name() {
                        self.names.insert(name.to_os_string());
                    }
                }
                Err(e) => messages.push(format!("error: Syzygy table '{shown}' skipped: {e}")),
            }
        }
        Ok(())
    }

    /// Probes answered since the last `reset_hits`.
    pub fn hits(&self) -> u64 {
        self.hits.load(Ordering::Relaxed)
    }

    pub fn reset_hits(&self) {
        self.hits.store(0, Ordering::Relaxed);
    }

    /// WDL of a position just reached by a capture or pawn move, from the side to move;
    /// None where the tables cannot say (too many pieces, castling rights, a missing table).
    pub fn probe_wdl(&self, pos: &Chess) -> Option<Wdl> {
        let wdl = self.tb.probe_wdl_after_zeroing(pos).ok()?;
        self.hits.fetch_add(1, Ordering::Relaxed);
        Some(wdl)
    }

    /// DTZ of a position from the side to move (positive: it wins), possibly off by one
    /// where the table rounds.
    pub fn probe_dtz(&self, pos: &Chess) -> Option<i32> {
        let dtz = self.tb.probe_dtz(pos).ok()?;
        Some(dtz.ignore_rounding().0)
    }

    /// A root move's rank; None when a table is missing.
    pub fn rank_root_move(&self, pos: &Chess, m: Move) -> Option<RootRank> {
        let mut child = pos.clone();
        child.play_unchecked(m);
        if child.is_checkmate() {
            return Some(RootRank {
                class: RootClass::Win,
                plies: 0,
                tiebreak: 0,
            });
        }
        if m.is_zeroing() {
            // The clock restarts, so the child's own WDL already counts the fifty moves.
            let wdl = -self.tb.probe_wdl_after_zeroing(&child).ok()?;
            let after = self.tb.probe_dtz(&child).ok()?.ignore_rounding().0;
            return Some(RootRank {
                class: class_of(wdl),
                plies: 1,
                tiebreak: after.unsigned_abs(),
            });
        }
        let Dtz(child_dtz) = self.tb.probe_dtz(&child).ok()?.ignore_rounding();
        // The child's side zeroes (or mates) in |dtz| plies; with the plies already on the
        // clock and this move, the result stands only if that happens by the hundredth.
        let plies = child_dtz.unsigned_abs() + 1;
        let in_time = pos.halfmoves().saturating_add(plies) <= 100;
        // A zero DTZ (a draw), or a result too slow for the rule, is a draw.
        let class = match child_dtz {
            d if d < 0 && in_time => RootClass::Win,
            d if d > 0 && in_time => RootClass::Loss,
            _ => RootClass::Draw,
        };
        Some(RootRank {
            class,
            plies,
            tiebreak: 0,
        })
    }

    /// The root moves worth searching when the root is in the tables: the fastest wins, or
    /// every move that holds the draw, or the longest resistance, with the rank they share.
    /// None when the root is not in the tables (or `moves` is empty).
    pub fn root_moves(&self, pos: &Chess, moves: &[Move]) -> Option<(Vec<Move>, RootRank)> {
        if moves.is_empty()
            || pos.castles().any()
            || pos.board().occupied().count() > self.max_pieces
        {
            return None;
        }
        let ranked: Vec<(Move, RootRank)> = moves
            .iter()
            .map(|&m| self.rank_root_move(pos, m).map(|r| (m, r)))
            .collect::<Option<_>>()?;
        self.hits.fetch_add(ranked.len() as u64, Ordering::Relaxed);
        let kept = best_root_moves(&ranked);
        let rank = ranked.iter().find(|(m, _)| kept.first() == Some(m))?.1;
        Some((kept, rank))
    }
}

fn class_of(wdl: Wdl) -> RootClass {
    match wdl {
        Wdl::Win => RootClass::Win,
        Wdl::Loss => RootClass::Loss,
        Wdl::CursedWin | Wdl::Draw | Wdl::BlessedLoss => RootClass::Draw,
    }
}

/// Keeps the moves of the best class: the wins that zero soonest, all draws, or the losses
/// that hold out longest.
pub fn best_root_moves(ranked: &[(Move, RootRank)]) -> Vec<Move> {
    let Some(best_class) = ranked.iter().map(|(_, r)| r.class).max() else {
        return Vec::new();
    };
    let in_class = ranked.iter().filter(|(_, r)| r.class == best_class);
    let key = |r: &RootRank| -> (i64, i64) {
        match best_class {
            RootClass::Win => (i64::from(r.plies), i64::from(r.tiebreak)),
            RootClass::Loss => (-i64::from(r.plies), 0),
            RootClass::Draw => (0, 0),
        }
    };
    let Some(best_key) = in_class.clone().map(|(_, r)| key(r)).min() else {
        return Vec::new();
    };
    in_class
        .filter(|(_, r)| key(r) == best_key)
        .map(|(m, _)| *m)
        .collect()
}

fn read_magic(file: &Path) -> std::io::Result<[u8; 4]> {
    let mut magic = [0u8; 4];
    std::fs::File::open(file)?.read_exact(&mut magic)?;
    Ok(magic)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::position::Game;

    /// The tables the tests use, copied into the repository.
    pub const TEST_TABLES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/syzygy");

    fn tables() -> Tables {
        let (tables, messages) = Tables::load(TEST_TABLES);
        tables.unwrap_or_else(|| panic!("{messages:?}"))
    }

    fn pos(fen: &str) -> Chess {
        Game::from_fen(fen, false).unwrap().pos
    }

    #[test]
    fn the_test_tables_load_with_their_counts() {
        let (tables, messages) = Tables::load(TEST_TABLES);
        let tables = tables.unwrap();
        assert_eq!((tables.wdl_files, tables.dtz_files), (35, 35));
        assert_eq!(tables.max_pieces, 4);
        assert_eq!(
            messages,
            vec!["found 35 WDL and 35 DTZ tables, up to 4 pieces".to_string()]
        );
    }

    #[test]
    fn a_missing_directory_is_reported_and_leaves_no_tables() {
        let (tables, messages) = Tables::load("/no/such/dir");
        assert!(tables.is_none());
        assert!(messages[0].contains("'/no/such/dir'"), "{messages:?}");
        assert!(
            messages[1].contains("no Syzygy tables found"),
            "{messages:?}"
        );
    }

    #[test]
    fn a_corrupt_file_is_skipped_by_name() {
        let dir = std::env::temp_dir().join(format!("ferrum-tb-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(format!("{TEST_TABLES}/KQvK.rtbw"), dir.join("KQvK.rtbw")).unwrap();
        std::fs::write(dir.join("KRvK.rtbw"), [0u8; 80]).unwrap();
        let path = format!("{}:{TEST_TABLES}-absent", dir.display());
        let (tables, messages) = Tables::load(&path);
        std::fs::remove_dir_all(&dir).unwrap();
        let tables = tables.unwrap();
        assert_eq!((tables.wdl_files, tables.dtz_files), (1, 0));
        assert!(
            messages.iter().any(|m| m.contains("KRvK.rtbw' is corrupt")),
            "{messages:?}"
        );
        assert!(
            messages.iter().any(|m| m.contains("-absent'")),
            "{messages:?}"
        );
    }

    #[test]
    fn wdl_and_dtz_of_known_positions() {
        let t = tables();
        // KQvK, White to move: a win; Black to move: a loss.
        assert_eq!(
            t.probe_wdl(&pos("8/8/8/8/8/2k5/8/KQ6 w - - 0 1")),
            Some(Wdl::Win)
        );
        assert_eq!(
            t.probe_wdl(&pos("8/8/8/8/8/2k5/8/KQ6 b - - 0 1")),
            Some(Wdl::Loss)
        );
        // KNvK is a draw; a bare KRvKR too.
        assert_eq!(
            t.probe_wdl(&pos("8/8/8/3k4/8/8/8/KN6 w - - 0 1")),
            Some(Wdl::Draw)
        );
        assert_eq!(t.probe_dtz(&pos("8/8/8/3k4/8/8/8/KN6 w - - 0 1")), Some(0));
        // Mate in one with the queen: one ply to zeroing (mate).
        assert_eq!(t.probe_dtz(&pos("k7/8/1K6/8/8/8/7Q/8 w - - 0 1")), Some(1));
        // Five pieces: not in the tables.
        assert_eq!(t.probe_wdl(&pos("8/8/8/3k4/8/8/8/KNNN4 w - - 0 1")), None);
    }

    #[test]
    fn root_ranking_keeps_the_mate_and_the_drawing_moves() {
        let t = tables();
        let p = pos("k7/8/1K6/8/8/8/7Q/8 w - - 0 1");
        let moves: Vec<Move> = p.legal_moves().into_iter().collect();
        let (kept, rank) = t.root_moves(&p, &moves).unwrap();
        assert_eq!(rank.score(), tb_win_in(0));
        // Only the mate (Qh8) is kept, not the stalemate (Qc7) nor slower wins.
        assert_eq!(kept.len(), 1);
        let mut c = p.clone();
        c.play_unchecked(kept[0]);
        assert!(c.is_checkmate(), "{:?}", kept[0]);
        // KRvKR with Black to move and no capture: every move that does not hang the rook
        // draws, and all of them are kept.
        let p = pos("8/8/3k4/8/8/2K5/r7/7R b - - 0 1");
        let moves: Vec<Move> = p.legal_moves().into_iter().collect();
        let (kept, rank) = t.root_moves(&p, &moves).unwrap();
        assert_eq!(rank.score(), DRAW);
        assert!(
            kept.len() > 10 && kept.len() < moves.len(),
            "{} of {}",
            kept.len(),
            moves.len()
        );
        for m in &kept {
            assert_eq!(t.rank_root_move(&p, *m).unwrap().class, RootClass::Draw);
        }
    }

    #[test]
    fn a_lost_root_scores_the_negative_of_the_win_it_gives() {
        let t = tables();
        // KRvK: White to move wins, Black to move loses, by the same distance less a ply.
        let krk = |turn: &str| pos(&format!("8/8/8/4k3/8/8/8/R3K3 {turn} - - 0 1"));
        let (white, black) = (krk("w"), krk("b"));
        let all = |p: &Chess| p.legal_moves().into_iter().collect::<Vec<Move>>();
        let (_, win) = t.root_moves(&white, &all(&white)).unwrap();
        let (_, loss) = t.root_moves(&black, &all(&black)).unwrap();
        assert_eq!(win.class, RootClass::Win);
        assert_eq!(loss.class, RootClass::Loss);
        assert_eq!(win.score(), tb_win_in(win.plies as usize));
        assert_eq!(loss.score(), -tb_win_in(loss.plies as usize));
        assert!(loss.score() < -19_000 && win.score() > 19_000);
    }

    #[test]
    fn captures_losses_and_the_clock_rank_as_the_rules_say() {
        let t = tables();
        let all = |p: &Chess| p.legal_moves().into_iter().collect::<Vec<Move>>();
        let find = |p: &Chess, uci: &str| {
            all(p)
                .into_iter()
                .find(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string() == uci)
                .unwrap()
        };
        // KQvKR: taking the rook (a zeroing move) leaves KQvK, a win one ply away.
        let p = pos("8/8/8/3k4/8/8/3r3Q/K7 w - - 0 1");
        let take = t.rank_root_move(&p, find(&p, "h2d2")).unwrap();
        assert_eq!((take.class, take.plies), (RootClass::Win, 1));
        // A won KRvK with five plies already on the clock is still won, and by as many
        // plies as without them.
        let fresh = pos("8/8/8/4k3/8/8/8/R3K3 w - - 0 1");
        let later = pos("8/8/8/4k3/8/8/8/R3K3 w - - 5 3");
        let (_, now) = t.root_moves(&fresh, &all(&fresh)).unwrap();
        let (_, then) = t.root_moves(&later, &all(&later)).unwrap();
        assert_eq!(then, now);
        assert_eq!(now.class, RootClass::Win);
        // The best move's plies to zeroing are the root's own DTZ: 27 here.
        assert_eq!(Some(now.plies as i32), t.probe_dtz(&fresh));
        // The defender with 99 plies on the clock: every reply is a draw by the rule, none a
        // loss (White mates two plies later at the soonest).
        let defender = pos("8/8/8/4k3/8/8/8/R3K3 b - - 99 120");
        for m in all(&defender) {
            assert_eq!(
                t.rank_root_move(&defender, m).unwrap().class,
                RootClass::Draw
            );
        }
        // With castling rights the root is not in the tables, though every child is: no
        // filter (castling is a move the tables do not know).
        let castling = pos("4k3/8/8/8/8/8/8/4K2R w K - 0 1");
        assert_eq!(t.root_moves(&castling, &all(&castling)), None);
        // Lost without the clock: the moves kept are those that hold out longest.
        let lost = pos("8/8/8/4k3/8/8/8/R3K3 b - - 0 1");
        let (kept, rank) = t.root_moves(&lost, &all(&lost)).unwrap();
        assert_eq!(rank.class, RootClass::Loss);
        assert_eq!(Some(-(rank.plies as i32)), t.probe_dtz(&lost));
        for m in all(&lost) {
            let r = t.rank_root_move(&lost, m).unwrap();
            assert!(r.plies <= rank.plies, "{m:?}: {r:?} against {rank:?}");
            assert_eq!(kept.contains(&m), r.plies == rank.plies, "{m:?}");
        }
    }

    #[test]
    fn a_win_too_slow_for_the_fifty_move_rule_ranks_as_a_draw() {
        let t = tables();
        // KRvK with the clock at 99: only an immediate mate still wins.
        let p = pos("8/8/8/8/8/k7/8/K6R w - - 99 120");
        let moves: Vec<Move> = p.legal_moves().into_iter().collect();
        let classes: Vec<RootClass> = moves
            .iter()
            .map(|m| t.rank_root_move(&p, *m).unwrap().class)
            .collect();
        assert!(classes.iter().all(|c| *c != RootClass::Win), "{classes:?}");
        let fresh = pos("8/8/8/8/8/k7/8/K6R w - - 0 1");
        assert!(
            fresh
                .legal_moves()
                .iter()
                .any(|m| t.rank_root_move(&fresh, *m).unwrap().class == RootClass::Win)
        );
    }
}
