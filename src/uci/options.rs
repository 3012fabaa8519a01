//! The UCI option table: what we advertise, and how `setoption` values are checked.

use vampirc_uci::{Serializable, UciMessage, UciOptionConfig};

use crate::eval::net_file;
use crate::search::params;
use crate::uci::parse::shorten;

pub const HASH_DEFAULT_MB: usize = 16;
pub const HASH_MAX_MB: usize = 65_536;
pub const MOVE_OVERHEAD_DEFAULT_MS: i64 = 30;
pub const MOVE_OVERHEAD_MAX_MS: i64 = 5000;
pub const THREADS_MAX: usize = 256;
pub const MULTIPV_MAX: usize = 256;
/// Tablebase probing: least remaining depth, and most pieces (7, the largest Syzygy tables,
/// by default: in effect the largest tables loaded).
pub const SYZYGY_PROBE_DEPTH_DEFAULT: i32 = 1;
pub const SYZYGY_PROBE_DEPTH_MAX: i32 = 100;
pub const SYZYGY_PROBE_LIMIT_MAX: usize = 7;
/// `UCI_Elo`'s range and default (what `play::strength` plays at).
pub const ELO_MIN: u32 = 1200;
pub const ELO_MAX: u32 = 2050;
pub const ELO_DEFAULT: u32 = 1800;

/// The settings a `go` reads; the table itself lives in the engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Options {
    pub hash_mb: usize,
    pub move_overhead_ms: i64,
    pub chess960: bool,
    pub threads: usize,
    pub multipv: usize,
    pub syzygy_probe_depth: i32,
    pub syzygy_probe_limit: usize,
    pub limit_strength: bool,
    pub elo: u32,
    /// Evaluate with the NNUE instead of the hand-written evaluation.
    pub use_nnue: bool,
    /// `UCI_ShowWDL`: `info` lines with a score also carry `wdl W D L` (see `wdl.rs`).
    pub show_wdl: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            hash_mb: HASH_DEFAULT_MB,
            move_overhead_ms: MOVE_OVERHEAD_DEFAULT_MS,
            chess960: false,
            threads: 1,
            multipv: 1,
            syzygy_probe_depth: SYZYGY_PROBE_DEPTH_DEFAULT,
            syzygy_probe_limit: SYZYGY_PROBE_LIMIT_MAX,
            limit_strength: false,
            elo: ELO_DEFAULT,
            use_nnue: true,
            show_wdl: false,
        }
    }
}

/// A checked `setoption`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    Hash(usize),
    ClearHash,
    MoveOverhead(i64),
    Ponder(bool),
    Chess960(bool),
    Threads(usize),
    MultiPv(usize),
    /// Directories of tables; empty unloads them.
    SyzygyPath(String),
    SyzygyProbeDepth(i32),
    SyzygyProbeLimit(usize),
    LimitStrength(bool),
    Elo(u32),
    UseNnue(bool),
    ShowWdl(bool),
    /// A net file's path, or `<embedded>` for the net compiled into the binary.
    EvalFile(String),
    /// A search parameter was set (tuning builds only).
    Tuned,
}

