# fwstruct: structural SVMs with block-coordinate Frank-Wolfe.
#
#   make test       vet, format check and the whole test suite (real data when present)
#   make demo       train on OCR when present (else the built-in synthetic data), write the trace
#   make bench      benchmarks of the hot paths (oracle, block step, gap pass, memory)
#   make notebooks  install Jupyter + GoNB and execute every notebook headlessly

SHELL := /bin/bash
GO ?= go
export PATH := $(PATH):/usr/local/go/bin:$(shell $(GO) env GOPATH 2>/dev/null)/bin

# Real datasets live beside the project; tests skip cleanly without them.
ifneq ($(wildcard ../shared/data),)
export FWSTRUCT_DATA ?= $(abspath ../shared/data)
endif

OUT := out

.PHONY: all test vet fmt-check demo bench clean

all: test

test: vet fmt-check
	$(GO) test -count=1 -timeout 20m ./...

vet:
	$(GO) vet ./...

fmt-check:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	if [ -n "$$unformatted" ]; then echo "gofmt needed:"; echo "$$unformatted"; exit 1; fi

demo:
	@mkdir -p $(OUT)
	$(GO) run ./cmd/fwstruct train --data auto --lambda 0.01 --passes 50 --gap-every 5 --averaging \
		--trace $(OUT)/demo-trace.json --model $(OUT)/demo-model.json
	@echo "trace: $(OUT)/demo-trace.json  model: $(OUT)/demo-model.json"

BENCHTIME ?= 2s
bench:
	$(GO) test -run '^$$' -bench . -benchmem -benchtime $(BENCHTIME) ./oracles ./solver ./datasets

clean:
	rm -rf $(OUT)
