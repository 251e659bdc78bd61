package ui

import (
	"sync"
	"testing"
	"time"
)

// pumpClock is a frame pump's clock that only the test moves.
type pumpClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *pumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *pumpClock) advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// startPumpNews runs a frame pump with changed and news pokes on a clock
// the test moves.
func startPumpNews(t *testing.T, interval time.Duration, changed, news chan struct{}) (*pumpProbe, *pumpClock, func()) {
	t.Helper()
	pr := &pumpProbe{}
	clock := &pumpClock{now: time.Unix(0, 0)}
	stop := pr.run(&framePump{changed: []<-chan struct{}{changed}, news: news, interval: interval, now: clock.Now})
	return pr, clock, stop
}

// TestFramePumpNewsWaitsOnlyAGap: an agent's new state (a hook's
// "waiting: permission") is drawn at once when the last frame is a quarter
// interval old, although the frame budget is spent, where an ordinary
// change waits for the rest of the interval; one that comes sooner waits
// only for the quarter, so a flood of states gets at most four frames an
// interval. News frames are paid for: the next ordinary change waits
// longer.
func TestFramePumpNewsWaitsOnlyAGap(t *testing.T) {
	const iv = time.Second / 60
	changed, news := make(chan struct{}, 1), make(chan struct{}, 1)
	pr, clock, stop := startPumpNews(t, iv, changed, news)
	defer stop()
	waitFor(t, "the pump to wait", func() bool { return pr.idles.Load() == 1 })
	for i := range pumpBurst {
		changed <- struct{}{}
		waitFor(t, "a leading frame", func() bool { return pr.idles.Load() == int32(i+2) })
	}
	// The budget is spent; a quarter interval after the last frame an
	// ordinary change would wait three quarters more.
	clock.advance(iv / 4)
	news <- struct{}{}
	waitFor(t, "the news frame", func() bool { return pr.idles.Load() == pumpBurst+2 })
	if pr.sends.Load() != pumpBurst+1 || pr.timers.Load() != 0 {
		t.Fatalf("a new state a quarter interval after the last frame: %d frames, %d timers; want %d frames at once", pr.sends.Load(), pr.timers.Load(), pumpBurst+1)
	}
	// Right after that frame, a new state waits for the quarter only.
	news <- struct{}{}
	waitFor(t, "the gap timer", func() bool { return pr.timers.Load() == 1 })
	if pr.sends.Load() != pumpBurst+1 {
		t.Fatal("a new state was drawn within a quarter interval of the last frame")
	}
	pr.mu.Lock()
	if pr.waits[0] != iv/4 {
		t.Errorf("a new state right after a frame waited %v, want %v", pr.waits[0], iv/4)
	}
	pr.mu.Unlock()
	// More states during the gap share its frame. Each may set the
	// (unmoved) clock's timer again; the pump heeds the latest.
	for range 5 {
		news <- struct{}{}
	}
	fired := 0
	waitFor(t, "the frame after the gap", func() bool {
		pr.mu.Lock()
		for ; fired < len(pr.fire); fired++ {
			pr.fire[fired] <- time.Time{}
		}
		pr.mu.Unlock()
		return pr.idles.Load() == pumpBurst+3
	})
	if pr.sends.Load() != pumpBurst+2 {
		t.Fatalf("six new states within one gap gave %d frames, want 1", pr.sends.Load()-pumpBurst-1)
	}
	// Both news frames were charged: an ordinary change waits two
	// intervals, one of them the debt.
	pr.mu.Lock()
	before := len(pr.waits)
	pr.mu.Unlock()
	changed <- struct{}{}
	waitFor(t, "the budget timer", func() bool { return int(pr.timers.Load()) == before+1 })
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if w := pr.waits[before]; w != 2*iv {
		t.Errorf("an ordinary change after two news frames waited %v, want %v", w, 2*iv)
	}
}
