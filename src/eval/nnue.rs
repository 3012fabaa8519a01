//! The NNUE network: its inputs (768 per side: colour x piece x square, from that side's
//! view), the quantised file format `ferrum train` writes, and inference by full refresh.
//!
//! Layout: 768 -> H (one weight matrix shared by both perspectives) -> the side to move's H
//! and the other side's H, concatenated -> 1. Activation CReLU (clamp to [0, 1]) or SCReLU
//! (its square). Quantised with QA = 255 for the first layer and QB = 64 for the output.
//!
//! File (little-endian): the 24-byte header below, then w1 (768 x H i16, a row per input),
//! b1 (H i16), w2 (2H i16, the side to move's half first), b2 (i32).
//! ```text
//!  0..4   b"FRNN"      4..6  format version (1)   6  activation (0 CReLU, 1 SCReLU)
//!  7      reserved     8..10 H                    10..12 output scale (centipawns)
//! 12..14  QA           14..16 QB                  16..24 hash of the training settings
//! ```

use shakmaty::{Board, Chess, Color, Piece, Position, Role, Square};

pub const INPUTS: usize = 768;
pub const QA: i32 = 255;
pub const QB: i32 = 64;
/// The network's output times this is centipawns.
pub const SCALE: i32 = 400;
const MAGIC: &[u8; 4] = b"FRNN";
const VERSION: u16 = 1;
const HEADER_BYTES: usize = 24;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    CReLU,
    SCReLU,
}

impl Activation {
    pub fn parse(name: &str) -> Result<Activation, String> {
        match name.to_ascii_lowercase().as_str() {
            "crelu" => Ok(Activation::CReLU),
            "screlu" => Ok(Activation::SCReLU),
            _ => Err(format!("unknown activation '{name}' (crelu or screlu)")),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Activation::CReLU => "crelu",
            Activation::SCReLU => "screlu",
        }
    }

    /// The activation of a float pre-activation.
    pub fn apply(self, x: f32) -> f32 {
        let c = x.clamp(0.0, 1.0);
        match self {
            Activation::CReLU => c,
            Activation::SCReLU => c * c,
        }
    }

    /// Its derivative (0 where clamped).
    pub fn slope(self, x: f32) -> f32 {
        if x <= 0.0 || x >= 1.0 {
            0.0
        } else {
            match self {
                Activation::CReLU => 1.0,
                Activation::SCReLU => 2.0 * x,
            }
        }
    }
}

/// The input index of `piece` on `sq` seen from `perspective`: its own pieces first, and
/// Black's view flipped so that its first rank is rank 1.
pub fn feature(perspective: Color, sq: Square, piece: Piece) -> usize {
    let theirs = usize::from(piece.color != perspective);
    let sq = if perspective.is_white() {
        sq as usize
    } else {
        sq as usize ^ 56
    };
    theirs * 384 + (piece.role as usize - 1) * 64 + sq
}

/// White's index of a piece turned into Black's.
pub fn flip_feature(white: usize) -> usize {
    let (theirs, rest) = (white / 384, white % 384);
    (1 - theirs) * 384 + (rest / 64) * 64 + ((rest % 64) ^ 56)
}

/// A quantised network, as read from a net file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Network {
    pub hidden: usize,
    pub activation: Activation,
    pub settings_hash: u64,
    pub w1: Vec<i16>,
    pub b1: Vec<i16>,
    pub w2: Vec<i16>,
    pub b2: i32,
}

fn take<const N: usize>(bytes: &[u8], at: &mut usize) -> Result<[u8; N], String> {
    let slice = bytes
        .get(*at..*at + N)
        .ok_or_else(|| format!("net file too short at byte {at}"))?;
    *at += N;
    let mut out = [0u8; N];
    out.copy_from_slice(slice);
    Ok(out)
}

fn take_i16s(bytes: &[u8], at: &mut usize, n: usize) -> Result<Vec<i16>, String> {
    (0..n)
        .map(|_| take::<2>(bytes, at).map(i16::from_le_bytes))
        .collect()
}

