# Tern: `make demo` runs Tern's main job, `make test` runs every test. Both install what they need.
SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

VENV := .build/venv
PYTHON := $(VENV)/bin/python
SWIFT_FLAGS ?=
# The test run's own servers, ports and state, apart from the demo's.
TEST_SERVERS := TERN_MAILSERVERS_DIR=$(CURDIR)/.build/ms-test TERN_IMAP_PORT=11143 TERN_IMAPS_PORT=11993 \
	TERN_SMTP_PORT=11025 TERN_SUBMISSION_PORT=11587 TERN_SMTPS_PORT=11465 TERN_OAUTH_PORT=11080
# System tests in parallel, a file per worker at a time; each worker past the first runs servers of its own (conftest.py).
PYTEST_WORKERS ?= 2
DEMO_HOME := $(CURDIR)/.build/demo-home
TERN := .build/debug/tern

.PHONY: help deps bench-deps bench-build build format test test-swift test-integration demo demo-stop screenshots clean install uninstall

help:
	@echo "make demo   - local test mail servers with sample mail, a synced Tern account, and the web app on http://127.0.0.1:8025"
	@echo "make test   - install what is missing, start the test servers, run every test, stop them"
	@echo "make build  - build tern (.build/debug/tern)"
	@echo "make screenshots - make demo, then docs/screenshots/ of its web app in the light and dark themes"
	@echo "make format - format the Swift sources as .swift-format says (make test checks it)"
	@echo "make fuzz-mime|fuzz-authres|fuzz-imap|fuzz-smtp|fuzz-html|fuzz-markdown|fuzz-clientconfig|fuzz-dns|fuzz-unsubscribe FUZZ_SECONDS=600 - libFuzzer runs of the parsers"
	@echo "make bench-deps - the peers BENCHMARKS.md measures beside Tern (nh3, bleach, sumy; notmuch when a script needs it)"
	@echo "make bench-build - the release tern and tern-bench (.build/release) that BENCHMARKS.md's commands run"
	@echo "make install [PREFIX=~/.local] - tern, shell completions, systemd user units; make uninstall removes them"

deps: $(VENV)/.ready
	@scripts/install-deps test

bench-deps: deps
	$(PYTHON) -m pip install -q --disable-pip-version-check -r requirements-bench.txt

# Issue 38: the release binaries carry the Swift runtime and Foundation in them (--static-swift-stdlib): no
# Swift shared libraries for the loader to map and bind at every start. `make build` (debug: tests, `make demo`)
# links them as shared libraries.
RELEASE_FLAGS := -c release --static-swift-stdlib

bench-build:
	swift build $(RELEASE_FLAGS) --product tern $(SWIFT_FLAGS)
	swift build $(RELEASE_FLAGS) --product tern-bench $(SWIFT_FLAGS)

$(VENV)/.ready: requirements-test.txt
	python3 -m venv $(VENV)
	$(PYTHON) -m pip install -q --disable-pip-version-check -r requirements-test.txt
	touch $@

build:
	swift build $(SWIFT_FLAGS)

# The Swift the formatter keeps in shape (.swift-format; `make format` rewrites, `make test` lints).
SWIFT_SOURCES := Package.swift Sources Tests Fuzz Benchmarks

format:
	swift format format --in-place --recursive --parallel $(SWIFT_SOURCES)

test: deps
	swift build --build-tests $(SWIFT_FLAGS)
	$(TEST_SERVERS) scripts/mailservers reset
	$(TEST_SERVERS) scripts/mailservers start
	status=0; \
	swift format lint --strict --recursive --parallel $(SWIFT_SOURCES) || status=1; \
	scripts/check-architecture || status=1; \
	scripts/requirements-map --check || status=1; \
	scripts/check-data-licences || status=1; \
	$(TEST_SERVERS) TERN_REQUIRE_TEST_SERVERS=1 swift test --skip-build $(SWIFT_FLAGS) || status=1; \
	$(TEST_SERVERS) $(PYTHON) -m pytest -q -p no:cacheprovider -n $(PYTEST_WORKERS) --dist loadfile --durations=25 SystemTests/integration || status=1; \
	$(TEST_SERVERS) scripts/mailservers stop; \
	scripts/check-system-mail-services || status=1; \
	exit $$status

