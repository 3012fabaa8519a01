//! Packed training positions: the 32-byte record `ferrum datagen` writes for net training,
//! its reader (which survives a file cut mid-record) and the `--stats` summary.
//!
//! A record, little-endian:
//! ```text
//!  0..8   occupancy, bit i set when square i (a1 = 0, h8 = 63) holds a piece
//!  8..24  one nibble per occupied square in ascending square order, low nibble first:
//!         role (1 pawn .. 6 king), plus 8 for a black piece; unused nibbles are 0
//! 24..26  i16 search score in centipawns from the side to move
//! 26      game result for White: 0 loss, 1 draw, 2 win
//! 27      flags: bit 0 Black to move, bits 1-4 castling (White h, White a, Black h, Black a
//!         rook), bit 5 first position kept from its game, bit 6 no score (converted text)
//! 28      en passant square (0..63), 64 for none
//! 29      halfmove clock (saturated at 255)
//! 30..32  u16 fullmove number
//! ```

use std::io::{Read, Seek, SeekFrom, Write};
use std::num::NonZeroU32;

use shakmaty::{
    Bitboard, Board, CastlingMode, Chess, Color, EnPassantMode, FromSetup, Piece, Position, Role,
    Setup, Square,
};

pub const RECORD_BYTES: usize = 32;

const FLAG_BLACK: u8 = 1;
const FLAG_FIRST: u8 = 1 << 5;
const FLAG_NO_SCORE: u8 = 1 << 6;
/// Castling flag bits and the rook square each stands for (standard chess only).
const CASTLING: [(u8, Square); 4] = [
    (1 << 1, Square::H1),
    (1 << 2, Square::A1),
    (1 << 3, Square::H8),
    (1 << 4, Square::A8),
];
const NO_EP: u8 = 64;

/// One training position as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Record(pub [u8; RECORD_BYTES]);

/// The game's result from White's side, as a record stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Outcome {
    BlackWon = 0,
    Draw = 1,
    WhiteWon = 2,
}

impl Outcome {
    /// From a result for White (1, 0.5 or 0); a value in between goes to the nearest of
    /// them, 0.25 and 0.75 to the draw.
    pub fn from_white_score(result: f32) -> Outcome {
        if result > 0.75 {
            Outcome::WhiteWon
        } else if result < 0.25 {
            Outcome::BlackWon
        } else {
            Outcome::Draw
        }
    }

    pub fn white_score(self) -> f32 {
        f32::from(self as u8) / 2.0
    }
}

impl Record {
    /// Packs a position; `score` is from the side to move, `None` where it is unknown.
    pub fn pack(pos: &Chess, score: Option<i32>, outcome: Outcome, first: bool) -> Record {
        let mut b = [0u8; RECORD_BYTES];
        let board = pos.board();
        let occupied = board.occupied();
        b[0..8].copy_from_slice(&u64::from(occupied).to_le_bytes());
        for (i, sq) in occupied.into_iter().enumerate().take(32) {
            let Some(piece) = board.piece_at(sq) else {
                continue;
            };
            let code = piece.role as u8 | if piece.color.is_black() { 8 } else { 0 };
            b[8 + i / 2] |= code << (4 * (i % 2));
        }
        let cp = score.unwrap_or(0).clamp(i16::MIN as i32, i16::MAX as i32) as i16;
        b[24..26].copy_from_slice(&cp.to_le_bytes());
        b[26] = outcome as u8;
        let rooks = pos.castles().castling_rights();
        let mut flags = if pos.turn().is_black() { FLAG_BLACK } else { 0 };
        for (bit, sq) in CASTLING {
            if rooks.contains(sq) {
                flags |= bit;
            }
        }
        if first {
            flags |= FLAG_FIRST;
        }
        if score.is_none() {
            flags |= FLAG_NO_SCORE;
        }
        b[27] = flags;
        b[28] = pos
            .ep_square(EnPassantMode::Legal)
            .map_or(NO_EP, |sq| sq as u8);
        b[29] = pos.halfmoves().min(255) as u8;
        let fullmoves = pos.fullmoves().get().min(u32::from(u16::MAX)) as u16;
        b[30..32].copy_from_slice(&fullmoves.to_le_bytes());
        Record(b)
    }

