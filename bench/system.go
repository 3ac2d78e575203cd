package bench

import (
	"strings"

	"github.com/retrace-dev/retrace/internal/prefilter"
)

// The system's own measurements: nvidia-smi (when asked for), disks (fio),
// collective communication (nccl-tests), networks (iperf3) and sysbench.
// Their cases are in testdata/bench/system.txtar (nvidia-smi's in
// traps.txtar: without the GPU option its numbers are not results).

// --- nvidia-smi -------------------------------------------------------

var (
	smiHeaderRE = prefilter.MustCompileLine(`NVIDIA-SMI \d`)
	smiDateRE   = prefilter.MustCompileLine(`^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\s*$`)
	smiGPURE    = prefilter.MustCompileLine(`^\|\s+(\d+)\s+\S`)
	smiUtilRE   = prefilter.MustCompileLine(`^\s*(\d+)%`)
	smiQueryRE  = prefilter.MustCompileLine(`\[(%|W|MiB|MHz|C)\]`)
)

// readNvidiaSMI claims nvidia-smi's tables. Their numbers (temperature,
// power, memory, utilization) are not results, except for the GPU
// utilization when the caller asks for GPU readings and nvidia-smi is the
// command run.
func readNvidiaSMI(t *output) []*Result {
	gpu := t.opts.GPU && t.cmd != nil && t.cmd.Target == "nvidia-smi"
	var found []*Result
	for n := 0; n < len(t.lines); n++ {
		if t.claimed[n] || !smiHeaderRE.MatchString(t.lines[n]) {
			continue
		}
		start := n
		for start > 0 && n-start < 2 && (strings.HasPrefix(strings.TrimSpace(t.lines[start-1]), "+") || smiDateRE.MatchString(t.lines[start-1])) {
			start--
		}
		end := n + 1
		for end < len(t.lines) {
			l := strings.TrimSpace(t.lines[end])
			if l != "" && !strings.HasPrefix(l, "|") && !strings.HasPrefix(l, "+") {
				break
			}
			end++
		}
		if gpu {
			for i := n; i+1 < end; i++ {
				m := smiGPURE.FindStringSubmatch(t.lines[i])
				if m == nil {
					continue
				}
				cells := strings.Split(t.lines[i+1], "|")
				if len(cells) < 4 {
					continue
				}
				if u := smiUtilRE.FindStringSubmatch(cells[3]); u != nil {
					found = appendResult(found, newResult("GPU-Util", u[1], unit("%"), u[1]+"%", i+1, map[string]string{"gpu": m[1]}))
				}
			}
		}
		t.claim(start, end)
		n = end - 1
	}
	if gpu {
		found = append(found, readSMIQuery(t)...)
	}
	return found
}

// readSMIQuery reads the CSV of nvidia-smi --query-gpu=... --format=csv:
// the columns whose header gives the unit % ("utilization.gpu [%]").
func readSMIQuery(t *output) []*Result {
	var found []*Result
	var cols []string
	var units []unitDef
	gpuCol := -1
	for n, l := range t.lines {
		if t.claimed[n] {
			continue
		}
		cells := strings.Split(l, ",")
		for i := range cells {
			cells[i] = strings.TrimSpace(cells[i])
		}
		if smiQueryRE.MatchString(l) {
			cols, units, gpuCol = cells, make([]unitDef, len(cells)), -1
			for i, c := range cells {
				if m := parenUnitRE.FindStringSubmatch(c); m != nil {
					units[i] = unit(m[1])
					cols[i] = strings.TrimSpace(c[:len(c)-len(m[0])])
				}
				if c == "index" {
					gpuCol = i
				}
			}
			t.claim(n, n+1)
			continue
		}
		if cols == nil || len(cells) != len(cols) {
			cols = nil
			continue
		}
		ctx := map[string]string{}
		if gpuCol >= 0 {
			ctx["gpu"] = cells[gpuCol]
		}
		for i, c := range cells {
			num := strings.TrimSpace(strings.TrimSuffix(c, "%"))
			if units[i].unit != "" && isNumber(num) {
				found = appendResult(found, newResult(cols[i], num, units[i], c, n, copyContext(ctx)))
			}
		}
		t.claim(n, n+1)
	}
	return found
}

// --- fio ----------------------------------------------------------------

var (
	fioJobRE = prefilter.MustCompileLine(`^(\S.*?): \(groupid=\d+, jobs=\d+\)`)
	fioDirRE = prefilter.MustCompileLine(`^\s+(read|write|trim)\s*: IOPS=([\d.]+)([kMG]?), BW=([\d.]+)([KMGT]?i?B/s)`)
	fioLatRE = prefilter.MustCompileLine(`^\s+(clat|lat) \((nsec|usec|msec)\): .*\bavg=\s*([\d.]+)`)
)

