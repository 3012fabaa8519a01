//! Fail-soft alpha-beta negamax: a node stops searching once a child proves it is at least
//! beta (the opponent avoids it), and the value it returns may lie outside the window as a
//! bound: at most alpha when it fails low, at least beta when it fails high.

use super::game::{Effort, Exit, Game, Observer};
use super::plain::leaf_value;

/// The value of `game` to `depth` plies in the window (alpha, beta): exact inside it, an
/// upper bound when at most alpha, a lower bound when at least beta.
pub fn alphabeta<G: Game, O: Observer<G::Move>>(
    game: &mut G,
    depth: u32,
    alpha: i32,
    beta: i32,
    effort: &mut Effort,
    observer: &mut O,
) -> Option<i32> {
    node(game, None, depth, alpha, beta, effort, observer)
}

fn node<G: Game, O: Observer<G::Move>>(
    game: &mut G,
    into: Option<G::Move>,
    depth: u32,
    mut alpha: i32,
    beta: i32,
    effort: &mut Effort,
    observer: &mut O,
) -> Option<i32> {
    effort.visit()?;
    observer.enter(into, Some((alpha, beta)));
    if let Some((value, exit)) = leaf_value(game, depth, effort)? {
        observer.leave(value, exit);
        return Some(value);
    }
    let moves = game.moves();
    let moves = moves.as_ref();
    let mut best = None;
    for (i, &m) in moves.iter().enumerate() {
        game.play(m);
        let child = node(game, Some(m), depth - 1, -beta, -alpha, effort, observer);
        game.undo(m);
        let value = -child?;
        best = Some(best.map_or(value, |b: i32| b.max(value)));
        if value >= beta {
            if i + 1 < moves.len() {
                observer.cutoff(alpha, beta, &moves[i + 1..]);
            }
            break;
        }
        alpha = alpha.max(value);
    }
    let (value, exit) = match best {
        Some(b) => (b, Exit::Searched),
        None => (game.value_without_moves(), Exit::NoMoves),
    };
    observer.leave(value, exit);
    Some(value)
}
