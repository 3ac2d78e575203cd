# Targets for working on retrace; .ci/run calls "make check".

# FUZZTIME is a count of runs rather than a duration: a duration can end
# with a spurious "context deadline exceeded" and no crasher in Go 1.26's
# fuzzing coordinator (go.dev/issue/75804) on a loaded machine.
FUZZTIME ?= 1000x
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

.PHONY: build test race fmt vet staticcheck check update fuzz bench

build:
	go build -ldflags "-X main.version=$(VERSION)" -o bin/retrace ./cmd/retrace

test:
	go test ./...

race:
	go test -race ./...

fmt:
	@out=$$(gofmt -s -l .); if [ -n "$$out" ]; then echo "gofmt -s would change:"; echo "$$out"; exit 1; fi

vet:
	go vet ./...

staticcheck:
	go run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

check: fmt vet staticcheck test race fuzz

update:
	go test ./... -update

# bench measures whole commands on generated corpora (see BENCHMARKS.md);
# go test -bench . ./parser ./analyzer measures the decoders and passes.
bench:
	scripts/bench.sh

# Each fuzz target runs for FUZZTIME; go test -fuzz takes one target at a time.
FUZZ_TARGETS = ./parser:FuzzParse ./parser:FuzzClaudeCode ./parser:FuzzOpencode ./parser:FuzzCodex ./parser:FuzzGemini ./parser:FuzzSWEAgent ./parser:FuzzMiniSWEAgent ./parser:FuzzOpenHands ./parser:FuzzOpenAIMessages ./parser:FuzzText ./shell:FuzzParse ./analyzer:FuzzDiffCommands ./diagnose:FuzzDiagnose ./diagnose:FuzzAttributed ./bench:FuzzExtractBench ./bench:FuzzCallBench ./analyzer:FuzzStreamParts ./analyzer:FuzzReadJSONL ./parser/internal/rawjson:FuzzValidJSON ./internal/prefilter:FuzzPrefilters ./bench:FuzzScanners ./internal/redact:FuzzString ./parser/internal/rawjson:FuzzStringStop ./parser/internal/rawjson:FuzzWalk ./internal/prefilter:FuzzIndexRare ./internal/termtext:FuzzStripEscapes ./internal/redact:FuzzClassify ./parser:FuzzAbridgeRaw ./parser:FuzzUTF16 ./parser:FuzzTextStripEscapes ./report:FuzzRender

# FuzzOpencodeDB drives modernc.org/sqlite, whose instrumented build runs
# about one input a second: it gets a run of its own, shorter.
FUZZ_SLOW = ./parser:FuzzOpencodeDB
FUZZTIME_SLOW ?= 20x

fuzz:
	@for t in $(FUZZ_TARGETS); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name"; \
		go test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime 100x || exit 1; \
	done
	@for t in $(FUZZ_SLOW); do \
		pkg=$${t%%:*}; name=$${t##*:}; \
		echo "fuzz $$pkg $$name"; \
		go test $$pkg -run '^$$' -fuzz "^$$name\$$" -fuzztime $(FUZZTIME_SLOW) -fuzzminimizetime 10x || exit 1; \
	done
