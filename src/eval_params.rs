//! Evaluation weights, middlegame then endgame for each term (see `eval::param` for the
//! layout). Hand-set starting values; `ferrum tune` rewrites this file.

pub const PARAMS: [i32; 42] = [
    90, 120, // pawn
    320, 300, // knight
    330, 320, // bishop
    480, 540, // rook
    950, 980, // queen
    30, 50, // bishop pair
    4, 4, // knight mobility
    5, 5, // bishop mobility
    2, 4, // rook mobility
    1, 2, // queen mobility
    25, 10, // rook on open file
    12, 6, // rook on half-open file
    -10, -20, // doubled pawn
    -10, -12, // isolated pawn
    2, 8, // passed pawn rank 2
    5, 12, // passed pawn rank 3
    10, 22, // passed pawn rank 4
    20, 40, // passed pawn rank 5
    35, 70, // passed pawn rank 6
    55, 110, // passed pawn rank 7
    12, 0, // king shield pawn
];
