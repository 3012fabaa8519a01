//! `ferrum train`: fits the NNUE (see `eval/nnue.rs`) to packed self-play records on the CPU.
//! The loss is the squared error between sigmoid(output) and a blend of sigmoid(score / 400)
//! and the game result; each part lives in its own file below and is re-exported here.

mod adam;
mod checkpoint;
mod curve;
mod network;
mod run;
mod sample;
#[cfg(test)]
mod testing;

pub use adam::{Adam, learning_rate};
pub use checkpoint::{read_checkpoint, write_checkpoint};
pub use curve::{Curve, curve_svg};
pub use network::Params;
pub use run::{Outputs, Settings, Start, fnv1a, train};
pub use sample::{Positions, Sample, Split};

// The logistic function: an output, or a score over 400, as a win probability.
fn sigmoid(x: f32) -> f32 {
    1.0 / (1.0 + (-x).exp())
}