impl Network {
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        let mut at = 0;
        if &take::<4>(bytes, &mut at)? != MAGIC {
            return Err("not a Ferrum net file (bad magic)".to_string());
        }
        let version = u16::from_le_bytes(take(bytes, &mut at)?);
        if version != VERSION {
            return Err(format!("net format version {version}, expected {VERSION}"));
        }
        let activation = match take::<1>(bytes, &mut at)?[0] {
            0 => Activation::CReLU,
            1 => Activation::SCReLU,
            a => return Err(format!("unknown activation code {a}")),
        };
        at += 1;
        let hidden = usize::from(u16::from_le_bytes(take(bytes, &mut at)?));
        let scale = i32::from(u16::from_le_bytes(take(bytes, &mut at)?));
        let qa = i32::from(u16::from_le_bytes(take(bytes, &mut at)?));
        let qb = i32::from(u16::from_le_bytes(take(bytes, &mut at)?));
        if (scale, qa, qb) != (SCALE, QA, QB) || hidden == 0 {
            return Err(format!(
                "unsupported net: hidden {hidden}, scale {scale}, QA {qa}, QB {qb}"
            ));
        }
        let settings_hash = u64::from_le_bytes(take(bytes, &mut at)?);
        let expected = HEADER_BYTES + 2 * (INPUTS * hidden + 3 * hidden) + 4;
        if bytes.len() != expected {
            return Err(format!(
                "net file is {} bytes, expected {expected} for hidden size {hidden}",
                bytes.len()
            ));
        }
        let w1 = take_i16s(bytes, &mut at, INPUTS * hidden)?;
        let b1 = take_i16s(bytes, &mut at, hidden)?;
        let w2 = take_i16s(bytes, &mut at, 2 * hidden)?;
        let b2 = i32::from_le_bytes(take(bytes, &mut at)?);
        Ok(Network {
            hidden,
            activation,
            settings_hash,
            w1,
            b1,
            w2,
            b2,
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(HEADER_BYTES + 2 * (self.w1.len() + 3 * self.hidden) + 4);
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.push(match self.activation {
            Activation::CReLU => 0,
            Activation::SCReLU => 1,
        });
        out.push(0);
        for v in [self.hidden as i32, SCALE, QA, QB] {
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        out.extend_from_slice(&self.settings_hash.to_le_bytes());
        for w in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        out.extend_from_slice(&self.b2.to_le_bytes());
        out
    }

    /// Adds (`sign` 1) or takes off (-1) the first-layer row of input `index`.
    fn add_row(&self, sums: &mut [i32], index: usize, sign: i32) {
        let row = &self.w1[index * self.hidden..(index + 1) * self.hidden];
        for (a, &w) in sums.iter_mut().zip(row) {
            *a += sign * i32::from(w);
        }
    }

    /// The first layer's sums for `perspective`, from scratch.
    pub fn refresh(&self, pos: &Chess, perspective: Color) -> Vec<i32> {
        let mut acc: Vec<i32> = self.b1.iter().map(|&b| i32::from(b)).collect();
        for (sq, piece) in pos.board().iter() {
            let row = feature(perspective, sq, piece) * self.hidden;
            for (a, &w) in acc.iter_mut().zip(&self.w1[row..row + self.hidden]) {
                *a += i32::from(w);
            }
        }
        acc
    }

    /// The output layer over the two perspectives' sums, in centipawns.
    pub fn output(&self, ours: &[i32], theirs: &[i32]) -> i32 {
        let (w_ours, w_theirs) = self.w2.split_at(self.hidden);
        let mut sum: i64 = 0;
        for (acc, weights) in [(ours, w_ours), (theirs, w_theirs)] {
            for (&a, &w) in acc.iter().zip(weights) {
                let c = i64::from(a.clamp(0, QA));
                sum += match self.activation {
                    Activation::CReLU => c * i64::from(w),
                    Activation::SCReLU => c * c * i64::from(w),
                };
            }
        }
        // SCReLU's square carries one QA too many.
        if self.activation == Activation::SCReLU {
            sum /= i64::from(QA);
        }
        let out = sum + i64::from(self.b2);
        (out * i64::from(SCALE) / i64::from(QA * QB)) as i32
    }

    /// The evaluation of `pos` from the side to move, in centipawns.
    pub fn evaluate(&self, pos: &Chess) -> i32 {
        let us = pos.turn();
        let ours = self.refresh(pos, us);
        let theirs = self.refresh(pos, us.other());
        self.output(&ours, &theirs)
    }
}

/// The first layer's sums of one position for both perspectives (indexed by colour), kept
/// per ply in the search and brought up to date from the parent's by the pieces that moved.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Accumulator {
    pub sums: [Vec<i32>; 2],
}

impl Accumulator {
    /// Both perspectives' sums of `board` from scratch.
    pub fn refresh(&mut self, net: &Network, board: &Board) {
        for perspective in Color::ALL {
            let sums = &mut self.sums[perspective as usize];
            sums.clear();
            sums.extend(net.b1.iter().map(|&b| i32::from(b)));
            for (sq, piece) in board.iter() {
                net.add_row(sums, feature(perspective, sq, piece), 1);
            }
        }
    }

    /// The sums of `after` from `parent`, the sums of `before`: the rows of the pieces that
    /// left a square are taken off and those of the pieces that arrived added. Comparing the
    /// boards covers every kind of move (castling in any starting position, en passant,
    /// promotions); a null move changes nothing.
    pub fn update_from(
        &mut self,
        net: &Network,
        parent: &Accumulator,
        before: &Board,
        after: &Board,
    ) {
        for perspective in Color::ALL {
            let i = perspective as usize;
            self.sums[i].clone_from(&parent.sums[i]);
        }
        for color in Color::ALL {
            for role in Role::ALL {
                let was = before.by_piece(Piece { color, role });
                let now = after.by_piece(Piece { color, role });
                if was == now {
                    continue;
                }
                let piece = Piece { color, role };
                for (squares, sign) in [(was & !now, -1), (now & !was, 1)] {
                    for sq in squares {
                        for perspective in Color::ALL {
                            let sums = &mut self.sums[perspective as usize];
                            net.add_row(sums, feature(perspective, sq, piece), sign);
                        }
                    }
                }
            }
        }
    }

