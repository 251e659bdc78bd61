package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/hooks"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/orchestrator"
	"github.com/agentgrid/agentgrid/panes"
	"github.com/spf13/cobra"
)

// cliBackend is a fake session behind a real control socket, for running
// the client commands in-process.
type cliBackend struct {
	mu      sync.Mutex
	agents  []control.AgentInfo
	changed chan struct{}
	status  *hooks.StatusStore
	spawned []control.SpawnRequest
	sent    map[string]string
	closed  []string
	// captureText, when set, is what Capture returns.
	captureText string
}

func newCLIBackend() *cliBackend {
	return &cliBackend{changed: make(chan struct{}), status: hooks.NewStatusStore(time.Now), sent: map[string]string{}}
}

// add registers an agent; code < 0 leaves it running.
func (b *cliBackend) add(title string, code int) string {
	b.mu.Lock()
	defer b.mu.Unlock()
	now := time.Now()
	started := now.Add(-90 * time.Second)
	a := control.AgentInfo{
		ID: fmt.Sprintf("a%d", len(b.agents)+1), Title: title, Argv: []string{"sh"},
		State: agentstate.Running, Why: "process started", Source: "process",
		Since: started, Confirmed: now, Created: started, Started: &started, Number: len(b.agents) + 1, Visible: true,
	}
	if code >= 0 {
		a.ExitCode = &code
		a.Ended = &now
		a.State, a.Why = agentstate.Done, "exited with code 0"
		if code != 0 {
			a.State, a.Why = agentstate.Failed, fmt.Sprintf("exited with code %d", code)
		}
	}
	b.agents = append(b.agents, a)
	return a.ID
}

func (b *cliBackend) find(id string) (int, bool) {
	for i, a := range b.agents {
		if a.ID == id {
			return i, true
		}
	}
	return -1, false
}

func (b *cliBackend) Spawn(req control.SpawnRequest) (control.AgentInfo, error) {
	b.mu.Lock()
	b.spawned = append(b.spawned, req)
	b.mu.Unlock()
	id := b.add(req.Title, -1)
	a, _ := b.Agent(id)
	return a, nil
}

func (b *cliBackend) Close(id string) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if _, ok := b.find(id); !ok {
		return fmt.Errorf("no agent with id %q", id)
	}
	b.closed = append(b.closed, id)
	return nil
}

func (b *cliBackend) Send(id string, data []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.sent[id] += string(data)
	return nil
}

func (b *cliBackend) List() []control.AgentInfo {
	b.mu.Lock()
	defer b.mu.Unlock()
	return append([]control.AgentInfo(nil), b.agents...)
}

func (b *cliBackend) Agent(id string) (control.AgentInfo, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i, ok := b.find(id); ok {
		return b.agents[i], true
	}
	return control.AgentInfo{}, false
}

func (b *cliBackend) Capture(id string, escapes bool, scrollback int) (string, error) {
	if _, ok := b.Agent(id); !ok {
		return "", fmt.Errorf("no agent with id %q", id)
	}
	if b.captureText != "" {
		return b.captureText, nil
	}
	if escapes {
		return fmt.Sprintf("\x1b[32mok\x1b[0m %d", scrollback), nil
	}
	return fmt.Sprintf("ok %d", scrollback), nil
}

func (b *cliBackend) Wait(ctx context.Context, ids []string) ([]control.AgentInfo, error) {
	for {
		var out []control.AgentInfo
		all := true
		for _, id := range ids {
			a, ok := b.Agent(id)
			if !ok {
				return nil, fmt.Errorf("no agent with id %q", id)
			}
			all = all && a.State.Finished()
			out = append(out, a)
		}
		if all {
			return out, nil
		}
		select {
		case <-ctx.Done():
			return out, ctx.Err()
		case <-b.changed: // never closed: running agents stay running in these tests
		}
	}
}

func (b *cliBackend) Signal(string, agentstate.Signal, string) error { return nil }

func (b *cliBackend) Explain(id string) (control.Explanation, error) {
	a, ok := b.Agent(id)
	if !ok {
		return control.Explanation{}, fmt.Errorf("no agent with id %q", id)
	}
	return control.Explanation{
		Agent: a,
		History: []control.Transition{
			{Time: a.Created, From: agentstate.Pending, To: agentstate.Running, Source: "process", Why: "process started"},
		},
		Evidence: []control.Evidence{{Source: "hook:claude", Says: "waiting: permission for Bash", Time: a.Confirmed}},
	}, nil
}

