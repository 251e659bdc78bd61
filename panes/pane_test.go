package panes_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/panes"
	"github.com/agentgrid/agentgrid/panes/panestest"
)

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func waitDone(t *testing.T, p *panes.Pane, d time.Duration) {
	t.Helper()
	select {
	case <-p.Done():
	case <-time.After(d):
		t.Fatalf("the process did not exit within %s", d)
	}
}

func spec(argv ...string) panes.StartSpec {
	return panes.StartSpec{Argv: argv, Env: append(os.Environ(), "TERM=xterm-256color"), Cols: 80, Rows: 24}
}

// groupGone reports whether no process of group pgid is left.
func groupGone(pgid int) bool {
	return errors.Is(syscall.Kill(-pgid, 0), syscall.ESRCH)
}

func TestOutputExitCodeAndLog(t *testing.T) {
	dir := t.TempDir()
	logPath := filepath.Join(dir, "sub", "a1.log")
	var exitCode = -1
	exited := make(chan struct{})
	p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "printf 'hello from the child\\n'; exit 3"), panes.Options{
		LogPath: logPath,
		OnExit:  func(code int, err error) { exitCode = code; close(exited) },
	})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 10*time.Second)
	<-exited
	if code, ok := p.ExitCode(); !ok || code != 3 || exitCode != 3 {
		t.Fatalf("exit code = %d,%v (callback %d), want 3", code, ok, exitCode)
	}
	if got := p.Term().Text(); !strings.Contains(got, "hello from the child") {
		t.Fatalf("screen = %q", got)
	}
	b, err := os.ReadFile(logPath)
	if err != nil || !strings.Contains(string(b), "hello from the child") {
		t.Fatalf("log = %q, %v", b, err)
	}
}

func TestStartErrors(t *testing.T) {
	_, err := panes.Start(panes.PTYSpawner{}, spec("agentgrid-no-such-command"), panes.Options{})
	if err == nil || err.Error() != "command not found: agentgrid-no-such-command" {
		t.Fatalf("err = %v", err)
	}
	s := spec("sh", "-c", "true")
	s.Dir = "/nonexistent/dir"
	_, err = panes.Start(panes.PTYSpawner{}, s, panes.Options{})
	if err == nil || err.Error() != "cwd does not exist: /nonexistent/dir" {
		t.Fatalf("err = %v", err)
	}
	s = spec("sh", "-c", "true")
	s.Env = []string{"PATH=/nonexistent"}
	if _, err = panes.Start(panes.PTYSpawner{}, s, panes.Options{}); err == nil || !strings.Contains(err.Error(), "command not found: sh") {
		t.Fatalf("the spec's PATH was not used: err = %v", err)
	}
}

func TestEnvDirAndSize(t *testing.T) {
	dir := t.TempDir()
	s := spec("sh", "-c", "printf '%s|%s|' \"$FOO\" \"$PWD\"; stty size")
	s.Env = append(s.Env, "FOO=bar")
	s.Dir = dir
	s.Cols, s.Rows = 100, 30
	p, err := panes.Start(panes.PTYSpawner{}, s, panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 10*time.Second)
	want := "bar|" + dir + "|30 100"
	if got := p.Term().Text(); !strings.Contains(got, want) {
		t.Fatalf("screen = %q, want %q", got, want)
	}
}

func TestInputEcho(t *testing.T) {
	p, err := panes.Start(panes.PTYSpawner{}, spec("cat"), panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill(100 * time.Millisecond)
	if _, err := p.Write([]byte("typed text\r")); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the echo", func() bool { return strings.Count(p.Term().Text(), "typed text") >= 2 })
	p.Kill(100 * time.Millisecond)
	waitDone(t, p, time.Second)
	if _, err := p.Write([]byte("x")); !errors.Is(err, panes.ErrExited) {
		t.Fatalf("write after exit: %v", err)
	}
}

func TestKillIgnoringHUPAndTERM(t *testing.T) {
	p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "trap '' HUP TERM; echo ready; sleep 1000 & sleep 1000; wait"), panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "the child to be ready", func() bool { return strings.Contains(p.Term().Text(), "ready") })
	pgid := p.Pid()
	start := time.Now()
	p.Kill(150 * time.Millisecond)
	if el := time.Since(start); el < 300*time.Millisecond {
		t.Fatalf("Kill returned after %s; the child ignores HUP and TERM so SIGKILL was needed", el)
	}
	code, ok := p.ExitCode()
	if !ok || code != 128+int(syscall.SIGKILL) {
		t.Fatalf("exit code = %d,%v, want %d", code, ok, 128+int(syscall.SIGKILL))
	}
	waitFor(t, 5*time.Second, "the process group to be gone", func() bool { return groupGone(pgid) })
}

