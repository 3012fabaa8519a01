# OpenBench-style build: `make EXE=<path>` builds the release binary and copies it there.
EXE ?= ferrum

.PHONY: all test bench clean

all:
	cargo build --release
	cp target/release/ferrum $(EXE)

test:
	bash scripts/test.sh

bench: all
	./$(EXE) bench

clean:
	cargo clean
