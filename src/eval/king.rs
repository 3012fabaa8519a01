//! King safety: pieces attacking the squares around the enemy king (counted only when two
//! or more take part, with a danger term growing as the square of the attack), safe checks,
//! and the pawn shelter in front of a king at home.

use shakmaty::{Bitboard, Color, Role, attacks};

use super::info::{Info, forward, front_span, pieces, relative_rank, sign};
use super::weights::{Features, param};

/// Attack units per king-zone square a knight, bishop, rook or queen hits.
const ATTACK_UNITS: [i32; 4] = [2, 2, 3, 5];
/// Attack units beyond this add no more danger.
const MAX_ATTACK_UNITS: i32 = 40;

/// `color`'s attack on the enemy king: the zone squares each piece kind hits, the danger,
/// and the squares a piece could check from that it reaches and the enemy does not guard.
pub fn attack(info: &Info, color: Color, f: &mut impl Features) {
    let Some(king) = info.side(!color).king else {
        return;
    };
    let occupied = info.board.occupied();
    let safe = !info.side(!color).all & !info.board.by_color(color);
    let (diagonal, straight) = (
        attacks::bishop_attacks(king, occupied),
        attacks::rook_attacks(king, occupied),
    );
    let checks_from = [
        attacks::knight_attacks(king),
        diagonal,
        straight,
        diagonal | straight,
    ];
    let near = attacks::king_attacks(king) | Bitboard::from_square(king);
    let zone = near | near.shift(forward(!color));
    let mut zone_hits = [0; 4];
    let mut attackers = 0;
    let mut safe_checks = 0;
    for reach in info.side(color).reaches() {
        let hits = (reach.attacks & zone).count() as i32;
        if hits > 0 {
            zone_hits[reach.kind] += hits;
            attackers += 1;
        }
        safe_checks += (reach.attacks & checks_from[reach.kind] & safe).count() as i32;
    }
    if attackers >= 2 {
        let mut units = 0;
        for (i, hits) in zone_hits.into_iter().enumerate() {
            f.add(param::KING_ZONE_ATTACK + 2 * i, sign(color) * hits);
            units += ATTACK_UNITS[i] * hits;
        }
        let units = units.min(MAX_ATTACK_UNITS);
        f.add(param::KING_DANGER, sign(color) * (units * units / 16));
    }
    f.add(param::SAFE_CHECK, sign(color) * safe_checks);
}

/// Own pawns on the three files around a king on its first two ranks, one or two ahead.
pub fn shelter(info: &Info, color: Color, f: &mut impl Features) {
    let Some(king) = info.side(color).king else {
        return;
    };
    if relative_rank(king, color) > 1 {
        return;
    }
    let near = attacks::king_attacks(king);
    let shield = front_span(king, color) & (near | near.shift(forward(color)));
    let count = (shield & pieces(info.board, Role::Pawn, color)).count() as i32;
    f.add(param::KING_SHIELD_PAWN, sign(color) * count);
}

#[cfg(test)]
mod tests {
    use super::super::testing::{feature_count, pos, term};
    use super::*;
    use crate::eval::{trace, weight};

    #[test]
    fn safe_checks_are_the_checking_squares_a_piece_reaches_unguarded() {
        // The queen can check from d4, d8, h5 and h1.
        assert_eq!(
            feature_count("7k/8/8/8/8/8/8/K2Q4 w - - 0 1", param::SAFE_CHECK),
            4
        );
        // A knight on f5 guards d4.
        assert_eq!(
            feature_count("7k/8/8/5n2/8/8/8/K2Q4 w - - 0 1", param::SAFE_CHECK),
            3
        );
        // Colours swapped: the count changes sign.
        assert_eq!(
            feature_count("k2q4/8/8/8/8/8/8/7K b - - 0 1", param::SAFE_CHECK),
            -4
        );
    }

    #[test]
    fn king_danger_grows_with_the_square_of_the_attack() {
        // A rook on the g-file hits g6 and g7; a queen on h5 adds h6, h7, g6 and f7.
        let one = "6k1/5ppp/8/8/8/6R1/8/K7 w - - 0 1";
        assert_eq!(feature_count(one, param::KING_DANGER), 0, "a lone attacker");
        let two = "6k1/5ppp/8/7Q/8/6R1/8/K7 w - - 0 1";
        let (_, _, t) = trace(&pos(two));
        let hits = |i: usize| {
            t.counts
                .iter()
                .find(|(j, _)| *j == param::KING_ZONE_ATTACK + 2 * i)
                .map_or(0, |(_, c)| *c)
        };
        assert_eq!((hits(2), hits(3)), (2, 4));
        let units: i32 = 3 * 2 + 5 * 4;
        assert_eq!(
            feature_count(two, param::KING_DANGER),
            units.min(MAX_ATTACK_UNITS).pow(2) / 16
        );
    }

    #[test]
    fn a_king_attack_needs_two_pieces() {
        let zone_counts = |fen: &str| {
            let (_, _, t) = trace(&pos(fen));
            let zone = param::KING_ZONE_ATTACK..param::KING_ZONE_ATTACK + 8;
            t.counts
                .into_iter()
                .filter(|(i, _)| zone.contains(i))
                .collect::<Vec<_>>()
        };
        // The queen on d3 sees g6 and h7 next to the black king: alone, that is no attack.
        assert!(zone_counts("6k1/5ppp/8/8/8/3Q4/5PPP/6K1 w - - 0 1").is_empty());
        // With the knight on g5 (f7 and h7) it is: two squares each for knight and queen.
        assert_eq!(
            zone_counts("6k1/5ppp/8/6N1/8/3Q4/5PPP/6K1 w - - 0 1"),
            vec![
                (param::KING_ZONE_ATTACK, 2),
                (param::KING_ZONE_ATTACK + 6, 2)
            ]
        );
    }

    #[test]
    fn three_pawns_shelter_a_castled_king() {
        let shield = term(
            "6k1/8/8/8/8/8/5PPP/6K1 w - - 0 1",
            "king shelter",
            Color::White,
        );
        assert_eq!(shield, weight(param::KING_SHIELD_PAWN) * 3);
    }
}
