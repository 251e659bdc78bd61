package orchestrator

import (
	"fmt"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes/panestest"
)

// The time rules on a fake clock: idle_after, stale_after and the linger.
// Every step moves the clock; nothing sleeps. Each step waits for the
// engine to have armed the timer it expects, so a check that nothing
// changed is made after the engine acted, not before.
const (
	ruleIdle   = 5 * time.Second
	ruleStale  = time.Minute
	ruleLinger = 30 * time.Second
)

type ruleRig struct {
	t     *testing.T
	e     *Engine
	clock *fakeClock
	sp    *panestest.Spawner
	t0    time.Time
}

func (r *ruleRig) proc(i int) *panestest.Proc {
	r.t.Helper()
	pollUntil(r.t, 15*time.Second, "the fake process", func() bool { return len(r.sp.Procs()) > i })
	return r.sp.Procs()[i]
}

func (r *ruleRig) state(id string, want agentstate.State, what string) control.AgentInfo {
	r.t.Helper()
	return waitAgent(r.t, r.e, id, what, func(a control.AgentInfo) bool { return a.State == want })
}

// output makes agent id's (i-th) process print s and waits until its pane
// recorded it.
func (r *ruleRig) output(i int, id, s string) {
	r.t.Helper()
	now := r.clock.Now()
	r.proc(i).Output(s)
	pollUntil(r.t, 15*time.Second, "the pane to read the output", func() bool {
		ex, err := r.e.Explain(id)
		if err != nil {
			r.t.Fatal(err)
		}
		for _, ev := range ex.Evidence {
			if ev.Source == sourceActivity && ev.Time.Equal(now) {
				return true
			}
		}
		return false
	})
}

// timerAt waits until the engine armed a timer for t0+d.
func (r *ruleRig) timerAt(d time.Duration, what string) {
	r.t.Helper()
	r.clock.waitTimerAt(r.t, r.t0.Add(d), what)
}

