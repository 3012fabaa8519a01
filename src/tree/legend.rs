//! The legend and the diagram of a tree picture: what was searched and how (algorithm,
//! depth, nodes against plain negamax, root value and principal variation), a key to the
//! marks, and the root position drawn as a grid.

use std::fmt::Write;

use super::style::{
    CELL, CUT, Diagram, LINE, MARGIN, PV_FILL, PV_STROKE, SMALL, Style, escape, text_width,
};
use super::{Algorithm, Picture};

/// The legend's lines of text, the title first.
pub(super) fn legend_lines(p: &Picture, style: &Style) -> Vec<String> {
    let s = &p.settings;
    let limit = s
        .max_moves
        .map_or(String::new(), |n| format!(", first {n} moves of each node"));
    let pv = p.tree.pv_labels().join(" ");
    let mut lines = vec![
        style.title.clone(),
        format!(
            "{}, depth {}{limit}. Root value {} for {} to move; principal variation: {}.",
            capitalise(s.algorithm.name()),
            s.depth,
            (style.value_text)(p.value),
            style.sides[0].0,
            if pv.is_empty() { "none" } else { &pv }
        ),
    ];
    let visited = format!("Nodes visited: {} by {}", p.nodes, s.algorithm.name());
    lines.push(match p.negamax_nodes {
        _ if s.algorithm == Algorithm::Negamax => {
            format!("{visited} (it visits every node of the tree).")
        }
        Some(all) => format!(
            "{visited} against {all} by plain negamax on the same tree ({:.0}%).",
            100.0 * p.nodes as f64 / all.max(1) as f64
        ),
        None => format!("{visited}; plain negamax on the same tree exceeds the budget."),
    });
    lines.push(format!(
        "Values are for the side to move at each node (the dot: {} or {}); a node takes the \
         best of its children's values, negated.",
        style.sides[0].0, style.sides[1].0
    ));
    lines.push(format!("Leaves at the horizon: {}.", style.horizon));
    lines
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map_or(String::new(), |f| f.to_uppercase().chain(c).collect())
}

pub(super) fn write_legend(svg: &mut String, lines: &[String], key_top: f64) {
    for (i, line) in lines.iter().enumerate() {
        let y = MARGIN + 14.0 + i as f64 * LINE;
        let weight = if i == 0 { " font-weight=\"bold\"" } else { "" };
        let _ = writeln!(
            svg,
            "<text x=\"{MARGIN}\" y=\"{y:.1}\"{weight}>{}</text>",
            escape(line)
        );
    }
    // The key: samples of a principal-variation node, a pruned move and a cut-off.
    let y = key_top;
    let mut x = MARGIN;
    let _ = writeln!(
        svg,
        "<rect x=\"{x}\" y=\"{y}\" width=\"34\" height=\"18\" rx=\"4\" fill=\"{PV_FILL}\" stroke=\"{PV_STROKE}\" stroke-width=\"2.5\"/>\
         <text x=\"{}\" y=\"{}\" font-size=\"{SMALL}\">principal variation</text>",
        x + 42.0,
        y + 14.0
    );
    x += 42.0 + text_width("principal variation", SMALL) + 24.0;
    let _ = writeln!(
        svg,
        "<rect x=\"{x}\" y=\"{y}\" width=\"34\" height=\"18\" rx=\"4\" fill=\"#f2f2f2\" stroke=\"#b5b5b5\" stroke-dasharray=\"4 3\"/>\
         <text x=\"{}\" y=\"{}\" font-size=\"{SMALL}\">pruned: never visited</text>",
        x + 42.0,
        y + 14.0
    );
    x += 42.0 + text_width("pruned: never visited", SMALL) + 24.0;
    let _ = writeln!(
        svg,
        "<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{CUT}\" stroke-width=\"3\" stroke-linecap=\"round\"/>\
         <text x=\"{}\" y=\"{}\" font-size=\"{SMALL}\">cut-off (a child reached β)</text>",
        x + 8.0,
        y,
        x + 8.0,
        y + 18.0,
        x + 22.0,
        y + 14.0
    );
    x += 22.0 + text_width("cut-off (a child reached β)", SMALL) + 24.0;
    let _ = writeln!(
        svg,
        "<text x=\"{x}\" y=\"{}\" font-size=\"{SMALL}\">≥v / ≤v: only a bound (the node failed high / low)</text>",
        y + 14.0
    );
}

pub(super) fn write_diagram(svg: &mut String, d: &Diagram, x0: f64, y0: f64) {
    for (r, row) in d.cells.iter().enumerate() {
        for (c, cell) in row.iter().enumerate() {
            let (x, y) = (x0 + c as f64 * CELL, y0 + r as f64 * CELL);
            let _ = write!(
                svg,
                "<rect x=\"{x}\" y=\"{y}\" width=\"{CELL}\" height=\"{CELL}\" fill=\"{}\"/>",
                cell.background
            );
            if let Some(disc) = &cell.disc {
                let _ = write!(
                    svg,
                    "<circle cx=\"{}\" cy=\"{}\" r=\"{}\" fill=\"{disc}\" stroke=\"#333\" stroke-width=\"0.8\"/>",
                    x + CELL / 2.0,
                    y + CELL / 2.0,
                    CELL / 2.0 - 2.5
                );
            }
            if let Some(glyph) = &cell.glyph {
                let _ = write!(
                    svg,
                    "<text x=\"{}\" y=\"{}\" font-size=\"18\" text-anchor=\"middle\">{}</text>",
                    x + CELL / 2.0,
                    y + CELL - 4.0,
                    escape(glyph)
                );
            }
        }
        svg.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn algorithm_names_start_a_sentence_with_a_capital() {
        assert_eq!(capitalise("alpha-beta"), "Alpha-beta");
        assert_eq!(capitalise(""), "");
    }
}