    pub fn occupancy(&self) -> Bitboard {
        let mut word = [0u8; 8];
        word.copy_from_slice(&self.0[0..8]);
        Bitboard(u64::from_le_bytes(word))
    }

    /// The pieces and their squares, in ascending square order; `None` for a bad nibble.
    pub fn pieces(&self) -> Option<Vec<(Square, Piece)>> {
        self.piece_iter()?.collect()
    }

    /// Each occupied square with its piece (None for a nibble that is no piece), without
    /// allocating; None when more than 32 squares are occupied.
    pub fn piece_iter(&self) -> Option<impl Iterator<Item = Option<(Square, Piece)>> + '_> {
        let occupied = self.occupancy();
        if occupied.count() > 32 {
            return None;
        }
        Some(occupied.into_iter().enumerate().map(|(i, sq)| {
            let code = (self.0[8 + i / 2] >> (4 * (i % 2))) & 0xf;
            let role = Role::try_from(code & 7).ok()?;
            let color = Color::from_white(code & 8 == 0);
            Some((sq, Piece { color, role }))
        }))
    }

    /// The score from the side to move, `None` for a record converted from text.
    pub fn score(&self) -> Option<i16> {
        (self.0[27] & FLAG_NO_SCORE == 0).then(|| i16::from_le_bytes([self.0[24], self.0[25]]))
    }

    pub fn outcome(&self) -> Option<Outcome> {
        match self.0[26] {
            0 => Some(Outcome::BlackWon),
            1 => Some(Outcome::Draw),
            2 => Some(Outcome::WhiteWon),
            _ => None,
        }
    }

    /// Whether either side may still castle.
    pub fn has_castling(&self) -> bool {
        CASTLING.iter().any(|&(bit, _)| self.0[27] & bit != 0)
    }

    pub fn turn(&self) -> Color {
        Color::from_white(self.0[27] & FLAG_BLACK == 0)
    }

    /// Whether this is the first position kept from its game.
    pub fn starts_game(&self) -> bool {
        self.0[27] & FLAG_FIRST != 0
    }

    /// Why this record cannot be one `ferrum datagen` wrote, if it cannot: every record it
    /// writes (Chess960 castling and the checks `--convert` tolerates included) has readable
    /// pieces, one king of each colour, a result and an en passant byte of at most 64.
    pub fn implausible(&self) -> Option<&'static str> {
        let Some(pieces) = self.piece_iter() else {
            return Some("more than 32 pieces");
        };
        let mut kings = [0u8; 2];
        for entry in pieces {
            match entry {
                None => return Some("a piece code that is no piece"),
                Some((_, p)) if p.role == Role::King => {
                    kings[usize::from(p.color.is_black())] += 1;
                }
                Some(_) => {}
            }
        }
        if kings != [1, 1] {
            Some("not one king of each colour")
        } else if self.outcome().is_none() {
            Some("no game result")
        } else if self.0[28] > NO_EP {
            Some("a bad en passant square")
        } else {
            None
        }
    }

    /// The position, checked for legality; an error names what is wrong.
    pub fn position(&self) -> Result<Chess, String> {
        let mut board = Board::empty();
        for (sq, piece) in self.pieces().ok_or("bad piece code")? {
            board.set_piece_at(sq, piece);
        }
        let mut castling_rights = Bitboard::EMPTY;
        for (bit, sq) in CASTLING {
            if self.0[27] & bit != 0 {
                castling_rights.add(sq);
            }
        }
        let ep_square = match self.0[28] {
            NO_EP => None,
            s => Some(Square::try_from(s).map_err(|_| format!("bad en passant square {s}"))?),
        };
        let fullmoves = NonZeroU32::new(u32::from(u16::from_le_bytes([self.0[30], self.0[31]])))
            .unwrap_or(NonZeroU32::MIN);
        let mut setup = Setup::empty();
        setup.board = board;
        setup.turn = self.turn();
        setup.castling_rights = castling_rights;
        setup.ep_square = ep_square;
        setup.halfmoves = u32::from(self.0[29]);
        setup.fullmoves = fullmoves;
        Chess::from_setup(setup, CastlingMode::Standard).map_err(|e| e.to_string())
    }
}

