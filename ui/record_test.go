package ui

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// cast is an asciicast v2 file read back.
type cast struct {
	header castHeader
	events []castEvent
}

type castEvent struct {
	t          float64
	kind, data string
}

// readCast parses an asciicast v2 file strictly: a header object with
// version 2 and a size, then one [time, kind, data] array per line, times
// never going back, kinds o, r, m only.
func readCast(t *testing.T, path string) cast {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var c cast
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	if !sc.Scan() {
		t.Fatal("the recording is empty")
	}
	dec := json.NewDecoder(bytes.NewReader(sc.Bytes()))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c.header); err != nil || c.header.Version != 2 || c.header.Width <= 0 || c.header.Height <= 0 {
		t.Fatalf("header %q: %+v, %v", sc.Text(), c.header, err)
	}
	last := 0.0
	for sc.Scan() {
		var raw []json.RawMessage
		if err := json.Unmarshal(sc.Bytes(), &raw); err != nil || len(raw) != 3 {
			t.Fatalf("event line %q: %v", sc.Text(), err)
		}
		var ev castEvent
		if json.Unmarshal(raw[0], &ev.t) != nil || json.Unmarshal(raw[1], &ev.kind) != nil || json.Unmarshal(raw[2], &ev.data) != nil {
			t.Fatalf("event line %q does not parse", sc.Text())
		}
		if ev.t < last {
			t.Fatalf("time goes back at %q", sc.Text())
		}
		last = ev.t
		if ev.kind != "o" && ev.kind != "r" && ev.kind != "m" {
			t.Fatalf("event kind %q in %q", ev.kind, sc.Text())
		}
		c.events = append(c.events, ev)
	}
	return c
}

// replayText replays terminal output into a terminal of w x h and returns
// what it shows.
func replayText(w, h int, out string) string {
	vt := vterm.New(w, h)
	_, _ = vt.Write([]byte(out))
	return vt.Text()
}

// --record FILE writes an asciicast v2 file of what the terminal received:
// played into a terminal of the header's size it shows what the real
// terminal showed when the recording stopped; its "o" events are those
// very bytes; agents' waits are markers. Prefix R stops it.
func TestRecordingReplaysToTheLastFrame(t *testing.T) {
	path := filepath.Join(t.TempDir(), "session.cast")
	eng := newFakeEngine(testSnapshot(), time.Now)
	cfg := testConfig()
	m := newModel(eng, cfg, testStyles(), time.Now)
	inR, inW := io.Pipe()
	defer inW.Close()
	out := &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, eng, m, cfg, WithIO(inR, out), WithSize(80, 24), WithEnv([]string{"TERM=xterm-256color"}), WithRecord(path))
	}()
	eng.changed <- struct{}{}
	waitFor(t, "the first frame", func() bool { return strings.Contains(ansi.Strip(out.String()), "a1-title") })
	waitFor(t, "the recording indicator", func() bool { return strings.Contains(ansi.Strip(out.String()), "● rec") })
	// a2 starts waiting: a marker, and a frame with its waiting border.
	// A new snapshot, as the engine publishes: the model reads the old one.
	eng.mu.Lock()
	snap := eng.snap
	snap.Agents, snap.Panes = slices.Clone(snap.Agents), slices.Clone(snap.Panes)
	snap.Agents[1].State, snap.Panes[1].Agent.State = agentstate.Waiting, agentstate.Waiting
	snap.WaitSeq++
	snap.LastWaiting = "a2"
	eng.snap = snap
	eng.mu.Unlock()
	eng.changed <- struct{}{}
	waitFor(t, "a2 waiting", func() bool { return strings.Contains(ansi.Strip(out.String()), "▲ waiting") })
	if _, err := inW.Write([]byte("\x02R")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the recording to stop", func() bool { return strings.Contains(ansi.Strip(out.String()), "recorded "+path) })
	shown := out.String()
	stopAt := strings.LastIndex(shown, "recorded ")

	c := readCast(t, path)
	if c.header.Width != 80 || c.header.Height != 24 {
		t.Errorf("header size %dx%d, want 80x24", c.header.Width, c.header.Height)
	}
	var played strings.Builder
	var markers []string
	for _, ev := range c.events {
		switch ev.kind {
		case "o":
			played.WriteString(ev.data)
		case "m":
			markers = append(markers, ev.data)
		}
	}
	rec := played.String()
	// The recording is a stretch of exactly what the terminal received,
	// ending where it stopped.
	i := strings.Index(shown, rec)
	if len(rec) == 0 || i < 0 {
		t.Fatalf("the recorded output (%d bytes) is not what the terminal received", len(rec))
	}
	// The frame that says "recorded" came after the stop.
	if i+len(rec) > stopAt {
		t.Errorf("the recording runs past its stop")
	}
	got := replayText(c.header.Width, c.header.Height, rec)
	want := replayText(80, 24, shown[:i+len(rec)])
	if got != want {
		t.Errorf("the recording plays to\n%s\nthe terminal showed\n%s", got, want)
	}
	if !strings.Contains(got, "a2-title") || !strings.Contains(got, "▲ waiting") {
		t.Errorf("the recording's last frame lacks a2 waiting:\n%s", got)
	}
	if want := "a2 a2-title: waiting"; !slices.Contains(markers, want) {
		t.Errorf("markers %q, want %q among them", markers, want)
	}
	if st, err := os.Stat(path); err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("the recording's mode: %v, %v; want 0600", st.Mode(), err)
	}
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("run: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("run did not end")
	}
}

// A character split between two writes is kept whole in one event, and a
// resize is an "r" event.
func TestRecorderKeepsCharactersWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.cast")
	clock := time.Unix(1000, 0)
	r := &recorder{now: func() time.Time { clock = clock.Add(time.Millisecond); return clock }}
	if err := r.begin(path, 10, 2); err != nil {
		t.Fatal(err)
	}
	b := []byte("ab─c")
	_, _ = r.Write(b[:3]) // "ab" and the first byte of "─"
	_, _ = r.Write(b[3:])
	r.resized(20, 5)
	r.marker("a1 x: started")
	if _, err := r.end(); err != nil {
		t.Fatal(err)
	}
	c := readCast(t, path)
	var got []string
	for _, ev := range c.events {
		got = append(got, fmt.Sprintf("%s:%s", ev.kind, ev.data))
	}
	want := []string{"o:ab", "o:─c", "r:20x5", "m:a1 x: started"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("events %q, want %q", got, want)
	}
}

// A recording is never written through a symbolic link at its path.
func TestRecordNeverFollowsASymlink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("keep"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.cast")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	r := &recorder{now: time.Now}
	if err := r.begin(link, 80, 24); err == nil {
		_, _ = r.end()
		t.Fatal("a recording began through a symbolic link")
	}
	if b, _ := os.ReadFile(target); string(b) != "keep" {
		t.Errorf("the link's target was changed: %q", b)
	}
}
