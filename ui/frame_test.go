package ui

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/panes/vterm"
	"github.com/charmbracelet/x/ansi"
)

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond) // polling a condition, not synchronising
	}
}

// pumpProbe runs a frame pump with instrumented send, timers and idle.
type pumpProbe struct {
	sends  atomic.Int32
	timers atomic.Int32
	idles  atomic.Int32
	mu     sync.Mutex
	fire   []chan time.Time
	waits  []time.Duration
}

func startPump(t *testing.T, interval time.Duration, changed chan struct{}) (*pumpProbe, func()) {
	t.Helper()
	return startPumpUrgent(t, interval, changed, nil)
}

func startPumpUrgent(t *testing.T, interval time.Duration, changed, urgent chan struct{}) (*pumpProbe, func()) {
	t.Helper()
	return startPumpFresh(t, interval, changed, urgent, nil)
}

func startPumpFresh(t *testing.T, interval time.Duration, changed, urgent, fresh chan struct{}) (*pumpProbe, func()) {
	t.Helper()
	pr := &pumpProbe{}
	clock := &pumpClock{now: time.Unix(0, 0)}
	stop := pr.run(&framePump{changed: []<-chan struct{}{changed}, urgent: urgent, fresh: fresh, interval: interval, now: clock.Now})
	return pr, stop
}

