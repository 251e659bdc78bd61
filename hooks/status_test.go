package hooks

import (
	"strings"
	"sync"
	"testing"
	"time"
)

type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *fakeClock { return &fakeClock{t: time.Date(2026, 11, 30, 13, 0, 0, 0, time.UTC)} }

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func keys(es []StatusEntry) string {
	var ks []string
	for _, e := range es {
		ks = append(ks, e.Key)
	}
	return strings.Join(ks, ",")
}

func TestStatusSetClearAndOrder(t *testing.T) {
	clk := newClock()
	s := NewStatusStore(clk.Now)
	if !s.Set("zeta", "z", "", "socket", 0) || !s.Set("alpha", "a", "a1", "hook:claude", 0) || !s.Set("mid", "m", "a2", "socket", 0) {
		t.Fatal("first Set should report a change")
	}
	if got := keys(s.Entries()); got != "alpha,mid,zeta" {
		t.Errorf("order = %s", got)
	}
	if got := keys(s.ForAgent("a1")); got != "alpha" {
		t.Errorf("ForAgent(a1) = %s", got)
	}
	if s.Set("zeta", "z", "", "socket", 0) {
		t.Error("same text again reported a change")
	}
	if !s.Set("zeta", "z2", "", "socket", 0) {
		t.Error("new text not reported")
	}
	if !s.Set("zeta", "", "", "socket", 0) {
		t.Error("empty text should clear and report it")
	}
	if s.Clear("zeta") {
		t.Error("clearing a missing key reported a change")
	}
	if got := keys(s.Entries()); got != "alpha,mid" {
		t.Errorf("after clear = %s", got)
	}
	if n := s.ClearAgent("a2"); n != 1 || keys(s.Entries()) != "alpha" {
		t.Errorf("ClearAgent removed %d, left %s", n, keys(s.Entries()))
	}
	if s.Set("  ", "x", "", "", 0) {
		t.Error("a blank key was stored")
	}
}

func TestStatusTTLAndStale(t *testing.T) {
	clk := newClock()
	s := NewStatusStore(clk.Now)
	s.SetStaleAfter(time.Minute)
	var events []StatusEntry
	s.SetOnChange(func(e StatusEntry) { events = append(events, e) })

	s.Set("build", "running", "", "socket", 10*time.Second)
	s.Set("note", "hello", "", "socket", 0)
	if d, ok := s.NextDeadline(); !ok || !d.Equal(clk.Now().Add(10*time.Second)) {
		t.Errorf("NextDeadline = %v %v", d, ok)
	}
	clk.Advance(9 * time.Second)
	if got := keys(s.Entries()); got != "build,note" {
		t.Errorf("before TTL: %s", got)
	}
	clk.Advance(time.Second)
	if got := keys(s.Entries()); got != "note" {
		t.Errorf("after TTL: %s", got)
	}
	if last := events[len(events)-1]; last.Key != "build" || !last.Cleared {
		t.Errorf("expiry not reported: %+v", last)
	}
	clk.Advance(time.Minute)
	es := s.Entries()
	if len(es) != 1 || !es[0].Stale {
		t.Fatalf("note should be stale: %+v", es)
	}
	if !s.Set("note", "hello", "", "socket", 0) {
		t.Error("refreshing a stale entry should report a change")
	}
	if es := s.Entries(); es[0].Stale {
		t.Error("refreshed entry still stale")
	}
	// Setting the same text again restarts the TTL.
	s.Set("t", "x", "", "", 10*time.Second)
	clk.Advance(8 * time.Second)
	s.Set("t", "x", "", "", 10*time.Second)
	clk.Advance(8 * time.Second)
	if !strings.Contains(keys(s.Entries()), "t") {
		t.Error("confirmation did not restart the TTL")
	}
}

func TestStatusChangedChannelCoalesces(t *testing.T) {
	s := NewStatusStore(nil)
	for i := range 100 {
		s.Set("k", strings.Repeat("x", i+1), "", "", 0)
	}
	select {
	case <-s.Changed():
	default:
		t.Fatal("no change signalled")
	}
	select {
	case <-s.Changed():
		t.Fatal("100 changes gave more than one pending signal")
	default:
	}
}

func TestStatusStoreConcurrentUse(t *testing.T) {
	s := NewStatusStore(nil)
	s.SetStaleAfter(time.Millisecond)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				key := string(rune('a' + (g+i)%5))
				s.Set(key, "v", "a1", "t", time.Millisecond)
				s.Entries()
				s.ForAgent("a1")
				s.NextDeadline()
				if i%7 == 0 {
					s.Clear(key)
				}
			}
		}()
	}
	wg.Wait()
}
