# fwstruct: structural SVMs with block-coordinate Frank-Wolfe.
#
#   make test       vet, format check, lint and the whole test suite (real data when present)
#   make lint       staticcheck and the goimports grouping (installs the pinned tools)
#   make demo       train on OCR when present (else the built-in synthetic data), write the trace
#   make bench      benchmarks of the hot paths (oracle, block step, gap pass, memory)
#   make fuzz       run every Fuzz test for FUZZTIME each (their seed corpora run in make test)
#   make race       the whole test suite under the race detector (slow; not part of make test)
#   make dist-test  vet, lint and the tests of the dist module (Apache Beam, on prism in-process)
#   make notebooks  install Jupyter + GoNB and execute every notebook headlessly
#   make browser-check  render an interactive chart in headless Chromium and check the screenshot
#   make widget-check   notebook 13 in headless Chromium (Selenium): a slider moved while a run trains

SHELL := /bin/bash
GO ?= go
export PATH := $(PATH):/usr/local/go/bin:$(shell $(GO) env GOPATH 2>/dev/null)/bin

# Real datasets live beside the project; tests skip cleanly without them.
ifneq ($(wildcard ../shared/data),)
export FWSTRUCT_DATA ?= $(abspath ../shared/data)
endif

OUT := out

.PHONY: all test vet fmt-check lint lint-deps demo bench fuzz race dist-test clean

all: test

test: vet fmt-check lint
	$(GO) test -count=1 -timeout 20m ./...

vet:
	$(GO) vet ./...

fmt-check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi

# Lint with zero findings: staticcheck, and imports grouped as goimports
# -local groups them (standard library, third-party modules, this module).
STATICCHECK_VERSION := v0.7.0
MODULE := github.com/fwstruct/fwstruct
lint: lint-deps
	$(NB_GOBIN)/staticcheck ./...
	@bad=$$($(NB_GOBIN)/goimports -l -local $(MODULE) $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$bad" ]; then echo "imports not grouped as goimports -local $(MODULE) groups them:"; echo "$$bad"; exit 1; fi

lint-deps:
	@$(GO_TOOL_INSTALL); \
	install staticcheck honnef.co/go/tools $(STATICCHECK_VERSION) honnef.co/go/tools/cmd/staticcheck && \
	install goimports golang.org/x/tools $(XTOOLS_VERSION) golang.org/x/tools/cmd/goimports

demo:
	@mkdir -p $(OUT)
	$(GO) run ./cmd/fwstruct train --data auto --lambda 0.01 --passes 50 --gap-every 5 \
		--trace $(OUT)/demo-trace.json --model $(OUT)/demo-model.json
	@echo "trace: $(OUT)/demo-trace.json  model: $(OUT)/demo-model.json"

# Every package's benchmarks (BENCHPKGS); the long figure measurements
# (BenchmarkShahFigures, ...) run only with their -args flag, see their docs.
BENCHTIME ?= 2s
BENCHPKGS ?= ./...
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) $(BENCHPKGS)