func TestKillByTERMWhenHUPIgnored(t *testing.T) {
	p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "trap '' HUP; echo ready; sleep 1000"), panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, 10*time.Second, "ready", func() bool { return strings.Contains(p.Term().Text(), "ready") })
	p.Kill(5 * time.Second / 10)
	if code, _ := p.ExitCode(); code != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit code = %d, want SIGTERM's %d", code, 128+int(syscall.SIGTERM))
	}
	waitFor(t, 5*time.Second, "the process group to be gone", func() bool { return groupGone(p.Pid()) })
}

func TestLeaderExitKillsGrandchildren(t *testing.T) {
	p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "sleep 1000 & echo bg=$!; exit 0"), panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	waitDone(t, p, 10*time.Second)
	text := p.Term().Text()
	i := strings.Index(text, "bg=")
	if i < 0 {
		t.Fatalf("screen = %q", text)
	}
	pid, _ := strconv.Atoi(strings.Fields(text[i+3:])[0])
	waitFor(t, 5*time.Second, "the background child to die", func() bool {
		return groupGone(p.Pid()) && errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
	})
}

func TestFloodDrainsAndInputStaysResponsive(t *testing.T) {
	if testing.Short() {
		t.Skip("flood test")
	}
	p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "yes | head -c 5000000; echo; echo flood-done"), panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for range 100 {
		if _, err := p.Write([]byte("x")); err != nil && !errors.Is(err, panes.ErrExited) {
			t.Fatal(err)
		}
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("writes blocked for %s during a flood", el)
	}
	waitDone(t, p, 60*time.Second)
	if !strings.Contains(p.Term().Text(), "flood-done") {
		t.Fatalf("the end of the flood is missing: %q", p.Term().Text())
	}
}