/// Game phase as the count of minor and major pieces weighted 1 / 1 / 2 / 4 (24 at the start).
pub fn phase(pieces: &[(Square, Piece)]) -> u32 {
    pieces
        .iter()
        .map(|(_, p)| match p.role {
            Role::Knight | Role::Bishop => 1,
            Role::Rook => 2,
            Role::Queen => 4,
            Role::Pawn | Role::King => 0,
        })
        .sum::<u32>()
        .min(24)
}

/// The most records one run reads (268 M, 8.6 GB): `train` holds every record in memory,
/// and a device such as /dev/zero would otherwise be read until memory runs out.
pub const MAX_RECORDS: usize = 1 << 28;

/// Bytes asked of the input at a time.
const BLOCK: usize = RECORD_BYTES * 4096;

/// Appends every whole record of `input` to `records` while they hold at most `limit` in all
/// (more is an error); a cut record at the end is skipped and reported in the warning. Input
/// whose first record is not one a data file can hold is refused after its first block.
pub fn read_records(
    mut input: impl Read,
    records: &mut Vec<Record>,
    limit: usize,
) -> Result<Option<String>, String> {
    let mut buf = vec![0u8; BLOCK];
    let (mut filled, mut first) = (0, true);
    loop {
        let n = match input.read(&mut buf[filled..]) {
            Ok(0) => break,
            Ok(n) => n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(format!("cannot read data: {e}")),
        };
        filled += n;
        let whole = filled - filled % RECORD_BYTES;
        for chunk in buf[..whole].chunks_exact(RECORD_BYTES) {
            let mut r = Record([0u8; RECORD_BYTES]);
            r.0.copy_from_slice(chunk);
            if first {
                if let Some(why) = r.implausible() {
                    return Err(format!(
                        "not a packed data file (its first record has {why})"
                    ));
                }
                first = false;
            }
            if records.len() >= limit {
                return Err(too_many(limit));
            }
            records.push(r);
        }
        buf.copy_within(whole..filled, 0);
        filled -= whole;
    }
    Ok((filled != 0).then(|| format!("skipped a cut record of {filled} bytes at the end")))
}

fn too_many(limit: usize) -> String {
    format!("more than {limit} records in all, the most one run reads")
}

/// Appends every whole record of the file at `path` to `records` while they hold at most
/// `limit` in all (a file too large for that is refused before it is read); a cut record at
/// its end is reported on stderr as a warning from `who`, naming the file.
pub fn read_file(
    path: &str,
    who: &str,
    records: &mut Vec<Record>,
    limit: usize,
) -> Result<(), String> {
    let file =
        std::fs::File::open(path).map_err(|e| format!("{who}: cannot open '{path}': {e}"))?;
    let room = limit.saturating_sub(records.len());
    if let Ok(meta) = file.metadata()
        && meta.is_file()
    {
        let count = usize::try_from(meta.len() / RECORD_BYTES as u64).unwrap_or(usize::MAX);
        if count > room {
            return Err(format!("{who}: '{path}': {}", too_many(limit)));
        }
        records.reserve(count);
    }
    let warning =
        read_records(file, records, limit).map_err(|e| format!("{who}: '{path}': {e}"))?;
    if let Some(w) = warning {
        eprintln!("{who}: warning: {path}: {w}");
    }
    Ok(())
}

