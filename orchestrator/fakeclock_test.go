package orchestrator

import (
	"sort"
	"sync"
	"testing"
	"time"
)

// fakeClock is a Clock that moves only when a test advances it; timers due
// by then fire in the order of their deadlines.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	timers []*fakeTimer
}

type fakeTimer struct {
	c     *fakeClock
	at    time.Time
	f     func()
	ch    chan time.Time
	armed bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) AfterFunc(d time.Duration, f func()) Timer {
	return c.add(&fakeTimer{c: c, f: f}, d)
}

func (c *fakeClock) NewTimer(d time.Duration) Timer {
	return c.add(&fakeTimer{c: c, ch: make(chan time.Time, 1)}, d)
}

func (c *fakeClock) add(t *fakeTimer, d time.Duration) *fakeTimer {
	c.mu.Lock()
	defer c.mu.Unlock()
	t.at, t.armed = c.now.Add(d), true
	c.timers = append(c.timers, t)
	return t
}

func (t *fakeTimer) C() <-chan time.Time { return t.ch }

func (t *fakeTimer) Stop() bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.armed = false
	return was
}

func (t *fakeTimer) Reset(d time.Duration) bool {
	t.c.mu.Lock()
	defer t.c.mu.Unlock()
	was := t.armed
	t.at, t.armed = t.c.now.Add(d), true
	if !was {
		t.c.timers = append(t.c.timers, t)
	}
	return was
}

// Advance moves the clock by d, firing every timer due by then.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	end := c.now.Add(d)
	c.mu.Unlock()
	for {
		c.mu.Lock()
		var due *fakeTimer
		kept := c.timers[:0]
		for _, t := range c.timers {
			if !t.armed {
				continue
			}
			kept = append(kept, t)
			if !t.at.After(end) && (due == nil || t.at.Before(due.at)) {
				due = t
			}
		}
		c.timers = kept
		if due == nil {
			c.now = end
			c.mu.Unlock()
			return
		}
		due.armed = false
		if due.at.After(c.now) {
			c.now = due.at
		}
		at := c.now
		c.mu.Unlock()
		if due.f != nil {
			go due.f()
		} else {
			select {
			case due.ch <- at:
			default:
			}
		}
	}
}

// deadlines returns the deadlines of the armed timers, earliest first.
func (c *fakeClock) deadlines() []time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []time.Time
	for _, t := range c.timers {
		if t.armed {
			out = append(out, t.at)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Before(out[j]) })
	return out
}

// waitTimerAt waits until a timer is armed for at (the engine arms it on
// its own goroutine).
func (c *fakeClock) waitTimerAt(t *testing.T, at time.Time, what string) {
	t.Helper()
	pollUntil(t, 15*time.Second, what, func() bool {
		for _, d := range c.deadlines() {
			if d.Equal(at) {
				return true
			}
		}
		return false
	})
}

func TestFakeClockFiresTimersInOrder(t *testing.T) {
	c := newFakeClock()
	t0 := c.Now()
	var mu sync.Mutex
	var fired []string
	done := make(chan struct{}, 3)
	rec := func(s string) func() {
		return func() { mu.Lock(); fired = append(fired, s); mu.Unlock(); done <- struct{}{} }
	}
	c.AfterFunc(2*time.Second, rec("b"))
	stopped := c.AfterFunc(time.Second, rec("stopped"))
	tm := c.NewTimer(3 * time.Second)
	if !stopped.Stop() {
		t.Fatal("Stop of an armed timer must report true")
	}
	c.Advance(1500 * time.Millisecond)
	select {
	case <-done:
		t.Fatal("a stopped timer fired, or one fired early")
	case <-tm.C():
		t.Fatal("the channel timer fired early")
	default:
	}
	c.Advance(2 * time.Second)
	<-done
	select {
	case at := <-tm.C():
		if want := t0.Add(3 * time.Second); !at.Equal(want) {
			t.Fatalf("timer fired at %v, want %v", at, want)
		}
	default:
		t.Fatal("the channel timer did not fire")
	}
	if got := c.Now(); !got.Equal(t0.Add(3500 * time.Millisecond)) {
		t.Fatalf("now = %v", got)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(fired) != 1 || fired[0] != "b" {
		t.Fatalf("fired %v, want [b]", fired)
	}
}