func TestTimeRulesOnAFakeClock(t *testing.T) {
	cases := []struct {
		name string
		run  func(r *ruleRig)
	}{
		{"quiet for idle_after makes a running agent idle", func(r *ruleRig) {
			a := spawn(r.t, r.e, "x")
			r.state(a.ID, agentstate.Running, "running")
			r.timerAt(ruleIdle, "the idle check")
			r.clock.Advance(ruleIdle - time.Millisecond)
			if in, _ := r.e.Agent(a.ID); in.State != agentstate.Running {
				r.t.Fatalf("idle before idle_after: %+v", in)
			}
			r.clock.Advance(time.Millisecond)
			in := r.state(a.ID, agentstate.Idle, "idle")
			if in.Source != sourceActivity || !in.Since.Equal(r.t0.Add(ruleIdle)) {
				r.t.Fatalf("idle = %+v", in)
			}
		}},
		{"output restarts the idle countdown", func(r *ruleRig) {
			a := spawn(r.t, r.e, "x")
			r.state(a.ID, agentstate.Running, "running")
			r.timerAt(ruleIdle, "the idle check")
			r.clock.Advance(4 * time.Second)
			r.output(0, a.ID, "work\r\n")
			r.clock.Advance(time.Second) // the check at 5s finds output 1s ago
			r.timerAt(4*time.Second+ruleIdle, "the re-armed idle check")
			if in, _ := r.e.Agent(a.ID); in.State != agentstate.Running {
				r.t.Fatalf("idle although it printed: %+v", in)
			}
			r.clock.Advance(4 * time.Second)
			r.state(a.ID, agentstate.Idle, "idle 5s after the output")
		}},
		{"a hook's waiting stands against output until stale_after", func(r *ruleRig) {
			a := spawn(r.t, r.e, "x")
			r.state(a.ID, agentstate.Running, "running")
			if err := r.e.Signal(a.ID, agentstate.Signal{State: "waiting", Why: "permission"}, "claude"); err != nil {
				r.t.Fatal(err)
			}
			r.state(a.ID, agentstate.Waiting, "waiting")
			r.clock.Advance(10 * time.Second)
			r.output(0, a.ID, "spinner")
			// The output does not count; the engine looks again when the
			// hook's word goes stale.
			r.timerAt(ruleStale, "the staleness check")
			if in, _ := r.e.Agent(a.ID); in.State != agentstate.Waiting || in.Source != "hook:claude" {
				r.t.Fatalf("output overrode a fresh hook: %+v", in)
			}
			r.clock.Advance(ruleStale - 10*time.Second)
			// The output that came while the hook was fresh counts now.
			in := r.state(a.ID, agentstate.Running, "running once the hook is stale")
			if in.Source != sourceActivity {
				r.t.Fatalf("running = %+v", in)
			}
		}},
		{"a bell's waiting goes stale the same way", func(r *ruleRig) {
			a := spawn(r.t, r.e, "x")
			r.state(a.ID, agentstate.Running, "running")
			r.proc(0).Output("continue?\a")
			in := r.state(a.ID, agentstate.Waiting, "waiting on the bell")
			if in.Source != sourceTerminal {
				r.t.Fatalf("bell = %+v", in)
			}
			// No output after the bell: it stays waiting however long.
			r.clock.Advance(10 * ruleStale)
			if in, _ := r.e.Agent(a.ID); in.State != agentstate.Waiting {
				r.t.Fatalf("a quiet waiting agent changed: %+v", in)
			}
			r.proc(0).Output("working")
			r.state(a.ID, agentstate.Running, "running on output after stale_after")
		}},
		{"a flood of titles is paced on the engine's clock", func(r *ruleRig) {
			a := spawn(r.t, r.e, "x")
			r.proc(0).Output("\x1b]2;one\x07")
			waitAgent(r.t, r.e, a.ID, "the first title", func(in control.AgentInfo) bool { return in.Title == "one" })
			r.proc(0).Output("\x1b]2;two\x07")
			// Too soon after the first: it waits for titleInterval.
			r.timerAt(titleInterval, "the title's throttle")
			if in, _ := r.e.Agent(a.ID); in.Title != "one" {
				r.t.Fatalf("the second title came before its interval: %q", in.Title)
			}
			r.clock.Advance(titleInterval)
			waitAgent(r.t, r.e, a.ID, "the second title", func(in control.AgentInfo) bool { return in.Title == "two" })
		}},
		{"a flood of notifications is paced ever slower, showing the newest and how many came", func(r *ruleRig) {
			a := spawn(r.t, r.e, "x")
			why := func(want, what string) {
				r.t.Helper()
				waitAgent(r.t, r.e, a.ID, what, func(in control.AgentInfo) bool { return in.Why == want })
			}
			r.proc(0).Output("\x1b]9;n0\x07")
			why("notification: n0", "the first notification, at once")
			r.proc(0).Output("\x1b]9;n1\x07\x1b]9;n2\x07")
			// Each one that waited for its turn doubles the next wait, up to
			// maxNoticeInterval: 0.5 s, 1 s, 2 s, 4 s, 8 s, 8 s.
			at, every := time.Duration(0), noticeInterval
			at += every
			r.timerAt(at, "the second notification's turn")
			r.clock.Advance(every)
			last := "2 notifications: n2"
			why(last, "the newest of the two held back, with their count")
			for i := 3; i <= 7; i++ {
				every = min(2*every, maxNoticeInterval)
				r.proc(0).Output(fmt.Sprintf("\x1b]9;n%d\x07", i))
				at += every
				r.timerAt(at, fmt.Sprintf("notification %d's turn, %v after the last", i, every))
				r.clock.Advance(every - time.Millisecond)
				if in, _ := r.e.Agent(a.ID); in.Why != last {
					r.t.Fatalf("notification %d came before its turn: %q", i, in.Why)
				}
				r.clock.Advance(time.Millisecond)
				last = fmt.Sprintf("notification: n%d", i)
				why(last, fmt.Sprintf("notification %d", i))
			}
			if every != maxNoticeInterval {
				r.t.Fatalf("the interval reached %v, want the cap %v", every, maxNoticeInterval)
			}
			// After a quiet while the next one is shown at once again.
			r.clock.Advance(2 * maxNoticeInterval)
			r.proc(0).Output("\x1b]9;later\x07")
			why("notification: later", "a notification after a quiet while, at once")
		}},
		{"a flood of bells is paced ever slower too", func(r *ruleRig) {
			a := spawn(r.t, r.e, "x")
			bells, stop := r.e.Bus().Subscribe(16)
			defer stop()
			// rang waits for the engine's next bell event and checks it came
			// at t0+d.
			rang := func(d time.Duration) {
				r.t.Helper()
				for {
					select {
					case ev := <-bells:
						if ev.Type != hooks.EventBell || ev.Agent == nil || ev.Agent.ID != a.ID {
							continue
						}
						if !ev.Time.Equal(r.t0.Add(d)) {
							r.t.Fatalf("a bell handled at %v, want %v", ev.Time.Sub(r.t0), d)
						}
						return
					case <-time.After(15 * time.Second):
						r.t.Fatalf("no bell handled at %v", d)
					}
				}
			}
			r.state(a.ID, agentstate.Running, "running")
			r.proc(0).Output("\x07")
			rang(0)
			at, every := time.Duration(0), noticeInterval
			for i := range 3 {
				r.proc(0).Output("\x07")
				at += every
				r.timerAt(at, fmt.Sprintf("bell %d's turn", i+2))
				r.clock.Advance(every)
				rang(at)
				every *= 2
			}
		}},
		{"a finished pane lingers for finished_linger while another waits", func(r *ruleRig) {
			r.e.Resize(24, 5) // capacity 1
			a, b := spawn(r.t, r.e, "x"), spawn(r.t, r.e, "y")
			r.proc(0).Exit(0)
			r.state(a.ID, agentstate.Done, "done")
			r.timerAt(ruleLinger, "the linger")
			r.clock.Advance(ruleLinger - time.Millisecond)
			if in, _ := r.e.Agent(b.ID); in.Visible {
				r.t.Fatalf("reclaimed before the linger: %+v", in)
			}
			r.clock.Advance(time.Millisecond)
			waitAgent(r.t, r.e, b.ID, "placed", func(in control.AgentInfo) bool { return in.Visible })
			if in, _ := r.e.Agent(a.ID); in.Visible {
				r.t.Fatalf("the finished pane is still shown: %+v", in)
			}
		}},
		{"a finished pane nobody needs stays", func(r *ruleRig) {
			r.e.Resize(24, 5)
			a := spawn(r.t, r.e, "x")
			r.proc(0).Exit(0)
			r.state(a.ID, agentstate.Done, "done")
			r.clock.Advance(100 * ruleLinger)
			if in, _ := r.e.Agent(a.ID); !in.Visible {
				r.t.Fatalf("a finished pane left with nobody waiting: %+v", in)
			}
			if d := r.clock.deadlines(); len(d) != 0 {
				r.t.Fatalf("timers armed with nothing to wait for: %v", d)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			clock := newFakeClock()
			sp := &panestest.Spawner{}
			e := newClockedEngine(t, sp, clock, nil, func(c *config.Config) {
				c.Agents.IdleAfter = config.Duration{Duration: ruleIdle}
				c.Status.StaleAfter = config.Duration{Duration: ruleStale}
				c.Agents.FinishedLinger = config.Duration{Duration: ruleLinger}
				c.Layout.MinAgentWidth = 20
			})
			e.Resize(48, 10)
			tc.run(&ruleRig{t: t, e: e, clock: clock, sp: sp, t0: clock.Now()})
		})
	}
}
