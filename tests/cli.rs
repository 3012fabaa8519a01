//! The command line as users meet it: `--help` for the binary and every subcommand (each flag
//! listed with its explanation), and a bad flag refused by name with a non-zero status.

use std::process::{Command, Output};

fn ferrum(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrum"))
        .args(args)
        .output()
        .expect("start ferrum")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Each subcommand path with the flags its help must show.
const COMMANDS: &[(&[&str], &[&str])] = &[
    (&["bench"], &["[DEPTH]", "--hce", "--eval-file"]),
    (
        &["perft"],
        &[
            "--fen",
            "--divide",
            "--threads",
            "--hash",
            "--suite",
            "--max-depth",
        ],
    ),
    (
        &["epd"],
        &[
            "--movetime",
            "--depth",
            "--nodes",
            "--hash",
            "--threads",
            "--json",
            "--hce",
            "--eval-file",
        ],
    ),
    (&["eval"], &["--fen", "--hce", "--eval-file"]),
    (&["tb"], &["--path", "[FEN]"]),
    (&["probe"], &["--path"]),
    (
        &["datagen"],
        &[
            "--out",
            "--games",
            "--nodes",
            "--book",
            "--random-plies",
            "--seed",
            "--threads",
            "--format",
            "--stats",
            "--convert",
            "--hce",
            "--eval-file",
        ],
    ),
    (
        &["tune"],
        &[
            "--data",
            "--iterations",
            "--rate",
            "--l2",
            "--hold-out",
            "--freeze-squares",
            "--out",
        ],
    ),
    (
        &["train"],
        &[
            "--data",
            "--out",
            "--hidden",
            "--activation",
            "--epochs",
            "--batch",
            "--lr",
            "--wdl",
            "--hold-out",
            "--threads",
            "--seed",
            "--resume",
        ],
    ),
    (&["connect4"], &["solve", "bench"]),
    (
        &["connect4", "solve"],
        &[
            "--analyze",
            "--table-bits",
            "[FILE]",
            "--max-nodes",
            "--time",
            "--progress",
        ],
    ),
    (
        &["connect4", "bench"],
        &["--repeat", "--table-bits", "<FILE>..."],
    ),
    (
        &["tree"],
        &[
            "--fen",
            "--connect4",
            "--algorithm",
            "--depth",
            "--max-moves",
            "--max-nodes",
            "--out",
        ],
    ),
    (&["spsa-inputs"], &[]),
];

#[test]
fn every_subcommand_answers_help_with_each_flag_and_exits_0() {
    for (path, flags) in COMMANDS {
        for help in ["--help", "-h"] {
            let args: Vec<&str> = path.iter().copied().chain([help]).collect();
            let out = ferrum(&args);
            let stdout = text(&out.stdout);
            assert!(out.status.success(), "{args:?}: {}", text(&out.stderr));
            assert!(out.stderr.is_empty(), "{args:?}: {}", text(&out.stderr));
            assert!(stdout.contains("Usage:"), "{args:?}: {stdout}");
            for flag in *flags {
                assert!(
                    stdout.contains(flag),
                    "{args:?} does not show {flag}: {stdout}"
                );
            }
        }
    }
}

#[test]
fn the_top_help_lists_every_subcommand_and_help_works_as_a_command() {
    let out = ferrum(&["--help"]);
    assert!(out.status.success());
    let top = text(&out.stdout);
    for name in [
        "bench",
        "perft",
        "epd",
        "eval",
        "tb",
        "datagen",
        "tune",
        "train",
        "connect4",
        "tree",
        "spsa-inputs",
    ] {
        let listed = top.lines().any(|l| l.trim_start().starts_with(name));
        assert!(listed, "{name} missing from: {top}");
    }
    let via_help = ferrum(&["help", "perft"]);
    assert!(via_help.status.success());
    assert!(text(&via_help.stdout).contains("--max-depth"));
    let version = ferrum(&["--version"]);
    assert!(version.status.success());
    assert_eq!(text(&version.stdout).trim(), ferrum::play::engine::NAME);
}

/// `--version` and the UCI `id name` carry the version and, built from a git clone, the
/// commit checked out: "Ferrum 0.2.0 (b89bfb8)".
#[test]
fn the_name_carries_the_version_and_the_commit_built() {
    let name = ferrum::play::engine::NAME;
    let rest = name
        .strip_prefix(&format!("Ferrum {}", env!("CARGO_PKG_VERSION")))
        .unwrap_or_else(|| panic!("{name}"));
    let root = env!("CARGO_MANIFEST_DIR");
    let git = |args: &[&str]| {
        Command::new("git")
            .args(args)
            .current_dir(root)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| text(&o.stdout).trim().to_string())
    };
    let in_clone = git(&["rev-parse", "--show-toplevel"])
        .is_some_and(|top| std::fs::canonicalize(top).ok() == std::fs::canonicalize(root).ok());
    match git(&["rev-parse", "--short", "HEAD"]).filter(|_| in_clone) {
        Some(commit) => assert_eq!(rest, format!(" ({commit})")),
        None => assert_eq!(rest, ""),
    }
}

