package bench

import (
	"math"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// A unitDef is a unit as printed: its normalized unit and the factor that
// converts a value to it.
type unitDef struct {
	unit   string
	factor *big.Rat
}

func rat(s string) *big.Rat {
	r, ok := new(big.Rat).SetString(s)
	if !ok {
		panic("bad factor " + s)
	}
	return r
}

var one = rat("1")

// units maps the units benchmarks print, lower case, to their normalized
// form.
var units = func() map[string]unitDef {
	m := map[string]unitDef{}
	add := func(unit, factor string, names ...string) {
		f := rat(factor)
		for _, n := range names {
			m[n] = unitDef{unit, f}
		}
	}
	add("tok/s", "1", "tok/s", "toks/s", "tokens/s", "token/s", "tok/sec", "toks/sec", "tokens/sec",
		"token/sec", "tokens/second", "t/s", "tokens/seconds")
	add("req/s", "1", "req/s", "reqs/s", "requests/s", "request/s", "req/sec", "reqs/sec",
		"requests/sec", "requests/second", "rps", "qps", "queries/s", "queries/sec")
	add("ms", "1", "ms", "msec", "msecs", "millisecond", "milliseconds")
	add("s", "1", "s", "sec", "secs", "second", "seconds")
	add("s", "60", "min", "mins", "minute", "minutes")
	add("s", "3600", "hour", "hours")
	add("us", "1", "us", "µs", "μs", "usec", "usecs", "microsecond", "microseconds")
	add("us", "1/1000", "ns", "nsec", "nsecs", "nanosecond", "nanoseconds")
	// A time per iteration, token or step is a latency: ms/iter is ms.
	for _, per := range []string{"iter", "iteration", "it", "token", "tok", "step", "batch", "op",
		"call", "req", "request", "query", "sample", "image", "img", "loop"} {
		for _, t := range []string{"ms", "s", "sec", "us", "µs", "μs", "ns"} {
			if d, ok := m[t]; ok {
				m[t+"/"+per] = d
			}
		}
	}
	add("GB/s", "1", "gb/s", "gbytes/s", "gbyte/s")
	add("GB/s", "1/1000", "mb/s", "mbytes/s", "mbyte/s")
	add("GB/s", "1/1000000", "kb/s", "kbytes/s", "kbyte/s")
	add("GB/s", "1073741824/1000000000", "gib/s")
	add("GB/s", "1048576/1000000000", "mib/s")
	add("GB/s", "1024/1000000000", "kib/s")
	add("GB/s", "1000", "tb/s")
	add("GB/s", "1/8", "gbit/s", "gbits/s", "gbits/sec", "gbit/sec")
	add("GB/s", "1/8000", "mbit/s", "mbits/s", "mbits/sec", "mbit/sec")
	add("GB/s", "1/8000000", "kbit/s", "kbits/s", "kbits/sec", "kbit/sec")
	add("GB/s", "1/8000000000", "bit/s", "bits/s", "bits/sec")
	add("it/s", "1", "it/s", "iter/s", "iters/s", "iterations/s", "iterations/sec", "steps/s", "steps/sec")
	add("samples/s", "1", "samples/s", "samples/sec", "sample/s", "images/s", "images/sec",
		"img/s", "imgs/s", "imgs/sec", "seq/s", "sequences/s", "sequences/sec")
	add("ops/s", "1", "ops/s", "op/s", "ops/sec", "operations/s", "operations/sec", "iops")
	add("ops/s", "1000", "kops/s")
	add("ops/s", "1000000", "mops/s")
	add("%", "1", "%")
	add("x", "1", "x", "×")
	return m
}()

// lookupUnit finds a printed unit. Rates and symbols match whatever their
// case ("MB/s", "Gbits/sec", "IOPS"); a word must be written in lower case,
// so that "iOS 5 Second Edition" holds no seconds.
func lookupUnit(u string) (unitDef, bool) {
	lower := strings.ToLower(u)
	if lower != u && !strings.Contains(u, "/") && len(u) > 2 && u != "IOPS" {
		return unitDef{}, false
	}
	d, ok := units[lower]
	return d, ok
}

// maxNumber bounds the length of a number read, so that no input makes
// exact arithmetic slow.
const maxNumber = 40

var numberCleaner = strings.NewReplacer(",", "", "−", "-", "+", "")

// convert returns the value of a printed number times factor, rounded to
// six decimals unless that would take more than a thousandth of it away
// ("1e-320 ms" stays 1e-320). It reads "1,234.5", a sign (U+2212
// included) and "1e+07"; a value beyond float64's range, too large or too
// small to be told from 0, does not read. The arithmetic is exact, so a
// half rounds away from zero as on paper.
func convert(num string, factor *big.Rat) (float64, bool) {
	num = numberCleaner.Replace(strings.TrimSpace(num))
	if num == "" || len(num) > maxNumber {
		return 0, false
	}
	if i := strings.IndexAny(num, "eE"); i >= 0 {
		// Bounded so that no exponent makes exact arithmetic slow.
		if e, err := strconv.Atoi(num[i+1:]); err != nil || e > maxExponent || e < -maxExponent {
			return 0, false
		}
	}
	r, ok := new(big.Rat).SetString(num)
	if !ok {
		return 0, false
	}
	if factor != nil {
		r.Mul(r, factor)
	}
	exact, _ := r.Float64()
	if math.IsInf(exact, 0) || exact == 0 && r.Sign() != 0 {
		return 0, false
	}
	f, err := strconv.ParseFloat(r.FloatString(6), 64)
	if err != nil || math.Abs(f-exact) > math.Abs(exact)/1000 {
		f = exact
	}
	return f, true
}

// maxExponent bounds the exponent of a number read: past it, a float64 is
// infinite or 0.
const maxExponent = 400

var numberRE = regexp.MustCompile(`^[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?$`)

// isNumber reports whether a word is a number: "-1", "2.5", "1e-3", ".5".
func isNumber(s string) bool { return numberRE.MatchString(s) }