func (b *cliBackend) Status() *hooks.StatusStore { return b.status }

func startCLIServer(t *testing.T) (*cliBackend, string) {
	t.Helper()
	b := newCLIBackend()
	path := filepath.Join(t.TempDir(), "cli.sock")
	s, err := control.StartServer(path, b, control.ServerOptions{Session: "cli"})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	return b, path
}

type cliResult struct {
	stdout, stderr string
	code           int
}

// runCLI executes the commands in-process the way main does, including how
// main turns errors into messages and exit statuses.
func runCLI(t *testing.T, args ...string) cliResult {
	t.Helper()
	root := &cobra.Command{Use: "agentgrid", SilenceUsage: true, SilenceErrors: true}
	addClientCommands(root)
	addConfigCommands(root)
	addTrustCommands(root)
	var out, errb bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&errb)
	root.SetArgs(args)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err := root.ExecuteContext(ctx)
	code := 0
	if err != nil {
		var ee exitError
		if errors.As(err, &ee) {
			code = ee.code
			if ee.msg != "" {
				errb.WriteString("agentgrid: " + ee.msg + "\n")
			}
		} else {
			code = 1
			errb.WriteString("agentgrid: " + err.Error() + "\n")
		}
	}
	return cliResult{out.String(), errb.String(), code}
}

func (r cliResult) want(t *testing.T, code int) {
	t.Helper()
	if r.code != code {
		t.Fatalf("exit status %d, want %d\nstdout: %s\nstderr: %s", r.code, code, r.stdout, r.stderr)
	}
}

func TestCLISpawn(t *testing.T) {
	b, sock := startCLIServer(t)
	dir := t.TempDir()
	r := runCLI(t, "--socket", sock, "spawn", "--title", "tests", "--cwd", dir, "--env", "A=1", "--env", "B=x=y", "--", "sh", "-c", "echo hi")
	r.want(t, 0)
	if r.stdout != "a1\n" {
		t.Errorf("stdout %q, want the id", r.stdout)
	}
	got := b.spawned[0]
	if strings.Join(got.Argv, "|") != "sh|-c|echo hi" || got.Title != "tests" || got.Cwd != dir || got.Env["A"] != "1" || got.Env["B"] != "x=y" {
		t.Errorf("backend got %+v", got)
	}

	// AGENTGRID_SOCKET is the default, and the cwd defaults to ours.
	t.Setenv("AGENTGRID_SOCKET", sock)
	wd, _ := os.Getwd()
	r = runCLI(t, "spawn", "--kind", "claude", "--prompt", "fix it")
	r.want(t, 0)
	if got := b.spawned[1]; got.Kind != "claude" || got.Prompt != "fix it" || got.Cwd != wd || len(got.Argv) != 0 {
		t.Errorf("backend got %+v", got)
	}

	r = runCLI(t, "spawn", "--json", "--", "true")
	r.want(t, 0)
	var a control.AgentInfo
	if err := json.Unmarshal([]byte(r.stdout), &a); err != nil || a.ID != "a3" {
		t.Errorf("spawn --json printed %q (%v)", r.stdout, err)
	}
}

func TestCLISpawnMistakes(t *testing.T) {
	_, sock := startCLIServer(t)
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"spawn"}, 2, "give a command to run after --"},
		{[]string{"spawn", "--env", "NOVALUE", "--", "true"}, 2, "NAME=VALUE"},
		{[]string{"spawn", "--cwd", "/does/not/exist", "--", "true"}, 1, "--cwd /does/not/exist does not exist"},
		{[]string{"spawn", "--cwd", "/etc/passwd", "--", "true"}, 1, "--cwd /etc/passwd is not a directory"},
		{[]string{"config", "check", "extra"}, 2, "usage: agentgrid config check"},
		{[]string{"spawn", "--bogus", "--", "true"}, 2, "unknown flag: --bogus"},
		{[]string{"spawn", "ls", "-la"}, 2, "put the command after --"},
		{[]string{"list", "extra"}, 2, "usage: agentgrid list"},
		{[]string{"wait"}, 2, "agentgrid wait needs an argument; usage: agentgrid wait ID..."},
		{[]string{"explain"}, 2, "agentgrid explain needs an argument; usage: agentgrid explain ID"},
		{[]string{"explain", "a1", "a2"}, 2, `unexpected argument "a2"; usage: agentgrid explain ID`},
		{[]string{"spawn", "--prompt", "fix it", "--", "sh"}, 2, "--prompt needs --kind or --category"},
		{[]string{"wait", "a1", "--timeout", "soon"}, 2, "is not a duration"},
		{[]string{"capture", "a1", "--scrollback", "-3"}, 2, "must not be negative"},
		{[]string{"status", "bogus"}, 2, "usage: agentgrid status"},
		{[]string{"status", "set", "onlykey"}, 2, "agentgrid status set needs more arguments"},
		{[]string{"send", "a1", "", ""}, 0, ""}, // a space is something to send
	}
	for _, tt := range tests {
		args := tt.args
		if args[0] != "config" { // the one command here that talks to no session
			args = append([]string{"--socket", sock}, args...)
		}
		r := runCLI(t, args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.msg) {
			t.Errorf("agentgrid %s: exit %d stderr %q, want exit %d mentioning %q", strings.Join(tt.args, " "), r.code, r.stderr, tt.code, tt.msg)
		}
	}
}

