//! `ferrum tree`: reads the position and settings from the command line, records the
//! search, and writes the SVG with the game's names, value format and diagram.

use clap::Args;

use crate::tree::games::{chess_picture, connect4_picture};
use crate::tree::svg::render;
use crate::tree::{Algorithm, Settings};

/// The command's form, as the help's usage line.
pub const USAGE: &str = "ferrum tree [--fen FEN | --connect4 MOVES] [--algorithm A] [--depth D]
                   [--max-moves N] [--max-nodes N] [--out FILE]";

#[derive(Args, Debug)]
#[command(
    override_usage = USAGE,
    long_about = "Draws the tree a search visits as SVG (to FILE, or stdout): each node with \
        the move into it and its value for the side to move, the principal variation \
        highlighted, cut-offs in red with their window (alpha, beta), pruned moves greyed, and \
        the nodes visited against plain negamax on the same tree."
)]
pub struct TreeArgs {
    /// A chess position (default: the start position); moves best-first by the evaluation
    /// after them, leaves valued by quiescence search
    #[arg(long, value_name = "FEN", conflicts_with = "connect4")]
    pub fen: Option<String>,
    /// A Connect-Four position (columns 1-7 from the empty board)
    #[arg(long, value_name = "MOVES")]
    pub connect4: Option<String>,
    /// The search: negamax, alphabeta or alphabeta-tt
    #[arg(long, value_name = "A", default_value = "alphabeta", value_parser = Algorithm::parse)]
    pub algorithm: Algorithm,
    /// Plies to search
    #[arg(long, value_name = "D", default_value_t = 3, value_parser = positive::<u32>)]
    pub depth: u32,
    /// Search only the first N moves of each node (default: 3 for chess, so that the default
    /// tree fits under --max-nodes; every move for Connect-Four)
    #[arg(long, value_name = "N", value_parser = positive::<usize>)]
    pub max_moves: Option<usize>,
    /// Refuse trees larger than N nodes
    #[arg(long, value_name = "N", default_value_t = 400, value_parser = positive::<u64>)]
    pub max_nodes: u64,
    /// Write the SVG here (default: stdout) and a summary on stderr
    #[arg(long, value_name = "FILE")]
    pub out: Option<String>,
}

/// Moves kept per chess node when `--max-moves` is not given: the start position's full tree
/// of 3 plies is thousands of nodes, far over the default `--max-nodes`.
pub const CHESS_MAX_MOVES: usize = 3;

/// Runs `ferrum tree`.
pub fn run(args: TreeArgs) -> Result<(), String> {
    let default_moves = args.connect4.is_none().then_some(CHESS_MAX_MOVES);
    let settings = Settings {
        algorithm: args.algorithm,
        depth: args.depth,
        max_moves: args.max_moves.or(default_moves),
        max_nodes: args.max_nodes,
    };
    let (picture, style) = match &args.connect4 {
        Some(moves) => connect4_picture(moves, settings)?,
        None => chess_picture(args.fen.as_deref(), settings)?,
    };
    let svg = render(&picture, &style);
    match args.out {
        Some(path) => {
            std::fs::write(&path, svg).map_err(|e| format!("cannot write '{path}': {e}"))?;
            eprintln!(
                "tree: {} nodes ({} by plain negamax), root value {}, written to {path}",
                picture.nodes,
                picture
                    .negamax_nodes
                    .map_or("over budget".to_string(), |n| n.to_string()),
                (style.value_text)(picture.value)
            );
        }
        None => print!("{svg}"),
    }
    Ok(())
}

// Depths and sizes: a number above zero.
fn positive<T: std::str::FromStr + PartialOrd + Default>(v: &str) -> Result<T, String> {
    match v.parse::<T>() {
        Ok(n) if n > T::default() => Ok(n),
        _ => Err(format!("'{v}' is not a positive number")),
    }
}