/// The `option` lines sent in answer to `uci`, with the defaults the engine started with
/// (`ferrum --hce` starts with `UseNNUE` false, and says so, so a GUI that sends every
/// option's default keeps it).
pub fn option_lines(defaults: &Options) -> Vec<String> {
    let spin = |name: &str, default: i64, min: i64, max: i64| UciOptionConfig::Spin {
        name: name.to_string(),
        default: Some(default),
        min: Some(min),
        max: Some(max),
    };
    let check = |name: &str, default: bool| UciOptionConfig::Check {
        name: name.to_string(),
        default: Some(default),
    };
    [
        spin("Hash", HASH_DEFAULT_MB as i64, 1, HASH_MAX_MB as i64),
        spin("Threads", 1, 1, THREADS_MAX as i64),
        spin("MultiPV", 1, 1, MULTIPV_MAX as i64),
        UciOptionConfig::Button {
            name: "Clear Hash".to_string(),
        },
        spin(
            "Move Overhead",
            MOVE_OVERHEAD_DEFAULT_MS,
            0,
            MOVE_OVERHEAD_MAX_MS,
        ),
        check("Ponder", false),
        check("UCI_Chess960", false),
        UciOptionConfig::String {
            name: "SyzygyPath".to_string(),
            default: Some("<empty>".to_string()),
        },
        spin(
            "SyzygyProbeDepth",
            SYZYGY_PROBE_DEPTH_DEFAULT as i64,
            1,
            SYZYGY_PROBE_DEPTH_MAX as i64,
        ),
        spin(
            "SyzygyProbeLimit",
            SYZYGY_PROBE_LIMIT_MAX as i64,
            0,
            SYZYGY_PROBE_LIMIT_MAX as i64,
        ),
        check("UCI_LimitStrength", false),
        spin(
            "UCI_Elo",
            i64::from(ELO_DEFAULT),
            i64::from(ELO_MIN),
            i64::from(ELO_MAX),
        ),
        check("UCI_ShowWDL", defaults.show_wdl),
        check("UseNNUE", defaults.use_nnue),
        UciOptionConfig::String {
            name: "EvalFile".to_string(),
            default: Some(net_file::EMBEDDED.to_string()),
        },
    ]
    .into_iter()
    .map(|o| UciMessage::Option(o).serialize())
    .chain(params::option_lines())
    .collect()
}

fn spin_value(name: &str, value: Option<&str>, min: i64, max: i64) -> Result<i64, String> {
    let v = value.ok_or_else(|| format!("option '{name}' needs a value"))?;
    let n: i64 = v.trim().parse().map_err(|_| {
        format!(
            "option '{name}': bad value '{}' (expected {min} to {max})",
            shorten(v)
        )
    })?;
    if !(min..=max).contains(&n) {
        return Err(format!(
            "option '{name}': value {n} out of range {min} to {max}"
        ));
    }
    Ok(n)
}

fn check_value(name: &str, value: Option<&str>) -> Result<bool, String> {
    match value.map(|v| v.trim().to_ascii_lowercase()).as_deref() {
        Some("true") => Ok(true),
        Some("false") => Ok(false),
        Some(v) => Err(format!(
            "option '{name}': bad value '{}' (expected true or false)",
            shorten(v)
        )),
        None => Err(format!("option '{name}' needs a value")),
    }
}

/// Checks a `setoption`; option names are matched without regard to case, as GUIs differ.
pub fn parse(name: &str, value: Option<&str>) -> Result<Change, String> {
    match name.trim().to_ascii_lowercase().as_str() {
        "hash" => {
            spin_value("Hash", value, 1, HASH_MAX_MB as i64).map(|v| Change::Hash(v as usize))
        }
        "clear hash" => Ok(Change::ClearHash),
        "threads" => {
            spin_value("Threads", value, 1, THREADS_MAX as i64).map(|v| Change::Threads(v as usize))
        }
        "multipv" => {
            spin_value("MultiPV", value, 1, MULTIPV_MAX as i64).map(|v| Change::MultiPv(v as usize))
        }
        "move overhead" => {
            spin_value("Move Overhead", value, 0, MOVE_OVERHEAD_MAX_MS).map(Change::MoveOverhead)
        }
        "ponder" => check_value("Ponder", value).map(Change::Ponder),
        "uci_chess960" => check_value("UCI_Chess960", value).map(Change::Chess960),
        "uci_limitstrength" => check_value("UCI_LimitStrength", value).map(Change::LimitStrength),
        "uci_showwdl" => check_value("UCI_ShowWDL", value).map(Change::ShowWdl),
        "uci_elo" => spin_value("UCI_Elo", value, i64::from(ELO_MIN), i64::from(ELO_MAX))
            .map(|v| Change::Elo(v as u32)),
        "syzygypath" => {
            let path = value.map(str::trim).unwrap_or("");
            Ok(Change::SyzygyPath(if path == "<empty>" {
                String::new()
            } else {
                path.to_string()
            }))
        }
        "usennue" => check_value("UseNNUE", value).map(Change::UseNnue),
        "evalfile" => {
            let path = value.map(str::trim).unwrap_or("");
            Ok(Change::EvalFile(if path.is_empty() {
                net_file::EMBEDDED.to_string()
            } else {
                path.to_string()
            }))
        }
        "syzygyprobedepth" => {
            spin_value("SyzygyProbeDepth", value, 1, SYZYGY_PROBE_DEPTH_MAX as i64)
                .map(|v| Change::SyzygyProbeDepth(v as i32))
        }
        "syzygyprobelimit" => {
            spin_value("SyzygyProbeLimit", value, 0, SYZYGY_PROBE_LIMIT_MAX as i64)
                .map(|v| Change::SyzygyProbeLimit(v as usize))
        }
        _ => tuned_parameter(name, value),
    }
}