func TestCLINoSession(t *testing.T) {
	t.Setenv("AGENTGRID_SOCKET", "")
	r := runCLI(t, "list")
	r.want(t, 1)
	if !strings.Contains(r.stderr, "not inside an agentgrid session: AGENTGRID_SOCKET is not set") {
		t.Errorf("stderr %q", r.stderr)
	}
	r = runCLI(t, "--socket", filepath.Join(t.TempDir(), "gone.sock"), "list")
	r.want(t, 1)
	if !strings.Contains(r.stderr, "no agentgrid session is listening") {
		t.Errorf("stderr %q", r.stderr)
	}
	if strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("error is more than one line: %q", r.stderr)
	}
	// A name instead of a path means the session of that name.
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	r = runCLI(t, "--socket", "nosuch", "list")
	r.want(t, 1)
	if !strings.Contains(r.stderr, control.SocketPath("nosuch")) {
		t.Errorf("stderr %q does not name the session's socket", r.stderr)
	}
}

func TestCLIList(t *testing.T) {
	b, sock := startCLIServer(t)
	b.add("build the thing", -1)
	b.add("tests\x1b]0;evil\x07", 3)
	r := runCLI(t, "--socket", sock, "list")
	r.want(t, 0)
	lines := strings.Split(strings.TrimRight(r.stdout, "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("list printed %d lines, want a header and 2 rows:\n%s", len(lines), r.stdout)
	}
	if f := strings.Fields(lines[0]); strings.Join(f, " ") != "ID # STATE TIME EXIT TITLE WHY" {
		t.Errorf("header %q", lines[0])
	}
	if f := strings.Fields(lines[1]); f[0] != "a1" || f[1] != "1" || f[2] != "running" || f[3] != "1m30s" || f[4] != "-" {
		t.Errorf("row 1 %q", lines[1])
	}
	if f := strings.Fields(lines[2]); f[0] != "a2" || f[2] != "failed" || f[4] != "3" {
		t.Errorf("row 2 %q", lines[2])
	}
	if strings.ContainsAny(r.stdout, "\x1b\x07") {
		t.Errorf("control characters from a title reached the terminal: %q", r.stdout)
	}
	// Columns line up: TITLE starts at the same offset on every line.
	col := strings.Index(lines[0], "TITLE")
	for _, l := range lines[1:] {
		if l[col-2:col] != "  " || l[col] == ' ' {
			t.Errorf("TITLE column misaligned in %q", l)
		}
	}

	r = runCLI(t, "--socket", sock, "list", "--json")
	r.want(t, 0)
	var agents []control.AgentInfo
	if err := json.Unmarshal([]byte(r.stdout), &agents); err != nil || len(agents) != 2 || *agents[1].ExitCode != 3 {
		t.Errorf("list --json = %q (%v)", r.stdout, err)
	}
}

func TestCLIListEmptyJSON(t *testing.T) {
	_, sock := startCLIServer(t)
	r := runCLI(t, "--socket", sock, "list", "--json")
	r.want(t, 0)
	if strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("empty list --json = %q, want []", r.stdout)
	}
}