# go test -fuzz takes one function of one package at a time: list the Fuzz
# functions of every package with tests (FUZZPKGS) and fuzz each for FUZZTIME.
# A failing input is saved under the package's testdata/fuzz/ (commit it: it
# becomes part of the seed corpus that make test runs). FUZZMINIMIZE bounds the
# minimization of each new input (Go's default, 60s, would eat the whole
# FUZZTIME on inputs of a few kilobytes such as letter.data lines).
FUZZTIME ?= 30s
FUZZMINIMIZE ?= 5s
FUZZPKGS ?= ./...
fuzz:
	@pkgs=$$($(GO) list -f '{{if or .TestGoFiles .XTestGoFiles}}{{.ImportPath}}{{end}}' $(FUZZPKGS)) || exit 1; \
	found=0; failed=; log=$$(mktemp); trap 'rm -f "$$log"' EXIT; \
	for pkg in $$pkgs; do \
		fns=$$($(GO) test -list '^Fuzz' $$pkg) || { echo "$$fns"; exit 1; }; \
		dir=$$($(GO) list -f '{{.Dir}}' $$pkg); \
		for fn in $$(echo "$$fns" | grep '^Fuzz'); do \
			found=$$((found + 1)); \
			echo "== $$pkg $$fn ($(FUZZTIME))"; \
			before=$$(ls "$$dir/testdata/fuzz/$$fn" 2>/dev/null | wc -l); \
			if $(GO) test -run '^$$' -fuzz "^$$fn$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) $$pkg > "$$log" 2>&1; then \
				tail -n 2 "$$log"; \
			elif [ "$$(ls "$$dir/testdata/fuzz/$$fn" 2>/dev/null | wc -l)" = "$$before" ] && grep -q 'context deadline exceeded' "$$log"; then \
				tail -n 3 "$$log"; echo "(ignored: the fuzz engine's deadline at the end of -fuzztime, no failing input)"; \
			else \
				grep -v '^fuzz: elapsed' "$$log"; failed="$$failed $$fn"; \
			fi; \
		done; \
	done; \
	echo "fuzz: $$found Fuzz functions, $(FUZZTIME) each"; \
	if [ -n "$$failed" ]; then echo "fuzz: FAILED:$$failed"; exit 1; fi

# The race detector slows the tests down: solver/kernel, solver/run/runtest,
# solver/internal/golden, solver/internal/core and oracles took 80 s instead
# of 14 s (5.7x; two interleaved runs each, 2 cores, load average 20). The
# whole suite, which takes 5 to 20 minutes without it, was not timed under it.
race:
	$(GO) test -race -count=1 -timeout 120m ./...

# The dist module (dist/, docs/distributed.md) has a go.mod of its own, so that the core
# module never requires Apache Beam: ./... above stops at it (gofmt and goimports, which
# read git's list of files, do check it). Its vet, staticcheck and tests, on Beam's prism
# runner in-process; the first run downloads and builds Beam (minutes).
dist-test: lint-deps
	cd dist && $(GO) vet ./... && $(NB_GOBIN)/staticcheck ./... && $(GO) test -count=1 -timeout 20m ./...

clean:
	rm -rf $(OUT)

# ---------------------------------------------------------------------------
# Notebooks: Jupyter (Debian packages) + GoNB, executed headlessly.
# See notebooks/README.md. Every install step is skipped when already done.
#
#   make notebook-deps   Jupyter (apt), gonb/goimports/gopls (go install), GoNB kernelspec,
#                        and the ECharts asset of the interactive charts (viz-assets)
#   make notebooks       notebook-deps, then execute notebooks/*.ipynb into out/notebooks
#                        and check them with tools/nbcheck
#   make jupyter         a Jupyter server on notebooks/ (JUPYTER_PORT, JUPYTER_ARGS)
#   make viz-assets      viz/assets/echarts.min.js from the npm registry (not committed)
#   make browser-check   screenshot $(HTML) in headless Chromium, check it shows a chart;
#                        HTML defaults to the gap chart exported by `fwstruct report`

# apt-get as root, else through sudo.
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
APT_INSTALL = $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends

# The system interpreter: `python3` on PATH may be another one (pyenv) without Jupyter.
# PYDEVD_...: silences ipykernel's debugger warning about frozen modules.
SYS_PYTHON := /usr/bin/python3
JUPYTER := PYDEVD_DISABLE_FILE_VALIDATION=1 /usr/bin/jupyter
# jupyter-nbconvert holds the `jupyter nbconvert` subcommand (python3-nbconvert only the module).
JUPYTER_PKGS := jupyter-notebook python3-nbconvert jupyter-nbconvert python3-nbclient jupyter-client python3-ipykernel

# Go tools for the kernel, pinned (the proxy refuses some @latest look-ups).
GONB_VERSION := v0.11.4
XTOOLS_VERSION := v0.47.0
GOPLS_VERSION := v0.23.0
NB_GOBIN := $(shell $(GO) env GOPATH 2>/dev/null)/bin

NB_DIR := notebooks
NB_OUT := $(OUT)/notebooks
# Seconds per cell; the first cell of a cold machine downloads and compiles modules.
NB_TIMEOUT ?= 1200
NOTEBOOKS ?= $(wildcard $(NB_DIR)/*.ipynb)

.PHONY: notebooks notebook-deps jupyter jupyter-deps gonb-deps gonb-kernel notebooks-run \
	viz-assets browser-deps browser-check browser-selftest nbtools widget-deps widget-check

# The helper programs of tools/, built (not `go run`, which turns every exit code into 1).
TOOLBIN := $(OUT)/tools
nbtools:
	@mkdir -p $(TOOLBIN)
	$(GO) build -o $(TOOLBIN)/ ./tools/...

# The interactive charts inline viz/assets/echarts.min.js: without it they load ECharts from
# the network and stay blank offline (nbcheck rejects them).
notebook-deps: jupyter-deps gonb-deps gonb-kernel viz-assets

# APT_ENSURE defines the shell function `ensure PKG...`, which installs the Debian packages
# among PKG that are not installed; apt-get update only when something is missing.
define APT_ENSURE
ensure() { missing=; for p in "$$@"; do \
		dpkg-query -W -f='$${db:Status-Status}' $$p 2>/dev/null | grep -qx installed || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
		echo "installing:$$missing"; \
		$(SUDO) apt-get update -qq && $(APT_INSTALL) $$missing; \
	fi; }
endef

jupyter-deps:
	@$(APT_ENSURE); ensure $(JUPYTER_PKGS)
	@$(JUPYTER) --version | grep -E '^(nbconvert|nbclient|jupyter_client|ipykernel|notebook) '

# GO_TOOL_INSTALL defines the shell function `install BIN MODULE VERSION PACKAGE`, which puts
# a pinned Go tool into NB_GOBIN. `go version -m` tells which module version a binary was built
# from: it rebuilds only on mismatch. `go install pkg@version` looks up the module's deprecation
# through its version list, which the module proxy here refuses for some modules (403, gonb):
# then it builds the tool in a temporary module that requires exactly that version (same build
# list, no list look-up).
define GO_TOOL_INSTALL
install() { bin=$$1 mod=$$2 ver=$$3 pkg=$$4; \
	if $(GO) version -m "$(NB_GOBIN)/$$bin" 2>/dev/null | grep -qE "^[[:space:]]+mod[[:space:]]+$$mod[[:space:]]+$$ver([[:space:]]|$$)"; then \
		return 0; \
	fi; \
	echo "go install $$pkg@$$ver"; \
	GOBIN="$(NB_GOBIN)" $(GO) install "$$pkg@$$ver" && return 0; \
	echo "go install failed: building $$pkg in a temporary module requiring $$mod@$$ver"; \
	tmp=$$(mktemp -d); \
	( cd "$$tmp" && $(GO) mod init nbtool-build >/dev/null 2>&1 && $(GO) mod edit -require="$$mod@$$ver" && \
	  $(GO) build -mod=mod -o "$(NB_GOBIN)/$$bin" "$$pkg" ); rc=$$?; rm -rf "$$tmp"; return $$rc; }
endef

gonb-deps:
	@$(GO_TOOL_INSTALL); \
	install gonb github.com/janpfeifer/gonb $(GONB_VERSION) github.com/janpfeifer/gonb && \
	install goimports golang.org/x/tools $(XTOOLS_VERSION) golang.org/x/tools/cmd/goimports && \
	install gopls golang.org/x/tools/gopls $(GOPLS_VERSION) golang.org/x/tools/gopls

# Registers the kernel (~/.local/share/jupyter/kernels/gonb) unless it already runs our binary.
gonb-kernel: jupyter-deps gonb-deps
	@spec=$$($(JUPYTER) kernelspec list --json | $(SYS_PYTHON) -c 'import json,sys; k=json.load(sys.stdin)["kernelspecs"].get("gonb"); print(k["spec"]["argv"][0] if k else "")'); \
	if [ "$$spec" != "$(NB_GOBIN)/gonb" ]; then \
		"$(NB_GOBIN)/gonb" --install --logtostderr; \
	fi
	@$(JUPYTER) kernelspec list | grep -w gonb

notebooks: notebook-deps
	@$(MAKE) --no-print-directory notebooks-run

# FWSTRUCT_ROOT is this checkout: the notebooks' first cell replaces the module with it.
# FWSTRUCT_DATA (exported above when ../shared/data exists) reaches the kernel as well.
notebooks-run: export FWSTRUCT_ROOT := $(CURDIR)
notebooks-run: nbtools
	@mkdir -p $(NB_OUT)
	@if [ -z "$(strip $(NOTEBOOKS))" ]; then echo "no notebooks in $(NB_DIR)"; exit 1; fi
	@failed=; skipped=; ran=; for nb in $(NOTEBOOKS); do \
		name=$$(basename "$$nb" .ipynb); log=$(NB_OUT)/$$name.log; rm -f $(NB_OUT)/$$name.ipynb; \
		if ! missing=$$($(TOOLBIN)/nbneeds "$$nb"); then failed="$$failed $$nb"; continue; fi; \
		if [ -n "$$missing" ]; then \
			echo "== $$nb: SKIPPED: needs the $$missing data, not found in FWSTRUCT_DATA=$${FWSTRUCT_DATA:-unset} or the user cache"; \
			if [ -n "$(NB_REQUIRE_DATA)" ]; then failed="$$failed $$nb"; else skipped="$$skipped $$nb"; fi; \
			continue; \
		fi; \
		ran="$$ran $(NB_OUT)/$$name.ipynb"; \
		echo "== executing $$nb (FWSTRUCT_ROOT=$$FWSTRUCT_ROOT FWSTRUCT_DATA=$${FWSTRUCT_DATA:-unset}; kernel log: $$log)"; \
		start=$$(date +%s); \
		if $(JUPYTER) nbconvert --to notebook --execute \
			--ExecutePreprocessor.timeout=$(NB_TIMEOUT) --ExecutePreprocessor.startup_timeout=120 \
			--ExecutePreprocessor.kernel_name=gonb \
			--output-dir $(NB_OUT) "$$nb" > "$$log" 2>&1; then \
			echo "== $$nb: executed in $$(( $$(date +%s) - start ))s"; \
		else \
			echo "== $$nb: FAILED after $$(( $$(date +%s) - start ))s:"; \
			sed -n '/CellExecutionError\|CellTimeoutError\|DeadKernelError/,$$p' "$$log" | grep -v '^[IW][0-9]\{4\} ' | tail -n 40; \
			failed="$$failed $$nb"; \
			if ! grep -q 'CellTimeoutError\|timed out' "$$log"; then \
				echo "== re-running $$nb with --allow-errors to show every cell's error (nbcheck below)"; \
				$(JUPYTER) nbconvert --to notebook --execute --allow-errors \
					--ExecutePreprocessor.timeout=$(NB_TIMEOUT) --ExecutePreprocessor.startup_timeout=120 \
					--ExecutePreprocessor.kernel_name=gonb \
					--output-dir $(NB_OUT) "$$nb" >> "$$log" 2>&1; \
			fi; \
		fi; \
	done; \
	rc=0; if [ -n "$$ran" ]; then $(TOOLBIN)/nbcheck $$ran; rc=$$?; fi; \
	if [ -n "$$skipped" ]; then echo "notebooks skipped, their data not found (NB_REQUIRE_DATA=1 makes this a failure):$$skipped"; fi; \
	if [ -n "$$failed" ]; then echo "notebooks failed:$$failed"; exit 1; fi; exit $$rc

# A local Jupyter server on the notebooks, with the environment `make notebooks` gives them.
JUPYTER_PORT ?= 8888
jupyter: export FWSTRUCT_ROOT := $(CURDIR)
jupyter: notebook-deps
	$(JUPYTER) notebook --no-browser --port=$(JUPYTER_PORT) --notebook-dir=$(NB_DIR) \
		$(if $(SUDO),,--allow-root) $(JUPYTER_ARGS)

# ECharts for the interactive charts, from the npm registry (gitignored, never committed).
ECHARTS_VERSION := 5.6.0
ECHARTS_JS := viz/assets/echarts.min.js
viz-assets: $(ECHARTS_JS)
$(ECHARTS_JS):
	@command -v npm >/dev/null || { $(SUDO) apt-get update -qq && $(APT_INSTALL) nodejs npm; }
	@set -e; tmp=$$(mktemp -d); trap 'rm -rf "$$tmp"' EXIT; \
	( cd "$$tmp" && npm pack --silent echarts@$(ECHARTS_VERSION) >/dev/null && \
	  tar -xzf echarts-$(ECHARTS_VERSION).tgz package/dist/echarts.min.js ); \
	mkdir -p $(dir $@); mv "$$tmp/package/dist/echarts.min.js" $@.tmp; mv $@.tmp $@
	@echo "$(ECHARTS_JS): echarts $(ECHARTS_VERSION), $$(wc -c < $(ECHARTS_JS)) bytes"

CHROMIUM ?= /usr/bin/chromium
browser-deps:
	@if [ ! -x $(CHROMIUM) ]; then $(SUDO) apt-get update -qq && $(APT_INSTALL) chromium; fi
	@$(CHROMIUM) --version 2>/dev/null

# HTML is the page to check; by default the interactive gap chart that
# `fwstruct report` exports from a short training run on the synthetic data.
REPORT_HTML := $(OUT)/browser/report/gap-passes.html
SAMPLE_HTML := $(OUT)/browser/samplechart.html
HTML ?= $(REPORT_HTML)
SCREENCHECK = $(TOOLBIN)/screencheck -chromium $(CHROMIUM)

browser-check: browser-deps nbtools browser-selftest $(HTML)
	$(SCREENCHECK) -png $(OUT)/browser/screenshot.png $(HTML)

$(REPORT_HTML): $(ECHARTS_JS)
	@mkdir -p $(OUT)/browser
	$(GO) run ./cmd/fwstruct train --data synthetic --synthetic-words 100 --passes 20 --gap-every 2 \
		--method recommended --average wavg --quiet --trace $(OUT)/browser/trace.json
	$(GO) run ./cmd/fwstruct report --out $(OUT)/browser/report --formats html,png $(OUT)/browser/trace.json

$(SAMPLE_HTML): $(ECHARTS_JS) nbtools
	@mkdir -p $(dir $@)
	$(TOOLBIN)/samplechart -echarts $(ECHARTS_JS) -o $@

# The checker must reject pages without a chart (tools/samplechart -control):
# an empty page, a chart page whose script fails (ECharts missing), Chromium's error page
# for a missing file, and an error message in red text. Each must make screencheck exit 1.
BROWSER_CONTROLS := blank broken missing error
browser-selftest: browser-deps nbtools
	@mkdir -p $(OUT)/browser
	@for page in $(BROWSER_CONTROLS); do \
		$(TOOLBIN)/samplechart -control $$page -o $(OUT)/browser/control-$$page.html || exit 2; \
		rc=0; out=$$($(SCREENCHECK) -png $(OUT)/browser/control-$$page.png $(OUT)/browser/control-$$page.html 2>&1) || rc=$$?; \
		echo "$$out" | grep -v ' passed, ' | sed 's/^/    /'; \
		case $$rc in \
		1) echo "browser-selftest: control-$$page.html rejected, as it must be";; \
		0) echo "browser-selftest: control-$$page.html passed screencheck but must fail"; exit 1;; \
		*) echo "browser-selftest: screencheck could not check control-$$page.html (exit $$rc)"; exit 1;; \
		esac; \
	done

# ---------------------------------------------------------------------------
# The live exploration (ssvmnb's Trainer.Explore, GoNB's widgets) in a real browser:
# tools/widgetcheck starts a Jupyter notebook server with the GoNB kernel on a copy of
# notebook 13, opens it in headless Chromium driven by Selenium, runs its cells, moves the
# lambda slider of the OCR exploration while it trains (first on a page that drops what the
# widgets send, which the check must reject: its self-test) and requires the run's trace to
# record the change and the chart to redraw; with the yeast data, the rho slider of the Yeast
# exploration too. See notebooks/README.md.
WIDGET_PKGS := chromium chromium-driver python3-selenium
WIDGET_NOTEBOOK := $(NB_DIR)/13_explore_live.ipynb
CHROMEDRIVER ?= /usr/bin/chromedriver

widget-deps:
	@$(APT_ENSURE); ensure $(WIDGET_PKGS)
	@$(CHROMIUM) --version 2>/dev/null; $(CHROMEDRIVER) --version 2>/dev/null

widget-check: export FWSTRUCT_ROOT := $(CURDIR)
widget-check: jupyter-deps gonb-deps gonb-kernel widget-deps nbtools
	@missing=$$($(TOOLBIN)/nbneeds $(WIDGET_NOTEBOOK)) || exit 2; yeast=--yeast; \
	if [ -n "$$missing" ]; then yeast=; echo "widget-check: no $$missing data in FWSTRUCT_DATA=$${FWSTRUCT_DATA:-unset}: the OCR exploration only"; fi; \
	start=$$(date +%s); rc=0; \
	$(SYS_PYTHON) tools/widgetcheck/widgetcheck.py --notebook $(WIDGET_NOTEBOOK) --out $(OUT)/widgetcheck \
		--jupyter /usr/bin/jupyter --chromium $(CHROMIUM) --chromedriver $(CHROMEDRIVER) $$yeast || rc=$$?; \
	echo "widget-check: $$(( $$(date +%s) - start )) s (exit $$rc)"; exit $$rc
