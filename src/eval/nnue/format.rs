//! The net file `ferrum train` writes and the engine loads: its header and quantised
//! weights, read with every field checked (a bad file is refused with the reason).
//!
//! File (little-endian): the header below (24 bytes in version 1, 32 in version 2), then w1
//! (768K x H i16, a row per input, bucket by bucket), b1 (H i16), w2 (B x 2H i16, bucket by
//! bucket, the side to move's half first), b2 (B i32).
//! ```text
//!  0..4   b"FRNN"      4..6  format version (1, 2)  6  activation (0 CReLU, 1 SCReLU)
//!  7      B (0 is 1)   8..10 H                      10..12 output scale (centipawns)
//! 12..14  QA           14..16 QB                    16..24 hash of the training settings
//! 24      K (version 2 only; 1, 2 or 4)             25..32 zero (version 2 only)
//! ```

use std::io::Read;

use super::{
    Activation, INPUTS, KingLayout, MAX_BUCKETS, MAX_PIECES, Network, QA, QB, SCALE, narrow_w2,
    widest_sum,
};

const MAGIC: &[u8; 4] = b"FRNN";
const VERSION: u16 = 1;
/// The format of nets with king buckets: the header has 8 more bytes.
const VERSION_KINGS: u16 = 2;
const HEADER_BYTES: usize = 24;
const HEADER_BYTES_KINGS: usize = 32;

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

/// The largest file the header can describe: four king buckets, eight output buckets and
/// 65,535 hidden neurons (about 405 MB).
pub const MAX_FILE_BYTES: u64 = (HEADER_BYTES_KINGS
    + 2 * (4 * INPUTS * 65_535 + 65_535 + MAX_BUCKETS * 2 * 65_535)
    + 4 * MAX_BUCKETS) as u64;

/// A net file's bytes from `reader`, refused at once when its first four bytes are not a
/// net's and read no further than the largest net could be, so that a device or a huge
/// file of something else is not read into memory whole. The error says what is wrong
/// (not a net, too large, or the read that failed).
pub fn read_net_bytes(reader: impl Read) -> Result<Vec<u8>, String> {
    read_net_bytes_within(reader, MAX_FILE_BYTES)
}

/// `read_net_bytes` with `limit` for the largest net.
pub fn read_net_bytes_within(mut reader: impl Read, limit: u64) -> Result<Vec<u8>, String> {
    let cannot = |e: std::io::Error| format!("cannot read it: {e}");
    let mut bytes = Vec::new();
    (&mut reader)
        .take(MAGIC.len() as u64)
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() < MAGIC.len() {
        // Too short: `from_bytes` says so.
        return Ok(bytes);
    }
    if bytes.as_slice() != MAGIC {
        return Err("not a Ferrum net file (bad magic)".to_string());
    }
    reader
        .take((limit + 1).saturating_sub(MAGIC.len() as u64))
        .read_to_end(&mut bytes)
        .map_err(cannot)?;
    if bytes.len() as u64 > limit {
        return Err(format!(
            "larger than any net can be ({limit} bytes): not a net file"
        ));
    }
    Ok(bytes)
}

