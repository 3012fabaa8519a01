# OpenBench-style build: `make EXE=<path>` builds the release binary straight to <path> (rustc
# writes it there: no copy, so it works with CARGO_TARGET_DIR set elsewhere and on Windows).
#   EVALFILE=<net file>  embed that net instead of nets/default.bin (read by build.rs; a
#                        relative path is taken from this folder)
#   TUNE=1               the tuning build: search parameters as UCI options (`ferrum
#                        spsa-inputs` prints them for OpenBench); a tuning branch commits
#                        `TUNE ?= 1` below, since OpenBench runs plain `make`
#   CPU=x86-64-v3        code for that CPU level (AVX2 and BMI2 everywhere, not only in the
#                        net's loops): faster, but it stops with an illegal instruction on a
#                        CPU without them; the default is the portable x86-64 build
#   PGO=1                profile-guided: an instrumented build runs `ferrum bench`, 16
#                        self-play games and a short training on them (code the profile
#                        never ran is built as cold: without the training, `ferrum train`
#                        ran 6-8 times slower), and LLVM_PROFDATA (default llvm-profdata; it
#                        must read the profiles of rustc's LLVM, `rustc -vV` names it) merges
#                        what it counted for the build written to EXE. Its own folders under
#                        target/pgo
EXE ?= ferrum
TUNE ?= 0
CPU ?=
PGO ?= 0
LLVM_PROFDATA ?= llvm-profdata

ifneq ($(strip $(EVALFILE)),)
export EVALFILE
endif

ifeq ($(TUNE),1)
FEATURES := --features tune
else
FEATURES :=
endif

ifneq ($(strip $(CPU)),)
CPUFLAGS := -C target-cpu=$(CPU)
export RUSTFLAGS := $(CPUFLAGS)
endif

PGODIR ?= $(abspath target/pgo)

.PHONY: all test bench clean

ifeq ($(PGO),1)
all:
	rm -rf $(PGODIR)/profiles
	RUSTFLAGS="$(CPUFLAGS) -C profile-generate=$(PGODIR)/profiles" CARGO_TARGET_DIR=$(PGODIR)/instrumented \
		cargo build --release --bin ferrum $(FEATURES)
	$(PGODIR)/instrumented/release/ferrum bench > /dev/null
	rm -rf $(PGODIR)/train $(PGODIR)/train-data.bin
	$(PGODIR)/instrumented/release/ferrum datagen --out $(PGODIR)/train-data.bin --games 16 \
		--nodes 2000 --seed 1
	$(PGODIR)/instrumented/release/ferrum train --data $(PGODIR)/train-data.bin \
		--out $(PGODIR)/train --hidden 256 --batch 256 --epochs 20 --threads 1 --mirror
	$(LLVM_PROFDATA) merge -o $(PGODIR)/merged.profdata $(PGODIR)/profiles
	RUSTFLAGS="$(CPUFLAGS) -C profile-use=$(PGODIR)/merged.profdata" CARGO_TARGET_DIR=$(PGODIR)/optimised \
		cargo rustc --release --bin ferrum $(FEATURES) -- --emit link=$(EXE)
else
all:
	cargo rustc --release --bin ferrum $(FEATURES) -- --emit link=$(EXE)
endif

test:
	bash scripts/test.sh

bench: all
	"$(abspath $(EXE))" bench

clean:
	cargo clean
