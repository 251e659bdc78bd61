package e2e

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// agentgrid --record FILE records the screen from the start as an
// asciicast v2 file, with agents' starts as markers; prefix R stops it.
func TestRecordFlagWritesAnAsciicast(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 100, 24, "")
	path := filepath.Join(h.home, "demo.cast")
	h.startSession("--record", path, "--", "sh", "-c", "echo recorded-line; exec sleep 600")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "● rec") }, "the recording indicator")
	id := h.spawn("--title", "rec-agent", "--", "sh", "-c", "echo agent-line; exec sleep 600")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "agent-line") }, "the agent's output")
	// A resize is an "r" event.
	h.mustTmux("resize-window", "-t", "e2e", "-x", "90", "-y", "22")
	h.waitFor(10*time.Second, func() bool {
		b, _ := os.ReadFile(path)
		return strings.Contains(string(b), `"r","90x22"]`)
	}, "the resize in the recording")
	h.prefix("R")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "recorded "+path) }, "the recording to stop")

	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	sc.Scan()
	var hdr struct {
		Version, Width, Height int
	}
	if err := json.Unmarshal(sc.Bytes(), &hdr); err != nil || hdr.Version != 2 || hdr.Width != 100 || hdr.Height != 24 {
		t.Fatalf("header %q (%v)", sc.Text(), err)
	}
	var out strings.Builder
	var markers []string
	for sc.Scan() {
		var ev []any
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil || len(ev) != 3 {
			t.Fatalf("event %q: %v", sc.Text(), err)
		}
		switch ev[1] {
		case "o":
			out.WriteString(ev[2].(string))
		case "m":
			markers = append(markers, ev[2].(string))
		}
	}
	if s := out.String(); !strings.Contains(s, "recorded-line") || !strings.Contains(s, "agent-line") {
		t.Errorf("the recorded output lacks the panes' lines (%d bytes)", len(s))
	}
	want := id + " rec-agent: started"
	found := false
	for _, m := range markers {
		found = found || m == want
	}
	if !found {
		t.Errorf("markers %q, want %q", markers, want)
	}
}
