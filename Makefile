# Firn: `make demo` and `make test` work on a fresh machine (they install
# liblz4-dev and libxxhash-dev when missing). `make install PREFIX=…` installs the toolkit.
PREFIX ?= /usr/local
SWIFT ?= swift
CONFIG ?= release
BUILD_FLAGS ?=
# Release builds of firn carry the Swift runtime and Foundation inside the
# binary: it runs on a host without a Swift toolchain (cron and CI machines),
# and starts in about 3 ms instead of 9 (no dynamic loading and binding of a
# dozen Swift libraries on every run; docs/ARCHITECTURE.md, Modules).
RELEASE_FLAGS ?= --static-swift-stdlib
FIRN_FLAGS = $(BUILD_FLAGS) $(if $(filter release,$(CONFIG)),$(RELEASE_FLAGS))

.PHONY: all deps build demo test examples install bench bench-quick docs clean

all: build

# Installs what the build needs when it is missing (Debian: apt-get).
deps:
	@if ! pkg-config --exists liblz4 2>/dev/null; then \
		echo "installing liblz4-dev…"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq liblz4-dev lz4 >/dev/null; \
	fi
	@# XXH32 (libxxhash) for the LZ4 frame's checksums (export).
	@if ! pkg-config --exists libxxhash 2>/dev/null; then \
		echo "installing libxxhash-dev…"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq libxxhash-dev >/dev/null; \
	fi
	@command -v lz4 >/dev/null 2>&1 || { \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq lz4 >/dev/null; }
	@# The tests render the man pages (groff, man) and parse the metrics
	@# (prometheus_client's parser).
	@missing=; \
	command -v groff >/dev/null 2>&1 || missing="$$missing groff"; \
	command -v man >/dev/null 2>&1 || missing="$$missing man-db"; \
	python3 -c 'import prometheus_client' 2>/dev/null || /usr/bin/python3 -c 'import prometheus_client' 2>/dev/null \
		|| missing="$$missing python3-prometheus-client"; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing…"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

build: deps
	$(SWIFT) build -c $(CONFIG) $(FIRN_FLAGS) --product firn

demo: build
	"$$($(SWIFT) build -c $(CONFIG) --show-bin-path)/firn" demo

# The test run's output also goes to .build/test.log; when it fails, the
# failing tests and their recorded issues are printed again at the end, so a
# CI log that keeps only its tail still names them.
test: deps
	$(SWIFT) build --build-tests $(BUILD_FLAGS)
	@mkdir -p .build; rm -f .build/test.rc; rc=0; \
	{ $(SWIFT) test --skip-build $(BUILD_FLAGS) 2>&1 || echo $$? > .build/test.rc; } | tee .build/test.log; \
	if [ -s .build/test.rc ]; then rc=$$(cat .build/test.rc); rm -f .build/test.rc; \
		echo "== make test failed (exit $$rc); the failures, again: =="; \
		grep -E -A4 '^✘ |Fatal error' .build/test.log | head -80; \
		exit $$rc; fi

# The reference documents' examples as a program (Examples/, a package of its
# own that depends on this one by path): builds and runs it. Not part of
# `make test`: it compiles the SDK and the engine a second time, in its own
# build directory (about 2 minutes on two cores); .ci/run runs it after the
# tests. The same examples run in `make test` as Tests/FirnTests/Seed*Tests.
# Then doc-snippets runs every Swift snippet of README.md and docs/SDK.md
# (DocsTests holds each equal to a marked region of Examples/).
examples: deps
	$(SWIFT) build --package-path Examples $(BUILD_FLAGS)
	"$$($(SWIFT) build --package-path Examples --show-bin-path)/firn-examples"
	"$$($(SWIFT) build --package-path Examples --show-bin-path)/doc-snippets"

install: build
	install -d "$(DESTDIR)$(PREFIX)/bin" "$(DESTDIR)$(PREFIX)/share/man/man1" \
		"$(DESTDIR)$(PREFIX)/share/bash-completion/completions" \
		"$(DESTDIR)$(PREFIX)/share/zsh/site-functions" \
		"$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d"
	install -m 755 "$$($(SWIFT) build -c $(CONFIG) --show-bin-path)/firn" "$(DESTDIR)$(PREFIX)/bin/firn"
	install -m 644 man/*.1 "$(DESTDIR)$(PREFIX)/share/man/man1/"
	install -m 644 completions/firn.bash "$(DESTDIR)$(PREFIX)/share/bash-completion/completions/firn"
	install -m 644 completions/_firn "$(DESTDIR)$(PREFIX)/share/zsh/site-functions/_firn"
	install -m 644 completions/firn.fish "$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/firn.fish"

# Regenerates the man pages (`firn --generate-manual`: one mdoc page per
# command, fixed date), the help snapshot they are made from, and the
# completion scripts. DocsTests fails when any of them is stale, and renders
# the pages with groff (warnings fail it).
docs:
	$(SWIFT) build $(BUILD_FLAGS) --product firn
	mkdir -p man completions
	rm -f man/*.1
	BIN="$$($(SWIFT) build --show-bin-path)/firn"; \
	"$$BIN" --generate-manual man; \
	"$$BIN" --experimental-dump-help > man/.help.json; \
	"$$BIN" --generate-completion-script bash > completions/firn.bash; \
	"$$BIN" --generate-completion-script zsh > completions/_firn; \
	"$$BIN" --generate-completion-script fish > completions/firn.fish

clean:
	rm -rf .build

# Benchmarks (Benchmarks/, a package of its own): Firn against LMDB, SQLite
# and lz4 in one run. Installs the peers when missing (Debian: apt-get), builds
# the firn CLI and the bench in release, and runs it from the repository root,
# so figures are appended to ./bench-results.jsonl. BENCH_ARGS passes options
# (e.g. BENCH_ARGS="--only load,get --repetitions 5 --dir /mnt/disk").
.PHONY: bench-deps bench-build
BENCH_ARGS ?=
BENCH_BIN = Benchmarks/.build/release/firn-bench

bench-deps:
	@missing=; \
	for p in liblmdb-dev libsqlite3-dev lmdb-utils sqlite3 lz4 liblz4-dev libxxhash-dev time; do \
		dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing$$missing…"; \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
		$$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq $$missing >/dev/null; \
	fi

bench-build: bench-deps
	$(SWIFT) build -c release $(BUILD_FLAGS) $(RELEASE_FLAGS) --product firn
	$(SWIFT) build -c release --package-path Benchmarks

bench: bench-build
	"$(BENCH_BIN)" --firn "$$($(SWIFT) build -c release --show-bin-path)/firn" $(BENCH_ARGS)

bench-quick: bench-build
	"$(BENCH_BIN)" --quick --firn "$$($(SWIFT) build -c release --show-bin-path)/firn" $(BENCH_ARGS)
