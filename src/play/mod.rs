//! Playing a game for a GUI: the engine between the protocol and the search (position,
//! options, table, thread pool, `go` to `bestmove`) and the weakened play of
//! `UCI_LimitStrength`.

pub mod engine;
pub mod strength;

use std::sync::Arc;

use crate::search::time::Signals;
use crate::uci::options::Options;
use crate::uci::output::Out;
use engine::{Engine, Message};

/// Speaks UCI on stdin/stdout until `quit` or the end of input (which counts as `quit`): the
/// protocol's reader (`uci::stdin`) on this thread, the engine on its own, its options
/// starting as `defaults`.
pub fn run(defaults: Options) {
    let out = Out::stdout();
    let engine = match Engine::new(out.clone(), defaults) {
        Ok(e) => e,
        Err(e) => {
            log::error!("{e}");
            out.info_string(&format!("error: {e}"));
            return;
        }
    };
    let signals = Arc::new(Signals::default());
    let (tx, rx) = crossbeam_channel::unbounded::<Message>();
    let engine_thread = std::thread::spawn(move || engine.run(rx));
    crate::uci::stdin::read(std::io::stdin().lock(), &out, &signals, |command, token| {
        tx.send(Message { command, token }).is_ok()
    });
    drop(tx);
    if engine_thread.join().is_err() {
        log::error!("engine thread ended abnormally");
    }
}
