//! Build-time facts compiled into the binary: the net file to embed, from the `EVALFILE`
//! environment variable (OpenBench's `make EVALFILE=<path>`) or `nets/default.bin`; and the
//! version with the commit built (`0.2.0 (b89bfb8)`, the version alone outside a git clone).

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

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

    let version = std::env::var("CARGO_PKG_VERSION").unwrap_or_default();
    let version = match commit(&root) {
        Some(c) => format!("{version} ({c})"),
        None => version,
    };
    println!("cargo:rustc-env=FERRUM_VERSION={version}");
    ExitCode::SUCCESS
}

/// `git` run in `root`: its trimmed output, or None when git is missing or fails.
fn git(root: &Path, args: &[&str]) -> Option<String> {
    let out = Command::new("git")
        .args(args)
        .current_dir(root)
        .output()
        .ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// The short hash of the commit checked out in `root`, when `root` is the top of a git work
/// tree (not a folder inside another project's clone, nor an unpacked archive). Cargo is told
/// to run this again when HEAD moves: the files git changes on a commit, checkout or reset.
fn commit(root: &Path) -> Option<String> {
    let top = git(root, &["rev-parse", "--show-toplevel"])?;
    let same = |a: &Path, b: &Path| match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    if !same(Path::new(&top), root) {
        return None;
    }
    let mut watched = vec!["HEAD".to_string(), "logs/HEAD".to_string()];
    if let Some(branch) = git(root, &["symbolic-ref", "-q", "HEAD"]) {
        watched.push(branch);
    }
    for name in watched {
        let path = git(
            root,
            &["rev-parse", "--path-format=absolute", "--git-path", &name],
        );
        // A file that does not exist would make cargo run this script on every build.
        if let Some(p) = path.filter(|p| Path::new(p).exists()) {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    git(root, &["rev-parse", "--short", "HEAD"])
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