// run runs p with the probe's send, timers and idle until the returned
// function is called.
func (pr *pumpProbe) run(p *framePump) (stop func()) {
	p.send = func(tea.Msg) { pr.sends.Add(1) }
	p.after = func(d time.Duration) <-chan time.Time {
		pr.timers.Add(1)
		ch := make(chan time.Time, 1)
		pr.mu.Lock()
		pr.fire = append(pr.fire, ch)
		pr.waits = append(pr.waits, d)
		pr.mu.Unlock()
		return ch
	}
	p.idle = func() { pr.idles.Add(1) }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { p.run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func TestFramePumpIdleDoesNothing(t *testing.T) {
	changed := make(chan struct{}, 1)
	pr, stop := startPump(t, time.Second/60, changed)
	defer stop()
	waitFor(t, "the pump to wait", func() bool { return pr.idles.Load() == 1 })
	// Blocked on the change channel: no frame sent, no timer armed.
	if pr.sends.Load() != 0 || pr.timers.Load() != 0 {
		t.Fatalf("idle pump sent %d frames and armed %d timers", pr.sends.Load(), pr.timers.Load())
	}
}

func TestFramePumpCoalescesAndLimits(t *testing.T) {
	changed := make(chan struct{}, 1)
	pr, stop := startPump(t, time.Second/60, changed)
	defer stop()
	waitFor(t, "the pump to wait", func() bool { return pr.idles.Load() == 1 })

	// The first changes after a quiet period are drawn at once, without
	// a timer, up to the burst.
	for i := range pumpBurst {
		changed <- struct{}{}
		waitFor(t, "a leading frame", func() bool { return pr.idles.Load() == int32(i+2) })
		if pr.sends.Load() != int32(i+1) || pr.timers.Load() != 0 {
			t.Fatalf("after %d changes: %d frames, %d timers", i+1, pr.sends.Load(), pr.timers.Load())
		}
	}

	// A burst of pokes coalesces into one pending change; the next frame
	// waits for the rest of the frame interval (the clock did not move).
	for range 10 {
		select {
		case changed <- struct{}{}:
		default:
		}
	}
	waitFor(t, "the rate-limit timer", func() bool { return pr.timers.Load() == 1 })
	if pr.sends.Load() != pumpBurst {
		t.Fatal("a frame was sent before the interval passed")
	}
	pr.mu.Lock()
	pr.fire[0] <- time.Time{}
	pr.mu.Unlock()
	waitFor(t, "the frame after the burst", func() bool { return pr.idles.Load() == pumpBurst+2 })
	if pr.sends.Load() != pumpBurst+1 {
		t.Fatalf("a burst of 10 pokes gave %d frames, want 1", pr.sends.Load()-pumpBurst)
	}
	// Still no time passed: the next change waits again, one interval,
	// however long changes have kept coming.
	changed <- struct{}{}
	waitFor(t, "the next rate-limit timer", func() bool { return pr.timers.Load() == 2 })
	if pr.sends.Load() != pumpBurst+1 {
		t.Fatal("a frame was sent without a token")
	}
	pr.mu.Lock()
	waits := append([]time.Duration(nil), pr.waits...)
	pr.mu.Unlock()
	if want := []time.Duration{time.Second / 60, time.Second / 60}; len(waits) != 2 || waits[0] != want[0] || waits[1] != want[1] {
		t.Fatalf("rate-limit waits = %v, want %v", waits, want)
	}
}

// TestFramePumpUrgentBorrowsOneFrame: output of the focused pane is drawn
// at once even when the burst is used up, by borrowing the next interval's
// frame; a second urgent poke waits, so the average rate holds.
func TestFramePumpUrgentBorrowsOneFrame(t *testing.T) {
	changed := make(chan struct{}, 1)
	urgent := make(chan struct{}, 1)
	pr, stop := startPumpUrgent(t, time.Second/60, changed, urgent)
	defer stop()
	waitFor(t, "the pump to wait", func() bool { return pr.idles.Load() == 1 })
	for i := range pumpBurst {
		changed <- struct{}{}
		waitFor(t, "a leading frame", func() bool { return pr.idles.Load() == int32(i+2) })
	}
	// The clock does not move: no token is left for an ordinary change,
	// but an urgent one goes without a timer.
	urgent <- struct{}{}
	waitFor(t, "the urgent frame", func() bool { return pr.idles.Load() == pumpBurst+2 })
	if pr.sends.Load() != pumpBurst+1 || pr.timers.Load() != 0 {
		t.Fatalf("urgent poke: %d frames, %d timers; want %d frames and no timer", pr.sends.Load(), pr.timers.Load(), pumpBurst+1)
	}
	// The borrowed frame is paid back: the next urgent poke waits.
	urgent <- struct{}{}
	waitFor(t, "the rate-limit timer", func() bool { return pr.timers.Load() == 1 })
	if pr.sends.Load() != pumpBurst+1 {
		t.Fatal("a second urgent frame was sent without a token")
	}
	pr.mu.Lock()
	pr.fire[0] <- time.Time{}
	pr.mu.Unlock()
	waitFor(t, "the paid-back frame", func() bool { return pr.sends.Load() == pumpBurst+2 })
}

// TestFramePumpUrgentCutsAWait: an urgent poke while an ordinary frame
// waits for its interval ends the wait when a token can be borrowed.
func TestFramePumpUrgentCutsAWait(t *testing.T) {
	changed := make(chan struct{}, 1)
	urgent := make(chan struct{}, 1)
	pr, stop := startPumpUrgent(t, time.Second/60, changed, urgent)
	defer stop()
	waitFor(t, "the pump to wait", func() bool { return pr.idles.Load() == 1 })
	for i := range pumpBurst {
		changed <- struct{}{}
		waitFor(t, "a leading frame", func() bool { return pr.idles.Load() == int32(i+2) })
	}
	changed <- struct{}{}
	waitFor(t, "the rate-limit timer", func() bool { return pr.timers.Load() == 1 })
	urgent <- struct{}{}
	waitFor(t, "the urgent frame", func() bool { return pr.sends.Load() == pumpBurst+1 })
	waitFor(t, "the pump to wait again", func() bool { return pr.idles.Load() == pumpBurst+2 })
	if pr.sends.Load() != pumpBurst+1 {
		t.Fatalf("the waiting change and the urgent one gave %d frames, want 1", pr.sends.Load()-pumpBurst)
	}
}

func TestFrameNotRecomposedWhenNothingChanged(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	first := m.gen
	m.Update(frameMsg{})
	if m.baseDirty {
		t.Error("an unchanged snapshot marked the frame dirty")
	}
	m.View()
	if m.gen != first {
		t.Error("frame changed without a change")
	}
	// Output in a pane changes its Seq: the frame is recomposed.
	_, _ = eng.snap.Panes[0].Term.(*vterm.Terminal).Write([]byte("more output"))
	m.Update(frameMsg{})
	if !m.baseDirty {
		t.Fatal("pane output did not mark the frame dirty")
	}
	m.View()
	if !strings.Contains(ansi.Strip(m.final.String()), "more output") {
		t.Error("new output not drawn")
	}
}

// TestTooSmallNotice: a terminal below 20x6 shows a notice instead of a
// broken drawing: one line when it fits, else wrapped over the rows there
// are, each row within the width, so a narrow terminal (tmux -x 10 -y 3)
// still reads "too small".
func TestTooSmallNotice(t *testing.T) {
	for _, sz := range [][2]int{{18, 4}, {19, 24}, {80, 5}, {10, 3}, {10, 2}, {0, 0}, {1, 1}} {
		m, _ := newTestModel(t, testSnapshot())
		m.Update(teaWindowSize(sz[0], sz[1]))
		content := strings.TrimRight(viewText(m), "\n")
		rows := strings.Split(content, "\n")
		if len(rows) > max(sz[1], 1) {
			t.Errorf("%dx%d: notice has %d rows", sz[0], sz[1], len(rows))
		}
		for _, r := range rows {
			if w := ansi.StringWidth(r); w > sz[0] {
				t.Errorf("%dx%d: notice row %q is %d cells wide", sz[0], sz[1], r, w)
			}
		}
		if sz[0] >= 40 && (len(rows) != 1 || !strings.Contains(content, "terminal too small")) {
			t.Errorf("%dx%d: content %q", sz[0], sz[1], content)
		}
		if sz[0] >= 9 && sz[1] >= 2 && !strings.Contains(strings.Join(strings.Fields(content), " "), "too small") {
			t.Errorf("%dx%d: the notice does not say too small: %q", sz[0], sz[1], content)
		}
		if sz[0] >= 10 && sz[1] >= 3 && !strings.Contains(strings.Join(strings.Fields(content), " "), "need 20x6") {
			t.Errorf("%dx%d: the notice does not say the size needed: %q", sz[0], sz[1], content)
		}
	}
	m, _ := newTestModel(t, testSnapshot())
	m.Update(teaWindowSize(60, 4))
	want := "terminal too small: need 20x6, have 60x4"
	if got := strings.TrimSpace(ansi.Strip(viewText(m))); got != want {
		t.Errorf("notice = %q, want %q", got, want)
	}
	// The engine's layout can also say it is too small.
	snap := testSnapshot()
	snap.TooSmall = true
	m, _ = newTestModel(t, snap)
	if !strings.Contains(viewText(m), "terminal too small: need 20x6, have 80x24") {
		t.Error("layout TooSmall not shown")
	}
}

func TestFrameDrawsAllPanesAndStatus(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	v := m.View()
	checkWidths(t, m.final, 80, 24)
	plain := ansi.Strip(m.final.String())
	for _, want := range []string{"─ 0 main-title ● running 12s", "─ 1 a1-title ● running 12s", "─ 2 a2-title ○ idle <1m", "building", "1 running", "1 idle"} {
		if !strings.Contains(plain, want) {
			t.Errorf("frame lacks %q:\n%s", want, plain)
		}
	}
	if !v.AltScreen || !v.ReportFocus || v.MouseMode != tea.MouseModeCellMotion {
		t.Errorf("view modes: alt %v focus %v mouse %v", v.AltScreen, v.ReportFocus, v.MouseMode)
	}
	// The cursor sits at main's cursor: after "$ " in its content.
	if v.Cursor == nil || v.Cursor.X != 3 || v.Cursor.Y != 1 {
		t.Errorf("cursor = %+v, want (3,1)", v.Cursor)
	}
}

func TestStatusEntriesInBorder(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	eng.status.Set("tests", "42/50", "a1", "cli", 0)
	m.Update(frameMsg{})
	plain := ansi.Strip(viewText(m))
	if !strings.Contains(plain, "● running 12s · 42/50 ") {
		t.Errorf("agent status not in its border:\n%s", plain)
	}
}

func TestFinishedPaneShowsExitStatus(t *testing.T) {
	snap := testSnapshot()
	code := 3
	end := testNow
	snap.Panes[0].Agent.State = agentstate.Failed
	snap.Panes[0].Agent.ExitCode = &code
	snap.Panes[0].Agent.Ended = &end
	m, _ := newTestModel(t, snap)
	if plain := ansi.Strip(viewText(m)); !strings.Contains(plain, "─ 1 a1-title ✗ exit 3 · 1m00s") {
		t.Errorf("exit status missing:\n%s", plain)
	}
}

func TestWaitingRingsBellOnce(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	eng.mu.Lock()
	eng.snap.Panes[1].Agent.State = agentstate.Waiting
	eng.snap.Agents[1].State = agentstate.Waiting
	eng.snap.Agents[1].Why = "permission: run tests?"
	eng.snap.WaitSeq++ // as the engine counts each start of a wait
	eng.snap.LastWaiting = "a2"
	eng.mu.Unlock()
	m.cfg.UI.OSC9 = true
	_, cmd := m.Update(frameMsg{})
	raw := rawOutput(cmd)
	if !strings.Contains(raw, "\a") || !strings.Contains(raw, "\x1b]9;agentgrid: a2-title is waiting: permission: run tests?") {
		t.Errorf("bell/OSC 9 = %q", raw)
	}
	_, cmd = m.Update(frameMsg{})
	if raw := rawOutput(cmd); raw != "" {
		t.Errorf("still waiting rang again: %q", raw)
	}
	// The waiting pane's border uses the waiting colour.
	m.View()
	if !hasStyled(m.base, "┌", m.ui.frame.borderWaiting) {
		t.Error("waiting border not highlighted")
	}
}

// A wait that begins and ends between two frames (running -> waiting ->
// running) rings the bell once, from the engine's count of waits; frames
// with no new wait ring nothing, and two waits between frames ring once.
func TestBriefWaitRingsBellOnce(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	m.cfg.UI.OSC9 = true
	wait := func(n int) {
		eng.mu.Lock()
		eng.snap.WaitSeq += uint64(n)
		eng.snap.LastWaiting = "a1"
		eng.mu.Unlock()
	}
	_, cmd := m.Update(frameMsg{})
	if raw := rawOutput(cmd); raw != "" {
		t.Errorf("no new wait rang: %q", raw)
	}
	// a1 is running in both snapshots, but waited in between.
	wait(1)
	_, cmd = m.Update(frameMsg{})
	if raw := rawOutput(cmd); bells(raw) != 1 || !strings.Contains(raw, "\x1b]9;agentgrid: a1-title is waiting\a") {
		t.Errorf("a brief wait rang %q, want one bell and a1's notice", raw)
	}
	_, cmd = m.Update(frameMsg{})
	if raw := rawOutput(cmd); raw != "" {
		t.Errorf("the next frame without a wait rang again: %q", raw)
	}
	wait(2)
	_, cmd = m.Update(frameMsg{})
	if raw := rawOutput(cmd); bells(raw) != 1 {
		t.Errorf("two waits between frames rang %q, want one bell", raw)
	}
	m.cfg.UI.OSC9 = false
	wait(1)
	_, cmd = m.Update(frameMsg{})
	if raw := rawOutput(cmd); raw != "\a" {
		t.Errorf("bell only: %q", raw)
	}
}

// bells counts the bells in raw output, OSC 9 notices (which end in BEL)
// left out.
func bells(raw string) int {
	return strings.Count(regexp.MustCompile("\x1b\\]9;[^\a]*\a").ReplaceAllString(raw, ""), "\a")
}

// TestWaitingNotificationIsCappedAndClean: the desktop notification sent to
// the outer terminal carries no bidi or zero-width characters and is capped,
// whatever the agent's title and reason say.
func TestWaitingNotificationIsCappedAndClean(t *testing.T) {
	m, eng := newTestModel(t, testSnapshot())
	eng.mu.Lock()
	eng.snap.Panes[1].Agent.State = agentstate.Waiting
	eng.snap.Agents[1].State = agentstate.Waiting
	eng.snap.Agents[1].Title = "a2\u202e\u200btitle"
	eng.snap.Agents[1].Why = strings.Repeat("why ", 2000)
	eng.snap.WaitSeq++
	eng.snap.LastWaiting = "a2"
	eng.mu.Unlock()
	m.cfg.UI.OSC9 = true
	_, cmd := m.Update(frameMsg{})
	raw := rawOutput(cmd)
	start := strings.Index(raw, "\x1b]9;")
	if start < 0 {
		t.Fatalf("no OSC 9 in %q", raw)
	}
	msg, _, ok := strings.Cut(raw[start+len("\x1b]9;"):], "\a")
	if !ok {
		t.Fatalf("unterminated OSC 9 in %q", raw)
	}
	if n := len([]rune(msg)); n > maxNotifyLen || !strings.HasPrefix(msg, "agentgrid: a2title is waiting: why why") {
		t.Errorf("notification has %d runes (cap %d): %.80q", n, maxNotifyLen, msg)
	}
}

// rawOutput runs cmd (a batch included) and collects what it prints raw.
// Label ticks are recorded by the test model instead of sleeping, so every
// command here returns at once.
func rawOutput(cmd tea.Cmd) string {
	var sb strings.Builder
	var walk func(tea.Cmd)
	walk = func(c tea.Cmd) {
		if c == nil {
			return
		}
		switch msg := c().(type) {
		case tea.RawMsg:
			sb.WriteString(msg.Msg.(string))
		case tea.BatchMsg:
			for _, c := range msg {
				walk(c)
			}
		}
	}
	walk(cmd)
	return sb.String()
}

// TestFramePumpFreshOutputNeverWaits: a new agent's first output is drawn
// at once even when an urgent frame has borrowed the next interval, and it
// costs no token, so the echo after it is not delayed either.
func TestFramePumpFreshOutputNeverWaits(t *testing.T) {
	changed := make(chan struct{}, 1)
	urgent := make(chan struct{}, 1)
	fresh := make(chan struct{}, 1)
	pr, stop := startPumpFresh(t, time.Second/60, changed, urgent, fresh)
	defer stop()
	waitFor(t, "the pump to wait", func() bool { return pr.idles.Load() == 1 })
	for i := range pumpBurst {
		changed <- struct{}{}
		waitFor(t, "a leading frame", func() bool { return pr.idles.Load() == int32(i+2) })
	}
	urgent <- struct{}{}
	waitFor(t, "the urgent frame", func() bool { return pr.idles.Load() == pumpBurst+2 })
	// No token is left, the clock stands still: an ordinary change waits...
	changed <- struct{}{}
	waitFor(t, "the rate-limit timer", func() bool { return pr.timers.Load() == 1 })
	// ...and a first output cuts that wait without a timer of its own.
	fresh <- struct{}{}
	waitFor(t, "the fresh frame", func() bool { return pr.sends.Load() == pumpBurst+2 })
	waitFor(t, "the pump to wait again", func() bool { return pr.idles.Load() == pumpBurst+3 })
	// A second first output (another agent) goes at once too.
	fresh <- struct{}{}
	waitFor(t, "the second fresh frame", func() bool { return pr.sends.Load() == pumpBurst+3 })
	if pr.timers.Load() != 1 {
		t.Fatalf("fresh frames armed %d timers, want only the ordinary change's", pr.timers.Load())
	}
}

// TestResizeRepaintsOnce: a new size (an attach's first, every resize
// after) is repainted by the runtime with the frame of that size; the
// model asking for a ClearScreen as well sent a second full frame.
func TestResizeRepaintsOnce(t *testing.T) {
	m, _ := newTestModel(t, testSnapshot())
	seen := map[string]bool{}
	w := &cmdWalker{t: t, seen: seen, update: func(msg tea.Msg) tea.Cmd {
		_, cmd := m.Update(msg)
		m.View()
		return cmd
	}}
	for _, size := range []tea.WindowSizeMsg{{Width: 100, Height: 30}, {Width: 80, Height: 24}} {
		_, cmd := m.Update(size)
		m.View()
		w.walk(cmd, 0)
	}
	clear := fmt.Sprintf("%T", tea.ClearScreen())
	if seen[clear] {
		t.Errorf("a resize asked for %s: the runtime repaints a new size already, so the client gets two full frames", clear)
	}
}
