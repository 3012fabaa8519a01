"""The build as OpenBench drives it: EVALFILE embeds the net it names (that build's bench
equals its bench with --eval-file of the same net, and differs from the default net's), a
relative EVALFILE is taken from the repository, and a missing or foreign EVALFILE fails the
build with a message naming the file. The builds use the test profile's target folder and
put it back as it was (the net the environment asks for) at the end. The Makefile's cargo
command, with EXE, EVALFILE and TUNE, is checked against a stand-in for cargo."""

import json
import os
import shutil
import stat
import subprocess
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MANIFEST = ROOT / "Cargo.toml"
# A shallow bench: enough for two nets to differ, a second in the test profile.
BENCH_DEPTH = "6"


def cargo_build(evalfile, cwd=ROOT):
    """`cargo build --bin ferrum` with EVALFILE set to `evalfile` (unset for None): the
    finished process and the binary's path (None when the build failed)."""
    env = dict(os.environ)
    env.pop("EVALFILE", None)
    if evalfile is not None:
        env["EVALFILE"] = str(evalfile)
    proc = subprocess.run(
        ["cargo", "build", "--bin", "ferrum", "--manifest-path", str(MANIFEST),
         "--message-format=json-render-diagnostics"],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=1800)
    exe = None
    for line in proc.stdout.splitlines():
        try:
            msg = json.loads(line)
        except ValueError:
            continue
        if (msg.get("reason") == "compiler-artifact" and msg.get("executable")
                and msg.get("target", {}).get("name") == "ferrum"):
            exe = msg["executable"]
    return proc, (exe if proc.returncode == 0 else None)


def bench_nodes(exe, *extra):
    """The node count of `exe bench` (its last line is '<nodes> nodes <nps> nps')."""
    out = subprocess.run([exe, "bench", BENCH_DEPTH, *extra], cwd=ROOT, capture_output=True,
                         text=True, timeout=600, check=True).stdout
    last = out.strip().splitlines()[-1].split()
    assert last[1] == "nodes", out
    return int(last[0])


class EvalFile(unittest.TestCase):
    @classmethod
    def tearDownClass(cls):
        # The normal build again, so target/ holds what `cargo build` would have left there.
        proc, _ = cargo_build(os.environ.get("EVALFILE") or None)
        assert proc.returncode == 0, proc.stderr

    def test_a_build_with_evalfile_embeds_that_net_relative_to_the_repository(self):
        # Run from elsewhere: the relative path still means the repository's nets/n3.bin.
        with tempfile.TemporaryDirectory() as elsewhere:
            proc, exe = cargo_build("nets/n3.bin", cwd=elsewhere)
        self.assertEqual(proc.returncode, 0, proc.stderr)
        embedded = bench_nodes(exe)
        self.assertEqual(embedded, bench_nodes(exe, "--eval-file", str(ROOT / "nets/n3.bin")))
        self.assertNotEqual(embedded,
                            bench_nodes(exe, "--eval-file", str(ROOT / "nets/default.bin")))

    def test_a_missing_evalfile_fails_the_build_naming_the_file(self):
        with tempfile.TemporaryDirectory() as tmp:
            missing = Path(tmp) / "no-such-net.bin"
            proc, exe = cargo_build(missing)
        self.assertNotEqual(proc.returncode, 0)
        self.assertIsNone(exe)
        self.assertIn(f"EVALFILE: cannot read net file '{missing}'", proc.stderr)

    def test_a_file_that_is_not_a_net_fails_the_build(self):
        proc, exe = cargo_build(ROOT / "Cargo.toml")
        self.assertNotEqual(proc.returncode, 0)
        self.assertIn("is not a Ferrum net file", proc.stderr)


