//! The look of a tree picture, shared by the tree's layout (`svg.rs`) and its legend and
//! diagram (`legend.rs`): how the game names things, sizes, colours and text metrics.

/// How the picture names things of its game.
#[derive(Debug)]
pub struct Style {
    /// The first line: game and position.
    pub title: String,
    /// A value as people read it (centipawns as pawns, mates, Connect-Four scores).
    pub value_text: fn(i32) -> String,
    /// Name and colour of the side to move at the root, then of the other side.
    pub sides: [(String, String); 2],
    /// What a leaf at the horizon is worth.
    pub horizon: String,
    /// A diagram of the root position, if the game has one.
    pub diagram: Option<Diagram>,
}

/// A grid of cells, top row first: each a background, maybe a disc, maybe a glyph.
#[derive(Debug)]
pub struct Diagram {
    pub cells: Vec<Vec<Cell>>,
}

#[derive(Clone, Debug, Default)]
pub struct Cell {
    pub background: String,
    pub disc: Option<String>,
    pub glyph: Option<String>,
}

pub(super) const FONT: f64 = 14.0;
pub(super) const SMALL: f64 = 12.5;
pub(super) const MARGIN: f64 = 20.0;
pub(super) const LINE: f64 = 22.0;
/// Width of a character at FONT, roughly, to size the canvas around the text.
const CHAR_W: f64 = 8.2;
pub(super) const CELL: f64 = 22.0;

pub(super) const PV_FILL: &str = "#fff1c2";
pub(super) const PV_STROKE: &str = "#d97f00";
pub(super) const CUT: &str = "#c62828";

pub(super) use crate::basics::xml::escape;

pub(super) fn text_width(s: &str, size: f64) -> f64 {
    s.chars().count() as f64 * CHAR_W * size / FONT
}
