//! The tree a search visits, as it visits it: an `Observer` that records every node with
//! its window, value and how it ended, and every cut-off with the moves it pruned; then the
//! moves are named by replaying them, and the principal variation is marked.

use crate::negamax::{Exit, Game, Observer};

/// A cut-off at a node: the window it happened with and the moves left unsearched.
#[derive(Clone, Debug, PartialEq)]
pub struct Cutoff {
    pub alpha: i32,
    pub beta: i32,
    pub pruned: Vec<String>,
}

/// A visited node, its value for the side to move there.
#[derive(Clone, Debug, PartialEq)]
pub struct Node {
    /// The move into it ("root" at the root).
    pub label: String,
    pub depth: usize,
    pub window: Option<(i32, i32)>,
    pub value: i32,
    pub exit: Exit,
    pub children: Vec<usize>,
    pub cutoff: Option<Cutoff>,
    /// On the principal variation.
    pub pv: bool,
}

impl Node {
    /// How the value relates to the true value: a fail-soft search returns an upper bound
    /// when it fails low (at most alpha) and a lower bound when it fails high. A leaf's
    /// value (game over, horizon) is exact whatever the window.
    pub fn bound(&self) -> Bound {
        if !matches!(self.exit, Exit::Searched | Exit::Table) {
            return Bound::Exact;
        }
        match self.window {
            Some((alpha, _)) if self.value <= alpha => Bound::AtMost,
            Some((_, beta)) if self.value >= beta => Bound::AtLeast,
            _ => Bound::Exact,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Bound {
    Exact,
    AtLeast,
    AtMost,
}

/// The recorded tree; node 0 is the root.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Tree {
    pub nodes: Vec<Node>,
}

impl Tree {
    /// The principal variation's move labels, from the root down.
    pub fn pv_labels(&self) -> Vec<&str> {
        self.nodes
            .iter()
            .skip(1)
            .filter(|n| n.pv)
            .map(|n| n.label.as_str())
            .collect()
    }
}

struct Raw<M> {
    into: Option<M>,
    depth: usize,
    window: Option<(i32, i32)>,
    value: i32,
    exit: Exit,
    children: Vec<usize>,
    cutoff: Option<(i32, i32, Vec<M>)>,
}

/// Records what a search does, node by node.
pub struct Recorder<M> {
    nodes: Vec<Raw<M>>,
    stack: Vec<usize>,
}

impl<M> Default for Recorder<M> {
    fn default() -> Recorder<M> {
        Recorder {
            nodes: Vec::new(),
            stack: Vec::new(),
        }
    }
}

impl<M: Copy> Observer<M> for Recorder<M> {
    fn enter(&mut self, into: Option<M>, window: Option<(i32, i32)>) {
        let index = self.nodes.len();
        if let Some(&parent) = self.stack.last() {
            self.nodes[parent].children.push(index);
        }
        self.nodes.push(Raw {
            into,
            depth: self.stack.len(),
            window,
            value: 0,
            exit: Exit::Searched,
            children: Vec::new(),
            cutoff: None,
        });
        self.stack.push(index);
    }

    fn leave(&mut self, value: i32, exit: Exit) {
        if let Some(index) = self.stack.pop() {
            self.nodes[index].value = value;
            self.nodes[index].exit = exit;
        }
    }

    fn cutoff(&mut self, alpha: i32, beta: i32, pruned: &[M]) {
        if let Some(&index) = self.stack.last() {
            self.nodes[index].cutoff = Some((alpha, beta, pruned.to_vec()));
        }
    }
}

impl<M: Copy> Recorder<M> {
    /// Nodes recorded so far.
    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The tree with its moves named in `game` (the root position the search started
    /// from) and its principal variation marked.
    pub fn finish<G: Game<Move = M>>(self, game: &mut G) -> Tree {
        let mut nodes: Vec<Node> = Vec::with_capacity(self.nodes.len());
        for raw in &self.nodes {
            nodes.push(Node {
                label: "root".to_string(),
                depth: raw.depth,
                window: raw.window,
                value: raw.value,
                exit: raw.exit,
                children: raw.children.clone(),
                cutoff: None,
                pv: false,
            });
        }
        if !self.nodes.is_empty() {
            name_moves(game, &self.nodes, &mut nodes, 0);
            mark_pv(&mut nodes);
        }
        Tree { nodes }
    }
}

/// Names the moves below `index`, replaying them on `game` (at `index`'s position).
fn name_moves<G: Game>(game: &mut G, raw: &[Raw<G::Move>], nodes: &mut [Node], index: usize) {
    if let Some((alpha, beta, pruned)) = &raw[index].cutoff {
        nodes[index].cutoff = Some(Cutoff {
            alpha: *alpha,
            beta: *beta,
            pruned: pruned.iter().map(|&m| game.move_name(m)).collect(),
        });
    }
    for &child in &raw[index].children {
        let Some(m) = raw[child].into else { continue };
        nodes[child].label = game.move_name(m);
        game.play(m);
        name_moves(game, raw, nodes, child);
        game.undo(m);
    }
}

/// From the root down, the first child whose negated value is its parent's value.
fn mark_pv(nodes: &mut [Node]) {
    let mut at = 0;
    nodes[0].pv = true;
    while nodes[at].exit == Exit::Searched {
        let want = nodes[at].value;
        let Some(&next) = nodes[at]
            .children
            .iter()
            .find(|&&c| -nodes[c].value == want)
        else {
            break;
        };
        nodes[next].pv = true;
        at = next;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect4::{Board, Position};
    use crate::negamax::{Effort, INF, alphabeta};

    /// A recorder fed by hand: root (window -9..9) with two children, the second cutting off
    /// two more moves.
    fn hand_made() -> Recorder<u8> {
        let mut r = Recorder::default();
        r.enter(None, Some((-9, 9)));
        r.enter(Some(3), Some((-9, 9)));
        r.leave(-2, Exit::Heuristic);
        r.enter(Some(2), Some((-9, 2)));
        r.leave(-5, Exit::Terminal);
        r.cutoff(2, 9, &[4, 1]);
        r.leave(5, Exit::Searched);
        r
    }

    #[test]
    fn events_become_nodes_with_depths_children_and_cutoffs() {
        let r = hand_made();
        assert_eq!(r.len(), 3);
        let tree = r.finish(&mut Board(Position::default()));
        let n = &tree.nodes;
        assert_eq!(n[0].children, [1, 2]);
        assert_eq!((n[1].depth, n[2].depth), (1, 1));
        // Columns are named from 1.
        assert_eq!((n[1].label.as_str(), n[2].label.as_str()), ("4", "3"));
        let cut = n[0].cutoff.as_ref().unwrap();
        assert_eq!((cut.alpha, cut.beta), (2, 9));
        assert_eq!(cut.pruned, ["5", "2"]);
        // The principal variation goes to the child whose negated value is the root's.
        assert_eq!(tree.pv_labels(), ["3"]);
    }

    #[test]
    fn leaves_are_exact_and_searched_nodes_outside_their_window_are_bounds() {
        let tree = hand_made().finish(&mut Board(Position::default()));
        // -5 lies below its window (-9, 2), but a finished game's value is exact.
        assert_eq!(tree.nodes[2].bound(), Bound::Exact);
        let mut searched = tree.nodes[0].clone();
        assert_eq!(searched.bound(), Bound::Exact);
        searched.value = 9;
        assert_eq!(searched.bound(), Bound::AtLeast);
        searched.value = -9;
        assert_eq!(searched.bound(), Bound::AtMost);
    }

    #[test]
    fn a_recorded_search_has_one_node_per_visit_each_a_ply_below_its_parent() {
        let pos = Position::from_moves("3432357517256661231652672362571175").unwrap();
        let mut r = Recorder::default();
        let mut effort = Effort::unlimited();
        let value = alphabeta(&mut Board(pos), 8, -INF, INF, &mut effort, &mut r);
        let tree = r.finish(&mut Board(pos));
        assert_eq!(tree.nodes.len() as u64, effort.nodes);
        assert_eq!(Some(tree.nodes[0].value), value);
        for n in &tree.nodes {
            for &c in &n.children {
                assert_eq!(tree.nodes[c].depth, n.depth + 1);
            }
        }
        assert_eq!(tree.pv_labels(), ["4", "4", "4"]);
    }
}