func TestCLIWaitExitStatus(t *testing.T) {
	b, sock := startCLIServer(t)
	ok := b.add("ok", 0)
	bad := b.add("bad", 5)
	worse := b.add("worse", 7)
	running := b.add("running", -1)

	runCLI(t, "--socket", sock, "wait", ok).want(t, 0)
	runCLI(t, "--socket", sock, "wait", bad).want(t, 5)
	runCLI(t, "--socket", sock, "wait", ok, worse, bad).want(t, 7)

	r := runCLI(t, "--socket", sock, "wait", running, "--timeout", "50ms")
	r.want(t, 124)
	if !strings.Contains(r.stderr, "timed out after 50ms") || !strings.Contains(r.stderr, running+" (running)") {
		t.Errorf("stderr %q", r.stderr)
	}
	runCLI(t, "--socket", sock, "wait", running, "--timeout", "0.05").want(t, 124)

	r = runCLI(t, "--socket", sock, "wait", "a99")
	r.want(t, 1)
	if !strings.Contains(r.stderr, `no agent with id "a99"`) {
		t.Errorf("stderr %q", r.stderr)
	}

	r = runCLI(t, "--socket", sock, "wait", ok, "--json")
	r.want(t, 0)
	if !strings.Contains(r.stdout, `"timed_out": false`) {
		t.Errorf("wait --json = %q", r.stdout)
	}
}

func TestWaitStatus(t *testing.T) {
	code := func(n int) *int { return &n }
	tests := []struct {
		agents []control.AgentInfo
		want   int
	}{
		{nil, 0},
		{[]control.AgentInfo{{State: agentstate.Done, ExitCode: code(0)}}, 0},
		{[]control.AgentInfo{{State: agentstate.Failed}}, 1},                        // could not start
		{[]control.AgentInfo{{State: agentstate.Killed}}, 1},                        // closed, no code
		{[]control.AgentInfo{{State: agentstate.Killed, ExitCode: code(143)}}, 143}, // SIGTERM
		{[]control.AgentInfo{{State: agentstate.Failed, ExitCode: code(-1)}}, 1},
		{[]control.AgentInfo{{ExitCode: code(0)}, {ExitCode: code(2)}, {ExitCode: code(3)}}, 2},
	}
	for i, tt := range tests {
		if got := waitStatus(tt.agents); got != tt.want {
			t.Errorf("case %d: waitStatus = %d, want %d", i, got, tt.want)
		}
	}
}

func TestCLICloseSendCapture(t *testing.T) {
	b, sock := startCLIServer(t)
	id := b.add("x", -1)
	runCLI(t, "--socket", sock, "close", id).want(t, 0)
	if len(b.closed) != 1 || b.closed[0] != id {
		t.Errorf("closed %v", b.closed)
	}
	r := runCLI(t, "--socket", sock, "close", "a42")
	r.want(t, 1)
	if !strings.Contains(r.stderr, "close a42:") {
		t.Errorf("stderr %q", r.stderr)
	}

	runCLI(t, "--socket", sock, "send", id, "yes", "please", "--enter").want(t, 0)
	runCLI(t, "--socket", sock, "send", id, "\x03").want(t, 0)
	if got := b.sent[id]; got != "yes please\r\x03" {
		t.Errorf("sent %q", got)
	}

	r = runCLI(t, "--socket", sock, "capture", id)
	r.want(t, 0)
	if r.stdout != "ok 0\n" {
		t.Errorf("capture = %q", r.stdout)
	}
	r = runCLI(t, "--socket", sock, "capture", id, "-e", "--scrollback", "200")
	r.want(t, 0)
	if r.stdout != "\x1b[32mok\x1b[0m 200\n" {
		t.Errorf("capture -e = %q", r.stdout)
	}
}

func TestCLIStatus(t *testing.T) {
	b, sock := startCLIServer(t)
	runCLI(t, "--socket", sock, "status", "set", "build", "✓", "green", "--agent", "a1", "--ttl", "1m").want(t, 0)
	e := b.status.Entries()
	if len(e) != 1 || e[0].Key != "build" || e[0].Text != "✓ green" || e[0].Agent != "a1" || e[0].TTL != time.Minute {
		t.Fatalf("entries %+v", e)
	}
	runCLI(t, "--socket", sock, "status", "clear", "build").want(t, 0)
	if e := b.status.Entries(); len(e) != 0 {
		t.Fatalf("entries after clear %+v", e)
	}
	runCLI(t, "--socket", sock, "status", "set", "k", "v").want(t, 0)
	runCLI(t, "--socket", sock, "status", "set", "k", "").want(t, 0)
	if e := b.status.Entries(); len(e) != 0 {
		t.Fatalf("an empty text did not clear: %+v", e)
	}
}