demo: deps build
	scripts/demo-serve stop
	scripts/mailservers reset
	scripts/mailservers start
	scripts/mailservers seed --user alice --count 500
	rm -rf $(DEMO_HOME) $(DEMO_HOME)-bob
	eval "$$(scripts/mailservers env)"; \
	TERN_HOME=$(DEMO_HOME) $(TERN) account add demo --email alice@tern.test --display-name "Alice Example" \
		--imap 127.0.0.1:$$TERN_IMAPS_PORT --smtp 127.0.0.1:$$TERN_SUBMISSION_PORT --smtp-starttls \
		--password-command "cat $$TERN_TEST_PASSWORD_FILE" --ca-file $$TERN_TEST_CA; \
	TERN_HOME=$(DEMO_HOME)-bob $(TERN) account add bob --email bob@tern.test --display-name "Bob Example" \
		--imap 127.0.0.1:$$TERN_IMAPS_PORT --smtp 127.0.0.1:$$TERN_SUBMISSION_PORT --smtp-starttls \
		--password-command "cat $$TERN_TEST_PASSWORD_FILE" --ca-file $$TERN_TEST_CA
	# A colleague on the same test server writes to Alice, so a reply from the demo arrives in a real mailbox
	# (the seeded senders' domains are not served here: Postfix refuses to relay to them).
	TERN_HOME=$(DEMO_HOME)-bob $(TERN) send --undo 0 --to "Alice Example <alice@tern.test>" --subject "Lunch on Friday?" \
		--body "Hi Alice, are you free for lunch on Friday? Bob"
	TERN_HOME=$(DEMO_HOME) $(TERN) account list
	TERN_HOME=$(DEMO_HOME) $(TERN) status
	TERN_HOME=$(DEMO_HOME) $(TERN) imap-check demo
	TERN_HOME=$(DEMO_HOME) $(TERN) smtp-check demo
	TERN_HOME=$(DEMO_HOME) $(TERN) sync demo
	TERN_HOME=$(DEMO_HOME) $(TERN) folders
	TERN_HOME=$(DEMO_HOME) $(TERN) threads --limit 20
	TERN_HOME=$(DEMO_HOME) $(TERN) send --undo 0 --to bob@tern.test --subject "Hello from the Tern demo" \
		--body "Sent through the local Postfix; a copy is in Sent."
	TERN_HOME=$(DEMO_HOME) $(TERN) threads --folder "[Gmail]/Sent Mail" --limit 3
	TERN_HOME=$(DEMO_HOME) scripts/demo-serve start $(TERN)
	@echo
	@echo "Test mail servers run on 127.0.0.1 (scripts/mailservers status); 'make demo-stop' stops them and the web app."
	@echo "Try: TERN_HOME=$(DEMO_HOME) $(TERN) --help"
	@echo
	@echo "Tern's web app: $$(cat .build/demo-serve.address)"

demo-stop:
	scripts/demo-serve stop
	scripts/mailservers stop

# Issue 39: the README's screenshots, of the demo's web app in each theme.
screenshots: demo
	$(PYTHON) scripts/screenshots "$$(cat .build/demo-serve.address)"

# `make install`: the release binary, completions for bash, zsh and fish, and systemd user units for
# `tern sync --watch` and `tern serve` (as mbsync and offlineimap users expect). Nothing outside PREFIX and the
# user's systemd and completion folders.
PREFIX ?= $(HOME)/.local
BINDIR := $(PREFIX)/bin
SHAREDIR := $(PREFIX)/share
UNITDIR ?= $(HOME)/.config/systemd/user
INSTALLED := $(BINDIR)/tern $(SHAREDIR)/bash-completion/completions/tern $(SHAREDIR)/zsh/site-functions/_tern \
	$(SHAREDIR)/fish/vendor_completions.d/tern.fish $(UNITDIR)/tern-sync.service $(UNITDIR)/tern-serve.service
# Tern's licence and the notices of the data it ships (NOTICE), which go with every copy.
DOCDIR := $(SHAREDIR)/doc/tern

