# Targets for working on retrace; .ci/run calls "make check".

FUZZTIME ?= 10s
VERSION := $(shell git describe --tags --always --dirty 2>/dev/null || echo devel)

.PHONY: build test race fmt vet staticcheck check update fuzz

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

fuzz:
	go test ./parser -run '^$$' -fuzz FuzzParse -fuzztime $(FUZZTIME) -fuzzminimizetime 5s
