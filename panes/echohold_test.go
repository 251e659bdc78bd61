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
		bulkHold.Store(0)
		bulkHoldFor.Store(nil)
		echoSeen.Store(false)
	}
	reset()
	t.Cleanup(reset)
}

// TestEchoHoldPausesOtherPanesOnly checks the hold's rules without relying
// on how fast anything runs: every assertion compares against clock
// readings taken around the call, never against a sleep.
func TestEchoHoldPausesOtherPanesOnly(t *testing.T) {
	resetEchoHold(t)
	typing, flooding := &Pane{}, &Pane{}

	before := time.Now().UnixNano()
	typing.PrioritizeEcho()
	after := time.Now().UnixNano()
	end := bulkHold.Load()
	if bulkHoldFor.Load() != typing {
		t.Fatal("the hold does not protect the pane that was typed into")
	}
	if end < before+int64(maxEchoHold) || end > after+int64(maxEchoHold) {
		t.Fatalf("hold ends %v after the keystroke, want %v", time.Duration(end-before), maxEchoHold)
	}

	// The protected pane's own bulk reads never wait.
	done := make(chan struct{})
	go func() { typing.waitEchoHold(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("the typed-into pane waited for its own hold")
	}

	// Its echo shortens the hold to the time needed to draw it.
	before = time.Now().UnixNano()
	typing.endEchoHold()
	after = time.Now().UnixNano()
	if got := bulkHold.Load(); got < before+int64(echoDrawTime) || got > after+int64(echoDrawTime) {
		t.Fatalf("after the echo the hold ends %v from now, want %v", time.Duration(got-before), echoDrawTime)
	}
	if !echoSeen.Load() {
		t.Fatal("the echo was not recorded")
	}

	// Another pane's bulk read resumes only once the hold is over.
	end = bulkHold.Load()
	flooding.waitEchoHold()
	if now := time.Now().UnixNano(); now < end {
		t.Fatalf("a flooding pane resumed %v before the hold ended", time.Duration(end-now))
	}

	// Output of a pane the hold does not protect does not end it.
	resetEchoHold(t)
	typing.PrioritizeEcho()
	end = bulkHold.Load()
	flooding.endEchoHold()
	if bulkHold.Load() != end || echoSeen.Load() {
		t.Fatal("another pane's output ended the hold")
	}
}

// TestEchoHoldWithoutEchoIsNotRenewed checks that keys which bring no echo
// (held down, or a program that does not echo) cannot pause floods back to
// back: while an unanswered hold lasts, or for maxEchoHold after it, a new
// keystroke does not start another; once an echo came, the next one does.
func TestEchoHoldWithoutEchoIsNotRenewed(t *testing.T) {
	resetEchoHold(t)
	a, b := &Pane{}, &Pane{}

	// An unanswered hold far in the future stands for "one is running".
	far := time.Now().Add(time.Hour).UnixNano()
	bulkHold.Store(far)
	bulkHoldFor.Store(a)
	b.PrioritizeEcho()
	if bulkHold.Load() != far || bulkHoldFor.Load() != a {
		t.Fatal("a keystroke renewed a hold that got no echo")
	}

	// An unanswered hold that ended less than maxEchoHold ago still blocks
	// a new one.
	recent := time.Now().Add(-maxEchoHold / 2).UnixNano()
	bulkHold.Store(recent)
	b.PrioritizeEcho()
	if bulkHold.Load() != recent || bulkHoldFor.Load() != a {
		t.Fatal("a keystroke started a hold right after one that got no echo")
	}

	// Long after it, a keystroke starts a new hold.
	bulkHold.Store(time.Now().Add(-time.Hour).UnixNano())
	b.PrioritizeEcho()
	if bulkHoldFor.Load() != b || bulkHold.Load() <= time.Now().UnixNano() {
		t.Fatal("a keystroke long after the last hold started none")
	}

	// Once the echo came, the next keystroke starts a new hold at once.
	bulkHold.Store(far)
	bulkHoldFor.Store(a)
	echoSeen.Store(true)
	b.PrioritizeEcho()
	if bulkHoldFor.Load() != b || bulkHold.Load() == far || echoSeen.Load() {
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
		bulkHold.Store(0)
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
	bulkHoldFor.Store(&Pane{})
	bulkHold.Store(time.Now().Add(time.Hour).UnixNano())
	seq := p.Term().Seq()
	release() // the queued reader gets a slot here ...
	take()    // ... and has given it back here
	if p.Term().Seq() != seq {
		t.Fatal("a pane queued for a flood slot parsed a read during another pane's echo hold")
	}

	// Once the hold is over, the flood goes on.
	release()
	bulkHold.Store(time.Now().UnixNano())
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
