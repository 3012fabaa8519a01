//! The protocol's reading side: one thread reads stdin a line at a time, flips the stop and
//! ponderhit counters at once, and queues every command for the engine thread.

use std::io::BufRead;
use std::sync::Arc;

use crate::play::engine::{Engine, Message};
use crate::search::time::{Signals, StopToken};
use crate::uci::options::Options;
use crate::uci::output::Out;
use crate::uci::parse::{Command, parse_line};

/// Speaks UCI on stdin/stdout until `quit` or the end of input (which counts as `quit`),
/// the options starting as `defaults`.
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

    let stdin = std::io::stdin();
    let mut input = stdin.lock();
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let command = match input.read_until(b'\n', &mut buf) {
            // The end of input is `quit`, except that a `perft` still prints its count.
            Ok(0) | Err(_) => {
                signals.input_closed();
                let token = StopToken::new(Arc::clone(&signals));
                let _ = tx.send(Message {
                    command: Command::Quit,
                    token,
                });
                break;
            }
            Ok(_) => match read_command(&buf, &out) {
                Some(c) => c,
                None => continue,
            },
        };
        flip_signals(&command, &signals);
        let quit = command == Command::Quit;
        let token = StopToken::new(Arc::clone(&signals));
        if tx.send(Message { command, token }).is_err() || quit {
            break;
        }
    }
    drop(tx);
    if engine_thread.join().is_err() {
        log::error!("engine thread ended abnormally");
    }
}

/// Parses one raw input line (bytes that are not UTF-8 are replaced, not fatal); warnings go
/// to the GUI as `info string` lines. None for a line with no command.
fn read_command(raw: &[u8], out: &Out) -> Option<Command> {
    let line = String::from_utf8_lossy(raw);
    log::debug!("<< {}", line.trim_end());
    let parsed = parse_line(&line);
    for w in &parsed.warnings {
        out.info_string(&format!("error: {w}"));
    }
    parsed.command
}

// `stop`, `quit` and `ponderhit` must reach a running search before the engine thread reads
// its queue, so the reader flips the shared counters itself.
fn flip_signals(command: &Command, signals: &Signals) {
    match command {
        Command::Stop | Command::Quit => {
            signals.stop();
        }
        Command::PonderHit => {
            signals.ponderhit();
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stop_quit_and_ponderhit_flip_their_counters_and_nothing_else_does() {
        let signals = Arc::new(Signals::default());
        for (c, stop, ponderhit) in [
            (Command::IsReady, false, false),
            (Command::Stop, true, false),
            (Command::Quit, true, false),
            (Command::PonderHit, false, true),
        ] {
            let token = StopToken::new(Arc::clone(&signals));
            flip_signals(&c, &signals);
            assert_eq!(token.stop_requested(), stop, "{c:?}");
            assert_eq!(token.ponderhit(), ponderhit, "{c:?}");
        }
    }

    #[test]
    fn lines_parse_to_commands_and_bytes_that_are_not_utf8_do_not_stop_the_reader() {
        let out = Out::to(Box::new(std::io::sink()));
        assert_eq!(read_command(b"isready\n", &out), Some(Command::IsReady));
        assert_eq!(read_command(b"stop\r\n", &out), Some(Command::Stop));
        assert_eq!(read_command(b"\n", &out), None);
        assert_eq!(read_command(b"\xff\xfe\n", &out), None);
    }
}
