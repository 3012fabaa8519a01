//! A recorded tree laid out left to right (a column per ply, a row per leaf) and written as
//! SVG: each node a box with the move into it and its value, the principal variation
//! highlighted, cut-offs marked in red with their window, the moves they pruned greyed.

use std::fmt::Write;

use super::Picture;
use super::legend::{legend_lines, write_diagram, write_legend};
use super::record::{Bound, Node, Tree};
use super::style::{
    CELL, CUT, FONT, LINE, MARGIN, PV_FILL, PV_STROKE, SMALL, Style, escape, text_width,
};
use crate::negamax::{Exit, INF};

const ROW: f64 = 30.0;
/// The narrowest node box; wider when a move and its value need it.
const MIN_BOX_W: f64 = 110.0;
const BOX_H: f64 = 24.0;
const GAP: f64 = 48.0;
/// Past this many pruned moves at one cut-off, the rest are one "+N more" box.
const SHOWN_PRUNED: usize = 3;
const GREY: &str = "#9e9e9e";

enum Kind {
    Node(usize),
    Pruned(String),
    More(usize),
}

struct Item {
    kind: Kind,
    depth: usize,
    row: f64,
    /// Text to the right of a leaf.
    note: Option<(String, &'static str)>,
}

struct Edge {
    from: usize,
    to: usize,
    pv: bool,
    pruned: bool,
}

#[derive(Default)]
struct Layout {
    items: Vec<Item>,
    edges: Vec<Edge>,
    /// Red bars across the edges of each cut-off's pruned moves: (parent item, children).
    cuts: Vec<(usize, Vec<usize>)>,
    rows: usize,
}

fn window_text(v: i32, value_text: fn(i32) -> String) -> String {
    if v <= -INF {
        "−∞".to_string()
    } else if v >= INF {
        "+∞".to_string()
    } else {
        value_text(v)
    }
}

/// The value as shown in a box: with ≥ or ≤ when it is only a bound.
fn shown_value(node: &Node, value_text: fn(i32) -> String) -> String {
    let v = value_text(node.value);
    match node.bound() {
        Bound::Exact => v,
        Bound::AtLeast => format!("≥{v}"),
        Bound::AtMost => format!("≤{v}"),
    }
}

fn leaf_note(node: &Node) -> Option<(String, &'static str)> {
    let text = match node.exit {
        Exit::Terminal => "game over",
        Exit::Table => "from the table",
        Exit::NoMoves => "no legal move",
        Exit::Heuristic | Exit::Searched => return None,
    };
    Some((text.to_string(), GREY))
}

fn place(tree: &Tree, n: usize, style: &Style, layout: &mut Layout) -> usize {
    let node = &tree.nodes[n];
    let me = layout.items.len();
    layout.items.push(Item {
        kind: Kind::Node(n),
        depth: node.depth,
        row: 0.0,
        note: None,
    });
    let mut rows = Vec::new();
    for &c in &node.children {
        let child = place(tree, c, style, layout);
        layout.edges.push(Edge {
            from: me,
            to: child,
            pv: node.pv && tree.nodes[c].pv,
            pruned: false,
        });
        rows.push(layout.items[child].row);
    }
    if let Some(cut) = &node.cutoff {
        let shown = if cut.pruned.len() > SHOWN_PRUNED + 1 {
            SHOWN_PRUNED
        } else {
            cut.pruned.len()
        };
        let mut kinds: Vec<Kind> = cut.pruned[..shown]
            .iter()
            .map(|l| Kind::Pruned(l.clone()))
            .collect();
        if shown < cut.pruned.len() {
            kinds.push(Kind::More(cut.pruned.len() - shown));
        }
        let cutter = node.children.last().map(|&c| &tree.nodes[c]);
        let note = cutter.map(|c| {
            format!(
                "cut-off: {} scored {} ≥ β in the window (α, β) = ({}, {})",
                c.label,
                (style.value_text)(-c.value),
                window_text(cut.alpha, style.value_text),
                window_text(cut.beta, style.value_text)
            )
        });
        let mut pruned_items = Vec::new();
        for (i, kind) in kinds.into_iter().enumerate() {
            let item = layout.items.len();
            layout.items.push(Item {
                kind,
                depth: node.depth + 1,
                row: layout.rows as f64,
                note: if i == 0 {
                    note.clone().map(|t| (t, CUT))
                } else {
                    None
                },
            });
            layout.rows += 1;
            layout.edges.push(Edge {
                from: me,
                to: item,
                pv: false,
                pruned: true,
            });
            rows.push(layout.items[item].row);
            pruned_items.push(item);
        }
        layout.cuts.push((me, pruned_items));
    }
    let row = match (rows.first(), rows.last()) {
        (Some(first), Some(last)) => (first + last) / 2.0,
        _ => {
            layout.items[me].note = leaf_note(node);
            layout.rows += 1;
            (layout.rows - 1) as f64
        }
    };
    layout.items[me].row = row;
    me
}

/// One width for every box: room for the longest move and value side by side.
fn box_width(p: &Picture, style: &Style, layout: &Layout) -> f64 {
    let widest = layout
        .items
        .iter()
        .map(|i| match &i.kind {
            Kind::Node(n) => {
                let node = &p.tree.nodes[*n];
                // Bold digits are wider.
                text_width(&node.label, FONT)
                    + text_width(&shown_value(node, style.value_text), FONT) * 1.25
            }
            Kind::Pruned(label) => text_width(label, FONT),
            Kind::More(_) => text_width("+99 more", FONT),
        })
        .fold(0.0, f64::max);
    (widest + 21.0 + 7.0 + 16.0).max(MIN_BOX_W).ceil()
}

/// The picture as an SVG document.
pub fn render(p: &Picture, style: &Style) -> String {
    let mut layout = Layout::default();
    if !p.tree.nodes.is_empty() {
        place(&p.tree, 0, style, &mut layout);
    }
    let box_w = box_width(p, style, &layout);
    let lines = legend_lines(p, style);
    let diagram_w = style
        .diagram
        .as_ref()
        .map_or(0.0, |d| d.cells.first().map_or(0, Vec::len) as f64 * CELL);
    let diagram_h = style
        .diagram
        .as_ref()
        .map_or(0.0, |d| d.cells.len() as f64 * CELL);
    let legend_w = lines
        .iter()
        .map(|l| text_width(l, FONT))
        .fold(0.0, f64::max);
    let key_top = MARGIN + lines.len() as f64 * LINE + 6.0;
    let top = (key_top + 40.0).max(MARGIN + diagram_h + 16.0);
    let col = box_w + GAP;
    let x_of = |depth: usize| MARGIN + depth as f64 * col;
    let y_of = |row: f64| top + row * ROW;
    let tree_w = layout
        .items
        .iter()
        .map(|i| {
            let note = i
                .note
                .as_ref()
                .map_or(0.0, |(t, _)| text_width(t, SMALL) + 12.0);
            x_of(i.depth) + box_w + note
        })
        .fold(0.0, f64::max);
    let width = (tree_w + MARGIN)
        .max(MARGIN * 3.0 + legend_w + diagram_w)
        .max(720.0)
        .ceil();
    let height = (y_of(layout.rows as f64) + MARGIN).ceil();

    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{width}\" height=\"{height}\" \
         viewBox=\"0 0 {width} {height}\" font-family=\"DejaVu Sans, Verdana, Arial, sans-serif\" \
         font-size=\"{FONT}\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
    );
    write_legend(&mut svg, &lines, key_top);
    if let Some(d) = &style.diagram {
        write_diagram(&mut svg, d, width - MARGIN - diagram_w, MARGIN);
    }
    let centre = |i: &Item| y_of(i.row) + BOX_H / 2.0;
    for e in &layout.edges {
        let (a, b) = (&layout.items[e.from], &layout.items[e.to]);
        let (x1, y1, x2, y2) = (x_of(a.depth) + box_w, centre(a), x_of(b.depth), centre(b));
        let style = if e.pv {
            format!("stroke=\"{PV_STROKE}\" stroke-width=\"3\"")
        } else if e.pruned {
            "stroke=\"#c4c4c4\" stroke-width=\"1.3\" stroke-dasharray=\"5 4\"".to_string()
        } else {
            "stroke=\"#7a7a7a\" stroke-width=\"1.3\"".to_string()
        };
        let mx = (x1 + x2) / 2.0;
        let _ = writeln!(
            svg,
            "<path d=\"M{x1:.1} {y1:.1} C{mx:.1} {y1:.1} {mx:.1} {y2:.1} {x2:.1} {y2:.1}\" fill=\"none\" {style}/>"
        );
    }
    for (parent, children) in &layout.cuts {
        // A red bar across the pruned edges, where they leave the last searched one.
        let a = &layout.items[*parent];
        let x = x_of(a.depth) + box_w + GAP * 0.5;
        let ys: Vec<f64> = children
            .iter()
            .map(|&c| (centre(a) + centre(&layout.items[c])) / 2.0)
            .collect();
        let lo = ys.iter().copied().fold(f64::MAX, f64::min) - 7.0;
        let hi = ys.iter().copied().fold(f64::MIN, f64::max) + 7.0;
        let _ = writeln!(
            svg,
            "<line class=\"cut\" x1=\"{x:.1}\" y1=\"{lo:.1}\" x2=\"{x:.1}\" y2=\"{hi:.1}\" stroke=\"{CUT}\" stroke-width=\"3\" stroke-linecap=\"round\"/>"
        );
    }
    for item in &layout.items {
        write_item(
            &mut svg,
            p,
            style,
            item,
            (x_of(item.depth), y_of(item.row)),
            box_w,
        );
    }
    svg.push_str("</svg>\n");
    svg
}

