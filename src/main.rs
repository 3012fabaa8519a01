//! The `ferrum` binary: logs to stderr, parses the command line (see `cli`) and runs it;
//! with no argument it speaks UCI on stdin/stdout.

use std::process::ExitCode;

use clap::Parser;
use ferrum::cli::{Cli, run};

fn main() -> ExitCode {
    env_logger::Builder::from_env(env_logger::Env::default().default_filter_or("warn"))
        .target(env_logger::Target::Stderr)
        .init();
    // Bad flags end here: clap prints the error and a usage line on stderr and exits with 2.
    let cli = Cli::parse();
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(msg) => {
            eprintln!("ferrum: {msg}");
            ExitCode::from(2)
        }
    }
}
