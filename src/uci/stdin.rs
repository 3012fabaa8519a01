//! The protocol's reading side: a line at a time from the input, the stop and ponderhit
//! counters flipped at once, every command handed on (to the engine's queue: `play::run`).

use std::io::BufRead;
use std::sync::Arc;

use crate::search::time::{Signals, StopToken};
use crate::uci::output::Out;
use crate::uci::parse::{Command, parse_line};

/// Reads `input` until `quit` or its end (which counts as `quit`): each command, with a stop
/// token of `signals` taken when it was read, goes to `deliver`, which says whether to go on
/// (false when nothing takes commands any more); warnings go to the GUI through `out`.
pub fn read(
    mut input: impl BufRead,
    out: &Out,
    signals: &Arc<Signals>,
    mut deliver: impl FnMut(Command, StopToken) -> bool,
) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let command = match input.read_until(b'\n', &mut buf) {
            // The end of input is `quit`, except that a `perft` still prints its count.
            Ok(0) | Err(_) => {
                signals.input_closed();
                let _ = deliver(Command::Quit, StopToken::new(Arc::clone(signals)));
                break;
            }
            Ok(_) => match read_command(&buf, out) {
                Some(c) => c,
                None => continue,
            },
        };
        flip_signals(&command, signals);
        let quit = command == Command::Quit;
        let token = StopToken::new(Arc::clone(signals));
        if !deliver(command, token) || quit {
            break;
        }
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
    fn the_reader_hands_on_each_command_and_ends_at_quit_or_the_end_of_input() {
        let out = Out::to(Box::new(std::io::sink()));
        let signals = Arc::new(Signals::default());
        let mut seen = Vec::new();
        let input: &[u8] = b"uci\n\nisready\nstop\nquit\ngo\n";
        read(input, &out, &signals, |c, _| {
            seen.push(c);
            true
        });
        assert_eq!(
            seen,
            [Command::Uci, Command::IsReady, Command::Stop, Command::Quit]
        );
        // The end of input is a quit; a refused command ends the reading too.
        seen.clear();
        read(&b"isready\n"[..], &out, &signals, |c, _| {
            seen.push(c);
            true
        });
        assert_eq!(seen, [Command::IsReady, Command::Quit]);
        let mut count = 0;
        read(&b"isready\nisready\n"[..], &out, &signals, |_, _| {
            count += 1;
            false
        });
        assert_eq!(count, 1);
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
