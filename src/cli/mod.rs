//! The `ferrum` command line, declared with clap: no subcommand speaks UCI on stdin/stdout;
//! each subcommand is a variant whose flags carry their help, run by its own module.

pub mod chess;
pub mod connect4;
pub mod data;
pub mod progress;
pub mod spsa;
pub mod train;
pub mod tree;

use clap::{Parser, Subcommand};

use crate::uci::options::Options;

#[derive(Parser, Debug)]
#[command(
    name = "ferrum",
    // `ferrum --version` says what the UCI `id name` says: "Ferrum 0.2.0 (b89bfb8)".
    display_name = "Ferrum",
    version = env!("FERRUM_VERSION"),
    about = "Ferrum, a UCI chess engine",
    long_about = "Ferrum, a UCI chess engine. Without a subcommand it speaks UCI on stdin and \
                  stdout (what chess GUIs run); the subcommands are the engine's own instruments.",
    after_help = "Run 'ferrum <COMMAND> --help' for the flags of a command.",
    args_conflicts_with_subcommands = true
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Option<Command>,
    /// Speak UCI with the hand-written evaluation (the option UseNNUE starts false)
    #[arg(long)]
    pub hce: bool,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Search the 40 bench positions, each with a fresh 16 MB table; the last line is
    /// "<nodes> nodes <nps> nps"
    Bench(chess::BenchArgs),
    /// Count the leaves of the move tree of a position, or check a suite of known counts
    Perft(chess::PerftArgs),
    /// Search each position of an EPD test suite and count the solved ones
    Epd(chess::EpdArgs),
    /// Print the hand-written evaluation term by term for White and for Black (phase, scale,
    /// score), then the net's score for the side to move (not with --hce)
    Eval(chess::EvalArgs),
    /// Win/draw/loss and distance to zeroing from Syzygy tables
    #[command(
        alias = "probe",
        long_about = "Prints 'wdl <n> dtz <n>' for a position from the Syzygy tables. WDL is -2 \
                      (loss) .. 2 (win) for the side to move, taking the position as reached by \
                      a capture or pawn move; DTZ counts plies to the next capture, pawn move or \
                      mate (negative when losing)."
    )]
    Tb(chess::TbArgs),
    /// Play self-play games and keep quiet positions with their score and the game's result
    Datagen(data::DatagenArgs),
    /// Fit the hand-written evaluation's weights to game results (Texel tuning with Adam)
    Tune(data::TuneArgs),
    /// Train the NNUE from packed self-play records
    Train(train::TrainArgs),
    /// The Connect-Four solver: score positions or benchmark test sets
    Connect4(connect4::Connect4Args),
    /// Draw the tree a search visits as SVG
    Tree(tree::TreeArgs),
    /// Print the search parameters as OpenBench's SPSA input ("name, int, value, min, max,
    /// c_end, r_end"; c_end a twentieth of the range, at least 1; r_end 0.002), the on/off
    /// switches left out; a tune runs on the tuning build (`make TUNE=1`)
    SpsaInputs,
}

/// Runs the command line's choice: the UCI loop when no subcommand is given.
pub fn run(cli: Cli) -> Result<(), String> {
    let Some(command) = cli.command else {
        let defaults = Options {
            use_nnue: !cli.hce,
            ..Options::default()
        };
        crate::play::run(defaults);
        return Ok(());
    };
    match command {
        Command::Bench(a) => chess::bench(a),
        Command::Perft(a) => chess::perft(a),
        Command::Epd(a) => chess::epd(a),
        Command::Eval(a) => chess::eval(a),
        Command::Tb(a) => chess::tb(a),
        Command::Datagen(a) => data::datagen(a),
        Command::Tune(a) => data::tune(a),
        Command::Train(a) => train::run(a),
        Command::Connect4(a) => connect4::run(a),
        Command::Tree(a) => tree::run(a),
        Command::SpsaInputs => spsa::run(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::CommandFactory;

    #[test]
    fn the_declaration_is_consistent() {
        Cli::command().debug_assert();
    }

    #[test]
    fn no_argument_means_uci_and_legacy_forms_still_parse() {
        assert!(Cli::try_parse_from(["ferrum"]).unwrap().command.is_none());
        let bench = Cli::try_parse_from(["ferrum", "bench", "12"]).unwrap();
        assert!(matches!(bench.command, Some(Command::Bench(b)) if b.depth == Some(12)));
        let probe = Cli::try_parse_from(["ferrum", "probe", "8/8/8/8/8/8/8/K1k5", "w", "-", "-"]);
        assert!(matches!(probe.unwrap().command, Some(Command::Tb(t)) if t.fen.len() == 4));
        assert!(Cli::try_parse_from(["ferrum", "bench", "0"]).is_err());
    }

    #[test]
    fn hce_alone_means_uci_with_the_hand_written_evaluation() {
        let cli = Cli::try_parse_from(["ferrum", "--hce"]).unwrap();
        assert!(cli.hce && cli.command.is_none());
        assert!(!Cli::try_parse_from(["ferrum"]).unwrap().hce);
        // A subcommand's own --hce is the subcommand's; before it, it is refused.
        let bench = Cli::try_parse_from(["ferrum", "bench", "--hce"]).unwrap();
        assert!(matches!(bench.command, Some(Command::Bench(b)) if b.net.hce));
        assert!(Cli::try_parse_from(["ferrum", "--hce", "bench"]).is_err());
    }

    #[test]
    fn perft_needs_a_depth_or_a_suite_but_not_both() {
        assert!(Cli::try_parse_from(["ferrum", "perft"]).is_err());
        assert!(
            Cli::try_parse_from(["ferrum", "perft", "--suite", "f", "--max-depth", "3"]).is_ok()
        );
        assert!(Cli::try_parse_from(["ferrum", "perft", "3", "--suite", "f"]).is_err());
        assert!(Cli::try_parse_from(["ferrum", "perft", "3", "--max-depth", "3"]).is_err());
    }

    #[test]
    fn an_unknown_flag_is_named_in_the_error() {
        let e = Cli::try_parse_from(["ferrum", "epd", "f.epd", "--movtime", "5"]).unwrap_err();
        assert!(e.to_string().contains("'--movtime'"), "{e}");
        assert_eq!(e.exit_code(), 2);
    }
}
