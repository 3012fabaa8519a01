//! The `ferrum` command line: with no argument it speaks UCI on stdin/stdout; `bench`,
//! `perft` and `epd` run the engine's own instruments.

use std::io::BufRead;
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use ferrum::engine::{Engine, Message};
use ferrum::search::time::{Signals, StopToken};
use ferrum::uci::output::Out;
use ferrum::uci::parse::{Command, parse_line};
use ferrum::{bench, perft, position::Game};

const USAGE: &str = "usage: ferrum                      speak UCI on stdin/stdout
       ferrum bench [DEPTH]        search the bench positions, print nodes and nps
       ferrum perft DEPTH [--fen FEN] [--divide]
       ferrum --version";

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.first().map(String::as_str) {
        None => uci_loop(),
        Some("bench") => match args.get(1).map(|d| d.parse::<u32>()) {
            None => bench::run(None, &Out::stdout()),
            Some(Ok(d)) if d > 0 => bench::run(Some(d), &Out::stdout()),
            Some(_) => return fail(&format!("bench: bad depth '{}'", args[1])),
        },
        Some("perft") => {
            if let Err(e) = perft_command(&args[1..]) {
                return fail(&e);
            }
        }
        Some("--version" | "-V") => println!("{}", ferrum::engine::NAME),
        Some("--help" | "-h" | "help") => println!("{USAGE}"),
        Some(other) => return fail(&format!("unknown command '{other}'")),
    }
    ExitCode::SUCCESS
}

fn fail(msg: &str) -> ExitCode {
    eprintln!("ferrum: {msg}\n{USAGE}");
    ExitCode::from(2)
}

fn perft_command(args: &[String]) -> Result<(), String> {
    let mut depth = None;
    let mut fen = None;
    let mut divide = false;
    let mut i = 0;
    while i < args.len() {
        match args[i].as_str() {
            "--fen" => {
                fen = Some(args.get(i + 1).ok_or("--fen needs a FEN")?.clone());
                i += 1;
            }
            "--divide" => divide = true,
            d => {
                depth = Some(
                    d.parse::<u32>()
                        .map_err(|_| format!("perft: bad depth '{d}'"))?,
                )
            }
        }
        i += 1;
    }
    let depth = depth.ok_or("perft: missing depth")?;
    let game = match fen {
        Some(f) => Game::from_fen(&f, false)?,
        None => Game::default(),
    };
    perft::run_divide(&game, depth, divide, &Out::stdout());
    Ok(())
}

/// The protocol thread: reads lines, flips the stop/ponderhit counters at once, and queues
/// everything for the engine thread. End of input is `quit`.
fn uci_loop() {
    let out = Out::stdout();
    let engine = match Engine::new(out.clone()) {
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
            Ok(0) | Err(_) => Command::Quit,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                log::debug!("<< {}", line.trim_end());
                let parsed = parse_line(&line);
                for w in &parsed.warnings {
                    out.info_string(&format!("error: {w}"));
                }
                match parsed.command {
                    Some(c) => c,
                    None => continue,
                }
            }
        };
        match command {
            Command::Stop | Command::Quit => {
                signals.stops.fetch_add(1, Ordering::SeqCst);
            }
            Command::PonderHit => {
                signals.ponderhits.fetch_add(1, Ordering::SeqCst);
            }
            _ => {}
        }
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
