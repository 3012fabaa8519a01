# OpenBench-style build: `make EXE=<path>` builds the release binary straight to <path> (rustc
# writes it there: no copy, so it works with CARGO_TARGET_DIR set elsewhere and on Windows).
#   EVALFILE=<net file>  embed that net instead of nets/default.bin (read by build.rs; a
#                        relative path is taken from this folder)
#   TUNE=1               the tuning build: search parameters as UCI options (`ferrum
#                        spsa-inputs` prints them for OpenBench); a tuning branch commits
#                        `TUNE ?= 1` below, since OpenBench runs plain `make`
EXE ?= ferrum
TUNE ?= 0

ifneq ($(strip $(EVALFILE)),)
export EVALFILE
endif

ifeq ($(TUNE),1)
FEATURES := --features tune
else
FEATURES :=
endif

.PHONY: all test bench clean

all:
	cargo rustc --release --bin ferrum $(FEATURES) -- --emit link=$(EXE)

test:
	bash scripts/test.sh

bench: all
	"$(abspath $(EXE))" bench

clean:
	cargo clean
