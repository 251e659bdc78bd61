package demo

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// fakeSession plays a session whose grid holds `capacity` agents: each List
// advances every visible agent one step (running -> done, or waiting for the
// asking one), and finished agents make room for queued ones.
type fakeSession struct {
	mu       sync.Mutex
	capacity int
	agents   []*Agent
	argv     map[string][]string
	status   []string
	answered bool
}

func (f *fakeSession) Spawn(title string, argv []string) (Agent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	a := &Agent{ID: fmt.Sprintf("a%d", len(f.agents)+1), Title: title, State: "running"}
	f.agents = append(f.agents, a)
	f.argv[a.ID] = argv
	f.place()
	return *a, nil
}

// place gives free pane numbers to queued agents, in order.
func (f *fakeSession) place() {
	used := map[int]bool{}
	visible := 0
	for _, a := range f.agents {
		if a.Visible {
			used[a.Number] = true
			visible++
		}
	}
	pos := 0
	for _, a := range f.agents {
		if a.Visible || a.Finished() {
			continue
		}
		if visible < f.capacity {
			n := 1
			for used[n] {
				n++
			}
			used[n] = true
			a.Visible, a.Number, a.QueuePos = true, n, 0
			visible++
			continue
		}
		pos++
		a.QueuePos = pos
	}
}

func (f *fakeSession) List() ([]Agent, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, a := range f.agents {
		if !a.Visible {
			continue
		}
		switch {
		case a.Title == "db: migrate users table" && !f.answered:
			a.State = "waiting"
		case a.State == "running" || a.State == "waiting":
			a.State = "done"
			if strings.HasPrefix(a.Title, "deps") {
				a.State = "failed"
				one := 1
				a.ExitCode = &one
			}
		case a.Finished():
			a.Visible, a.Number = false, 0
		}
	}
	f.place()
	out := make([]Agent, len(f.agents))
	for i, a := range f.agents {
		out[i] = *a
	}
	return out, nil
}

func (f *fakeSession) Capture(id string) (string, error) {
	return "some output\n✓ Done · summary of " + id + "\n\n", nil
}

func (f *fakeSession) SetStatus(key, text string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.status = append(f.status, key+"="+text)
	return nil
}

func (f *fakeSession) answer() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.answered = true
}

func TestDirectorRunsTheWholeDemo(t *testing.T) {
	fs := &fakeSession{capacity: 3, argv: map[string][]string{}}
	var out syncBuffer
	kbd, typeKeys := io.Pipe()
	defer typeKeys.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- RunDirector(ctx, fs, DirectorOptions{Seed: 4, Agents: 12, Exe: "/bin/agentgrid", Out: &out, In: kbd, Width: 120, Sleep: noSleep})
	}()

	waitUntil(t, func() bool { return strings.Contains(out.String(), "is asking you something") })
	text := ansi.Strip(out.String())
	if !strings.Contains(text, "press ctrl+b 2 to focus it") {
		t.Errorf("the question hint does not name the asking agent's pane:\n%s", text)
	}
	fs.answer()
	waitUntil(t, func() bool { return strings.Contains(out.String(), "demo>") })
	if _, err := io.WriteString(typeKeys, "list\n"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, func() bool { return strings.Count(out.String(), "demo>") >= 2 })
	cancel()
	if err := <-done; err != nil {
		t.Fatalf("RunDirector: %v", err)
	}

	text = ansi.Strip(out.String())
	for _, want := range []string{
		"agentgrid demo", "orchestrator", "Starting 12 agents", "queued #1",
		"left the queue", "deps: upgrade rpc to v2 failed (exit 1)", "Results",
		"✓ Done · summary of a1", "11 of 12 agents succeeded.", "demo finished — press ctrl+b q to quit",
		"api: add pagination #2", // the cast repeats past ten agents
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the demo's main view lacks %q:\n%s", want, text)
		}
	}
	if !slices.Contains(fs.status, "demo=spawned 12/12") || !slices.Contains(fs.status, "demo=demo finished · 11/12 ok") {
		t.Errorf("status entries %q lack the spawn count or the final result", fs.status)
	}
	if got := strings.Join(fs.argv["a2"], " "); got != "/bin/agentgrid __sim-agent --script migrate --seed 5 --speed 1" {
		t.Errorf("a2 runs %q", got)
	}
	// Narration stays within the main view's width.
	for _, l := range strings.Split(text, "\n") {
		if w := ansi.StringWidth(l); w > 76 {
			t.Errorf("line wider than 76 cells (%d): %q", w, l)
		}
	}
}

func TestDirectorWithoutAgentsFails(t *testing.T) {
	var out syncBuffer
	err := RunDirector(context.Background(), failingSession{}, DirectorOptions{Agents: 2, Out: &out, In: strings.NewReader(""), Sleep: noSleep})
	if err == nil || !strings.Contains(ansi.Strip(out.String()), "spawn api: add pagination: queue is full") {
		t.Errorf("err %v, output:\n%s", err, ansi.Strip(out.String()))
	}
}

type failingSession struct{}

func (failingSession) Spawn(string, []string) (Agent, error) {
	return Agent{}, fmt.Errorf("queue is full")
}
func (failingSession) List() ([]Agent, error)         { return nil, nil }
func (failingSession) Capture(string) (string, error) { return "", nil }
func (failingSession) SetStatus(string, string) error { return nil }

func TestDirectorSaysWhenNothingFits(t *testing.T) {
	fs := &fakeSession{capacity: 0, argv: map[string][]string{}}
	var out syncBuffer
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- RunDirector(ctx, fs, DirectorOptions{Agents: 3, Out: &out, In: strings.NewReader(""), Sleep: noSleep})
	}()
	waitUntil(t, func() bool { return strings.Contains(out.String(), "No agent fits beside this view") })
	cancel()
	if err := <-done; err == nil {
		t.Error("RunDirector returned nil after its context ended mid-demo, want the context's error")
	}
	if n := strings.Count(out.String(), "No agent fits"); n != 1 {
		t.Errorf("the hint was printed %d times, want once", n)
	}
}
