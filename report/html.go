package report

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/retrace-dev/retrace/analyzer"
)

var (
	//go:embed html/postmortem.html
	pageTemplate string
	//go:embed html/style.css
	pageStyle string
	//go:embed html/sort.js
	pageScript string
)

// page is the HTML template, parsed once. html/template escapes every value
// for its context, so no text from a transcript becomes markup.
var page = template.Must(template.New("page").Funcs(template.FuncMap{
	"plural":   plural,
	"duration": duration,
	"lost":     func(t analyzer.Totals) string { return totalLostCell(t) },
	"x":        func(at float64) string { return coord(at * 1000) },
	"width":    func(from, to float64) string { return coord(math.Max((to-from)*1000, 2)) },
	"stamp":    func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"marked":   marked,
}).Parse(pageTemplate))

// shownRE matches what clean writes for an invisible character: \u202e,
// \U000e0041.
var shownRE = regexp.MustCompile(`\\(?:u[0-9a-f]{4}|U[0-9a-f]{8})`)

// marked escapes text for HTML and sets apart each invisible character
// that clean showed as its escape, with a span that names it on hover, so
// that it cannot be taken for text. (Text that held the escape itself, six
// characters, is marked the same way: either way nothing is hidden.)
func marked(s string) template.HTML {
	return template.HTML(shownRE.ReplaceAllStringFunc(template.HTMLEscapeString(s), func(m string) string {
		r, err := strconv.ParseUint(m[2:], 16, 32)
		if err != nil || !Invisible(rune(r)) {
			return m
		}
		return fmt.Sprintf(`<span class="invisible" title="an invisible character, U+%04X">%s</span>`, r, m)
	}))
}

// htmlPage is what the template renders.
type htmlPage struct {
	*document
	Sessions   []*htmlSession
	Style      template.CSS
	Script     template.JS
	StyleHash  string
	ScriptHash string
}

type htmlSession struct {
	*sessionDoc
	Charts []chart
}

// writeHTML writes the document as one self-contained page: CSS and script
// inline, charts as inline SVG, and a Content-Security-Policy that lets run
// only the page's own script and style, by their hashes.
func writeHTML(w io.Writer, d *document) error {
	p := &htmlPage{
		document:   d,
		Style:      template.CSS(pageStyle),
		Script:     template.JS(pageScript),
		StyleHash:  cspHash(pageStyle),
		ScriptHash: cspHash(pageScript),
	}
	for _, s := range d.Sessions {
		p.Sessions = append(p.Sessions, &htmlSession{sessionDoc: s, Charts: charts(s.Results)})
	}
	return page.Execute(w, p)
}

// cspHash returns the CSP source that allows an inline element with the
// given content.
func cspHash(content string) string {
	sum := sha256.Sum256([]byte(content))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

func coord(v float64) string { return fmt.Sprintf("%.1f", v) }

// A chart plots one metric of one target over a session.
type chart struct {
	Target, Label, Unit string
	Title               string // the label, with the unit unless it names it
	Context             string
	Min, Max            string
	TopY                string
	Points              []chartPoint
	Line                string // the polyline's points
}

type chartPoint struct {
	X, Y        string
	Msg         int
	Value, Unit string
	Context     string
}

// maxCharts bounds the charts of a session; more would not be read.
const maxCharts = 12

// charts lays out each series of a session that has more than one run as
// a line chart, in the order of the series.
func charts(results []resultRow) []chart {
	var out []chart
	for _, r := range results {
		if len(r.Points) < 2 {
			continue
		}
		if len(out) == maxCharts {
			break
		}
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, b := range r.Points {
			lo, hi = math.Min(lo, b.Value), math.Max(hi, b.Value)
		}
		if hi == lo {
			lo, hi = lo*0.9, hi*1.1+1e-9
		}
		c := chart{Target: r.Target, Label: r.Label, Unit: r.Unit, Title: r.Label, Context: r.Context, Min: number(lo), Max: number(hi), TopY: "20"}
		if !strings.Contains(r.Label, "("+r.Unit+")") {
			c.Title += " (" + r.Unit + ")"
		}
		var line []string
		for i, b := range r.Points {
			x := 40 + 260*float64(i)/float64(len(r.Points)-1)
			y := 110 - 90*(b.Value-lo)/(hi-lo)
			pt := chartPoint{X: coord(x), Y: coord(y), Msg: b.Msg, Value: number(b.Value), Unit: clean(b.Unit, maxUnit), Context: clean(contextText(b.Context), 200)}
			c.Points = append(c.Points, pt)
			line = append(line, pt.X+","+pt.Y)
		}
		c.Line = strings.Join(line, " ")
		out = append(out, c)
	}
	return out
}
