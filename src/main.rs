//! The `ferrum` binary: logs to stderr, parses the command line (see `cli`) and runs it;
//! with no argument it speaks UCI on stdin/stdout.
#![deny(clippy::unwrap_used, clippy::expect_used)]

use std::process::ExitCode;

use clap::Parser;
use ferrum::cli::{Cli, run};

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    // Bad flags end here: clap prints the error and a usage line on stderr and exits with 2.
    let cli = Cli::parse();
    if cli.command.is_some() {
        quiet_on_closed_pipe();
        plain_error_on_failed_stdout();
    }
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("ferrum: {msg}");
            ExitCode::from(2)
        }
    }
}

/// A subcommand whose reader goes away (`ferrum datagen --stats F | head`) ends quietly, as
/// other command-line tools do, instead of panicking in `println!`. Only for subcommands: in
/// UCI mode a write error is handled where the line is written.
fn quiet_on_closed_pipe() {
    #[cfg(target_os = "linux")]
    // SAFETY: restores the default action of one signal before any thread is started here.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// A subcommand whose stdout cannot be written (a full disk, `> /dev/full`) ends with
/// "ferrum: failed printing to stdout: <reason>" and exit code 2, as other errors do, instead
/// of a panic report: `println!` panics there, and the panic is turned into the error here.
fn plain_error_on_failed_stdout() {
    let report = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        let msg = ferrum::search::pool::panic_message(info.payload());
        if msg.starts_with("failed printing to stdout") {
            eprintln!("ferrum: {msg}");
            std::process::exit(2);
        }
        report(info);
    }));
}