#[test]
fn a_bad_flag_exits_2_with_a_message_naming_it() {
    for path in COMMANDS.iter().map(|(p, _)| *p) {
        let args: Vec<&str> = path.iter().copied().chain(["--frobnicate"]).collect();
        let out = ferrum(&args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains("'--frobnicate'"), "{args:?}: {err}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
}

#[test]
fn bad_values_are_named_too() {
    for (args, named) in [
        (&["bench", "0"][..], "'0'"),
        (&["bench", "x"], "'x'"),
        (&["perft", "x"], "'x'"),
        (&["perft", "65"], "'65'"),
        (&["perft", "3", "--hash", "65537"], "'65537'"),
        (
            &["perft", "3", "--hash", "17592186044416"],
            "'17592186044416'",
        ),
        (&["epd", "f.epd", "--hash", "0"], "'0'"),
        (&["epd", "f.epd", "--depth", "deep"], "'deep'"),
        (&["datagen", "--out", "f", "--format", "csv"], "'csv'"),
        (
            &["train", "--data", "d", "--out", "o", "--activation", "relu"],
            "'relu'",
        ),
        (&["tree", "--algorithm", "minimax"], "'minimax'"),
        (&["tree", "--depth", "0"], "'0'"),
        (&["connect4", "solve", "--table-bits", "40"], "'40'"),
        (&["connect4", "bench", "f", "--repeat", "0"], "'0'"),
    ] {
        let out = ferrum(args);
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(named), "{args:?}: {err}");
    }
}

#[test]
fn missing_required_arguments_and_conflicts_are_refused() {
    for args in [
        &["perft"][..],
        &["perft", "3", "--suite", "s.epd"],
        &["epd"],
        &["tune"],
        &["train", "--data", "d"],
        &[
            "train", "--data", "d", "--out", "o", "--init", "n.bin", "--resume",
        ],
        &["datagen"],
        &["connect4"],
        &["connect4", "bench"],
        &[
            "tree",
            "--fen",
            "8/8/8/8/8/8/8/K1k5 w - - 0 1",
            "--connect4",
            "44",
        ],
        &["frobnicate"],
    ] {
        let out = ferrum(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(text(&out.stderr).contains("Usage:"), "{args:?}");
    }
}

#[test]
fn long_commands_draw_no_progress_bar_when_stderr_is_not_a_terminal() {
    let dir = std::env::temp_dir().join(format!("ferrum-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let suite = dir.join("two.epd");
    std::fs::write(
        &suite,
        "4k3/8/8/8/8/8/8/4K2R w K - 0 1 ;D1 15 ;D2 66\n# a comment\n\n\
         8/8/8/8/8/8/8/K1k5 w - - 0 1 ;D1 1\n",
    )
    .expect("write");
    let out = ferrum(&["perft", "--suite", suite.to_str().expect("path")]);
    std::fs::remove_dir_all(&dir).ok();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert_eq!(text(&out.stdout), "2 passed, 0 failed\n");
    let err = text(&out.stderr);
    assert!(
        err.starts_with("suite time: ") && err.lines().count() == 1,
        "{err:?}"
    );
}

/// A reader that goes away (`ferrum eval | head -1`) ends the subcommand quietly: killed by
/// SIGPIPE as other tools are, with no panic on stderr.
#[cfg(target_os = "linux")]
#[test]
fn a_closed_stdout_ends_a_subcommand_without_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    let (reader, writer) = std::io::pipe().expect("a pipe");
    // The reading end is closed before the engine starts, so its first line meets it closed.
    drop(reader);
    let out = Command::new(env!("CARGO_BIN_EXE_ferrum"))
        .args(["eval", "--fen", "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"])
        .stdout(writer)
        .output()
        .expect("run ferrum");
    let err = text(&out.stderr);
    assert!(!err.contains("panicked"), "{err}");
    assert_eq!(
        out.status.signal(),
        Some(libc::SIGPIPE),
        "{:?} {err}",
        out.status
    );
}

/// What is pasted into OpenBench's tune form: seven fields a line, no empty line at the end,
/// every name a search parameter, and (from a pipe) no newline after the last line.
#[test]
fn spsa_inputs_prints_one_line_of_seven_fields_per_tunable_parameter() {
    let out = ferrum(&["spsa-inputs"]);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let stdout = text(&out.stdout);
    assert!(!stdout.ends_with('\n'), "{stdout:?}");
    let lines: Vec<&str> = stdout.split('\n').collect();
    let tunable = ferrum::search::params::TABLE
        .iter()
        .filter(|p| p.max - p.min > 1);
    assert_eq!(lines.len(), tunable.clone().count());
    for (line, p) in lines.iter().zip(tunable) {
        let fields: Vec<&str> = line.split(", ").collect();
        assert_eq!(fields.len(), 7, "{line}");
        assert_eq!(
            fields[..5],
            [
                p.name,
                "int",
                &p.default.to_string(),
                &p.min.to_string(),
                &p.max.to_string()
            ],
            "{line}"
        );
        assert_eq!(fields[6], "0.002", "{line}");
    }
}

/// A subcommand whose output cannot be written ends with an error naming it and exit code 2,
/// not a panic report.
#[cfg(target_os = "linux")]
#[test]
fn a_full_stdout_is_an_error_not_a_panic() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else {
        return; // no /dev/full in this sandbox: nothing to check
    };
    // perft and bench write through the protocol writer, eval with println!.
    for args in [&["perft", "3"][..], &["bench", "1"], &["eval"]] {
        let out = Command::new(env!("CARGO_BIN_EXE_ferrum"))
            .args(args)
            .stdout(full.try_clone().unwrap())
            .output()
            .unwrap();
        let err = text(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.lines()
                .any(|l| l.starts_with("ferrum: ") && l.contains("failed printing to stdout")),
            "{args:?}: {err}"
        );
        assert!(!err.contains("panicked"), "{args:?}: {err}");
    }
}