impl Network {
    pub fn from_bytes(bytes: &[u8]) -> Result<Network, String> {
        let mut at = 0;
        if &take::<4>(bytes, &mut at)? != MAGIC {
            return Err("not a Ferrum net file (bad magic)".to_string());
        }
        let version = u16::from_le_bytes(take(bytes, &mut at)?);
        if version != VERSION && version != VERSION_KINGS {
            return Err(format!(
                "net format version {version}, expected {VERSION} or {VERSION_KINGS}"
            ));
        }
        let activation = match take::<1>(bytes, &mut at)?[0] {
            0 => Activation::CReLU,
            1 => Activation::SCReLU,
            a => return Err(format!("unknown activation code {a}")),
        };
        let buckets = usize::from(take::<1>(bytes, &mut at)?[0]).max(1);
        if buckets > MAX_BUCKETS {
            return Err(format!(
                "unsupported net: {buckets} output buckets (at most {MAX_BUCKETS})"
            ));
        }
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
        let (kings, header) = if version == VERSION_KINGS {
            let extra = take::<8>(bytes, &mut at)?;
            let kings = match extra[0] {
                k @ (1 | 2 | 4) => KingLayout(k),
                k => return Err(format!("unsupported net: {k} king buckets (1, 2 or 4)")),
            };
            if extra[1..].iter().any(|&b| b != 0) {
                return Err("unsupported net: header bytes 25-31 are not zero".to_string());
            }
            (kings, HEADER_BYTES_KINGS)
        } else {
            (KingLayout::NONE, HEADER_BYTES)
        };
        let inputs = kings.inputs();
        let expected = header + 2 * (inputs * hidden + hidden + buckets * 2 * hidden) + 4 * buckets;
        if bytes.len() != expected {
            return Err(format!(
                "net file is {} bytes, expected {expected} for hidden size {hidden}, {} king \
                 bucket(s) and {buckets} output bucket(s)",
                bytes.len(),
                kings.count()
            ));
        }
        let w1 = take_i16s(bytes, &mut at, inputs * hidden)?;
        let b1 = take_i16s(bytes, &mut at, hidden)?;
        let w2 = take_i16s(bytes, &mut at, buckets * 2 * hidden)?;
        let mut b2 = Vec::with_capacity(buckets);
        for _ in 0..buckets {
            b2.push(i32::from_le_bytes(take(bytes, &mut at)?));
        }
        if let Some((neuron, bound)) = widest_sum(hidden, &w1, &b1) {
            return Err(format!(
                "unsupported net: hidden neuron {neuron}'s sum could reach {bound}, beyond the \
                 16-bit sums' {} (its bias and {MAX_PIECES} of its largest input weight)",
                i16::MAX
            ));
        }
        Ok(Network {
            hidden,
            activation,
            kings,
            settings_hash,
            w1,
            b1,
            buckets,
            narrow_w2: narrow_w2(&w2),
            w2,
            b2,
        })
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(
            HEADER_BYTES_KINGS
                + 2 * (self.w1.len() + self.b1.len() + self.w2.len())
                + 4 * self.b2.len(),
        );
        out.extend_from_slice(MAGIC);
        // Nets without king buckets keep the first format, byte for byte.
        let kings = self.kings != KingLayout::NONE;
        let version = if kings { VERSION_KINGS } else { VERSION };
        out.extend_from_slice(&version.to_le_bytes());
        out.push(match self.activation {
            Activation::CReLU => 0,
            Activation::SCReLU => 1,
        });
        // One bucket is written as 0, so such files are those of the first nets byte for byte.
        out.push(if self.buckets > 1 {
            self.buckets as u8
        } else {
            0
        });
        for v in [self.hidden as i32, SCALE, QA, QB] {
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        out.extend_from_slice(&self.settings_hash.to_le_bytes());
        if kings {
            out.push(self.kings.0);
            out.extend_from_slice(&[0; HEADER_BYTES_KINGS - HEADER_BYTES - 1]);
        }
        for w in self.w1.iter().chain(&self.b1).chain(&self.w2) {
            out.extend_from_slice(&w.to_le_bytes());
        }
        for b in &self.b2 {
            out.extend_from_slice(&b.to_le_bytes());
        }
        out
    }

    /// What the net is, for `info string` and `ferrum eval`: "hidden 64, screlu" (and its king
    /// buckets and ", 8 output buckets" when it has them).
    pub fn describe(&self) -> String {
        let buckets = if self.buckets > 1 {
            format!(", {} output buckets", self.buckets)
        } else {
            String::new()
        };
        let kings = match self.kings.count() {
            0 => String::new(),
            1 => ", files mirrored by the king".to_string(),
            k => format!(", {k} king buckets (files mirrored)"),
        };
        format!(
            "hidden {}, {}{kings}{buckets}",
            self.hidden,
            self.activation.name()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::{INPUTS, MAX_W1};
    use super::*;

    #[test]
    fn a_net_file_round_trips_and_bad_files_are_named() {
        let hidden = 4;
        let net = Network {
            kings: KingLayout::NONE,
            hidden,
            activation: Activation::SCReLU,
            settings_hash: 0xdead_beef,
            w1: (0..INPUTS * hidden).map(|i| (i % 97) as i16 - 48).collect(),
            b1: vec![3, -4, 5, 6],
            buckets: 1,
            w2: vec![1, 2, 3, 4, -5, -6, -7, -8],
            b2: vec![-1234],
            narrow_w2: true,
        };
        let bytes = net.to_bytes();
        // One bucket is written as the first nets were: a 0 in the header's byte 7.
        assert_eq!(bytes[7], 0);
        assert_eq!(Network::from_bytes(&bytes), Ok(net.clone()));
        let e = Network::from_bytes(&bytes[..bytes.len() - 1]).unwrap_err();
        assert!(e.contains("expected"), "{e}");
        // Three buckets: their weights and biases in order, and the count in byte 7.
        let mut three = net.clone();
        three.buckets = 3;
        three.w2 = (1..=24).collect();
        three.b2 = vec![-5, 0, 77];
        let bytes = three.to_bytes();
        assert_eq!(bytes[7], 3);
        assert_eq!(Network::from_bytes(&bytes), Ok(three));
        assert!(Network::from_bytes(&bytes[..bytes.len() - 4]).is_err());
        let mut nine = bytes.clone();
        nine[7] = 9;
        let e = Network::from_bytes(&nine).unwrap_err();
        assert!(e.contains("9 output buckets"), "{e}");
        // King buckets: format version 2, their count in byte 24, four times the rows.
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 1);
        let mut kinged = net.clone();
        kinged.kings = KingLayout::new(4).unwrap();
        kinged.w1 = (0..4 * INPUTS * hidden)
            .map(|i| (i % 89) as i16 - 44)
            .collect();
        let bytes = kinged.to_bytes();
        assert_eq!(u16::from_le_bytes([bytes[4], bytes[5]]), 2);
        assert_eq!(
            (bytes[24], bytes.len()),
            (4, 32 + 2 * (4 * 768 * 4 + 4 + 8) + 4)
        );
        assert_eq!(Network::from_bytes(&bytes), Ok(kinged.clone()));
        assert!(kinged.describe().contains("4 king buckets"));
        let mut three = bytes.clone();
        three[24] = 3;
        let e = Network::from_bytes(&three).unwrap_err();
        assert!(e.contains("3 king buckets"), "{e}");
        let mut dirty = bytes.clone();
        dirty[31] = 1;
        assert!(Network::from_bytes(&dirty).is_err());
        let e = Network::from_bytes(&bytes[..bytes.len() - 2]).unwrap_err();
        assert!(e.contains("4 king bucket(s)"), "{e}");
        let e = Network::from_bytes(b"NOPE....").unwrap_err();
        assert!(e.contains("magic"), "{e}");
        assert!(Network::from_bytes(&[]).is_err());
    }

    /// A sum that could pass i16 in some position is refused at load, one inside is taken.
    #[test]
    fn a_net_whose_sums_could_leave_16_bits_is_refused() {
        let hidden = 3;
        let mut net = Network {
            kings: KingLayout::NONE,
            hidden,
            activation: Activation::SCReLU,
            settings_hash: 0,
            w1: vec![5; INPUTS * hidden],
            b1: vec![-100, 7, 0],
            buckets: 1,
            w2: vec![1; 2 * hidden],
            b2: vec![0],
            narrow_w2: true,
        };
        // Neuron 0: 100 + 32 x 1020 = 32,740 fits; 32 x 1021 + 100 = 32,772 does not, nor
        // does neuron 2's 32 x 1024 = 32,768 with no bias.
        net.w1[17 * hidden] = -1020;
        assert_eq!(widest_sum(hidden, &net.w1, &net.b1), None);
        assert_eq!(Network::from_bytes(&net.to_bytes()), Ok(net.clone()));
        net.w1[17 * hidden] = 1021;
        assert_eq!(widest_sum(hidden, &net.w1, &net.b1), Some((0, 32_772)));
        net.w1[17 * hidden] = 0;
        net.w1[INPUTS * hidden - 1] = 1024;
        assert_eq!(widest_sum(hidden, &net.w1, &net.b1), Some((2, 32_768)));
        let e = Network::from_bytes(&net.to_bytes()).unwrap_err();
        assert!(e.contains("hidden neuron 2") && e.contains("32768"), "{e}");
        // Exactly i16::MAX is inside: 31 + 32 x 1023 = 32,767.
        net.w1[INPUTS * hidden - 1] = 1023;
        net.b1[2] = -31;
        assert_eq!(widest_sum(hidden, &net.w1, &net.b1), None);
        net.b1[2] = 32;
        assert_eq!(widest_sum(hidden, &net.w1, &net.b1), Some((2, 32_768)));
        // The trainer's limit keeps every net it writes inside.
        let w1 = vec![MAX_W1; INPUTS];
        assert_eq!(widest_sum(1, &w1, &[-MAX_W1]), None);
        assert_eq!(widest_sum(0, &[], &[]), None);
    }
}
