package hooks

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
)

// waitFor polls cond until it holds or the deadline passes.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

type recorder struct {
	mu       sync.Mutex
	statuses []string
	failures []HookFailure
}

func (r *recorder) setStatus(key, text, agent, source string, ttl time.Duration) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.statuses = append(r.statuses, strings.Join([]string{key, text, agent, source, ttl.String()}, "|"))
}

func (r *recorder) fail(f HookFailure) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failures = append(r.failures, f)
}

func (r *recorder) snapshot() ([]string, []HookFailure) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.statuses...), append([]HookFailure(nil), r.failures...)
}

// quiet keeps expected hook failures out of the test output.
var quiet = slog.New(slog.DiscardHandler)

func hook(timeout time.Duration, on []string, run ...string) config.Hook {
	return config.Hook{On: on, Run: run, Timeout: config.Duration{Duration: timeout}}
}

func TestRunnerPassesEventAndAppliesAnswers(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	script := `cat > "$1.json"; env | grep ^AGENTGRID_ | sort > "$1.env"
echo 'not json'
echo '{"set_status": {"key": "exit-'"$AGENTGRID_AGENT_ID"'", "text": "done\u001b[2J", "ttl": "10s"}}'
echo '{"other": 1}'`
	rec := &recorder{}
	r := NewRunner(RunnerOptions{
		Logger:    quiet,
		Hooks:     []config.Hook{hook(5*time.Second, []string{EventAgentExited}, "sh", "-c", script, "sh", out)},
		Session:   "s1",
		Socket:    "/tmp/s1.sock",
		Env:       []string{"PATH=" + os.Getenv("PATH")},
		SetStatus: rec.setStatus,
		OnFailure: rec.fail,
	})
	defer r.Close(context.Background())
	r.Handle(Event{Type: EventAgentState, Session: "s1", Agent: &AgentRef{ID: "a1"}}) // not subscribed
	r.Handle(Event{Type: EventAgentExited, Session: "s1", Agent: &AgentRef{ID: "a7", State: "done"}})
	waitFor(t, "the set_status answer", func() bool { s, _ := rec.snapshot(); return len(s) > 0 })
	statuses, failures := rec.snapshot()
	if len(failures) != 0 {
		t.Fatalf("failures: %+v", failures)
	}
	if len(statuses) != 1 || statuses[0] != "exit-a7|done\x1b[2J||hook:sh|10s" {
		t.Errorf("statuses = %q", statuses)
	}
	var ev Event
	b, err := os.ReadFile(out + ".json")
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &ev); err != nil || ev.Type != EventAgentExited || ev.Agent.ID != "a7" {
		t.Errorf("stdin event = %s (%v)", b, err)
	}
	env, _ := os.ReadFile(out + ".env")
	want := "AGENTGRID_AGENT_ID=a7\nAGENTGRID_EVENT=agent_exited\nAGENTGRID_SESSION=s1\nAGENTGRID_SOCKET=/tmp/s1.sock\n"
	if string(env) != want {
		t.Errorf("env =\n%s\nwant\n%s", env, want)
	}
}

