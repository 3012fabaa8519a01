//! The protocol fuzzer's parts: the engine process, the line generator, and the model of
//! what the engine must have understood.

pub mod engine;
pub mod lines;
pub mod model;