/// A tuning build sets search parameters by name; the change takes effect at once.
#[cfg(feature = "tune")]
fn tuned_parameter(name: &str, value: Option<&str>) -> Result<Change, String> {
    let p = params::TABLE
        .iter()
        .find(|p| p.name.eq_ignore_ascii_case(name.trim()))
        .ok_or_else(|| format!("unknown option '{}'", shorten(name)))?;
    let v = spin_value(p.name, value, i64::from(p.min), i64::from(p.max))?;
    params::set(p.name, v as i32).map(|()| Change::Tuned)
}

#[cfg(not(feature = "tune"))]
fn tuned_parameter(name: &str, _value: Option<&str>) -> Result<Change, String> {
    Err(format!("unknown option '{}'", shorten(name)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn advertised_options_are_well_formed() {
        let lines = option_lines(&Options::default());
        assert!(
            lines.contains(&"option name Hash type spin default 16 min 1 max 65536".to_string())
        );
        assert!(lines.contains(&"option name Clear Hash type button".to_string()));
        assert!(lines.contains(&"option name UCI_Chess960 type check default false".to_string()));
        assert!(lines.contains(&"option name SyzygyPath type string default <empty>".to_string()));
        assert!(
            lines.contains(
                &"option name UCI_Elo type spin default 1800 min 1200 max 2050".to_string()
            )
        );
        assert!(lines.contains(&"option name UseNNUE type check default true".to_string()));
        assert!(lines.contains(&"option name UCI_ShowWDL type check default false".to_string()));
        assert!(lines.contains(&"option name EvalFile type string default <embedded>".to_string()));
        assert!(
            lines.contains(
                &"option name SyzygyProbeLimit type spin default 7 min 0 max 7".to_string()
            )
        );
    }

    #[test]
    fn the_advertised_defaults_are_those_the_engine_started_with() {
        let hce = Options {
            use_nnue: false,
            ..Options::default()
        };
        let lines = option_lines(&hce);
        assert!(lines.contains(&"option name UseNNUE type check default false".to_string()));
    }

    #[test]
    fn every_advertised_option_is_accepted_as_its_own_change() {
        // One good value for each option the handshake lists, and the change it must give.
        let cases = [
            ("Hash", Some("32"), Change::Hash(32)),
            ("Threads", Some("3"), Change::Threads(3)),
            ("MultiPV", Some("2"), Change::MultiPv(2)),
            ("Clear Hash", None, Change::ClearHash),
            ("Move Overhead", Some("50"), Change::MoveOverhead(50)),
            ("Ponder", Some("true"), Change::Ponder(true)),
            ("UCI_Chess960", Some("true"), Change::Chess960(true)),
            (
                "SyzygyPath",
                Some("/tb"),
                Change::SyzygyPath("/tb".to_string()),
            ),
            ("SyzygyProbeDepth", Some("4"), Change::SyzygyProbeDepth(4)),
            ("SyzygyProbeLimit", Some("5"), Change::SyzygyProbeLimit(5)),
            (
                "UCI_LimitStrength",
                Some("false"),
                Change::LimitStrength(false),
            ),
            ("UCI_Elo", Some("1600"), Change::Elo(1600)),
            ("UCI_ShowWDL", Some("true"), Change::ShowWdl(true)),
            ("UseNNUE", Some("false"), Change::UseNnue(false)),
            (
                "EvalFile",
                Some("n.bin"),
                Change::EvalFile("n.bin".to_string()),
            ),
        ];
        let advertised: Vec<String> = option_lines(&Options::default())
            .iter()
            .filter_map(|l| {
                let rest = l.strip_prefix("option name ")?;
                Some(rest[..rest.find(" type ")?].to_string())
            })
            // A tuning build also lists the search parameters (tested below).
            .filter(|name| !params::TABLE.iter().any(|p| p.name == name))
            .collect();
        let named: Vec<&str> = cases.iter().map(|c| c.0).collect();
        assert_eq!(advertised, named, "every advertised option has a case here");
        for (name, value, change) in cases {
            assert_eq!(parse(name, value), Ok(change.clone()), "{name}");
            assert_eq!(
                parse(&name.to_ascii_uppercase(), value),
                Ok(change),
                "{name}"
            );
        }
        // A name nobody advertises is an error, not some change.
        assert!(
            parse("Threads2", Some("1"))
                .unwrap_err()
                .contains("unknown option 'Threads2'")
        );
        // A huge name or value is quoted only in part.
        let huge = "x".repeat(500_000);
        let e = parse(&huge, Some("1")).unwrap_err();
        assert!(e.len() < 200 && e.contains("xxx..."), "{} bytes", e.len());
        let e = parse("Hash", Some(&huge)).unwrap_err();
        assert!(e.len() < 200, "{} bytes", e.len());
        let e = parse("Ponder", Some(&huge)).unwrap_err();
        assert!(e.len() < 200, "{} bytes", e.len());
    }

    /// A tuning build takes the search parameters as options, by name and within range.
    #[cfg(feature = "tune")]
    #[test]
    fn a_tuning_build_takes_search_parameters_as_options() {
        // A parameter only tablebase searches read, at its default, so tests running beside
        // this one are not disturbed.
        let p = params::TABLE
            .iter()
            .find(|p| p.name == "tb_store_extra_depth")
            .unwrap();
        let default = p.default.to_string();
        assert_eq!(
            parse("TB_Store_Extra_Depth", Some(&default)),
            Ok(Change::Tuned)
        );
        assert!(parse(p.name, Some(&(p.max + 1).to_string())).is_err());
        assert!(parse("no_such_parameter", Some("1")).is_err());
    }

    #[test]
    fn values_are_checked_and_bad_ones_named() {
        assert_eq!(parse("hash", Some("64")), Ok(Change::Hash(64)));
        assert_eq!(
            parse("Move Overhead", Some(" 100 ")),
            Ok(Change::MoveOverhead(100))
        );
        assert_eq!(parse("Ponder", Some("TRUE")), Ok(Change::Ponder(true)));
        assert!(
            parse("Hash", Some("0"))
                .unwrap_err()
                .contains("out of range")
        );
        assert!(parse("Hash", Some("lots")).unwrap_err().contains("'lots'"));
        assert!(parse("Hash", None).is_err());
        assert!(
            parse("Ponder", Some("maybe"))
                .unwrap_err()
                .contains("'maybe'")
        );
        assert_eq!(
            parse("SyzygyPath", Some(" /tb/a:/tb/b ")),
            Ok(Change::SyzygyPath("/tb/a:/tb/b".to_string()))
        );
        assert_eq!(
            parse("SyzygyPath", Some("<empty>")),
            Ok(Change::SyzygyPath(String::new()))
        );
        assert_eq!(
            parse("SyzygyProbeLimit", Some("3")),
            Ok(Change::SyzygyProbeLimit(3))
        );
        assert!(parse("SyzygyProbeLimit", Some("8")).is_err());
        assert!(parse("SyzygyProbeDepth", Some("0")).is_err());
        assert_eq!(parse("UCI_Elo", Some("1500")), Ok(Change::Elo(1500)));
        assert!(
            parse("UCI_Elo", Some("1199"))
                .unwrap_err()
                .contains("out of range")
        );
        assert!(parse("UCI_Elo", Some("2601")).is_err());
        assert_eq!(
            parse("UCI_LimitStrength", Some("true")),
            Ok(Change::LimitStrength(true))
        );
        assert_eq!(parse("usennue", Some("true")), Ok(Change::UseNnue(true)));
        assert!(parse("UseNNUE", Some("yes")).unwrap_err().contains("'yes'"));
        assert_eq!(
            parse("EvalFile", Some(" nets/x.bin ")),
            Ok(Change::EvalFile("nets/x.bin".to_string()))
        );
        assert_eq!(
            parse("EvalFile", None),
            Ok(Change::EvalFile("<embedded>".to_string()))
        );
        assert!(
            parse("Contempt", Some("1"))
                .unwrap_err()
                .contains("'Contempt'")
        );
    }
}
