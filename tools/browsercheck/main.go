// Command browsercheck opens HTML pages in headless Chromium at given
// widths and fails when a page
//   - logs a console message or throws: a script error, or a style or
//     script its Content-Security-Policy refused;
//   - has an element wider than the window that no scrolling box holds
//     (every <details> is opened first, so that their content counts);
//   - links to an anchor of its own (href="#…") that no id resolves, or
//     gives an id twice.
//
// Usage:
//
//	go run ./tools/browsercheck [-chromium /usr/bin/chromium] [-widths 1400,390] [-height 1000] [-shots DIR] PAGE[#ANCHOR]...
//
// It drives Chromium through the DevTools protocol on a pipe
// (--remote-debugging-pipe), with the standard library only: each width is
// emulated as a device of that width, a phone's below 600 pixels, so that
// the page's media queries apply. With -shots it saves a screenshot of the
// top of each page at each width as DIR/<page>-<width>.png. It prints one
// line per page and width, and the problems found.
package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	chromium := flag.String("chromium", "/usr/bin/chromium", "the Chromium to run")
	widths := flag.String("widths", "1400,390", "the window widths to check, in CSS pixels")
	shots := flag.String("shots", "", "a folder to save screenshots in")
	height := flag.Int("height", 1000, "the window height, in CSS pixels")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: browsercheck [-chromium PATH] [-widths 1400,390] [-shots DIR] PAGE...")
		os.Exit(2)
	}
	var ws []int
	for _, f := range strings.Split(*widths, ",") {
		w, err := strconv.Atoi(f)
		if err != nil || w < 200 {
			fmt.Fprintf(os.Stderr, "browsercheck: bad width %q\n", f)
			os.Exit(2)
		}
		ws = append(ws, w)
	}
	b, err := start(*chromium)
	if err != nil {
		fmt.Fprintln(os.Stderr, "browsercheck:", err)
		os.Exit(1)
	}
	defer b.close()
	failed := false
	for _, page := range flag.Args() {
		for _, w := range ws {
			problems, err := b.check(page, w, *height, *shots)
			switch {
			case err != nil: // the pipe's state is unknown: stop
				fmt.Printf("%s at %d px: %v\n", page, w, err)
				b.close()
				os.Exit(1)
			case len(problems) > 0:
				fmt.Printf("%s at %d px: %d problems\n", page, w, len(problems))
				for _, p := range problems[:min(len(problems), 20)] {
					fmt.Printf("  %s\n", p)
				}
				failed = true
			default:
				fmt.Printf("%s at %d px: ok\n", page, w)
			}
		}
	}
	if failed {
		b.close()
		os.Exit(1)
	}
}

// checkJS runs in the page once it has loaded; it returns the problems it
// found, one string each.
const checkJS = `(function () {
  var bad = [], w = document.documentElement.clientWidth;
  document.querySelectorAll("details").forEach(function (d) { d.open = true; });
  var name = function (el) {
    var c = typeof el.className === "string" && el.className ? "." + el.className.trim().split(/\s+/).join(".") : "";
    return el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + c;
  };
  var held = function (el) {
    for (var p = el.parentElement; p; p = p.parentElement) {
      var o = getComputedStyle(p).overflowX;
      if (o === "auto" || o === "scroll" || o === "hidden") { return true; }
    }
    return false;
  };
  document.querySelectorAll("body *").forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.width > 0 && (r.right > w + 1 || r.left < -1) && !held(el)) {
      bad.push("wider than the window (" + w + " px): " + name(el) + " from " + Math.round(r.left) + " to " + Math.round(r.right));
    }
  });
  if (document.documentElement.scrollWidth > w + 1) {
    bad.push("the page scrolls sideways: " + document.documentElement.scrollWidth + " px in " + w);
  }
  var seen = {};
  document.querySelectorAll("[id]").forEach(function (el) {
    if (seen[el.id]) { bad.push("id given twice: " + el.id); }
    seen[el.id] = true;
  });
  document.querySelectorAll("a[href^='#']").forEach(function (a) {
    var id = decodeURIComponent(a.getAttribute("href").slice(1));
    if (id && !document.getElementById(id)) { bad.push("link to no anchor: #" + id); }
  });
  return bad;
})()`