// readFio reads fio: per direction "<dir> IOPS", "<dir> BW" (the first
// figure), "<dir> clat avg" and "<dir> lat avg". When several job sections
// report, each number has its job as context.
func readFio(t *output) []*Result {
	jobs := 0
	for _, l := range t.lines {
		if strings.Contains(l, "(groupid=") && fioJobRE.MatchString(l) {
			jobs++
		}
	}
	if jobs == 0 {
		return nil
	}
	var found []*Result
	job, dir := "", ""
	ctx := func() map[string]string {
		if jobs > 1 {
			return map[string]string{"job": job}
		}
		return nil
	}
	for n, l := range t.lines {
		if m := fioJobRE.FindStringSubmatch(l); strings.Contains(l, "(groupid=") && m != nil {
			job = m[1]
		} else if m := fioDirRE.FindStringSubmatch(l); m != nil {
			dir = m[1]
			iops := unit("ops/s")
			switch m[3] {
			case "k":
				iops = unitScaled(iops, "1000")
			case "M":
				iops = unitScaled(iops, "1000000")
			case "G":
				iops = unitScaled(iops, "1000000000")
			}
			bw := unit(m[5])
			if m[5] == "B/s" {
				bw = unitDef{"GB/s", rat("1/1000000000")}
			}
			found = appendResult(found, newResult(dir+" IOPS", m[2], iops, m[2]+m[3], n, ctx()),
				newResult(dir+" BW", m[4], bw, m[4]+m[5], n, ctx()))
		} else if m := fioLatRE.FindStringSubmatch(l); m != nil && dir != "" {
			found = appendResult(found, newResult(dir+" "+m[1]+" avg", m[3], unit(m[2]), m[3], n, ctx()))
		}
	}
	t.claimAll()
	return found
}

// --- nccl-tests ---------------------------------------------------------

var (
	ncclHeaderRE = prefilter.MustCompileLine(`^#\s+size\s+count\s+type`)
	ncclAvgRE    = prefilter.MustCompileLine(`^#\s*Avg bus bandwidth\s*:\s*([\d.]+)`)
)

// readNCCL reads nccl-tests: per row, "out-of-place time" (us), "algbw"
// and "busbw" (GB/s), then the same "in-place", with the row's size as
// context; and "Avg bus bandwidth" in GB/s.
func readNCCL(t *output) []*Result {
	h := t.find(ncclHeaderRE)
	if h < 0 {
		return nil
	}
	cols := strings.Fields(strings.TrimPrefix(t.lines[h], "#"))
	modes := []string{"out-of-place", "in-place"}
	labels := make([]string, len(cols))
	seen := map[string]int{}
	for i, c := range cols {
		if c == "time" || c == "algbw" || c == "busbw" {
			if k := seen[c]; k < len(modes) {
				labels[i] = modes[k] + " " + c
			}
			seen[c]++
		}
	}
	var found []*Result
	for n, l := range t.lines {
		if m := ncclAvgRE.FindStringSubmatch(l); m != nil {
			found = appendResult(found, newResult("Avg bus bandwidth", m[1], unit("GB/s"), m[1], n, nil))
			continue
		}
		f := strings.Fields(l)
		if strings.HasPrefix(l, "#") || len(f) != len(cols) || !isCellNumber(f[0]) {
			continue
		}
		for i, label := range labels {
			if label == "" || !isNumber(f[i]) {
				continue
			}
			u := unit("GB/s")
			if strings.HasSuffix(label, "time") {
				u = unit("us")
			}
			found = appendResult(found, newResult(label, f[i], u, f[i], n, map[string]string{"size": f[0]}))
		}
	}
	t.claimAll()
	return found
}

// --- iperf3 -------------------------------------------------------------

var (
	iperfShapeRE   = prefilter.MustCompileLine(`^\[\s*ID\]\s+Interval`)
	iperfSepRE     = prefilter.MustCompileLine(`^(?:- )+-\s*$`)
	iperfSummaryRE = prefilter.MustCompileLine(`^\[\s*(\d+|SUM)\]\s+[\d.]+-[\d.]+\s+sec\s+[\d.]+ \w*Bytes\s+([\d.]+) (\w*bits/sec)(.*?)\s+(sender|receiver)\s*$`)
	iperfUDPRE     = prefilter.MustCompileLine(`([\d.]+) ms\s+\d+/\d+ \(([\d.e+-]+)%\)`)
)

// iperfRates gives the factors from iperf3's bit rates to GB/s.
var iperfRates = map[string]string{"bits/sec": "1/8000000000", "Kbits/sec": "1/8000000",
	"Mbits/sec": "1/8000", "Gbits/sec": "1/8", "Tbits/sec": "125"}

