package panes

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
)

// resetEchoHold clears the process-wide hold so a test starts from none and
// leaves none behind.
func resetEchoHold(t *testing.T) {
	t.Helper()
	reset := func() {
		if h := curHold.Swap(nil); h != nil {
			h.end()
		}
	}
	reset()
	t.Cleanup(reset)
}

// holdFor makes every hold last up to d (restored at the test's end), so
// that no hold ends by itself while a test looks at it.
func holdFor(t *testing.T, d time.Duration) {
	t.Helper()
	old := maxEchoHold.Load()
	maxEchoHold.Store(d)
	t.Cleanup(func() { maxEchoHold.Store(old) })
}

// waitOver waits (10 s at most) for h to end.
func waitOver(t *testing.T, h *echoHold, what string) {
	t.Helper()
	select {
	case <-h.over:
	case <-time.After(10 * time.Second):
		t.Fatal(what)
	}
}

// TestEchoHoldPausesOtherPanesOnly checks the hold's rules without relying
// on how fast anything runs: holds last up to an hour here, so only the
// echo ends one.
func TestEchoHoldPausesOtherPanesOnly(t *testing.T) {
	resetEchoHold(t)
	holdFor(t, time.Hour)
	typing, flooding := &Pane{}, &Pane{}

	typing.PrioritizeEcho()
	h := curHold.Load()
	if h == nil || h.pane != typing {
		t.Fatal("the hold does not protect the pane that was typed into")
	}
	if !h.holds(flooding) || h.holds(typing) {
		t.Fatalf("the hold pauses the flooding pane: %v, the typed-into pane: %v; want true, false", h.holds(flooding), h.holds(typing))
	}

	// The protected pane's own bulk reads never wait.
	mustResume(t, typing, "the typed-into pane waited for its own hold")

	// Output of a pane the hold does not protect does not end it.
	flooding.endEchoHold()
	if h.echoed.Load() || !h.holds(flooding) {
		t.Fatal("another pane's output ended the hold")
	}

	// Its echo ends the hold, no sooner than the time it needs to be drawn.
	waited := make(chan time.Time)
	go func() { flooding.waitEchoHold(); waited <- time.Now() }()
	before := time.Now()
	typing.endEchoHold()
	if !h.echoed.Load() {
		t.Fatal("the echo was not recorded")
	}
	select {
	case at := <-waited:
		if d := at.Sub(before); d < echoDrawTime {
			t.Fatalf("the flooding pane resumed %v after the echo, before the %v it takes to draw", d, echoDrawTime)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("a flooding pane waiting for the hold did not resume once the echo ended it")
	}
	if h.holds(flooding) {
		t.Fatal("the hold lasts after the echo was drawn")
	}
}

// TestEchoHoldEndsByItself: a hold whose echo never comes ends after
// maxEchoHold and releases the panes waiting for it.
func TestEchoHoldEndsByItself(t *testing.T) {
	resetEchoHold(t)
	holdFor(t, 20*time.Millisecond)
	typing, flooding := &Pane{}, &Pane{}
	typing.PrioritizeEcho()
	h := curHold.Load()
	mustResume(t, flooding, "a flooding pane still waits for a hold of 20ms that got no echo, 10 s later")
	if h.echoed.Load() || h.holds(flooding) {
		t.Fatal("the hold did not end by itself")
	}
}

// TestNewHoldReleasesTheOld: a keystroke into another pane replaces the
// answered hold; panes waiting for the old one now wait for the new one,
// and the pane typed into before is one of the paused.
func TestNewHoldReleasesTheOld(t *testing.T) {
	resetEchoHold(t)
	holdFor(t, time.Hour)
	a, b := &Pane{}, &Pane{}
	a.PrioritizeEcho()
	first := curHold.Load()
	first.echoed.Store(true) // answered, but not yet drawn
	b.PrioritizeEcho()
	second := curHold.Load()
	if second == first || second.pane != b {
		t.Fatal("a keystroke after an answered hold did not start its own")
	}
	waitOver(t, first, "the replaced hold still pauses its waiters")
	if !second.holds(a) || second.holds(b) {
		t.Fatal("the new hold does not pause the pane typed into before, or pauses its own")
	}
}

// TestEchoHoldWithoutEchoIsNotRenewed checks that keys which bring no echo
// (held down, or a program that does not echo) cannot pause floods back to
// back: while an unanswered hold lasts, or for maxEchoHold after it, a new
// keystroke does not start another; once an echo came, the next one does.
func TestEchoHoldWithoutEchoIsNotRenewed(t *testing.T) {
	resetEchoHold(t)
	longest := maxEchoHold.Load()
	a, b := &Pane{}, &Pane{}
	install := func(start time.Time) *echoHold {
		h := &echoHold{pane: a, start: start, over: make(chan struct{})}
		curHold.Store(h)
		return h
	}

	// An unanswered hold that just began.
	h := install(time.Now())
	b.PrioritizeEcho()
	if curHold.Load() != h {
		t.Fatal("a keystroke renewed a hold that got no echo")
	}

	// An unanswered hold that ended less than maxEchoHold ago still blocks
	// a new one.
	h = install(time.Now().Add(-longest - longest/2))
	b.PrioritizeEcho()
	if curHold.Load() != h {
		t.Fatal("a keystroke started a hold right after one that got no echo")
	}

	// Long after it, a keystroke starts a new hold.
	install(time.Now().Add(-time.Hour))
	b.PrioritizeEcho()
	if got := curHold.Load(); got.pane != b || !got.holds(a) {
		t.Fatal("a keystroke long after the last hold started none")
	}

	// Once the echo came, the next keystroke starts a new hold at once.
	h = install(time.Now())
	h.echoed.Store(true)
	b.PrioritizeEcho()
	if got := curHold.Load(); got == h || got.pane != b {
		t.Fatal("a keystroke after an answered hold did not start its own")
	}
}

// TestKeepAProcForInput checks that a program running panes gives Go one
// processor beyond the flood slots, so that one is free to read a
// keystroke while every slot parses a flood.
func TestKeepAProcForInput(t *testing.T) {
	old := runtime.GOMAXPROCS(0)
	t.Cleanup(func() { runtime.GOMAXPROCS(old) })
	runtime.GOMAXPROCS(FloodSlots())
	KeepAProcForInput()
	if got, want := runtime.GOMAXPROCS(0), FloodSlots()+1; got != want {
		t.Fatalf("GOMAXPROCS is %d with %d flood slots, want %d", got, FloodSlots(), want)
	}
	KeepAProcForInput()
	if got, want := runtime.GOMAXPROCS(0), FloodSlots()+1; got != want {
		t.Fatalf("a second call moved GOMAXPROCS to %d, want %d", got, want)
	}
}

// TestFloodStartsAreAnnounced: Flooding says yes from a pane's first flood
// slot until floodQuiet after its last, and a flood's start is announced
// to OnFloodStart's callers once, not for every slot taken.
func TestFloodStartsAreAnnounced(t *testing.T) {
	floodSeen.Store(0)
	if Flooding() {
		t.Fatal("Flooding says yes before any flood")
	}
	starts := make(chan struct{}, 4)
	stop := OnFloodStart(func() { starts <- struct{}{} })
	defer stop()
	noteFlood()
	noteFlood() // the same flood
	if !Flooding() {
		t.Fatal("Flooding says no during a flood")
	}
	if len(starts) != 1 {
		t.Fatalf("one flood was announced %d times, want once", len(starts))
	}
	<-starts
	floodSeen.Store(time.Now().Add(-2 * floodQuiet).UnixNano()) // the quiet, passed
	if Flooding() {
		t.Fatal("Flooding says yes after the quiet")
	}
	stop()
	noteFlood()
	if len(starts) != 0 {
		t.Fatal("a stopped OnFloodStart caller was told of a flood")
	}
}

// TestQueuedFloodWaitsOutALaterHold: a flooding pane queued for a flood
// slot when another pane's echo hold begins parses nothing until the hold
// ends, then goes on. Slots are handed over by channel operations, so
// which read happens when is decided by the test, not by timing.
func TestQueuedFloodWaitsOutALaterHold(t *testing.T) {
	resetEchoHold(t)
	held := 0
	take := func() {
		for ; held < cap(bulkTokens); held++ {
			bulkTokens <- struct{}{}
		}
	}
	release := func() {
		for ; held > 0; held-- {
			<-bulkTokens
		}
	}
	t.Cleanup(release)
	take()
	p, err := Start(PTYSpawner{}, StartSpec{Argv: []string{"yes"}, Cols: 80, Rows: 24}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		release()
		p.Kill(100 * time.Millisecond)
	})
	deadline := time.Now().Add(10 * time.Second)
	for !readerQueuedForSlot() {
		if time.Now().After(deadline) {
			t.Fatal("the flooding pane's reader never queued for a flood slot")
		}
		time.Sleep(5 * time.Millisecond)
	}

	// Another pane's keystroke starts a hold (long, so that it cannot end
	// by itself during the test).
	holdFor(t, time.Hour)
	typing := &Pane{}
	typing.PrioritizeEcho()
	seq := p.Term().Seq()
	release() // the queued reader gets a slot here ...
	take()    // ... and has given it back here
	if p.Term().Seq() != seq {
		t.Fatal("a pane queued for a flood slot parsed a read during another pane's echo hold")
	}

	// Once the echo ended the hold, the flood goes on.
	release()
	typing.endEchoHold()
	deadline = time.Now().Add(10 * time.Second)
	for p.Term().Seq() == seq {
		if time.Now().After(deadline) {
			t.Fatal("the flood did not go on after the hold ended")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// readerQueuedForSlot reports whether a pane's reader goroutine is blocked
// sending on the flood slots (the only channel send it blocks on).
func readerQueuedForSlot() bool {
	buf := make([]byte, 1<<20)
	buf = buf[:runtime.Stack(buf, true)]
	for _, g := range strings.Split(string(buf), "\n\n") {
		if strings.Contains(g, "[chan send") && strings.Contains(g, "panes.(*Pane).readLoop") {
			return true
		}
	}
	return false
}

// TestFloodReadTakesWhatIsWaiting: a flooding pane holding a flood slot
// takes everything its child has already written, not one PTY read of at
// most 4 KiB, and stops once there is nothing more instead of waiting. The
// child (a real sh in a real PTY) writes 10,000 bytes, then signals it is
// done through a file and sleeps.
func TestFloodReadTakesWhatIsWaiting(t *testing.T) {
	resetEchoHold(t)
	done := filepath.Join(t.TempDir(), "written")
	script := fmt.Sprintf("i=0; while [ $i -lt 100 ]; do printf '%%0100d' 0; i=$((i+1)); done; : > %s; exec sleep 30", done)
	proc, err := PTYSpawner{}.Start(StartSpec{Argv: []string{"/bin/sh", "-c", script}, Cols: 80, Rows: 24, Env: []string{"PATH=/usr/bin:/bin"}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = proc.Signal(syscall.SIGKILL)
		_, _ = proc.Wait()
		_ = proc.Close()
	})
	deadline := time.Now().Add(10 * time.Second)
	for {
		if _, err := os.Stat(done); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the child did not finish writing within 10 s")
		}
		time.Sleep(5 * time.Millisecond)
	}
	p := &Pane{proc: proc}
	buf := make([]byte, 64<<10)
	n := p.readMore(buf)
	if n != 10000 {
		t.Fatalf("read %d bytes of the 10000 waiting in the PTY, want all of them", n)
	}
	if strings.Trim(string(buf[:n]), "0") != "" {
		t.Fatalf("read bytes that are not the child's output: %q", buf[:min(n, 64)])
	}
	// Nothing more is waiting: it returns at once with nothing.
	if m := p.readMore(buf); m != 0 {
		t.Fatalf("read %d more bytes after the child stopped writing", m)
	}
}

// mustResume fails the test with failure unless p's wait for another
// pane's echo hold returns within 10 s.
func mustResume(t *testing.T, p *Pane, failure string) {
	t.Helper()
	done := make(chan struct{})
	go func() { p.waitEchoHold(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal(failure)
	}
}
