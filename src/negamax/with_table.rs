//! Alpha-beta with a transposition table, and iterative deepening on top of it: an entry
//! searched deep enough settles a node or narrows its window; its move is tried first, and
//! each iteration leaves the moves that order the next one.

use super::game::{Effort, Exit, Game, Observer};
use super::plain::leaf_value;
use super::table::{Bound, Entry, Table};

/// Fail-soft alpha-beta (as `alphabeta`) that reads and fills `table`.
pub fn alphabeta_tt<G: Game, O: Observer<G::Move>>(
    game: &mut G,
    depth: u32,
    alpha: i32,
    beta: i32,
    table: &mut Table<G::Move>,
    effort: &mut Effort,
    observer: &mut O,
) -> Option<i32> {
    let mut search = Search {
        table,
        effort,
        observer,
    };
    search.node(game, None, depth, alpha, beta)
}

struct Search<'a, M, O> {
    table: &'a mut Table<M>,
    effort: &'a mut Effort,
    observer: &'a mut O,
}

/// The window narrowed by a stored entry searched at least `depth` deep: Err(value) when
/// the entry alone settles the node.
fn narrow_by_entry<M>(e: &Entry<M>, depth: u32, alpha: i32, beta: i32) -> Result<(i32, i32), i32> {
    if e.depth < depth {
        return Ok((alpha, beta));
    }
    let (alpha, beta) = match e.bound {
        Bound::Exact => return Err(e.value),
        Bound::Lower => (alpha.max(e.value), beta),
        Bound::Upper => (alpha, beta.min(e.value)),
    };
    if alpha >= beta {
        Err(e.value)
    } else {
        Ok((alpha, beta))
    }
}

impl<M: Copy + PartialEq, O: Observer<M>> Search<'_, M, O> {
    fn node<G: Game<Move = M>>(
        &mut self,
        game: &mut G,
        into: Option<M>,
        depth: u32,
        alpha: i32,
        beta: i32,
    ) -> Option<i32> {
        self.effort.visit()?;
        self.observer.enter(into, Some((alpha, beta)));
        if let Some((value, exit)) = leaf_value(game, depth, self.effort)? {
            self.observer.leave(value, exit);
            return Some(value);
        }
        let key = game.key();
        let entry = self.table.probe(key);
        let (mut alpha, beta) = match entry.map(|e| narrow_by_entry(&e, depth, alpha, beta)) {
            Some(Err(value)) => {
                self.observer.leave(value, Exit::Table);
                return Some(value);
            }
            Some(Ok(window)) => window,
            None => (alpha, beta),
        };
        let window_alpha = alpha;
        let moves = game.moves();
        let mut moves: Vec<M> = moves.as_ref().to_vec();
        // The stored best move first: it is the likeliest to cut off again.
        if let Some(best) = entry.and_then(|e| e.best)
            && let Some(i) = moves.iter().position(|&m| m == best)
        {
            moves[..=i].rotate_right(1);
        }
        let mut best: Option<(i32, M)> = None;
        for (i, &m) in moves.iter().enumerate() {
            game.play(m);
            let child = self.node(game, Some(m), depth - 1, -beta, -alpha);
            game.undo(m);
            let value = -child?;
            if best.is_none_or(|(b, _)| value > b) {
                best = Some((value, m));
            }
            if value >= beta {
                if i + 1 < moves.len() {
                    self.observer.cutoff(alpha, beta, &moves[i + 1..]);
                }
                break;
            }
            alpha = alpha.max(value);
        }
        let (value, exit) = match best {
            Some((b, _)) => (b, Exit::Searched),
            None => (game.value_without_moves(), Exit::NoMoves),
        };
        self.table.store(Entry {
            key,
            depth,
            value,
            bound: Bound::of(value, window_alpha, beta),
            best: best.map(|(_, m)| m),
        });
        self.observer.leave(value, exit);
        Some(value)
    }
}

/// One finished iteration of iterative deepening.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Iteration<M> {
    pub depth: u32,
    pub value: i32,
    pub best: Option<M>,
    /// Nodes of this iteration alone.
    pub nodes: u64,
}

/// Searches depth 1, 2, ... up to `max_depth` with the full window, one table throughout,
/// so each iteration's best moves order the next. None when the budget runs out.
pub fn iterative_deepening<G: Game, O: Observer<G::Move>>(
    game: &mut G,
    max_depth: u32,
    table: &mut Table<G::Move>,
    effort: &mut Effort,
    observer: &mut O,
) -> Option<Vec<Iteration<G::Move>>> {
    let mut done = Vec::new();
    for depth in 1..=max_depth {
        let before = effort.nodes;
        let value = alphabeta_tt(
            game,
            depth,
            -super::INF,
            super::INF,
            table,
            effort,
            observer,
        )?;
        let best = table.probe(game.key()).and_then(|e| e.best);
        done.push(Iteration {
            depth,
            value,
            best,
            nodes: effort.nodes - before,
        });
    }
    Some(done)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(depth: u32, value: i32, bound: Bound) -> Entry<u8> {
        Entry {
            key: 1,
            depth,
            value,
            bound,
            best: None,
        }
    }

    #[test]
    fn a_shallow_entry_leaves_the_window_alone() {
        assert_eq!(
            narrow_by_entry(&entry(2, 5, Bound::Exact), 3, -10, 10),
            Ok((-10, 10))
        );
    }

    #[test]
    fn an_entry_deep_enough_settles_or_narrows_the_window() {
        assert_eq!(
            narrow_by_entry(&entry(3, 5, Bound::Exact), 3, -10, 10),
            Err(5)
        );
        assert_eq!(
            narrow_by_entry(&entry(4, 5, Bound::Lower), 3, -10, 10),
            Ok((5, 10))
        );
        assert_eq!(
            narrow_by_entry(&entry(4, 12, Bound::Lower), 3, -10, 10),
            Err(12)
        );
        assert_eq!(
            narrow_by_entry(&entry(4, 5, Bound::Upper), 3, -10, 10),
            Ok((-10, 5))
        );
        assert_eq!(
            narrow_by_entry(&entry(3, -10, Bound::Upper), 3, -10, 10),
            Err(-10)
        );
    }
}
