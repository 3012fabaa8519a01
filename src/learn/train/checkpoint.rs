//! The checkpoint file a run writes after every epoch and resumes from: the float weights,
//! Adam's moments and step count, the epochs done and the loss curve so far.

use std::path::Path;

use super::{Adam, Curve, Params};
use crate::eval::nnue::{Activation, KingLayout};

const CHECKPOINT_MAGIC: &[u8; 4] = b"FRCK";

/// Writes weights, Adam moments, the epoch and the curve so far.
pub fn write_checkpoint(
    path: &Path,
    params: &Params,
    adam: &Adam,
    epoch: usize,
    curve: &Curve,
) -> Result<(), String> {
    let mut out = Vec::new();
    out.extend_from_slice(CHECKPOINT_MAGIC);
    out.extend_from_slice(&(params.hidden as u32).to_le_bytes());
    // Bit 0: SCReLU; bits 1-3: output buckets less one (0 in checkpoints from before
    // buckets, which had one); bits 4-6: king buckets (0 in checkpoints from before them).
    out.push(
        u8::from(params.activation == Activation::SCReLU)
            | ((params.buckets - 1) as u8) << 1
            | (params.kings.count() as u8) << 4,
    );
    out.extend_from_slice(&(epoch as u32).to_le_bytes());
    out.extend_from_slice(&adam.steps.to_le_bytes());
    out.extend_from_slice(&(curve.len() as u32).to_le_bytes());
    for (t, v) in curve {
        out.extend_from_slice(&t.to_le_bytes());
        out.extend_from_slice(&v.to_le_bytes());
    }
    for x in params.v.iter().chain(&adam.m).chain(&adam.s) {
        out.extend_from_slice(&x.to_le_bytes());
    }
    // Written aside and renamed, so a stop mid-write never leaves a broken checkpoint.
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, out).map_err(|e| format!("cannot write '{}': {e}", tmp.display()))?;
    std::fs::rename(&tmp, path).map_err(|e| format!("cannot write '{}': {e}", path.display()))
}

/// Reads a checkpoint: the weights, Adam, the epochs done and the curve.
pub fn read_checkpoint(path: &Path) -> Result<(Params, Adam, usize, Curve), String> {
    let bytes =
        std::fs::read(path).map_err(|e| format!("cannot read '{}': {e}", path.display()))?;
    let bad = || format!("'{}' is not a Ferrum training checkpoint", path.display());
    let mut at = 0;
    let mut take = |n: usize| -> Result<&[u8], String> {
        let s = bytes.get(at..at + n).ok_or_else(bad)?;
        at += n;
        Ok(s)
    };
    if take(4)? != CHECKPOINT_MAGIC {
        return Err(bad());
    }
    let word = |b: &[u8]| u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
    let hidden = word(take(4)?) as usize;
    let shape = take(1)?[0];
    let activation = if shape & 1 == 1 {
        Activation::SCReLU
    } else {
        Activation::CReLU
    };
    let buckets = usize::from(shape >> 1 & 7) + 1;
    let kings = KingLayout::new(usize::from(shape >> 4))
        .map_err(|e| format!("'{}': {e}", path.display()))?;
    let epoch = word(take(4)?) as usize;
    let mut steps = [0u8; 8];
    steps.copy_from_slice(take(8)?);
    let points = word(take(4)?) as usize;
    let mut curve = Vec::new();
    for _ in 0..points.min(1 << 20) {
        let mut t = [0u8; 8];
        t.copy_from_slice(take(8)?);
        let mut v = [0u8; 8];
        v.copy_from_slice(take(8)?);
        curve.push((f64::from_le_bytes(t), f64::from_le_bytes(v)));
    }
    let n = Params::len(hidden, buckets, kings);
    let mut floats = |count: usize| -> Result<Vec<f32>, String> {
        let raw = take(4 * count)?;
        Ok(raw
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect())
    };
    let v = floats(n)?;
    let m = floats(n)?;
    let s = floats(n)?;
    Ok((
        Params {
            hidden,
            activation,
            buckets,
            kings,
            v,
        },
        Adam {
            m,
            s,
            steps: u64::from_le_bytes(steps),
        },
        epoch,
        curve,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_checkpoint_round_trips_and_a_cut_or_foreign_file_is_refused() {
        let dir = std::env::temp_dir().join(format!("ferrum-checkpoint-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("checkpoint.bin");
        let curve = vec![(0.1, 0.2), (0.05, 0.15)];
        // Output buckets, and king buckets with (4) and without (1) the shared rows.
        for kings in [0, 1, 4] {
            let kings = KingLayout::new(kings).unwrap();
            let params = Params::random(2, Activation::CReLU, 3, kings, 7);
            let mut adam = Adam::new(params.v.len());
            adam.m[3] = 0.25;
            adam.s[5] = 0.5;
            adam.steps = 42;
            write_checkpoint(&path, &params, &adam, 2, &curve).unwrap();
            assert_eq!(
                read_checkpoint(&path).unwrap(),
                (params, adam, 2, curve.clone())
            );
        }
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 1]).unwrap();
        let e = read_checkpoint(&path).unwrap_err();
        assert!(e.contains("is not a Ferrum training checkpoint"), "{e}");
        std::fs::write(&path, b"FRNN and more").unwrap();
        assert!(read_checkpoint(&path).is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