// readIperf3 reads iperf3's summary: "sender Bitrate", "receiver Bitrate"
// (GB/s) and, for UDP, "receiver Jitter" and "receiver Lost/Total
// Datagrams" (%). The per-interval lines are not results. With parallel
// streams only the [SUM] lines count.
func readIperf3(t *output) []*Result {
	if t.find(iperfShapeRE) < 0 {
		return nil
	}
	sep := t.find(iperfSepRE)
	var found []*Result
	if sep >= 0 {
		type entry struct {
			n int
			m []string
		}
		var entries []entry
		sum, ids := false, map[string]bool{}
		for n := sep + 1; n < len(t.lines); n++ {
			if m := iperfSummaryRE.FindStringSubmatch(t.lines[n]); m != nil {
				entries = append(entries, entry{n, m})
				sum = sum || m[1] == "SUM"
				ids[m[1]] = true
			}
		}
		for _, e := range entries {
			m := e.m
			if sum && m[1] != "SUM" {
				continue
			}
			var ctx map[string]string
			if !sum && len(ids) > 1 {
				ctx = map[string]string{"stream": m[1]}
			}
			f, ok := iperfRates[m[3]]
			if !ok {
				continue
			}
			found = appendResult(found, newResult(m[5]+" Bitrate", m[2], unitDef{"GB/s", rat(f)}, m[2]+" "+m[3], e.n, copyContext(ctx)))
			if u := iperfUDPRE.FindStringSubmatch(m[4]); u != nil && m[5] == "receiver" {
				found = appendResult(found, newResult("receiver Jitter", u[1], unit("ms"), u[1]+" ms", e.n, copyContext(ctx)),
					newResult("receiver Lost/Total Datagrams", u[2], unit("%"), u[2]+"%", e.n, copyContext(ctx)))
			}
		}
	}
	t.claimAll()
	return found
}

// --- sysbench -----------------------------------------------------------

var (
	sbShapeRE    = prefilter.MustCompileLine(`^sysbench \d+\.\d+`)
	sbLatencyRE  = prefilter.MustCompileLine(`^Latency \(ms\):\s*$`)
	sbLatStatRE  = prefilter.MustCompileLine(`^(min|avg|max|\d+(?:\.\d+)?th percentile):\s+([\d.]+)\s*$`)
	sbEventsRE   = prefilter.MustCompileLine(`^events per second:\s+([\d.]+)`)
	sbTotalOpsRE = prefilter.MustCompileLine(`^Total operations: \d+ \(([\d.]+) per second\)`)
	sbMemRE      = prefilter.MustCompileLine(`^[\d.]+ MiB transferred \(([\d.]+) MiB/sec\)`)
	sbOLTPRE     = prefilter.MustCompileLine(`^(transactions|queries):\s+\d+\s+\(([\d.]+) per sec\.\)`)
	sbFileRE     = prefilter.MustCompileLine(`^(reads/s|writes/s|fsyncs/s):\s+([\d.]+)\s*$`)
	sbFileBWRE   = prefilter.MustCompileLine(`^(read|written), MiB/s:\s+([\d.]+)\s*$`)
)

// readSysbench reads sysbench: "events per second", "Total operations per
// second", "transferred", OLTP "transactions" and "queries" (per second),
// fileio's rates, and "Latency min|avg|max|<p>th percentile" in ms.
func readSysbench(t *output) []*Result {
	if t.find(sbShapeRE) < 0 {
		return nil
	}
	var found []*Result
	inLatency := false
	for n, l := range t.lines {
		s := strings.TrimSpace(l)
		switch {
		case sbLatencyRE.MatchString(s):
			inLatency = true
			continue
		case s == "":
			inLatency = false
			continue
		}
		if m := sbLatStatRE.FindStringSubmatch(s); m != nil && inLatency {
			found = appendResult(found, newResult("Latency "+m[1], m[2], unit("ms"), m[2], n, nil))
		} else if m := sbEventsRE.FindStringSubmatch(s); m != nil {
			found = appendResult(found, newResult("events per second", m[1], unit("ops/s"), m[1], n, nil))
		} else if m := sbTotalOpsRE.FindStringSubmatch(s); m != nil {
			found = appendResult(found, newResult("Total operations per second", m[1], unit("ops/s"), m[1], n, nil))
		} else if m := sbMemRE.FindStringSubmatch(s); m != nil {
			found = appendResult(found, newResult("transferred", m[1], unit("MiB/s"), m[1]+" MiB/sec", n, nil))
		} else if m := sbOLTPRE.FindStringSubmatch(s); m != nil {
			found = appendResult(found, newResult(m[1], m[2], unit("ops/s"), m[2], n, nil))
		} else if m := sbFileRE.FindStringSubmatch(s); m != nil {
			found = appendResult(found, newResult(m[1], m[2], unit("ops/s"), m[2], n, nil))
		} else if m := sbFileBWRE.FindStringSubmatch(s); m != nil {
			found = appendResult(found, newResult(m[1], m[2], unit("MiB/s"), m[2]+" MiB/s", n, nil))
		}
	}
	t.claimAll()
	return found
}
