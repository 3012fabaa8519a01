//! Build-time facts compiled into the binary: the net file to embed, from the `EVALFILE`
//! environment variable (OpenBench's `make EVALFILE=<path>`) or `nets/default.bin`.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// The net embedded when `EVALFILE` is not set.
const DEFAULT_NET: &str = "nets/default.bin";

fn main() -> ExitCode {
    let Some(root) = std::env::var_os("CARGO_MANIFEST_DIR").map(PathBuf::from) else {
        return fail("CARGO_MANIFEST_DIR is not set (run the build through cargo)");
    };
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=EVALFILE");
    let requested = std::env::var_os("EVALFILE").filter(|v| !v.is_empty());
    let net = match net_path(&root, requested.as_deref().map(Path::new)) {
        Ok(p) => p,
        Err(e) => return fail(&e),
    };
    // The path goes into `include_bytes!` through an environment variable, which takes text.
    let Some(text) = net.to_str() else {
        return fail(&format!("EVALFILE: path '{}' is not UTF-8", net.display()));
    };
    println!("cargo:rerun-if-changed={text}");
    println!("cargo:rustc-env=FERRUM_EVALFILE={text}");
    ExitCode::SUCCESS
}

/// The net file to embed, absolute: `requested` (relative to the repository when relative)
/// or the default net; an error names the file and why it cannot be the net.
fn net_path(root: &Path, requested: Option<&Path>) -> Result<PathBuf, String> {
    let (path, origin) = match requested {
        Some(p) => (root.join(p), "EVALFILE"),
        None => (root.join(DEFAULT_NET), "the default net"),
    };
    let bytes = std::fs::read(&path)
        .map_err(|e| format!("{origin}: cannot read net file '{}': {e}", path.display()))?;
    // The full check happens when the engine loads the net; the magic catches a wrong file
    // (a text file, another engine's net) while building.
    if !bytes.starts_with(b"FRNN") {
        return Err(format!(
            "{origin}: '{}' is not a Ferrum net file (it does not start with FRNN)",
            path.display()
        ));
    }
    Ok(path)
}

fn fail(msg: &str) -> ExitCode {
    // Cargo shows a failed build script's stderr under "failed to run custom build command".
    eprintln!("ferrum build: {msg}");
    ExitCode::FAILURE
}