// A browser is a Chromium driven through the DevTools protocol on a pipe.
type browser struct {
	cmd    *exec.Cmd
	in     io.WriteCloser // the pipe Chromium reads commands from (its fd 3)
	out    *bufio.Reader  // the pipe it writes replies and events to (its fd 4)
	id     int
	events []message // events read while waiting for a reply
	dir    string
}

type message struct {
	ID        int             `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *struct {
		Message string `json:"message"`
	} `json:"error,omitempty"`
}

// start runs Chromium headless with a fresh profile.
func start(chromium string) (*browser, error) {
	if _, err := os.Stat(chromium); err != nil {
		return nil, fmt.Errorf("no Chromium: %w", err)
	}
	dir, err := os.MkdirTemp("", "browsercheck")
	if err != nil {
		return nil, err
	}
	cmdR, cmdW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars",
		"--user-data-dir="+dir, "--remote-debugging-pipe", "about:blank")
	cmd.ExtraFiles = []*os.File{cmdR, outW} // fds 3 and 4
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	cmdR.Close()
	outW.Close()
	return &browser{cmd: cmd, in: cmdW, out: bufio.NewReader(outR), dir: dir}, nil
}

func (b *browser) close() {
	if b.cmd == nil {
		return
	}
	b.send("", "Browser.close", nil) //nolint:errcheck // it is going away either way
	b.in.Close()
	done := make(chan error, 1)
	go func() { done <- b.cmd.Wait() }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		b.cmd.Process.Kill()
	}
	os.RemoveAll(b.dir)
	b.cmd = nil
}

// send sends a command and returns its result, keeping the events that
// come before it.
func (b *browser) send(session, method string, params any) (json.RawMessage, error) {
	b.id++
	raw, err := json.Marshal(params)
	if err != nil {
		return nil, err
	}
	if params == nil {
		raw = []byte("{}")
	}
	msg, _ := json.Marshal(message{ID: b.id, SessionID: session, Method: method, Params: raw})
	if _, err := b.in.Write(append(msg, 0)); err != nil {
		return nil, fmt.Errorf("%s: %w", method, err)
	}
	for {
		m, err := b.read()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", method, err)
		}
		if m.ID == 0 {
			b.events = append(b.events, m)
			continue
		}
		if m.ID != b.id {
			continue
		}
		if m.Error != nil {
			return nil, fmt.Errorf("%s: %s", method, m.Error.Message)
		}
		return m.Result, nil
	}
}

func (b *browser) read() (message, error) {
	line, err := b.out.ReadBytes(0)
	if err != nil {
		return message{}, err
	}
	var m message
	err = json.Unmarshal(bytes.TrimSuffix(line, []byte{0}), &m)
	return m, err
}

// waitFor reads events until one of the method comes, or the time is up.
func (b *browser) waitFor(method string, limit time.Duration) error {
	for _, e := range b.events {
		if e.Method == method {
			return nil
		}
	}
	got := make(chan error, 1)
	go func() {
		for {
			m, err := b.read()
			if err != nil {
				got <- err
				return
			}
			if m.ID == 0 {
				b.events = append(b.events, m)
			}
			if m.Method == method {
				got <- nil
				return
			}
		}
	}()
	select {
	case err := <-got:
		return err
	case <-time.After(limit):
		return fmt.Errorf("no %s in %v", method, limit)
	}
}

// check opens page (a file, and a #fragment to open it at if any) in a
// new tab of the given size and returns the problems
// found: console messages, exceptions, and what checkJS reports.
func (b *browser) check(page string, width, height int, shots string) ([]string, error) {
	file, fragment, _ := strings.Cut(page, "#")
	abs, err := filepath.Abs(file)
	if err != nil {
		return nil, err
	}
	var target struct{ TargetID string }
	res, err := b.send("", "Target.createTarget", map[string]any{"url": "about:blank"})
	if err != nil {
		return nil, err
	}
	json.Unmarshal(res, &target)
	defer b.send("", "Target.closeTarget", map[string]any{"targetId": target.TargetID}) //nolint:errcheck
	var attached struct{ SessionID string }
	if res, err = b.send("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}); err != nil {
		return nil, err
	}
	json.Unmarshal(res, &attached)
	s := attached.SessionID
	for _, m := range []string{"Page.enable", "Runtime.enable", "Log.enable"} {
		if _, err := b.send(s, m, nil); err != nil {
			return nil, err
		}
	}
	if _, err := b.send(s, "Emulation.setDeviceMetricsOverride", map[string]any{
		"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600,
	}); err != nil {
		return nil, err
	}
	b.events = nil
	if _, err := b.send(s, "Page.navigate", map[string]any{"url": (&url.URL{Scheme: "file", Path: abs, Fragment: fragment}).String()}); err != nil {
		return nil, err
	}
	if err := b.waitFor("Page.loadEventFired", 60*time.Second); err != nil {
		return nil, err
	}
	if shots != "" {
		res, err := b.send(s, "Page.captureScreenshot", map[string]any{"format": "png"})
		if err != nil {
			return nil, err
		}
		var shot struct{ Data string }
		json.Unmarshal(res, &shot)
		png, err := base64.StdEncoding.DecodeString(shot.Data)
		if err != nil {
			return nil, err
		}
		name := strings.TrimSuffix(filepath.Base(file), filepath.Ext(file))
		if err := os.WriteFile(filepath.Join(shots, fmt.Sprintf("%s-%d.png", name, width)), png, 0o644); err != nil {
			return nil, err
		}
	}
	res, err = b.send(s, "Runtime.evaluate", map[string]any{"expression": checkJS, "returnByValue": true})
	if err != nil {
		return nil, err
	}
	var eval struct {
		Result struct {
			Value []string
		}
		ExceptionDetails *struct{ Text string }
	}
	if err := json.Unmarshal(res, &eval); err != nil {
		return nil, err
	}
	if eval.ExceptionDetails != nil {
		return nil, errors.New("the check threw: " + eval.ExceptionDetails.Text)
	}
	return append(consoleMessages(b.events), eval.Result.Value...), nil
}

// consoleMessages returns what the page logged: console calls, uncaught
// exceptions, and the browser's own log entries (a refused style or
// script among them).
func consoleMessages(events []message) []string {
	var out []string
	for _, e := range events {
		switch e.Method {
		case "Runtime.consoleAPICalled":
			var p struct {
				Type string
				Args []struct {
					Value       any
					Description string
				}
			}
			json.Unmarshal(e.Params, &p)
			var words []string
			for _, a := range p.Args {
				words = append(words, fmt.Sprint(a.Value, a.Description))
			}
			out = append(out, "console."+p.Type+": "+strings.Join(words, " "))
		case "Runtime.exceptionThrown":
			var p struct {
				ExceptionDetails struct {
					Text      string
					Exception struct{ Description string }
				}
			}
			json.Unmarshal(e.Params, &p)
			out = append(out, "exception: "+p.ExceptionDetails.Text+" "+p.ExceptionDetails.Exception.Description)
		case "Log.entryAdded":
			var p struct {
				Entry struct{ Source, Level, Text, URL string }
			}
			json.Unmarshal(e.Params, &p)
			out = append(out, fmt.Sprintf("log (%s, %s): %s", p.Entry.Source, p.Entry.Level, p.Entry.Text))
		}
	}
	return out
}
