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