fn write_item(
    svg: &mut String,
    p: &Picture,
    style: &Style,
    item: &Item,
    at: (f64, f64),
    box_w: f64,
) {
    let (x, y) = at;
    let ty = y + BOX_H / 2.0 + 5.0;
    match &item.kind {
        Kind::Node(n) => {
            let node = &p.tree.nodes[*n];
            let (fill, stroke, sw) = if node.pv {
                (PV_FILL, PV_STROKE, 2.5)
            } else {
                ("white", "#555", 1.2)
            };
            let side = &style.sides[node.depth % 2];
            let window = node.window.map_or(String::new(), |(a, b)| {
                format!(
                    ", window ({}, {})",
                    window_text(a, style.value_text),
                    window_text(b, style.value_text)
                )
            });
            let _ = writeln!(
                svg,
                "<g class=\"node\"><title>{} (ply {}){window}: value {} for {} ({:?})</title>\
                 <rect x=\"{x}\" y=\"{y:.1}\" width=\"{box_w}\" height=\"{BOX_H}\" rx=\"5\" fill=\"{fill}\" stroke=\"{stroke}\" stroke-width=\"{sw}\"/>\
                 <circle cx=\"{:.1}\" cy=\"{:.1}\" r=\"5\" fill=\"{}\" stroke=\"#333\" stroke-width=\"0.8\"/>\
                 <text x=\"{:.1}\" y=\"{ty:.1}\">{}</text>\
                 <text class=\"value\" x=\"{:.1}\" y=\"{ty:.1}\" text-anchor=\"end\" font-weight=\"bold\">{}</text></g>",
                escape(&node.label),
                node.depth,
                escape(&(style.value_text)(node.value)),
                escape(&side.0),
                node.exit,
                x + 11.0,
                y + BOX_H / 2.0,
                side.1,
                x + 21.0,
                escape(&node.label),
                x + box_w - 7.0,
                escape(&shown_value(node, style.value_text))
            );
        }
        Kind::Pruned(label) => {
            let _ = writeln!(
                svg,
                "<g class=\"pruned\"><rect x=\"{x}\" y=\"{y:.1}\" width=\"{box_w}\" height=\"{BOX_H}\" rx=\"5\" fill=\"#f2f2f2\" stroke=\"#b5b5b5\" stroke-dasharray=\"4 3\"/>\
                 <text x=\"{:.1}\" y=\"{ty:.1}\" fill=\"{GREY}\">{}</text></g>",
                x + 21.0,
                escape(label)
            );
        }
        Kind::More(count) => {
            let _ = writeln!(
                svg,
                "<g class=\"pruned\"><rect x=\"{x}\" y=\"{y:.1}\" width=\"{box_w}\" height=\"{BOX_H}\" rx=\"5\" fill=\"#f2f2f2\" stroke=\"#b5b5b5\" stroke-dasharray=\"4 3\"/>\
                 <text x=\"{:.1}\" y=\"{ty:.1}\" fill=\"{GREY}\">+{count} more</text></g>",
                x + 21.0
            );
        }
    }
    if let Some((text, colour)) = &item.note {
        let _ = writeln!(
            svg,
            "<text x=\"{:.1}\" y=\"{ty:.1}\" font-size=\"{SMALL}\" fill=\"{colour}\">{}</text>",
            x + box_w + 10.0,
            escape(text)
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::games::connect4_value;
    use crate::tree::record::Cutoff;
    use crate::tree::{Algorithm, Settings};

    fn node(label: &str, depth: usize, value: i32, children: Vec<usize>) -> Node {
        Node {
            label: label.to_string(),
            depth,
            window: Some((-INF, INF)),
            value,
            exit: if children.is_empty() {
                Exit::Heuristic
            } else {
                Exit::Searched
            },
            children,
            cutoff: None,
            pv: false,
        }
    }

    fn style() -> Style {
        Style {
            title: "t".to_string(),
            value_text: connect4_value,
            sides: [
                ("A".to_string(), "#fff".to_string()),
                ("B".to_string(), "#000".to_string()),
            ],
            horizon: "h".to_string(),
            diagram: None,
        }
    }

    #[test]
    fn leaves_and_pruned_moves_get_a_row_each_and_parents_sit_between_their_children() {
        // Root: child 1 (two leaves), child 2 (a leaf, then a cut-off pruning five moves).
        let mut nodes = vec![
            node("root", 0, 1, vec![1, 4]),
            node("a", 1, -1, vec![2, 3]),
            node("a1", 2, 1, vec![]),
            node("a2", 2, 2, vec![]),
            node("b", 1, 3, vec![5]),
            node("b1", 2, -3, vec![]),
        ];
        nodes[4].cutoff = Some(Cutoff {
            alpha: 0,
            beta: 2,
            pruned: ["p", "q", "r", "s", "t"].map(String::from).to_vec(),
        });
        let tree = Tree { nodes };
        let mut layout = Layout::default();
        place(&tree, 0, &style(), &mut layout);
        // Three leaves, three pruned boxes shown and one "+2 more".
        assert_eq!(layout.rows, 7);
        let row = |n: usize| {
            layout
                .items
                .iter()
                .find(|i| matches!(i.kind, Kind::Node(k) if k == n))
                .map(|i| i.row)
        };
        assert_eq!(row(1), Some(0.5));
        // b's children span rows 2 (b1) to 6 (+2 more).
        assert_eq!(row(4), Some(4.0));
        assert_eq!(row(0), Some(2.25));
        assert!(layout.items.iter().any(|i| matches!(i.kind, Kind::More(2))));
        assert_eq!(layout.cuts.len(), 1);
        let picture = Picture {
            tree,
            settings: Settings {
                algorithm: Algorithm::AlphaBeta,
                depth: 2,
                max_moves: None,
                max_nodes: 100,
            },
            value: 1,
            nodes: 6,
            negamax_nodes: Some(9),
        };
        let svg = render(&picture, &style());
        assert_eq!(svg.matches("class=\"node\"").count(), 6);
        assert_eq!(svg.matches("class=\"pruned\"").count(), 4);
        assert!(svg.contains("against 9 by plain negamax on the same tree (67%)"));
    }

    #[test]
    fn text_is_escaped_and_infinite_bounds_read_as_infinity() {
        assert_eq!(escape("a<b & \"c\">"), "a&lt;b &amp; &quot;c&quot;&gt;");
        assert_eq!(window_text(-INF, connect4_value), "−∞");
        assert_eq!(window_text(INF, connect4_value), "+∞");
        assert_eq!(window_text(-3, connect4_value), "-3");
    }
}