# Stands in for cargo on PATH: prints its arguments and the EVALFILE it was given.
# Asked to build, it leaves a stand-in binary where cargo would, which says what it ran.
FAKE_CARGO = """#!/bin/sh
echo "args: $*"
echo "EVALFILE=${EVALFILE-<unset>}"
echo "RUSTFLAGS=${RUSTFLAGS-<unset>}"
if [ "$1" = build ]; then
    mkdir -p "$CARGO_TARGET_DIR/release"
    printf '#!/bin/sh\\necho "ran: $0 $*" >&2\\n' > "$CARGO_TARGET_DIR/release/ferrum"
    chmod +x "$CARGO_TARGET_DIR/release/ferrum"
fi
"""


@unittest.skipUnless(shutil.which("make"), "make is not installed")
class Makefile(unittest.TestCase):
    def make(self, *args):
        """`make` with these arguments and the stand-in cargo: its two lines."""
        with tempfile.TemporaryDirectory() as tmp:
            fake = Path(tmp) / "cargo"
            fake.write_text(FAKE_CARGO)
            fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
            env = dict(os.environ)
            env.pop("EVALFILE", None)
            env.pop("TUNE", None)
            env.pop("RUSTFLAGS", None)
            args = [a.replace("TMP", tmp) for a in args]
            env["PATH"] = f"{tmp}{os.pathsep}{env.get('PATH', '')}"
            done = subprocess.run(["make", "-s", *args], cwd=ROOT, env=env, capture_output=True,
                                  text=True, timeout=60, check=True)
        self.stderr = done.stderr.replace(tmp, "TMP")
        return [line.replace(tmp, "TMP") for line in done.stdout.splitlines()]

    def test_plain_make_builds_the_release_binary_straight_to_exe(self):
        self.assertEqual(self.make(), [
            "args: rustc --release --bin ferrum -- --emit link=ferrum",
            "EVALFILE=<unset>",
            "RUSTFLAGS=<unset>",
        ])

    def test_exe_evalfile_and_tune_reach_cargo(self):
        self.assertEqual(self.make("EXE=/tmp/x", "EVALFILE=/nets/n.bin", "TUNE=1"), [
            "args: rustc --release --bin ferrum --features tune -- --emit link=/tmp/x",
            "EVALFILE=/nets/n.bin",
            "RUSTFLAGS=<unset>",
        ])

    def test_cpu_builds_for_that_cpu_level(self):
        self.assertEqual(self.make("CPU=x86-64-v3"), [
            "args: rustc --release --bin ferrum -- --emit link=ferrum",
            "EVALFILE=<unset>",
            "RUSTFLAGS=-C target-cpu=x86-64-v3",
        ])

    def test_pgo_builds_instrumented_runs_bench_datagen_train_merges_and_builds(self):
        lines = self.make("PGO=1", "CPU=x86-64-v3", "EXE=/tmp/x", "PGODIR=TMP/pgo",
                          "LLVM_PROFDATA=echo profdata")
        self.assertEqual(lines, [
            "args: build --release --bin ferrum",
            "EVALFILE=<unset>",
            "RUSTFLAGS=-C target-cpu=x86-64-v3 -C profile-generate=TMP/pgo/profiles",
            "profdata merge -o TMP/pgo/merged.profdata TMP/pgo/profiles",
            "args: rustc --release --bin ferrum -- --emit link=/tmp/x",
            "EVALFILE=<unset>",
            "RUSTFLAGS=-C target-cpu=x86-64-v3 -C profile-use=TMP/pgo/merged.profdata",
        ])
        # The instrumented build ran the bench, self-play and a training on its games between
        # the two (code the profile never ran is built as cold: the trainer ran 6-8x slower).
        ran = [line for line in self.stderr.splitlines() if line.startswith("ran: ")]
        self.assertEqual([line.split()[2] for line in ran], ["bench", "datagen", "train"])
        self.assertIn("ran: TMP/pgo/instrumented/release/ferrum bench", ran)
        self.assertIn("--out TMP/pgo/train-data.bin", ran[1])
        self.assertIn("--data TMP/pgo/train-data.bin", ran[2])


if __name__ == "__main__":
    unittest.main()