// A hanging handler is killed with its whole process group at its timeout,
// and a second handler keeps receiving every event in order meanwhile.
func TestRunnerTimeoutKillsGroupAndOthersKeepGoing(t *testing.T) {
	dir := t.TempDir()
	pidFile := filepath.Join(dir, "pid")
	log := filepath.Join(dir, "log")
	rec := &recorder{}
	r := NewRunner(RunnerOptions{
		Logger: quiet,
		Hooks: []config.Hook{
			// The child sleep is in the handler's group; it must die too.
			hook(300*time.Millisecond, []string{"*"}, "sh", "-c", `sleep 60 & echo $! > "$1"; wait`, "sh", pidFile),
			hook(5*time.Second, nil, "sh", "-c", `read -r line; echo "$AGENTGRID_AGENT_ID" >> "$1"`, "sh", log),
		},
		OnFailure: rec.fail,
	})
	defer r.Close(context.Background())
	for _, id := range []string{"a1", "a2", "a3", "a4", "a5"} {
		r.Handle(Event{Type: EventAgentState, Agent: &AgentRef{ID: id}})
	}
	waitFor(t, "the fast handler to see all events", func() bool {
		b, _ := os.ReadFile(log)
		return strings.Count(string(b), "\n") == 5
	})
	b, _ := os.ReadFile(log)
	if string(b) != "a1\na2\na3\na4\na5\n" {
		t.Errorf("fast handler order = %q", b)
	}
	waitFor(t, "the first timeout", func() bool { _, f := rec.snapshot(); return len(f) >= 1 })
	_, failures := rec.snapshot()
	if !failures[0].TimedOut || !strings.Contains(failures[0].Message(), "timeout") {
		t.Errorf("failure = %+v (%s)", failures[0], failures[0].Message())
	}
	pidText, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	var pid int
	for _, c := range strings.TrimSpace(string(pidText)) {
		pid = pid*10 + int(c-'0')
	}
	waitFor(t, "the grandchild to be killed", func() bool {
		return syscall.Kill(pid, 0) == syscall.ESRCH
	})
}

func TestRunnerReportsFailures(t *testing.T) {
	rec := &recorder{}
	r := NewRunner(RunnerOptions{
		Logger: quiet,
		Hooks: []config.Hook{
			hook(time.Second, nil, "sh", "-c", "echo broken >&2; exit 3"),
			hook(time.Second, nil, "/nonexistent/agentgrid-hook"),
			{On: []string{"*"}}, // no run: skipped
		},
		OnFailure: rec.fail,
	})
	r.Handle(Event{Type: EventBell, Agent: &AgentRef{ID: "a1"}})
	waitFor(t, "two failures", func() bool { _, f := rec.snapshot(); return len(f) == 2 })
	r.Close(context.Background())
	_, failures := rec.snapshot()
	msgs := failures[0].Message() + "\n" + failures[1].Message()
	if !strings.Contains(msgs, "exit status 3: broken") || !strings.Contains(msgs, "/nonexistent/agentgrid-hook") {
		t.Errorf("messages:\n%s", msgs)
	}
	for _, f := range failures {
		if f.Agent != "a1" || f.Event != EventBell {
			t.Errorf("failure lacks context: %+v", f)
		}
	}
}

// Close runs what is queued (session_end) but gives up at its deadline.
func TestRunnerCloseDrainsThenKills(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	r := NewRunner(RunnerOptions{Logger: quiet, Hooks: []config.Hook{
		hook(time.Minute, nil, "sh", "-c", `echo "$AGENTGRID_EVENT" >> "$1"`, "sh", log),
	}})
	r.Handle(Event{Type: EventAgentClosed})
	r.Handle(Event{Type: EventSessionEnd})
	r.Close(context.Background())
	b, _ := os.ReadFile(log)
	if string(b) != "agent_closed\nsession_end\n" {
		t.Errorf("log = %q", b)
	}
	r.Handle(Event{Type: EventBell}) // after Close: ignored, no panic

	slow := NewRunner(RunnerOptions{Logger: quiet, Hooks: []config.Hook{hook(time.Minute, nil, "sleep", "60")}})
	slow.Handle(Event{Type: EventSessionEnd})
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	slow.Close(ctx)
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v with a hanging hook", d)
	}
}

func TestRunnerAttachToBus(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "log")
	bus := NewBus()
	r := NewRunner(RunnerOptions{Logger: quiet, Hooks: []config.Hook{
		hook(5*time.Second, []string{EventStatusChanged}, "sh", "-c", `echo "$AGENTGRID_EVENT" >> "$1"`, "sh", log),
	}})
	detach := r.Attach(bus)
	bus.Publish(Event{Type: EventBell})
	bus.Publish(Event{Type: EventStatusChanged})
	waitFor(t, "the handler", func() bool { b, _ := os.ReadFile(log); return string(b) == "status_changed\n" })
	detach()
	r.Close(context.Background())
}
