//! Every tunable search constant, named once. A normal build reads them as constants; with
//! the `tune` feature they are atomics, exposed as UCI spin options for SPSA tuning.

/// A parameter as a tuner sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Param {
    pub name: &'static str,
    pub default: i32,
    pub min: i32,
    pub max: i32,
}

/// Each entry becomes a function `name()` giving the value, and a row of `TABLE`.
macro_rules! search_params {
    ($($(#[doc = $doc:expr])* $name:ident = $default:literal, $min:literal ..= $max:literal;)*) => {
        $(
            $(#[doc = $doc])*
            #[cfg(not(feature = "tune"))]
            #[inline(always)]
            pub const fn $name() -> i32 {
                $default
            }

            $(#[doc = $doc])*
            #[cfg(feature = "tune")]
            #[inline(always)]
            pub fn $name() -> i32 {
                tuned::$name.load(std::sync::atomic::Ordering::Relaxed)
            }
        )*

        pub const TABLE: &[Param] = &[
            $(Param { name: stringify!($name), default: $default, min: $min, max: $max },)*
        ];

        #[cfg(feature = "tune")]
        #[allow(non_upper_case_globals)]
        mod tuned {
            use std::sync::atomic::AtomicI32;
            $(pub static $name: AtomicI32 = AtomicI32::new($default);)*
        }

        /// Sets the parameter `name` (a tuning build only), within its range.
        #[cfg(feature = "tune")]
        pub fn set(name: &str, value: i32) -> Result<(), String> {
            let p = TABLE
                .iter()
                .find(|p| p.name.eq_ignore_ascii_case(name))
                .ok_or_else(|| format!("no search parameter '{name}'"))?;
            if !(p.min..=p.max).contains(&value) {
                return Err(format!("'{}': {value} out of range {} to {}", p.name, p.min, p.max));
            }
            match p.name {
                $(stringify!($name) => tuned::$name.store(value, std::sync::atomic::Ordering::Relaxed),)*
                _ => {}
            }
            Ok(())
        }
    };
}

search_params! {
    /// Null-move pruning: least depth.
    null_min_depth = 3, 1..=8;
    /// Null-move reduction: `base + depth / divisor`.
    null_base_reduction = 2, 1..=5;
    null_depth_divisor = 4, 1..=10;
    /// Reverse futility pruning: up to this depth, with this margin (cp) per ply.
    rfp_max_depth = 6, 1..=12;
    rfp_margin = 80, 20..=200;
    /// Futility pruning of quiet moves: up to this depth, with this margin (cp) per ply.
    futility_max_depth = 3, 1..=8;
    futility_margin = 110, 30..=300;
    /// Exchange (SEE) pruning, up to this depth (0: never): once a move has been searched, a
    /// quiet move that loses more than `see_quiet_margin` cp per ply by exchange, or a
    /// capture more than `see_capture_margin` cp per ply squared, is skipped (not in check;
    /// at PV nodes too, and checks as well).
    see_prune_max_depth = 8, 0..=12;
    see_quiet_margin = 60, 10..=200;
    see_capture_margin = 20, 5..=100;
    /// Late move pruning: up to this depth, quiets after `base + depth^2` tried are skipped.
    lmp_max_depth = 3, 1..=8;
    lmp_base_moves = 3, 0..=12;
    /// Internal iterative reduction from this depth when the table has no move.
    iir_min_depth = 4, 2..=10;
    /// Late move reductions from this depth and this move number (0-based).
    lmr_min_depth = 3, 1..=8;
    lmr_min_moves = 3, 1..=10;
    /// LMR table: `base + ln(depth) * ln(moves) / divisor`, both in hundredths.
    lmr_base = 75, 0..=200;
    lmr_divisor = 225, 100..=500;
    /// LMR: a ply less per this much history of the move, a ply more per as much below
    /// zero (0: history does not change reductions).
    lmr_history_divisor = 8192, 0..=65536;
    /// Singular extensions: from this depth (64: never), up to twice the root's depth, a table
    /// move whose stored lower or exact bound is at most `singular_depth_margin` plies
    /// shallower is searched a ply deeper when every other move fails low against the stored
    /// score less `singular_margin` cp per ply, by a search of half the depth; if they fail
    /// high even against beta, the node is cut (multi-cut).
    singular_min_depth = 8, 4..=64;
    singular_depth_margin = 3, 1..=6;
    singular_margin = 2, 1..=10;
    /// A tablebase result is stored this many plies deeper than it was probed.
    tb_store_extra_depth = 6, 0..=20;
    /// Aspiration windows: from this depth, this wide (cp), widened up to this before opening.
    aspiration_min_depth = 5, 1..=12;
    aspiration_delta = 25, 5..=200;
    aspiration_max_delta = 1000, 100..=5000;
    /// Move ordering: history scores stay within this bound (an i16's range at most).
    history_max = 16384, 1024..=32767;
    /// A cutoff's history bonus: `quadratic * depth^2 + linear * (depth - 1)`, at most `cap`
    /// (and never above `history_max`).
    history_bonus_quadratic = 16, 1..=64;
    history_bonus_linear = 128, 0..=512;
    history_bonus_cap = 1536, 64..=65536;
    /// Correction history: the static evaluation is corrected by what searches found of its
    /// pawn structure, at most this many cp either way; a search of depth d moves the record
    /// toward its finding by d + 1 256ths, at most `correction_max_weight`.
    correction_limit = 96, 8..=400;
    correction_max_weight = 16, 1..=64;
    /// Soft time, in percent, by how many iterations the best move has stood (0 to 4+).
    stability_0 = 140, 50..=300;
    stability_1 = 120, 50..=300;
    stability_2 = 105, 50..=300;
    stability_3 = 95, 50..=300;
    stability_4 = 80, 30..=300;
    /// Soft time, in percent, when the score fell by more than the small or the large drop.
    score_drop_small = 25, 5..=200;
    score_drop_large = 60, 10..=400;
    score_drop_small_percent = 120, 100..=300;
    score_drop_large_percent = 140, 100..=300;
    /// Time allotment: moves to go when not given, and the most ever assumed.
    default_moves_to_go = 25, 5..=80;
    max_moves_to_go = 50, 10..=100;
    /// The hard limit may stretch to this many soft limits ...
    hard_per_soft = 4, 1..=10;
    /// ... but never past this share of the clock (percent), on the last move before the
    /// time control this one.
    hard_share_of_clock = 60, 10..=95;
    last_move_share_of_clock = 90, 10..=99;
}

/// The `option` lines of a tuning build (OpenBench's SPSA convention); none otherwise.
pub fn option_lines() -> Vec<String> {
    if !cfg!(feature = "tune") {
        return Vec::new();
    }
    TABLE
        .iter()
        .map(|p| {
            format!(
                "option name {} type spin default {} min {} max {}",
                p.name, p.default, p.min, p.max
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_lies_in_its_range_and_names_are_unique() {
        for (i, p) in TABLE.iter().enumerate() {
            assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
            assert!(TABLE[..i].iter().all(|q| q.name != p.name), "{p:?}");
            // python-chess splits option lines on these words.
            for word in ["name", "type", "default", "min", "max", "var"] {
                assert_ne!(p.name, word);
            }
        }
        assert_eq!(rfp_margin(), 80);
    }

    #[cfg(feature = "tune")]
    #[test]
    fn a_tuning_build_sets_parameters_within_range() {
        // A parameter only tablebase searches read, so tests running beside this one are
        // not disturbed.
        assert!(set("tb_store_extra_depth", 21).is_err());
        assert!(set("no_such_thing", 1).is_err());
        set("tb_store_extra_depth", 7).unwrap();
        assert_eq!(tb_store_extra_depth(), 7);
        set("TB_STORE_EXTRA_DEPTH", 6).unwrap();
        assert_eq!(tb_store_extra_depth(), 6);
        assert_eq!(option_lines().len(), TABLE.len());
    }
}
