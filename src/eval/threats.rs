//! Threats: enemy pieces attacked by cheaper ones, and enemy pieces attacked and not
//! defended, read from the attacks gathered once in `info`.

use shakmaty::Color;

use super::info::{Info, sign};
use super::weights::{Features, param};

pub fn threats(info: &Info, color: Color, f: &mut impl Features) {
    let board = info.board;
    let ours = info.side(color);
    let theirs = info.side(!color);
    let enemy = board.by_color(!color);
    let targets = enemy & !board.pawns() & !board.kings();
    let majors = enemy & (board.rooks() | board.queens());
    let s = sign(color);
    f.add(
        param::THREAT_BY_PAWN,
        s * (ours.pawns & targets).count() as i32,
    );
    f.add(
        param::THREAT_BY_MINOR,
        s * (ours.minors & majors).count() as i32,
    );
    f.add(
        param::THREAT_BY_ROOK,
        s * (ours.rooks & enemy & board.queens()).count() as i32,
    );
    f.add(
        param::HANGING,
        s * (ours.all & targets & !theirs.all).count() as i32,
    );
}

#[cfg(test)]
mod tests {
    use super::super::testing::term;
    use super::*;
    use crate::eval::weight;

    #[test]
    fn threats_count_attacked_and_hanging_pieces() {
        let w = Color::White;
        // The e4 pawn forks knight and bishop; neither is defended, but pawns do not count
        // as hanging attackers twice: both are hanging too.
        let fork = term("4k3/8/8/3n1b2/4P3/8/8/4K3 w - - 0 1", "threats", w);
        assert_eq!(
            fork,
            weight(param::THREAT_BY_PAWN) * 2 + weight(param::HANGING) * 2
        );
        // A knight attacks a rook that its own king defends, and a rook attacks a queen.
        let minor = term("3rk3/8/4N3/8/8/8/8/4K3 w - - 0 1", "threats", w);
        assert_eq!(minor, weight(param::THREAT_BY_MINOR));
        let rook = term("3qk3/8/8/8/8/8/8/3RK3 w - - 0 1", "threats", w);
        assert_eq!(rook, weight(param::THREAT_BY_ROOK));
    }
}
