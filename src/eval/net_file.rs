//! Where the NNUE comes from: the net compiled into the binary (`nets/default.bin`, see
//! `nets/README.md` for its recipe, or the file `EVALFILE` named at build time: `build.rs`)
//! or a net file named by `EvalFile` or `--eval-file`.

use std::sync::Arc;

use shakmaty::{Chess, Color, Position};

use super::nnue::Network;

/// The `EvalFile` value that selects the net compiled into the binary.
pub const EMBEDDED: &str = "<embedded>";

/// The absolute path of the net file compiled in (`build.rs` chose it).
pub const EMBEDDED_PATH: &str = env!("FERRUM_EVALFILE");

static EMBEDDED_BYTES: &[u8] = include_bytes!(env!("FERRUM_EVALFILE"));

/// A net ready for the search (shared read-only by its threads) and where it came from.
#[derive(Clone, Debug)]
pub struct LoadedNet {
    pub net: Arc<Network>,
    /// `<embedded>` or the file's path.
    pub source: String,
}

impl LoadedNet {
    /// "embedded net (hidden 64, screlu)" or "net /path/x.bin (hidden 64, screlu)".
    pub fn describe(&self) -> String {
        if self.source == EMBEDDED {
            format!("embedded net ({})", self.net.describe())
        } else {
            format!("net {} ({})", self.source, self.net.describe())
        }
    }
}

/// The net's evaluation of `pos` as `ferrum eval` and the UCI `eval` show it, ending as the
/// hand-written report's last line does: "... side to move (white) N cp".
pub fn report_line(loaded: &LoadedNet, pos: &Chess) -> String {
    let side = if pos.turn() == Color::White {
        "white"
    } else {
        "black"
    };
    format!(
        "nnue: {}; side to move ({side}) {} cp",
        loaded.describe(),
        loaded.net.evaluate(pos)
    )
}

/// The net compiled into the binary.
pub fn embedded() -> Result<LoadedNet, String> {
    let net = Network::from_bytes(EMBEDDED_BYTES).map_err(|e| format!("embedded net: {e}"))?;
    Ok(LoadedNet {
        net: Arc::new(net),
        source: EMBEDDED.to_string(),
    })
}

/// The net `spec` names: `<embedded>` (or nothing) for the compiled-in one, else a file path;
/// the error names the file and what is wrong with it.
pub fn load(spec: &str) -> Result<LoadedNet, String> {
    let spec = spec.trim();
    if spec.is_empty() || spec == EMBEDDED {
        return embedded();
    }
    let file =
        std::fs::File::open(spec).map_err(|e| format!("cannot read net file '{spec}': {e}"))?;
    let net = super::nnue::read_net_bytes(file)
        .and_then(|bytes| Network::from_bytes(&bytes))
        .map_err(|e| format!("net file '{spec}': {e}"))?;
    Ok(LoadedNet {
        net: Arc::new(net),
        source: spec.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The nets kept in `nets/` (format version 1, written before king buckets existed) load
    /// and are written again byte for byte.
    #[test]
    fn the_kept_nets_are_written_again_byte_for_byte() {
        for bytes in [
            EMBEDDED_BYTES,
            include_bytes!("../../nets/n3.bin").as_slice(),
            include_bytes!("../../nets/n4b.bin").as_slice(),
        ] {
            let net = Network::from_bytes(bytes).unwrap();
            assert_eq!(net.kings, super::super::nnue::KingLayout::NONE);
            assert!(net.to_bytes() == bytes);
        }
    }

    /// A stream that never ends is refused after its first bytes when they are not a net's,
    /// and after the largest net's size when they begin as one; a net passes whole.
    #[test]
    fn reading_a_net_stops_at_a_bad_magic_or_beyond_the_largest_net() {
        use super::super::nnue::{MAX_FILE_BYTES, read_net_bytes, read_net_bytes_within};
        use std::io::Read;
        let err = read_net_bytes(std::io::repeat(0)).unwrap_err();
        assert!(err.contains("bad magic"), "{err}");
        // The largest net's size as a limit of 1,000 bytes, to keep the test small.
        let endless = EMBEDDED_BYTES[..4].chain(std::io::repeat(0));
        let err = read_net_bytes_within(endless, 1_000).unwrap_err();
        assert!(
            err.contains("larger than any net can be (1000 bytes)"),
            "{err}"
        );
        let exactly = EMBEDDED_BYTES[..4].chain(std::io::repeat(0).take(996));
        assert_eq!(read_net_bytes_within(exactly, 1_000).unwrap().len(), 1_000);
        const { assert!(MAX_FILE_BYTES > 400_000_000 && MAX_FILE_BYTES < 410_000_000) };
        assert_eq!(read_net_bytes(EMBEDDED_BYTES).unwrap(), EMBEDDED_BYTES);
        assert!(read_net_bytes(&b"FR"[..]).unwrap() == b"FR");
        #[cfg(target_os = "linux")]
        {
            let err = load("/dev/zero").unwrap_err();
            assert!(
                err.contains("/dev/zero") && err.contains("bad magic"),
                "{err}"
            );
        }
    }

    #[test]
    fn the_embedded_net_loads_and_bad_files_are_named_with_the_reason() {
        let e = load(EMBEDDED).unwrap();
        assert_eq!(e.source, EMBEDDED);
        assert!(
            e.describe().starts_with("embedded net (hidden "),
            "{}",
            e.describe()
        );
        assert_eq!(load("").unwrap().net, e.net);
        let dir = std::env::temp_dir().join(format!("ferrum-netfile-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let missing = dir.join("missing.bin");
        let err = load(missing.to_str().unwrap()).unwrap_err();
        assert!(
            err.contains("missing.bin") && err.contains("cannot read"),
            "{err}"
        );
        let cut = dir.join("cut.bin");
        std::fs::write(&cut, &EMBEDDED_BYTES[..EMBEDDED_BYTES.len() - 2]).unwrap();
        let err = load(cut.to_str().unwrap()).unwrap_err();
        assert!(
            err.contains("cut.bin") && err.contains("bytes, expected"),
            "{err}"
        );
        let good = dir.join("copy.bin");
        std::fs::write(&good, EMBEDDED_BYTES).unwrap();
        let copy = load(good.to_str().unwrap()).unwrap();
        assert_eq!(copy.net, e.net);
        assert!(copy.describe().contains("copy.bin"), "{}", copy.describe());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
