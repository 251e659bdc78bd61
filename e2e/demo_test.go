package e2e

import (
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// demoTitles are the pane titles of the demo's first agents.
var demoTitles = []string{"api: add pagination", "db: migrate users table", "docs: document the CLI", "auth: refresh tokens", "deps: upgrade rpc to v2"}

func TestDemoShowsGridQueueAndAnswersQuestion(t *testing.T) {
	t.Parallel()
	// A short linger keeps the queue moving so the test stays quick.
	h := newHarness(t, 120, 40, "[agents]\nfinished_linger = \"2s\"\n")
	var (
		mu      sync.Mutex
		samples []int // queued counts seen on the status line, in order
	)
	h.onCapture = func(s string) {
		if !strings.Contains(statusLine(s), " running") {
			return // not agentgrid's screen (yet, or any more)
		}
		mu.Lock()
		defer mu.Unlock()
		if n := queuedCount(s); len(samples) == 0 || samples[len(samples)-1] != n {
			samples = append(samples, n)
		}
	}
	h.startDemo("--seed", "1", "--agents", "10", "--speed", "3")

	h.waitFor(20*time.Second, func() bool {
		s := h.capture()
		return strings.Contains(s, "agentgrid demo") && strings.Contains(s, "orchestrator")
	}, "the demo's narration in the main view")

	h.waitFor(30*time.Second, func() bool {
		s := h.capture()
		titles := 0
		for _, title := range demoTitles {
			if strings.Contains(s, title) {
				titles++
			}
		}
		st := statusLine(s)
		return titles >= 3 && strings.Contains(s, "running") && strings.Contains(st, "running") && queuedCount(s) >= 2
	}, "three agent panes with titles and states, and the status line counting running and queued agents")

	// The asking agent: focus its pane by number and answer y.
	var asking agent
	h.waitFor(40*time.Second, func() bool {
		as, err := h.list()
		if err != nil {
			return false
		}
		for _, a := range as {
			if a.Title == "db: migrate users table" {
				asking = a
				s := h.capture()
				return a.Number > 0 && a.State == "waiting" && strings.Contains(s, "Apply this change to 3 files? [y/N]") &&
					strings.Contains(s, "waiting") && strings.Contains(statusLine(s), "waiting")
			}
		}
		return false
	}, "the asking agent's question on screen, its pane and the status line saying waiting")
	h.prefix(strconv.Itoa(asking.Number))
	// Like a user, look before typing: the status line ends with the
	// focused pane's title.
	h.waitFor(5*time.Second, func() bool {
		return strings.HasSuffix(strings.TrimSpace(statusLine(h.capture())), asking.Title)
	}, "the asking agent to be focused")
	h.typeText("y")
	h.keys("Enter")
	done := h.waitAgent(asking.ID, 30*time.Second, func(a agent) bool { return a.State == "done" || a.State == "failed" },
		"the asking agent to finish after the answer")
	if done.State != "done" {
		t.Errorf("the asking agent ended %s, want done", done.State)
	}
	if out := h.mustClient("capture", asking.ID); !strings.Contains(out, "Applied to 3 files") {
		t.Errorf("the asking agent did not take the yes branch:\n%s", out)
	}

	h.waitFor(120*time.Second, func() bool { return strings.Contains(h.capture(), "demo finished") },
		"the demo to finish")
	h.prefix("0")
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "9 of 10 agents succeeded") },
		"the demo's results (one agent fails on purpose)")

	mu.Lock()
	defer mu.Unlock()
	peak, peakAt := 0, 0
	for i, n := range samples {
		if n > peak {
			peak, peakAt = n, i
		}
	}
	drained := false
	for _, n := range samples[peakAt:] {
		if n < peak {
			drained = true
		}
	}
	if peak < 2 || !drained || samples[len(samples)-1] != 0 {
		t.Errorf("queued counts over time %v: want a peak of at least 2 that drains to 0", samples)
	}
}
