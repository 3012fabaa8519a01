//! Plain negamax: every move of every node to the horizon, the best child's value negated.
//! The slow, obviously right baseline the pruning searches are measured and tested against.

use super::game::{Effort, Exit, Game, Observer};

/// The minimax value of `game` searched `depth` plies full-width, for the side to move;
/// None when `effort`'s budget runs out.
pub fn negamax<G: Game, O: Observer<G::Move>>(
    game: &mut G,
    depth: u32,
    effort: &mut Effort,
    observer: &mut O,
) -> Option<i32> {
    node(game, None, depth, effort, observer)
}

fn node<G: Game, O: Observer<G::Move>>(
    game: &mut G,
    into: Option<G::Move>,
    depth: u32,
    effort: &mut Effort,
    observer: &mut O,
) -> Option<i32> {
    effort.visit()?;
    observer.enter(into, None);
    let (value, exit) = match leaf_value(game, depth, effort)? {
        Some(leaf) => leaf,
        None => {
            let moves = game.moves();
            let mut best = None;
            for &m in moves.as_ref() {
                game.play(m);
                let child = node(game, Some(m), depth - 1, effort, observer);
                game.undo(m);
                let value = -child?;
                best = Some(best.map_or(value, |b: i32| b.max(value)));
            }
            match best {
                Some(b) => (b, Exit::Searched),
                None => (game.value_without_moves(), Exit::NoMoves),
            }
        }
    };
    observer.leave(value, exit);
    Some(value)
}

/// The value of a node that is not searched further (game over or horizon), or None when
/// its children must be searched. The outer None is a spent budget.
pub(super) fn leaf_value<G: Game>(
    game: &mut G,
    depth: u32,
    effort: &mut Effort,
) -> Option<Option<(i32, Exit)>> {
    if let Some(v) = game.terminal() {
        return Some(Some((v, Exit::Terminal)));
    }
    if depth == 0 {
        return Some(Some((game.heuristic(effort)?, Exit::Heuristic)));
    }
    Some(None)
}