func TestCLIExplain(t *testing.T) {
	b, sock := startCLIServer(t)
	id := b.add("reviewer", -1)
	r := runCLI(t, "--socket", sock, "explain", id)
	r.want(t, 0)
	for _, want := range []string{"a1  reviewer", "state:", "running", "source:", "process", "why:", "process started",
		"confirmed:", "ago (", "hook:claude", "waiting: permission for Bash", "history (oldest first):", "pending -> running"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("explain output lacks %q:\n%s", want, r.stdout)
		}
	}
	r = runCLI(t, "--socket", sock, "explain", id, "--json")
	r.want(t, 0)
	var ex control.Explanation
	if err := json.Unmarshal([]byte(r.stdout), &ex); err != nil || ex.Agent.ID != id {
		t.Errorf("explain --json = %q (%v)", r.stdout, err)
	}
	runCLI(t, "--socket", sock, "explain", "a9").want(t, 1)
}

func TestCommandsAreDocumented(t *testing.T) {
	root := &cobra.Command{Use: "agentgrid"}
	addClientCommands(root)
	addConfigCommands(root)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Short == "" || c.Example == "" {
			t.Errorf("agentgrid %s lacks a Short or an Example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	for _, c := range root.Commands() {
		walk(c)
	}
}

func TestShortDuration(t *testing.T) {
	tests := map[time.Duration]string{
		-time.Second:                          "0s",
		45 * time.Second:                      "45s",
		192 * time.Second:                     "3m12s",
		time.Hour + 5*time.Minute:             "1h05m",
		51*time.Hour + 10*time.Minute:         "2d03h",
		59*time.Second + 999*time.Millisecond: "59s",
	}
	for d, want := range tests {
		if got := shortDuration(d); got != want {
			t.Errorf("shortDuration(%v) = %q, want %q", d, got, want)
		}
	}
	if got := clean("abcdef", 4); got != "abc…" {
		t.Errorf("clean = %q", got)
	}
	// Bidi and zero-width characters never reach the table: they would
	// reorder or hide the rest of the line.
	if got := clean("a\u202eb\u200bc\u2066d\tz", 40); got != "abcd z" {
		t.Errorf("clean of bidi and zero-width text = %q", got)
	}
}

// TestCLIAgainstRealEngine runs the client commands against a real engine
// with real processes: spawn prints the id, wait exits with the agent's
// status, capture shows what it printed.
func TestCLIAgainstRealEngine(t *testing.T) {
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	sock := filepath.Join(t.TempDir(), "real.sock")
	e, err := orchestrator.New(cfg, orchestrator.Options{Session: "cli-e2e", Spawner: panes.PTYSpawner{},
		StateDir: t.TempDir(), SocketPath: sock, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	e.Resize(80, 24)

	r := runCLI(t, "--socket", sock, "spawn", "--title", "answer", "--", "sh", "-c", "echo forty-two; exit 42")
	r.want(t, 0)
	id := strings.TrimSpace(r.stdout)
	runCLI(t, "--socket", sock, "wait", id, "--timeout", "15s").want(t, 42)
	r = runCLI(t, "--socket", sock, "capture", id)
	r.want(t, 0)
	if !strings.Contains(r.stdout, "forty-two") {
		t.Errorf("capture = %q", r.stdout)
	}
	r = runCLI(t, "--socket", sock, "list")
	r.want(t, 0)
	if !strings.Contains(r.stdout, id) || !strings.Contains(r.stdout, "failed") || !strings.Contains(r.stdout, "42") {
		t.Errorf("list =\n%s", r.stdout)
	}
	runCLI(t, "--socket", sock, "explain", id).want(t, 0)
}

// TestWatchRefusesItsOwnSession checks that a pane cannot watch the session
// it is in, which would mirror itself without end.
func TestWatchRefusesItsOwnSession(t *testing.T) {
	sock := filepath.Join(t.TempDir(), "own.sock")
	t.Setenv("AGENTGRID_SOCKET", sock)
	root := &cobra.Command{Use: "agentgrid"}
	addClientCommands(root)
	root.SetArgs([]string{"watch", sock})
	root.SetOut(io.Discard)
	root.SetErr(io.Discard)
	err := root.Execute()
	var ee exitError
	if !errors.As(err, &ee) || !strings.Contains(ee.msg, "cannot attach to itself") {
		t.Fatalf("watch of the own session = %v", err)
	}
}