/// Makes a file ready for appending records: a cut record left by an interrupted run is
/// dropped, so new records stay aligned. Returns the number of bytes dropped.
pub fn trim_cut_record(file: &mut std::fs::File) -> Result<u64, String> {
    let len = file
        .metadata()
        .map_err(|e| format!("cannot read data file: {e}"))?
        .len();
    let cut = len % RECORD_BYTES as u64;
    if cut != 0 {
        file.set_len(len - cut)
            .map_err(|e| format!("cannot trim data file: {e}"))?;
    }
    file.seek(SeekFrom::End(0))
        .map_err(|e| format!("cannot seek data file: {e}"))?;
    Ok(cut)
}

/// Writes records as one block, so a stop between blocks leaves whole games.
pub fn write_records(sink: &mut dyn Write, records: &[Record]) -> std::io::Result<()> {
    let mut block = Vec::with_capacity(records.len() * RECORD_BYTES);
    for r in records {
        block.extend_from_slice(&r.0);
    }
    sink.write_all(&block)?;
    sink.flush()
}

/// Converts `FEN;result` lines (result 1.0, 0.5 or 0.0 for White) into records with no
/// score; returns the records and the number of bad lines skipped.
pub fn convert_text(text: &str) -> (Vec<Record>, usize) {
    let mut records = Vec::new();
    let mut bad = 0;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let parsed = line.split_once(';').and_then(|(fen, result)| {
            let result: f32 = result.trim().parse().ok()?;
            let game = crate::basics::position::Game::from_fen(fen, false).ok()?;
            Some(Record::pack(
                &game.pos,
                None,
                Outcome::from_white_score(result),
                false,
            ))
        });
        match parsed {
            Some(r) => records.push(r),
            None => bad += 1,
        }
    }
    (records, bad)
}

