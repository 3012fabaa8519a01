//! `ferrum tree`: the tree a search visits, drawn as SVG. The search runs on the generic
//! negamax (plain, alpha-beta, or alpha-beta with a table) with a recorder watching, over a
//! chess or Connect-Four position, optionally only the first few moves of each node.

pub mod games;
pub mod legend;
pub mod record;
pub mod style;
pub mod svg;

use crate::negamax::{self, Effort, Game, INF, Observer, Silent, Table};
pub use record::{Node, Recorder, Tree};

/// The search whose tree is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Algorithm {
    Negamax,
    AlphaBeta,
    AlphaBetaTable,
}

impl Algorithm {
    pub fn parse(s: &str) -> Result<Algorithm, String> {
        match s {
            "negamax" => Ok(Algorithm::Negamax),
            "alphabeta" => Ok(Algorithm::AlphaBeta),
            "alphabeta-tt" => Ok(Algorithm::AlphaBetaTable),
            _ => Err(format!(
                "unknown algorithm '{s}' (negamax, alphabeta or alphabeta-tt)"
            )),
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Algorithm::Negamax => "plain negamax",
            Algorithm::AlphaBeta => "alpha-beta",
            Algorithm::AlphaBetaTable => "alpha-beta with a transposition table",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Settings {
    pub algorithm: Algorithm,
    pub depth: u32,
    /// Only the first N moves of each node are searched (and drawn).
    pub max_moves: Option<usize>,
    /// A larger tree is refused: it would not be readable.
    pub max_nodes: u64,
}

/// Work allowed to a search (nodes and quiescence nodes), so a careless depth ends.
pub const BUDGET: u64 = 20_000_000;

/// A move list cut to its first `len` moves.
pub struct Truncated<L> {
    list: L,
    len: usize,
}

impl<M, L: AsRef<[M]>> AsRef<[M]> for Truncated<L> {
    fn as_ref(&self) -> &[M] {
        let all = self.list.as_ref();
        &all[..self.len.min(all.len())]
    }
}

/// A game whose nodes offer only their first `max_moves` moves: the tree both the drawn
/// search and its plain-negamax baseline walk.
pub struct Limited<G> {
    pub inner: G,
    pub max_moves: Option<usize>,
}

impl<G: Game> Game for Limited<G> {
    type Move = G::Move;
    type Moves = Truncated<G::Moves>;

    fn moves(&self) -> Self::Moves {
        Truncated {
            list: self.inner.moves(),
            len: self.max_moves.unwrap_or(usize::MAX),
        }
    }

    fn play(&mut self, m: G::Move) {
        self.inner.play(m);
    }

    fn undo(&mut self, m: G::Move) {
        self.inner.undo(m);
    }

    fn terminal(&self) -> Option<i32> {
        self.inner.terminal()
    }

    fn value_without_moves(&self) -> i32 {
        self.inner.value_without_moves()
    }

    fn heuristic(&mut self, effort: &mut Effort) -> Option<i32> {
        self.inner.heuristic(effort)
    }

    fn key(&self) -> u64 {
        self.inner.key()
    }

    fn move_name(&self, m: G::Move) -> String {
        self.inner.move_name(m)
    }
}

/// Runs the chosen search on `game` from the full window, a fresh table for alpha-beta-tt.
pub fn run<G: Game, O: Observer<G::Move>>(
    game: &mut G,
    algorithm: Algorithm,
    depth: u32,
    effort: &mut Effort,
    observer: &mut O,
) -> Option<i32> {
    match algorithm {
        Algorithm::Negamax => negamax::negamax(game, depth, effort, observer),
        Algorithm::AlphaBeta => negamax::alphabeta(game, depth, -INF, INF, effort, observer),
        Algorithm::AlphaBetaTable => {
            let mut table = Table::new(1 << 16);
            negamax::alphabeta_tt(game, depth, -INF, INF, &mut table, effort, observer)
        }
    }
}

/// What a picture shows: the recorded tree, the search's value and node count, and the
/// plain negamax's node count on the same tree (None when over the budget).
#[derive(Clone, Debug, PartialEq)]
pub struct Picture {
    pub tree: Tree,
    pub settings: Settings,
    pub value: i32,
    pub nodes: u64,
    pub negamax_nodes: Option<u64>,
}

/// Searches `game` as `settings` say, recording the tree.
pub fn record<G: Game>(game: G, settings: Settings) -> Result<Picture, String> {
    let mut game = Limited {
        inner: game,
        max_moves: settings.max_moves,
    };
    let mut recorder = Recorder::default();
    let mut effort = Effort::with_budget(BUDGET).limit_nodes(settings.max_nodes);
    let value = run(
        &mut game,
        settings.algorithm,
        settings.depth,
        &mut effort,
        &mut recorder,
    );
    let Some(value) = value else {
        return Err(if effort.nodes >= settings.max_nodes {
            format!(
                "the tree has more than {} nodes: lower --depth or --max-moves, or raise --max-nodes",
                settings.max_nodes
            )
        } else {
            format!("the search spent its budget of {BUDGET} nodes, most of them at the horizon")
        });
    };
    let tree = recorder.finish(&mut game);
    let negamax_nodes = if settings.algorithm == Algorithm::Negamax {
        Some(effort.nodes)
    } else {
        let mut all = Effort::with_budget(BUDGET);
        negamax::negamax(&mut game, settings.depth, &mut all, &mut Silent).map(|_| all.nodes)
    };
    Ok(Picture {
        tree,
        settings,
        value,
        nodes: effort.nodes,
        negamax_nodes,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect4::{Board, Position};

    #[test]
    fn algorithms_parse_by_their_command_line_names() {
        assert_eq!(Algorithm::parse("negamax"), Ok(Algorithm::Negamax));
        assert_eq!(Algorithm::parse("alphabeta"), Ok(Algorithm::AlphaBeta));
        assert_eq!(
            Algorithm::parse("alphabeta-tt"),
            Ok(Algorithm::AlphaBetaTable)
        );
        assert!(Algorithm::parse("mtdf").unwrap_err().contains("'mtdf'"));
    }

    #[test]
    fn a_limited_game_offers_only_its_first_moves() {
        let board = Board(Position::default());
        let limited = Limited {
            inner: board,
            max_moves: Some(2),
        };
        assert_eq!(limited.moves().as_ref(), [3, 2]);
        let all = Limited {
            inner: board,
            max_moves: None,
        };
        assert_eq!(all.moves().as_ref().len(), 7);
        // Depth 2 over two moves a node: 1 + 2 + 4 nodes.
        let mut game = Limited {
            inner: board,
            max_moves: Some(2),
        };
        let mut effort = Effort::unlimited();
        run(&mut game, Algorithm::Negamax, 2, &mut effort, &mut Silent);
        assert_eq!(effort.nodes, 7);
    }
}