# Only what tern needs to build and run: no mail server, no browser (those come with `make test` and `make demo`).
install:
	scripts/install-deps build
	swift build $(RELEASE_FLAGS) --product tern $(SWIFT_FLAGS)
	install -d $(BINDIR) $(SHAREDIR)/bash-completion/completions $(SHAREDIR)/zsh/site-functions $(SHAREDIR)/fish/vendor_completions.d $(UNITDIR)
	install -m 0755 .build/release/tern $(BINDIR)/tern
	install -d $(DOCDIR)/ThirdParty
	install -m 0644 LICENSE NOTICE $(DOCDIR)/
	for dir in ThirdParty/*/; do name=$$(basename $$dir); install -m 0644 $$dir/LICENSE $(DOCDIR)/ThirdParty/$$name-LICENSE; done
	install -m 0644 Tests/HTMLSafetyTests/html5lib-tests/LICENSE $(DOCDIR)/ThirdParty/html5lib-tests-LICENSE
	$(BINDIR)/tern --generate-completion-script bash > $(SHAREDIR)/bash-completion/completions/tern
	$(BINDIR)/tern --generate-completion-script zsh > $(SHAREDIR)/zsh/site-functions/_tern
	$(BINDIR)/tern --generate-completion-script fish > $(SHAREDIR)/fish/vendor_completions.d/tern.fish
	for unit in tern-sync tern-serve; do sed 's|@BINDIR@|$(BINDIR)|g' contrib/systemd/$$unit.service > $(UNITDIR)/$$unit.service; done
	install -d -m 0700 $(HOME)/.local/share/tern
	@echo "Installed $(BINDIR)/tern. Web app as a service: systemctl --user enable --now tern-serve"

uninstall:
	-systemctl --user disable --now tern-sync tern-serve 2>/dev/null
	rm -f $(INSTALLED)
	rm -rf $(DOCDIR)

clean:
	scripts/mailservers reset || true
	$(TEST_SERVERS) scripts/mailservers reset || true
	rm -rf .build

# Fuzzing (libFuzzer + AddressSanitizer), in its own build folder. FUZZ_SECONDS=600 for the full run.
FUZZ_SECONDS ?= 60
FUZZ_FLAGS := -c release --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING -Xswiftc -Xclang-linker -Xswiftc -fuse-ld=lld

# $(call fuzz,Product,corpus name,seed files,max input length)
define fuzz
	swift build $(FUZZ_FLAGS) --product $(1)
	mkdir -p .build-fuzz/corpus-$(2) .build-fuzz/artifacts
	cp -n $(3) .build-fuzz/corpus-$(2)/ 2>/dev/null || true
	.build-fuzz/release/$(1) .build-fuzz/corpus-$(2) -max_total_time=$(FUZZ_SECONDS) -max_len=$(4) \
		-rss_limit_mb=4096 -artifact_prefix=.build-fuzz/artifacts/ -print_final_stats=1
endef

.PHONY: fuzz-mime fuzz-authres fuzz-imap fuzz-smtp fuzz-html fuzz-markdown fuzz-clientconfig fuzz-dns fuzz-unsubscribe
fuzz-mime:
	$(call fuzz,MIMEFuzzer,mime,Tests/MIMETests/Corpus/*.eml Fuzz/MIMEFuzzer/seeds/*,262144)

fuzz-authres:
	$(call fuzz,AuthResultsFuzzer,authres,Fuzz/AuthResultsFuzzer/seeds/*,16384)

fuzz-imap:
	$(call fuzz,IMAPFuzzer,imap,Fuzz/IMAPFuzzer/seeds/*,65536)

fuzz-smtp:
	$(call fuzz,SMTPFuzzer,smtp,Fuzz/SMTPFuzzer/seeds/*,65536)

fuzz-html:
	$(call fuzz,HTMLFuzzer,html,Fuzz/HTMLFuzzer/seeds/*,65536)

fuzz-markdown:
	$(call fuzz,MarkdownFuzzer,markdown,Fuzz/MarkdownFuzzer/seeds/*,65536)

fuzz-clientconfig:
	$(call fuzz,ClientConfigFuzzer,clientconfig,Fuzz/ClientConfigFuzzer/seeds/*,65536)

fuzz-dns:
	$(call fuzz,DNSMessageFuzzer,dns,Fuzz/DNSMessageFuzzer/seeds/*,4096)

fuzz-unsubscribe:
	$(call fuzz,ListUnsubscribeFuzzer,unsubscribe,Fuzz/ListUnsubscribeFuzzer/seeds/*,16384)
