package hooks

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"
)

func recvN(t *testing.T, ch <-chan Event, n int) []Event {
	t.Helper()
	var got []Event
	deadline := time.After(5 * time.Second)
	for len(got) < n {
		select {
		case ev, ok := <-ch:
			if !ok {
				t.Fatalf("channel closed after %d of %d events", len(got), n)
			}
			got = append(got, ev)
		case <-deadline:
			t.Fatalf("got %d of %d events before the deadline", len(got), n)
		}
	}
	return got
}

func TestBusDeliversInOrderToEverySubscriber(t *testing.T) {
	b := NewBus()
	a, cancelA := b.Subscribe(0)
	defer cancelA()
	c, cancelC := b.Subscribe(4)
	defer cancelC()
	for i := range 100 {
		b.Publish(Event{Type: EventAgentState, Session: fmt.Sprint(i)})
	}
	for _, ch := range []<-chan Event{a, c} {
		for i, ev := range recvN(t, ch, 100) {
			if ev.Session != fmt.Sprint(i) {
				t.Fatalf("event %d out of order: %q", i, ev.Session)
			}
		}
	}
}

// A subscriber that never reads must not block Publish or other subscribers.
func TestBusPublishNeverBlocks(t *testing.T) {
	b := NewBus()
	_, cancelStuck := b.Subscribe(0) // never read
	defer cancelStuck()
	live, cancelLive := b.Subscribe(0)
	defer cancelLive()
	done := make(chan struct{})
	go func() {
		for range 5000 {
			b.Publish(Event{Type: EventBell})
		}
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Publish blocked on a stuck subscriber")
	}
	recvN(t, live, 5000)
	if b.Dropped() != 0 {
		t.Errorf("dropped %d events below the cap", b.Dropped())
	}
}

func TestBusDropsOldestPastTheCap(t *testing.T) {
	b := NewBus()
	b.SetQueueCap(10)
	b.SetLogger(quiet)
	ch, cancel := b.Subscribe(0)
	defer cancel()
	// The pump may take the first event into flight; publish enough that
	// the cap is certainly exceeded.
	for i := range 50 {
		b.Publish(Event{Type: EventBell, Session: fmt.Sprint(i)})
	}
	if b.Dropped() == 0 {
		t.Fatal("nothing dropped past the cap")
	}
	b.Close()
	var got []Event
	for ev := range ch {
		got = append(got, ev)
	}
	if len(got) == 0 || got[len(got)-1].Session != "49" {
		t.Fatalf("the newest event was not kept: %v", got)
	}
	if uint64(len(got))+b.Dropped() != 50 {
		t.Errorf("delivered %d + dropped %d != published 50", len(got), b.Dropped())
	}
}

func TestBusCloseDeliversBacklogThenCloses(t *testing.T) {
	b := NewBus()
	ch, cancel := b.Subscribe(0)
	defer cancel()
	for range 20 {
		b.Publish(Event{Type: EventAgentExited})
	}
	b.Close()
	b.Publish(Event{Type: EventBell}) // ignored after Close
	n := 0
	for ev := range ch {
		if ev.Type != EventAgentExited {
			t.Fatalf("got %q after Close", ev.Type)
		}
		n++
	}
	if n != 20 {
		t.Errorf("got %d events, want 20", n)
	}
	late, _ := b.Subscribe(1)
	if _, ok := <-late; ok {
		t.Error("subscribing to a closed bus gave an open channel")
	}
}

func TestBusCancelClosesChannel(t *testing.T) {
	b := NewBus()
	ch, cancel := b.Subscribe(0)
	b.Publish(Event{Type: EventBell})
	cancel()
	cancel() // idempotent
	deadline := time.After(5 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("channel not closed after cancel")
		}
	}
}

func TestEventJSONShape(t *testing.T) {
	at := time.Date(2026, 11, 30, 13, 4, 5, 0, time.UTC)
	code := 1
	ev := Event{
		Type: EventAgentExited, Time: at, Session: "s1",
		Agent:  &AgentRef{ID: "a3", Title: "tests", Kind: "claude", State: "failed", PrevState: "running", Why: "exit status 1", Source: "process", ExitCode: &code, Created: at, Started: &at, Ended: &at},
		Status: &StatusEntry{Key: "build", Text: "✓ green", Source: "socket", Updated: at, TTL: 10 * time.Second},
	}
	b, err := json.Marshal(ev)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"type":"agent_exited","time":"2026-11-30T13:04:05Z","session":"s1",` +
		`"agent":{"id":"a3","title":"tests","kind":"claude","state":"failed","prev_state":"running","why":"exit status 1","source":"process","exit_code":1,` +
		`"created":"2026-11-30T13:04:05Z","started":"2026-11-30T13:04:05Z","ended":"2026-11-30T13:04:05Z"},` +
		`"status":{"key":"build","text":"✓ green","source":"socket","updated":"2026-11-30T13:04:05Z","ttl":"10s","stale":false}}`
	if string(b) != want {
		t.Errorf("JSON:\n got %s\nwant %s", b, want)
	}
	var back Event
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if back.Status.TTL != 10*time.Second || back.Agent.ExitCode == nil || *back.Agent.ExitCode != 1 {
		t.Errorf("round trip lost data: %+v %+v", back.Status, back.Agent)
	}
	// session events carry no agent.
	b, _ = json.Marshal(Event{Type: EventSessionStart, Time: at, Session: "s1"})
	if strings.Contains(string(b), "agent") || strings.Contains(string(b), "status") {
		t.Errorf("session_start JSON has agent/status: %s", b)
	}
}
