//! The two games a tree picture can show: how each names its sides, writes its values and
//! draws its position (a chessboard, a Connect-Four grid), and the recorded tree with them.

use shakmaty::{Color, Position as _, Role, Square};

use super::style::{Cell, Diagram, Style};
use super::{Picture, Settings, record};
use crate::basics::position::Game as ChessGame;
use crate::connect4::position::{CELLS, HEIGHT, WIDTH};
use crate::connect4::{Board, Position};
use crate::search::reference::ChessLine;
use crate::search::score::{MATE, MATE_BOUND};

/// Centipawns as pawns; a mate as "#n" when the side to move gives it and "-#n" when it
/// takes it, n the ply of the mate counted from the root (the search's own scale).
pub fn chess_value(v: i32) -> String {
    if v >= MATE_BOUND {
        format!("#{}", MATE - v)
    } else if v <= -MATE_BOUND {
        format!("-#{}", MATE + v)
    } else if v == 0 {
        "0.00".to_string()
    } else {
        format!("{:+.2}", f64::from(v) / 100.0)
    }
}

/// A Connect-Four score with its sign.
pub fn connect4_value(v: i32) -> String {
    if v == 0 {
        "0".to_string()
    } else {
        format!("{v:+}")
    }
}

/// Records the chess tree of `fen` (the start position when None).
pub fn chess_picture(fen: Option<&str>, settings: Settings) -> Result<(Picture, Style), String> {
    let game = match fen {
        Some(f) => ChessGame::from_fen(f, false).map_err(|e| format!("tree: {e}"))?,
        None => ChessGame::default(),
    };
    let mut keys = game.repetition_keys();
    let mut line = ChessLine::new(&game.pos, 0, &mut keys);
    line.order_moves = true;
    line.prune_quiescence = true;
    let picture = record(line, settings)?;
    let white = ("White".to_string(), "#ffffff".to_string());
    let black = ("Black".to_string(), "#303030".to_string());
    let sides = match game.pos.turn() {
        Color::White => [white, black],
        Color::Black => [black, white],
    };
    let fen_text = shakmaty::fen::Fen::from_position(&game.pos, shakmaty::EnPassantMode::Legal);
    let style = Style {
        title: format!("Chess: {fen_text}"),
        value_text: chess_value,
        sides,
        horizon: "quiescence search (captures and promotions) over the evaluation, in pawns; \
                  #n or -#n: mate given or taken at ply n from the root"
            .to_string(),
        diagram: Some(chess_diagram(&game.pos)),
    };
    Ok((picture, style))
}

fn chess_diagram(pos: &shakmaty::Chess) -> Diagram {
    let board = pos.board();
    let cells = (0..8)
        .rev()
        .map(|rank| {
            (0..8)
                .map(|file| {
                    let sq =
                        Square::from_coords(shakmaty::File::new(file), shakmaty::Rank::new(rank));
                    let light = (file + rank) % 2 == 1;
                    Cell {
                        background: if light { "#f0d9b5" } else { "#b58863" }.to_string(),
                        disc: None,
                        glyph: board.piece_at(sq).map(|p| piece_glyph(p.color, p.role)),
                    }
                })
                .collect()
        })
        .collect();
    Diagram { cells }
}

fn piece_glyph(color: Color, role: Role) -> String {
    let white = ['♔', '♕', '♖', '♗', '♘', '♙'];
    let black = ['♚', '♛', '♜', '♝', '♞', '♟'];
    let i = match role {
        Role::King => 0,
        Role::Queen => 1,
        Role::Rook => 2,
        Role::Bishop => 3,
        Role::Knight => 4,
        Role::Pawn => 5,
    };
    match color {
        Color::White => white[i],
        Color::Black => black[i],
    }
    .to_string()
}

/// Records the Connect-Four tree after `moves`.
pub fn connect4_picture(moves: &str, settings: Settings) -> Result<(Picture, Style), String> {
    let pos = Position::from_moves(moves).map_err(|e| format!("tree: {e} in '{moves}'"))?;
    let picture = record(Board(pos), settings)?;
    let red = ("Red".to_string(), "#e53935".to_string());
    let yellow = ("Yellow".to_string(), "#fdd835".to_string());
    let first_to_move = pos.first_player_to_move();
    let sides = if first_to_move {
        [red.clone(), yellow.clone()]
    } else {
        [yellow.clone(), red.clone()]
    };
    let cells = (0..HEIGHT)
        .rev()
        .map(|row| {
            (0..WIDTH)
                .map(|col| Cell {
                    background: "#1e5bb8".to_string(),
                    disc: Some(match pos.stone(col, row) {
                        None => "#ffffff".to_string(),
                        // The side to move's stones are the root side's.
                        Some(own) if own == first_to_move => red.1.clone(),
                        Some(_) => yellow.1.clone(),
                    }),
                    glyph: None,
                })
                .collect()
        })
        .collect();
    let style = Style {
        title: format!(
            "Connect-Four after {} ({} stones, {} cells left); a move is its column",
            if moves.is_empty() { "no moves" } else { moves },
            pos.moves(),
            CELLS - pos.moves()
        ),
        value_text: connect4_value,
        sides,
        horizon: "0, unknown (a finished game scores 22 minus the winner's stones)".to_string(),
        diagram: Some(Diagram { cells }),
    };
    Ok((picture, style))
}
