package parser_test

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/retrace-dev/retrace/internal/cputime"
	"github.com/retrace-dev/retrace/internal/synth"
	"github.com/retrace-dev/retrace/parser"
)

// The decoders' benchmarks read transcripts internal/synth draws with the
// mix of records real ones have, about benchSize bytes per format, and the
// real transcripts of ../shared/corpus when they are there. MB/s is of
// transcript bytes.

const benchSize = 8 << 20

var generated sync.Map // format name → [][]byte

func transcripts(b *testing.B, format string) [][]byte {
	b.Helper()
	if v, ok := generated.Load(format); ok {
		return v.([][]byte)
	}
	files, err := synth.Transcripts(format, 1, benchSize)
	if err != nil {
		b.Fatal(err)
	}
	generated.Store(format, files)
	return files
}

// BenchmarkDecode measures each decoder on generated transcripts.
func BenchmarkDecode(b *testing.B) {
	for _, sf := range synth.Formats {
		b.Run(sf.Name, func(b *testing.B) {
			benchDecode(b, parser.Lookup(sf.Name), transcripts(b, sf.Name))
		})
	}
}

// BenchmarkDecodeSamples measures every decoder, the ones synth does not
// write too, on the samples of ../testdata/<format>: small files, so the
// figures weigh recognizing and setting up more than BenchmarkDecode's.
func BenchmarkDecodeSamples(b *testing.B) {
	for _, f := range parser.Formats() {
		files, _ := filepath.Glob(filepath.Join("..", "testdata", f.Name, "*"))
		var data [][]byte
		for _, name := range files {
			if filepath.Ext(name) == ".golden" {
				continue
			}
			d, err := os.ReadFile(name)
			if err != nil {
				continue // a folder
			}
			data = append(data, d)
		}
		if len(data) == 0 {
			continue
		}
		b.Run(f.Name, func(b *testing.B) { benchDecode(b, f, data) })
	}
}

// BenchmarkDecodeCorpus measures the decoders on the real transcripts of
// the shared corpus, one benchmark per folder, recognizing each file's
// format as retrace does.
func BenchmarkDecodeCorpus(b *testing.B) {
	dirs, _ := filepath.Glob(filepath.Join("..", "..", "shared", "corpus", "*"))
	if len(dirs) == 0 {
		b.Skip("no corpus at ../../shared/corpus")
	}
	for _, dir := range dirs {
		files, _ := filepath.Glob(filepath.Join(dir, "*"))
		var data [][]byte
		for _, f := range files {
			d, err := os.ReadFile(f)
			if err != nil {
				b.Fatal(err)
			}
			if parser.Detect(d[:min(len(d), parser.HeadSize)]) != nil {
				data = append(data, d)
			}
		}
		if len(data) == 0 {
			continue
		}
		b.Run(filepath.Base(dir), func(b *testing.B) { benchDecode(b, nil, data) })
	}
}

func benchDecode(b *testing.B, f *parser.Format, files [][]byte) {
	var size int64
	for _, d := range files {
		size += int64(len(d))
	}
	b.SetBytes(size)
	b.ReportAllocs()
	cpu := cputime.Used()
	for b.Loop() {
		for _, d := range files {
			if _, err := parser.Parse(bytes.NewReader(d), "bench", f); err != nil {
				b.Fatal(err)
			}
		}
	}
	reportCPU(b, size, cputime.Used()-cpu)
}

// reportCPU reports the throughput in megabytes per second of CPU time, a
// figure other programs running on the machine change less than MB/s.
func reportCPU(b *testing.B, size int64, cpu time.Duration) {
	if cpu > 0 {
		b.ReportMetric(float64(size)*float64(b.N)/1e6/cpu.Seconds(), "MB/cpu-s")
	}
}

// BenchmarkDetect measures recognizing the format of each generated
// transcript from its head, as retrace does before decoding one.
func BenchmarkDetect(b *testing.B) {
	for _, sf := range synth.Formats {
		b.Run(sf.Name, func(b *testing.B) {
			var heads [][]byte
			for _, d := range transcripts(b, sf.Name) {
				heads = append(heads, d[:min(len(d), parser.HeadSize)])
			}
			b.ReportAllocs()
			for b.Loop() {
				for _, h := range heads {
					if f := parser.Detect(h); f == nil || f.Name != sf.Name {
						b.Fatalf("detected %v, want %s", f, sf.Name)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(heads)), "ns/file")
		})
	}
}