    /// The network's output for `turn` to move, in centipawns.
    pub fn evaluate(&self, net: &Network, turn: Color) -> i32 {
        net.output(&self.sums[turn as usize], &self.sums[turn.other() as usize])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn features_mirror_between_the_two_sides() {
        let p = Piece {
            color: Color::White,
            role: Role::Knight,
        };
        assert_eq!(feature(Color::White, Square::G1, p), 64 + 6);
        // White's knight on g1 is, for Black, an enemy knight on its own side's g8.
        assert_eq!(feature(Color::Black, Square::G1, p), 384 + 64 + 62);
        for f in 0..INPUTS {
            assert_eq!(flip_feature(flip_feature(f)), f);
        }
        assert_eq!(flip_feature(64 + 6), 384 + 64 + 62);
    }

    #[test]
    fn a_net_file_round_trips_and_bad_files_are_named() {
        let hidden = 4;
        let net = Network {
            hidden,
            activation: Activation::SCReLU,
            settings_hash: 0xdead_beef,
            w1: (0..INPUTS * hidden).map(|i| (i % 97) as i16 - 48).collect(),
            b1: vec![3, -4, 5, 6],
            w2: vec![1, 2, 3, 4, -5, -6, -7, -8],
            b2: -1234,
        };
        let bytes = net.to_bytes();
        assert_eq!(Network::from_bytes(&bytes), Ok(net));
        let e = Network::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(e.contains("expected"), "{e}");
        let e = Network::from_bytes(b"NOPE....").unwrap_err();
        assert!(e.contains("magic"), "{e}");
        assert!(Network::from_bytes(&[]).is_err());
    }
}

#[cfg(test)]
mod accumulator_tests {
    use super::*;
    use crate::position::Game;
    use crate::rng::Lcg;

    /// A net with varied made-up weights, enough to tell any two inputs apart.
    fn test_net(activation: Activation) -> Network {
        let hidden = 8;
        let mut rng = Lcg(99);
        let mut small = || (rng.next_u31() % 201) as i16 - 100;
        Network {
            hidden,
            activation,
            settings_hash: 0,
            w1: (0..INPUTS * hidden).map(|_| small()).collect(),
            b1: (0..hidden).map(|_| small()).collect(),
            w2: (0..2 * hidden).map(|_| small()).collect(),
            b2: 500,
        }
    }

    /// Random games (with null moves) from standard and Chess960 starts: after every move
    /// the incrementally kept sums equal a refresh, and so does the evaluation.
    #[test]
    fn incremental_sums_equal_a_refresh_after_random_games() {
        let net = test_net(Activation::SCReLU);
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
                acc.refresh(&net, game.pos.board());
                for _ in 0..60 {
                    let moves = game.pos.legal_moves();
                    if moves.is_empty() {
                        break;
                    }
                    let before = game.pos.clone();
                    let null = rng.next_u31().is_multiple_of(10) && !before.is_check();
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
                    }
                    let mut next = Accumulator::default();
                    next.update_from(&net, &acc, before.board(), game.pos.board());
                    let mut fresh = Accumulator::default();
                    fresh.refresh(&net, game.pos.board());
                    assert_eq!(
                        next,
                        fresh,
                        "{}",
                        shakmaty::fen::Fen::from_position(
                            &game.pos,
                            shakmaty::EnPassantMode::Legal
                        )
                    );
                    assert_eq!(
                        next.evaluate(&net, game.pos.turn()),
                        net.evaluate(&game.pos)
                    );
                    acc = next;
                }
            }
        }
        assert!(
            castles > 20 && en_passants > 5 && promotions > 20 && nulls > 100,
            "{castles} castles, {en_passants} en passant, {promotions} promotions, {nulls} nulls"
        );
    }

    /// A position and its colour flip (board mirrored, colours swapped, the other side to
    /// move) get the same evaluation: the network sees each side from its own view.
    #[test]
    fn the_evaluation_is_symmetric_under_a_colour_flip() {
        let net = test_net(Activation::CReLU);
        for fen in [
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1",
            "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
            "8/2P5/8/3pP3/8/8/5p2/k1K5 w - - 0 1",
        ] {
            let pos = Game::from_fen(fen, false).unwrap().pos;
            let flipped = Game::from_fen(&colour_flip(fen), false).unwrap().pos;
            assert_eq!(net.evaluate(&pos), net.evaluate(&flipped), "{fen}");
        }
    }

    /// The FEN of the colour-flipped position (castling and en passant dropped).
    fn colour_flip(fen: &str) -> String {
        let mut fields = fen.split(' ');
        let board = fields.next().unwrap_or("");
        let turn = fields.next().unwrap_or("w");
        let ranks: Vec<String> = board
            .split('/')
            .rev()
            .map(|r| {
                r.chars()
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
        let turn = if turn == "w" { "b" } else { "w" };
        format!("{} {turn} - - 0 1", ranks.join("/"))
    }
}
