package agentstate

import (
	"encoding/json"
	"testing"
)

func TestFinishedAliveResting(t *testing.T) {
	for _, s := range All() {
		fin := s == Done || s == Failed || s == Killed
		alive := s == Running || s == Waiting || s == Idle
		if s.Finished() != fin || s.Alive() != alive || s.Reported() != alive {
			t.Errorf("%s: finished %v alive %v reported %v", s, s.Finished(), s.Alive(), s.Reported())
		}
		if s.Finished() && s.Alive() {
			t.Errorf("%s is both finished and alive", s)
		}
		if s.Resting() != (s == Idle || s == Waiting) {
			t.Errorf("%s: resting %v", s, s.Resting())
		}
	}
	if Queued.Finished() || Queued.Alive() || State("").Reported() {
		t.Error("queued or the empty state counts as a lifecycle state")
	}
	if b := Badges(); len(b) != len(All())+1 || b[len(b)-1] != Queued {
		t.Errorf("Badges = %v", b)
	}
}

// Every state lands in exactly one tally, killed ones with the failed and
// pending or starting ones with the queued.
func TestCountsAdd(t *testing.T) {
	var c Counts
	for _, s := range All() {
		c.Add(s, false)
	}
	c.Add(Pending, true)
	want := Counts{Running: 1, Waiting: 1, Idle: 1, Done: 1, Failed: 2, Queued: 3}
	if c != want {
		t.Errorf("counts = %+v, want %+v", c, want)
	}
}

func TestSignalJSONAndEmpty(t *testing.T) {
	if !(Signal{Event: "Unknown", SessionID: "x"}).Empty() {
		t.Error("a signal with only an event and a session is not empty")
	}
	for _, s := range []Signal{{State: Idle}, {Status: "s"}, {Why: "w"}, {SubagentDelta: -1}, {SessionEnd: true}} {
		if s.Empty() {
			t.Errorf("%+v is empty", s)
		}
	}
	b, err := json.Marshal(Signal{Event: "Stop", State: Idle, SubagentDelta: 1})
	if err != nil || string(b) != `{"event":"Stop","state":"idle","subagent_delta":1}` {
		t.Errorf("json = %s %v", b, err)
	}
}