/// What `ferrum datagen --stats` prints about a set of records.
pub fn stats(records: &[Record]) -> Vec<String> {
    let n = records.len();
    let share = |k: usize| {
        if n == 0 {
            0.0
        } else {
            100.0 * k as f64 / n as f64
        }
    };
    let games = records.iter().filter(|r| r.starts_game()).count();
    let mut outcomes = [0usize; 3];
    let mut unscored = 0;
    let mut bad = 0;
    let mut phases = [0usize; 5];
    let mut abs_score_sum = 0u64;
    for r in records {
        match (r.outcome(), r.pieces()) {
            (Some(o), Some(pieces)) => {
                outcomes[o as usize] += 1;
                phases[(phase(&pieces) as usize * 5 / 25).min(4)] += 1;
            }
            _ => bad += 1,
        }
        match r.score() {
            Some(s) => abs_score_sum += u64::from(s.unsigned_abs()),
            None => unscored += 1,
        }
    }
    let scored = n - unscored;
    let mut lines = vec![
        format!("positions {n}"),
        format!(
            "games {games} (positions kept per game {:.1})",
            n as f64 / games.max(1) as f64
        ),
        format!(
            "results for White: win {:.1}%, draw {:.1}%, loss {:.1}%",
            share(outcomes[2]),
            share(outcomes[1]),
            share(outcomes[0])
        ),
        format!(
            "scores: {scored} scored, mean |score| {:.0} cp, {unscored} without a score",
            abs_score_sum as f64 / scored.max(1) as f64
        ),
    ];
    let labels = ["0-4", "5-9", "10-14", "15-19", "20-24"];
    let spread: Vec<String> = labels
        .iter()
        .zip(phases)
        .map(|(l, k)| format!("{l}: {:.1}%", share(k)))
        .collect();
    lines.push(format!("phase (24 = all pieces) {}", spread.join(", ")));
    if bad > 0 {
        lines.push(format!("{bad} records unreadable"));
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::basics::position::Game;
    use shakmaty::fen::Fen;

    fn fen(pos: &Chess) -> String {
        Fen::from_position(pos, EnPassantMode::Legal).to_string()
    }

    #[test]
    fn records_give_back_the_position_score_and_result() {
        for (text, score) in [
            (crate::basics::position::STARTPOS, Some(17)),
            (
                "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 3 21",
                Some(-250),
            ),
            (
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w Kq f6 0 3",
                None,
            ),
            ("8/8/4k3/8/8/8/3PK3/8 b - - 12 60", Some(40_000)),
        ] {
            let pos = Game::from_fen(text, false).unwrap().pos;
            let r = Record::pack(&pos, score, Outcome::BlackWon, true);
            assert_eq!(fen(&r.position().unwrap()), text);
            assert_eq!(r.score(), score.map(|s| s.min(i16::MAX as i32) as i16));
            assert_eq!(r.outcome(), Some(Outcome::BlackWon));
            assert_eq!(r.turn(), pos.turn());
            assert!(r.starts_game());
        }
    }

    #[test]
    fn results_go_to_the_nearest_outcome() {
        for (result, outcome) in [
            (1.0, Outcome::WhiteWon),
            (0.8, Outcome::WhiteWon),
            (0.75, Outcome::Draw),
            (0.5, Outcome::Draw),
            (0.25, Outcome::Draw),
            (0.2, Outcome::BlackWon),
            (0.0, Outcome::BlackWon),
        ] {
            assert_eq!(Outcome::from_white_score(result), outcome, "{result}");
            assert_eq!(Outcome::from_white_score(outcome.white_score()), outcome);
        }
    }

    /// Every record of `input`, with the cut-record warning.
    fn read_all(input: impl Read) -> Result<(Vec<Record>, Option<String>), String> {
        let mut records = Vec::new();
        let warning = read_records(input, &mut records, MAX_RECORDS)?;
        Ok((records, warning))
    }

    fn temp_path(name: &str) -> (std::path::PathBuf, String) {
        let path = std::env::temp_dir().join(format!("ferrum-{name}-{}.bin", std::process::id()));
        let text = path.to_string_lossy().to_string();
        (path, text)
    }

    #[test]
    fn a_file_is_read_whole_records_and_all() {
        let (path, text) = temp_path("read");
        let a = Record::pack(&Chess::default(), Some(3), Outcome::Draw, true);
        let b = Record::pack(&Chess::default(), Some(-8), Outcome::BlackWon, false);
        std::fs::write(&path, [&a.0[..], &b.0[..], &a.0[..5]].concat()).unwrap();
        let mut records = Vec::new();
        let read = read_file(&text, "test", &mut records, MAX_RECORDS);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(read, Ok(()));
        assert_eq!(records, vec![a, b]);
        let err = read_file(&text, "test", &mut records, MAX_RECORDS).unwrap_err();
        assert!(err.contains("test: cannot open"), "{err}");
    }

    /// Endless zero bytes, counting how many were asked for.
    struct Zeros(usize);

    impl Read for Zeros {
        fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
            buf.fill(0);
            self.0 += buf.len();
            Ok(buf.len())
        }
    }

    #[test]
    fn endless_input_that_is_no_data_is_refused_after_its_first_block() {
        let mut zeros = Zeros(0);
        let err = read_all(&mut zeros).unwrap_err();
        assert!(err.contains("not a packed data file"), "{err}");
        assert!(err.contains("not one king of each colour"), "{err}");
        assert!(zeros.0 <= BLOCK, "read {} bytes", zeros.0);
    }

    #[test]
    fn a_chess960_first_record_with_castling_rights_is_data() {
        // King on g1 with rooks f1 and h1: standard chess would drop these rights.
        let fen: Fen = "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9"
            .parse()
            .unwrap();
        let pos: Chess = fen.into_position(shakmaty::CastlingMode::Chess960).unwrap();
        let r = Record::pack(&pos, Some(12), Outcome::WhiteWon, true);
        assert!(r.has_castling());
        assert!(
            r.position().is_err(),
            "a standard-chess check would refuse it"
        );
        assert_eq!(r.implausible(), None);
        let mut bytes = Vec::new();
        write_records(&mut bytes, &[r, r]).unwrap();
        assert_eq!(read_all(bytes.as_slice()).unwrap().0, vec![r, r]);
    }

    #[test]
    fn a_record_of_more_than_32_pieces_or_a_bad_piece_code_is_implausible() {
        let good = Record::pack(&Chess::default(), Some(5), Outcome::Draw, false);
        assert_eq!(good.implausible(), None);
        let mut crowded = good;
        crowded.0[0..8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(crowded.implausible(), Some("more than 32 pieces"));
        let mut bad_code = good;
        bad_code.0[8] = 0x07; // role 7 on a1: no piece
        assert_eq!(
            bad_code.implausible(),
            Some("a piece code that is no piece")
        );
        let mut no_result = good;
        no_result.0[26] = 3;
        assert_eq!(no_result.implausible(), Some("no game result"));
    }

    #[test]
    fn more_records_than_the_limit_is_an_error_and_the_limit_itself_is_not() {
        let r = Record::pack(&Chess::default(), Some(5), Outcome::Draw, false);
        let mut bytes = Vec::new();
        write_records(&mut bytes, &[r, r, r]).unwrap();
        let mut records = Vec::new();
        assert_eq!(read_records(bytes.as_slice(), &mut records, 3), Ok(None));
        assert_eq!(records.len(), 3);
        let err = read_records(bytes.as_slice(), &mut Vec::new(), 2).unwrap_err();
        assert!(err.contains("more than 2 records in all"), "{err}");
    }

    #[test]
    fn files_count_against_one_limit_and_a_file_past_it_is_refused_unread() {
        let (path, text) = temp_path("limit");
        let r = Record::pack(&Chess::default(), Some(5), Outcome::Draw, false);
        let mut bytes = Vec::new();
        write_records(&mut bytes, &[r, r]).unwrap();
        std::fs::write(&path, &bytes).unwrap();
        let mut records = Vec::new();
        let first = read_file(&text, "test", &mut records, 3);
        let second = read_file(&text, "test", &mut records, 3);
        std::fs::remove_file(&path).unwrap();
        assert_eq!(first, Ok(()));
        let err = second.unwrap_err();
        assert!(err.contains("more than 3 records in all"), "{err}");
        // Refused from the file's size: nothing of it was appended.
        assert_eq!(records.len(), 2);
    }

    #[test]
    fn records_split_across_reads_are_put_back_together() {
        let a = Record::pack(&Chess::default(), Some(5), Outcome::Draw, true);
        let b = Record::pack(&Chess::default(), Some(-7), Outcome::WhiteWon, false);
        let mut bytes = Vec::new();
        write_records(&mut bytes, &[a, b, a]).unwrap();
        // Five bytes a read, so every record arrives in pieces.
        struct Dribble<'a>(&'a [u8]);
        impl Read for Dribble<'_> {
            fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
                let n = self.0.len().min(buf.len()).min(5);
                buf[..n].copy_from_slice(&self.0[..n]);
                self.0 = &self.0[n..];
                Ok(n)
            }
        }
        let (records, warning) = read_all(Dribble(&bytes)).unwrap();
        assert_eq!(records, vec![a, b, a]);
        assert_eq!(warning, None);
    }

    #[test]
    fn a_cut_record_is_skipped_with_a_warning() {
        let pos = Chess::default();
        let r = Record::pack(&pos, Some(5), Outcome::Draw, false);
        let mut bytes = Vec::new();
        write_records(&mut bytes, &[r, r]).unwrap();
        bytes.extend_from_slice(&r.0[..11]);
        let (records, warning) = read_all(bytes.as_slice()).unwrap();
        assert_eq!(records, vec![r, r]);
        assert!(warning.unwrap().contains("11 bytes"));
    }

    #[test]
    fn appending_after_a_cut_record_keeps_records_aligned() {
        let (path, _) = temp_path("packed");
        let r = Record::pack(&Chess::default(), Some(1), Outcome::WhiteWon, true);
        std::fs::write(&path, [&r.0[..], &r.0[..20]].concat()).unwrap();
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .append(true)
            .open(&path)
            .unwrap();
        assert_eq!(trim_cut_record(&mut file).unwrap(), 20);
        write_records(&mut file, &[r]).unwrap();
        drop(file);
        let (records, warning) = read_all(std::fs::File::open(&path).unwrap()).unwrap();
        std::fs::remove_file(&path).unwrap();
        assert_eq!(records, vec![r, r]);
        assert_eq!(warning, None);
    }

    #[test]
    fn text_converts_with_results_and_no_score() {
        let text = format!(
            "{};1.0\n8/8/4k3/8/8/8/3PK3/8 b - - 0 1;0.0\nnot a fen;0.5\n{};x\n",
            crate::basics::position::STARTPOS,
            crate::basics::position::STARTPOS
        );
        let (records, bad) = convert_text(&text);
        assert_eq!(bad, 2);
        assert_eq!(records.len(), 2);
        assert_eq!(records[0].outcome(), Some(Outcome::WhiteWon));
        assert_eq!(records[1].outcome(), Some(Outcome::BlackWon));
        assert_eq!(records[1].turn(), Color::Black);
        assert!(records.iter().all(|r| r.score().is_none()));
    }

    #[test]
    fn stats_count_games_results_and_phases() {
        let start = Chess::default();
        let ending = Game::from_fen("8/8/4k3/8/8/8/3PK3/8 b - - 0 1", false)
            .unwrap()
            .pos;
        // Phases 24 and 0 (the start and a pawn ending), 10 (rooks and a bishop each:
        // bucket 10-14) and 6 (a rook and a bishop each: bucket 5-9).
        let middle = Game::from_fen("r3kb1r/pppppppp/8/8/8/8/PPPPPPPP/R3KB1R w - - 0 1", false)
            .unwrap()
            .pos;
        let light = Game::from_fen("r3kb2/pppppppp/8/8/8/8/PPPPPPPP/R3KB2 w - - 0 1", false)
            .unwrap()
            .pos;
        let mut unreadable = Record::pack(&start, Some(5), Outcome::Draw, false);
        unreadable.0[26] = 3;
        let records = [
            Record::pack(&start, Some(10), Outcome::WhiteWon, true),
            Record::pack(&ending, Some(-30), Outcome::WhiteWon, false),
            Record::pack(&start, Some(0), Outcome::Draw, true),
            Record::pack(&ending, None, Outcome::BlackWon, false),
        ];
        let lines = stats(&records);
        assert_eq!(lines.len(), 5, "{lines:?}");
        let mut more = records.to_vec();
        more.extend([
            Record::pack(&middle, Some(0), Outcome::Draw, false),
            Record::pack(&light, Some(0), Outcome::Draw, false),
            Record::pack(&light, Some(0), Outcome::Draw, false),
            unreadable,
        ]);
        let more = stats(&more);
        assert_eq!(
            more[4],
            "phase (24 = all pieces) 0-4: 25.0%, 5-9: 25.0%, 10-14: 12.5%, 15-19: 0.0%, 20-24: 25.0%"
        );
        assert_eq!(more[5], "1 records unreadable");
        assert_eq!(lines[0], "positions 4");
        assert!(lines[1].starts_with("games 2 "), "{}", lines[1]);
        assert_eq!(
            lines[2],
            "results for White: win 50.0%, draw 25.0%, loss 25.0%"
        );
        assert_eq!(
            lines[3],
            "scores: 3 scored, mean |score| 13 cp, 1 without a score"
        );
        assert_eq!(
            lines[4],
            "phase (24 = all pieces) 0-4: 50.0%, 5-9: 0.0%, 10-14: 0.0%, 15-19: 0.0%, 20-24: 50.0%"
        );
    }
}