func TestInputQueueBounded(t *testing.T) {
	sp := &panestest.Spawner{Behave: func(p *panestest.Proc) { p.StallInput() }}
	p, err := panes.Start(sp, spec("fake"), panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	chunk := make([]byte, 64<<10)
	start := time.Now()
	var full bool
	for range 40 {
		if _, err := p.Write(chunk); errors.Is(err, panes.ErrInputFull) {
			full = true
			break
		}
	}
	if !full {
		t.Fatal("2.5 MiB of input to a child that does not read was all accepted")
	}
	if el := time.Since(start); el > time.Second {
		t.Fatalf("Write blocked for %s", el)
	}
	sp.Procs()[0].Exit(0)
	waitDone(t, p, 5*time.Second)
}

func TestResizeCoalesced(t *testing.T) {
	sp := &panestest.Spawner{}
	p, err := panes.Start(sp, spec("fake"), panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	fp := sp.Procs()[0]
	for i := range 50 {
		p.Resize(40+i, 10+i%5)
	}
	if c, r := p.Term().Size(); c != 89 || r != 14 {
		t.Fatalf("vterm size = %dx%d, want 89x14 at once", c, r)
	}
	waitFor(t, 5*time.Second, "the PTY resize", func() bool { c, r := fp.Size(); return c == 89 && r == 14 })
	fp.Exit(0)
	waitDone(t, p, 5*time.Second)
}

func TestFakeFaults(t *testing.T) {
	sp := &panestest.Spawner{Fail: func(panes.StartSpec) error { return errors.New("injected start failure") }}
	if _, err := panes.Start(sp, spec("x"), panes.Options{}); err == nil || err.Error() != "injected start failure" {
		t.Fatalf("err = %v", err)
	}
	// A process that survives every signal: Kill gives up after a bound.
	if testing.Short() {
		return
	}
	sp = &panestest.Spawner{Behave: func(p *panestest.Proc) {
		p.Ignore(syscall.SIGHUP, syscall.SIGTERM)
	}}
	p, err := panes.Start(sp, spec("x"), panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	p.Kill(20 * time.Millisecond)
	sigs := sp.Procs()[0].Signals()
	if len(sigs) == 0 || sigs[len(sigs)-1] != syscall.SIGKILL {
		t.Fatalf("signals = %v, want HUP, TERM then KILL", sigs)
	}
	waitDone(t, p, 5*time.Second)
}

func TestResizeReachesTheChild(t *testing.T) {
	p, err := panes.Start(panes.PTYSpawner{}, spec("sh", "-c", "while read l; do stty size; done"), panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Kill(100 * time.Millisecond)
	p.Resize(70, 20)
	waitFor(t, 10*time.Second, "the child to see 70x20", func() bool {
		_, _ = p.Write([]byte("\r"))
		return strings.Contains(p.Term().Text(), "20 70")
	})
}

// floodSlots holds every flood-parsing slot for a test, so that a pane
// that must wait for one is seen waiting; release frees those still held.
type floodSlots struct{ held int }

func (f *floodSlots) hold() {
	for f.held < cap(panes.BulkTokens) {
		panes.BulkTokens <- struct{}{}
		f.held++
	}
}

func (f *floodSlots) release() {
	for ; f.held > 0; f.held-- {
		<-panes.BulkTokens
	}
}

// TestFloodingPaneYieldsToShortOutput holds every flood-parsing slot: a
// pane whose read filled the whole buffer waits for one, while a pane with
// a short read (an echo) is parsed at once.
func TestFloodingPaneYieldsToShortOutput(t *testing.T) {
	sp := &panestest.Spawner{}
	flood, err := panes.Start(sp, panes.StartSpec{Argv: []string{"flood"}, Cols: 80, Rows: 24}, panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	echo, err := panes.Start(sp, panes.StartSpec{Argv: []string{"echo"}, Cols: 80, Rows: 24}, panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	procs := sp.Procs()
	slots := &floodSlots{}
	defer func() {
		slots.release()
		for _, p := range procs {
			p.Exit(0)
		}
		waitDone(t, flood, 5*time.Second)
		waitDone(t, echo, 5*time.Second)
	}()
	slots.hold()
	// Output returns once the pane read it: a full buffer of 'F's.
	procs[0].Output(strings.Repeat("F", panes.ReadBufSize))
	procs[1].Output("typed")
	waitFor(t, 5*time.Second, "the short output to be parsed", func() bool {
		return strings.Contains(echo.Term().Text(), "typed")
	})
	if strings.Contains(flood.Term().Text(), "F") {
		t.Fatal("a full-buffer read was parsed while every flood slot was taken")
	}
	slots.release()
	waitFor(t, 5*time.Second, "the flood to be parsed once a slot is free", func() bool {
		return strings.Contains(flood.Term().Text(), "FFFF")
	})
}

// TestBurstOfShortReadsIsAFlood feeds a pane many short reads back to back,
// as a PTY delivers a flood (a few KiB a read): past panes.BulkBurst bytes
// the pane waits for a flood-parsing slot like a full read does.
func TestBurstOfShortReadsIsAFlood(t *testing.T) {
	defer panes.SetBurstGap(time.Hour)()
	sp := &panestest.Spawner{}
	flood, err := panes.Start(sp, panes.StartSpec{Argv: []string{"flood"}, Cols: 80, Rows: 24}, panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	proc := sp.Procs()[0]
	slots := &floodSlots{}
	defer func() {
		slots.release()
		proc.Exit(0)
		waitDone(t, flood, 5*time.Second)
	}()
	slots.hold()
	const chunk = 4 << 10
	n := panes.BulkBurst/chunk + 4
	var fed atomic.Int32
	go func() {
		for i := 1; i <= n; i++ {
			line := fmt.Sprintf("C%02d\r\n", i)
			proc.Output(strings.Repeat("x", chunk-len(line)) + line)
			fed.Add(1)
		}
	}()
	// Output returns once the pane read the chunk; the read that takes the
	// burst to BulkBurst is the first one left unparsed.
	last := panes.BulkBurst / chunk
	waitFor(t, 5*time.Second, "the burst to reach the flood size", func() bool { return int(fed.Load()) >= last })
	waitFor(t, 5*time.Second, "the chunks before it to be parsed", func() bool {
		return strings.Contains(flood.Term().Text(), fmt.Sprintf("C%02d", last-1))
	})
	if strings.Contains(flood.Term().Text(), fmt.Sprintf("C%02d", last)) {
		t.Fatal("a burst past the flood size was parsed while every flood slot was taken")
	}
	slots.release()
	waitFor(t, 5*time.Second, "the flood to be parsed once a slot is free", func() bool {
		return strings.Contains(flood.Term().Text(), fmt.Sprintf("C%02d", n))
	})
}

// TestFullReadsStayAFloodThroughPauses: a flooding child on a busy machine
// often waits longer than the burst gap for a CPU. Reads that each take
// all the PTY could hold still make one burst, so past panes.BulkBurst the
// pane waits for a flood-parsing slot however long the pauses between its
// reads (here every pause is longer than the gap).
func TestFullReadsStayAFloodThroughPauses(t *testing.T) {
	defer panes.SetBurstGap(time.Nanosecond)()
	sp := &panestest.Spawner{}
	// A chunk is one row, so every row the pane parsed stays on screen.
	flood, err := panes.Start(sp, panes.StartSpec{Argv: []string{"flood"}, Cols: 5000, Rows: 24}, panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	proc := sp.Procs()[0]
	slots := &floodSlots{}
	defer func() {
		slots.release()
		proc.Exit(0)
		waitDone(t, flood, 5*time.Second)
	}()
	slots.hold()
	// The first read is larger, as when output piled up while the reader
	// waited: the reads after it, as large as the PTY hands over at once,
	// are still full.
	const chunk, first = 4 << 10, 16 << 10
	last := (panes.BulkBurst - first) / chunk
	n := last + 4
	var fed atomic.Int32
	go func() {
		proc.Output(strings.Repeat("y", first-2) + "\r\n")
		for i := 1; i <= n; i++ {
			line := fmt.Sprintf("C%02d\r\n", i)
			proc.Output(strings.Repeat("x", chunk-len(line)) + line)
			fed.Add(1)
		}
	}()
	waitFor(t, 5*time.Second, "the burst to reach the flood size", func() bool { return int(fed.Load()) >= last })
	waitFor(t, 5*time.Second, "the chunks before it to be parsed", func() bool {
		return strings.Contains(flood.Term().Text(), fmt.Sprintf("C%02d", last-1))
	})
	if strings.Contains(flood.Term().Text(), fmt.Sprintf("C%02d", last)) {
		t.Fatal("full reads past the flood size were parsed while every flood slot was taken")
	}
	slots.release()
	waitFor(t, 5*time.Second, "the flood to be parsed once a slot is free", func() bool {
		return strings.Contains(flood.Term().Text(), fmt.Sprintf("C%02d", n))
	})
}

// TestShortReadEndsABurst: a read shorter than the PTY's fill ends the
// child's burst, so a program that redraws a full screen now and then
// (each redraw less than panes.BulkBurst, each ending in a short read)
// never waits for a flood-parsing slot, however its redraws add up.
func TestShortReadEndsABurst(t *testing.T) {
	defer panes.SetBurstGap(time.Nanosecond)()
	sp := &panestest.Spawner{}
	p, err := panes.Start(sp, panes.StartSpec{Argv: []string{"tui"}, Cols: 80, Rows: 24}, panes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	proc := sp.Procs()[0]
	slots := &floodSlots{}
	defer func() {
		slots.release()
		proc.Exit(0)
		waitDone(t, p, 5*time.Second)
	}()
	slots.hold()
	const chunk = 4 << 10
	redraw := panes.BulkBurst/chunk - 2 // full reads, then a short one
	// Output returns once the pane read it: fed from a goroutine, so a
	// pane that waits for a slot fails the wait below instead of hanging.
	go func() {
		for r := 1; r <= 3; r++ {
			for range redraw {
				proc.Output(strings.Repeat("x", chunk-2) + "\r\n")
			}
			proc.Output(fmt.Sprintf("R%d\r\n", r))
		}
	}()
	waitFor(t, 5*time.Second, "every redraw to be parsed without a flood slot", func() bool {
		return strings.Contains(p.Term().Text(), "R3")
	})
}
