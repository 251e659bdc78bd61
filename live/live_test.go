// Package live runs the real agent CLIs (Claude Code, Codex, Gemini CLI,
// OpenCode) inside agentgrid against a scripted model server on 127.0.0.1
// (package modelserver): a real turn with a tool call that needs
// permission, checked through `agentgrid list --json` and `explain` at each
// step. The CLIs are installed from npm at the versions pinned in the file
// `versions`, into a cache folder. `make live` runs it; plain `go test`
// skips it, since it needs npm and takes minutes.
package live

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/live/modelserver"
)

var (
	binary     string // the agentgrid binary built for this run
	cliBin     string // the folder holding the installed CLIs' commands
	skipReason string
	serverSeq  atomic.Int64
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	switch {
	case os.Getenv("AGENTGRID_LIVE") == "":
		skipReason = "the live suite runs the real agent CLIs from npm; run it with `make live` (AGENTGRID_LIVE=1)"
		return m.Run()
	case lookPath("tmux") != nil:
		// Asked for (make live, CI) but impossible here: one line says
		// why, and no test runs to repeat it.
		fmt.Println("live: SKIP: tmux is not installed; the live suite drives agentgrid inside tmux")
		return 0
	}
	var err error
	cliBin, skipReason, err = install("versions")
	if err != nil {
		fmt.Fprintln(os.Stderr, "live: install the agent CLIs:", err)
		return 1
	}
	if skipReason != "" {
		fmt.Println("live: SKIP:", skipReason)
		return 0
	}
	dir, err := os.MkdirTemp("", "agentgrid-live-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "live:", err)
		return 1
	}
	defer os.RemoveAll(dir)
	binary = filepath.Join(dir, "agentgrid")
	build := exec.Command("go", "build", "-o", binary, ".")
	build.Dir = ".."
	build.Env = append(os.Environ(), "CGO_ENABLED=0") // as the README installs it
	if out, err := build.CombinedOutput(); err != nil {
		fmt.Fprintf(os.Stderr, "live: go build of agentgrid failed: %v\n%s", err, out)
		return 1
	}
	return m.Run()
}

func lookPath(name string) error { _, err := exec.LookPath(name); return err }

// harness is a private tmux server whose window runs sh in an isolated
// home, a model server for the CLIs, and helpers to read the session.
type harness struct {
	t       *testing.T
	server  string
	session string
	home    string
	proj    string // the CLI's working folder
	runtime string
	env     []string
	model   *modelserver.Server
	tmuxEnv []string
	window  string
	// plainEnv is added to the environment of the plain tmux run of a
	// first-screen comparison.
	plainEnv []string

	mu   sync.Mutex
	last string
}

// newHarness prepares a home, starts the model server and a tmux server
// (cols x rows) running sh in home/proj with env added.
func newHarness(t *testing.T, cols, rows int, env ...string) *harness {
	t.Helper()
	if skipReason != "" {
		t.Skip(skipReason)
	}
	runtime, err := os.MkdirTemp("", "ag-live-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(runtime) })
	_ = os.Chmod(runtime, 0o700)
	// Not t.TempDir: the CLIs may still write into their folders while the
	// session hangs them up, so removal retries for a while.
	home, err := os.MkdirTemp("", "ag-live-home-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		deadline := time.Now().Add(15 * time.Second)
		for os.RemoveAll(home) != nil && time.Now().Before(deadline) {
			time.Sleep(200 * time.Millisecond)
		}
	})
	var rec string
	if d := os.Getenv("AGENTGRID_LIVE_RECORD"); d != "" {
		rec = filepath.Join(d, regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-"))
	}
	ms, err := modelserver.Start(rec)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ms.Close() })
	h := &harness{
		t: t, server: fmt.Sprintf("agentgrid-live-%d-%d", os.Getpid(), serverSeq.Add(1)),
		session: "live-" + strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "-")),
		home:    home, proj: filepath.Join(home, "proj"), runtime: runtime, model: ms, window: "live",
	}
	if err := os.MkdirAll(h.proj, 0o700); err != nil {
		t.Fatal(err)
	}
	h.env = append([]string{
		"HOME=" + home,
		"PATH=" + filepath.Dir(binary) + ":" + cliBin + ":" + os.Getenv("PATH"),
		"TERM=tmux-256color",
		"LANG=C.UTF-8",
		"SHELL=/bin/sh",
		"PS1=live$ ",
		"XDG_RUNTIME_DIR=" + runtime,
		"XDG_STATE_HOME=" + filepath.Join(home, ".state"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
	}, env...)
	h.tmuxEnv = append(os.Environ(), "LANG=C.UTF-8", "TMUX_TMPDIR="+runtime)
	args := []string{"new-session", "-d", "-s", h.window, "-x", strconv.Itoa(cols), "-y", strconv.Itoa(rows), "-c", h.proj, "env", "-i"}
	args = append(append(args, h.env...), "/bin/sh")
	h.mustTmux(args...)
	t.Cleanup(func() {
		if t.Failed() {
			h.dumpOnFailure()
		}
		// Closing the tmux server only detaches agentgrid's terminal; the
		// session servers are then ended as a user would (SIGTERM), before
		// anything of the test's home still running counts as a stray.
		servers := h.sessionServers()
		_, _ = h.tmux("kill-server")
		for _, pid := range servers {
			_ = syscall.Kill(pid, syscall.SIGTERM)
		}
		h.reapStrays()
	})
	h.waitFor(10*time.Second, func() bool { return strings.Contains(h.capture(), "live$") }, "the shell prompt")
	return h
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

// writeFile writes a file under the harness's home.
func (h *harness) writeFile(rel, content string) {
	h.t.Helper()
	p := filepath.Join(h.home, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		h.t.Fatal(err)
	}
}

func (h *harness) tmux(args ...string) (string, error) {
	full := append([]string{"-L", h.server, "-f", "/dev/null"}, args...)
	cmd := exec.Command("tmux", full...)
	cmd.Env = h.tmuxEnv
	out, err := cmd.CombinedOutput()
	if err != nil {
		return string(out), fmt.Errorf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out), nil
}

func (h *harness) mustTmux(args ...string) string {
	h.t.Helper()
	out, err := h.tmux(args...)
	if err != nil {
		h.t.Fatal(err)
	}
	return out
}

func (h *harness) capture() string {
	out, err := h.tmux("capture-pane", "-p", "-t", h.window)
	if err != nil {
		return ""
	}
	h.mu.Lock()
	h.last = out
	h.mu.Unlock()
	return out
}

func (h *harness) lastScreen() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.last
}

func (h *harness) keys(keys ...string) {
	h.t.Helper()
	h.mustTmux(append([]string{"send-keys", "-t", h.window}, keys...)...)
}

func (h *harness) typeText(s string) {
	h.t.Helper()
	h.mustTmux("send-keys", "-t", h.window, "-l", s)
}

// timeScale stretches every wait of the suite (never an observation
// window such as staysWhy's): a loaded CI machine starts the CLIs slower.
// AGENTGRID_LIVE_TIMEOUT_SCALE sets it; the default doubles the deadlines
// written in the tests.
var timeScale = func() time.Duration {
	if f, err := strconv.ParseFloat(os.Getenv("AGENTGRID_LIVE_TIMEOUT_SCALE"), 64); err == nil && f > 0 {
		return time.Duration(f * 1000)
	}
	return 2000
}()

func scaled(d time.Duration) time.Duration { return d * timeScale / 1000 }

// waitFor polls cond until it holds or timeout (scaled) passes.
func (h *harness) waitFor(timeout time.Duration, cond func() bool, describe string) {
	h.t.Helper()
	timeout = scaled(timeout)
	deadline := time.Now().Add(timeout)
	delay := 20 * time.Millisecond
	for !cond() {
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out after %v waiting for %s\nlast screen:\n%s", timeout, describe, h.capture())
		}
		time.Sleep(delay)
		delay = min(delay*2, 250*time.Millisecond)
	}
}

func (h *harness) socketPath() string {
	return filepath.Join(h.runtime, "agentgrid", h.session+".sock")
}

// start types `agentgrid --session NAME -- argv...` and waits for the socket.
func (h *harness) start(argv ...string) {
	h.t.Helper()
	line := append([]string{"agentgrid", "--session", h.session, "--"}, argv...)
	h.typeText(shellJoin(line))
	h.keys("Enter")
	h.waitFor(20*time.Second, func() bool { _, err := h.client("list"); return err == nil }, "the session's control socket to answer")
}

func (h *harness) client(args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), scaled(20*time.Second))
	defer cancel()
	cmd := exec.CommandContext(ctx, binary, args...)
	cmd.Env = append(append([]string{}, h.env...), "AGENTGRID_SOCKET="+h.socketPath())
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.String(), fmt.Errorf("agentgrid %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// agentInfo is the part of `agentgrid list --json` the suite reads.
type agentInfo struct {
	ID     string `json:"id"`
	Kind   string `json:"kind"`
	State  string `json:"state"`
	Why    string `json:"why"`
	Source string `json:"source"`
	Parent string `json:"parent"`
}

func (h *harness) list() []agentInfo {
	out, err := h.client("list", "--json")
	if err != nil {
		h.t.Logf("list: %v", err)
		return nil
	}
	var as []agentInfo
	if err := json.Unmarshal([]byte(out), &as); err != nil {
		h.t.Logf("list --json printed %q: %v", out, err)
		return nil
	}
	return as
}

// agent reads one agent's record: from list --json for the agents it
// lists, from explain --json for the main view, which list leaves out.
func (h *harness) agent(id string) (agentInfo, bool) {
	if id != "main" {
		for _, a := range h.list() {
			if a.ID == id {
				return a, true
			}
		}
		return agentInfo{}, false
	}
	out, err := h.client("explain", "--json", id)
	if err != nil {
		h.t.Logf("explain: %v", err)
		return agentInfo{}, false
	}
	var e struct {
		Agent agentInfo `json:"agent"`
	}
	if err := json.Unmarshal([]byte(out), &e); err != nil {
		h.t.Logf("explain --json printed %q: %v", out, err)
		return agentInfo{}, false
	}
	return e.Agent, true
}

// waitState waits until agent id is in state, from a source starting with
// source, with a why containing why (each check skipped when empty).
func (h *harness) waitState(id, state, source, why string, timeout time.Duration) agentInfo {
	h.t.Helper()
	var last agentInfo
	timeout = scaled(timeout)
	deadline := time.Now().Add(timeout)
	for {
		a, ok := h.agent(id)
		if ok {
			last = a
			if a.State == state && strings.HasPrefix(a.Source, source) && strings.Contains(a.Why, why) {
				return a
			}
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("timed out after %v waiting for %s to be %s (source %q, why %q); it is %s (source %q, why %q)\nexplain:\n%s\nlast screen:\n%s",
				timeout, id, state, source, why, last.State, last.Source, last.Why, h.explain(id), h.capture())
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (h *harness) explain(id string) string {
	out, err := h.client("explain", id)
	if err != nil {
		return err.Error()
	}
	return out
}

// screenHas waits until the tmux window shows text.
func (h *harness) screenHas(text string, timeout time.Duration) {
	h.t.Helper()
	h.waitFor(timeout, func() bool { return strings.Contains(h.capture(), text) }, fmt.Sprintf("%q on screen", text))
}

func shellJoin(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		if a != "" && !strings.ContainsAny(a, " '\"\\$`*?[]{}()<>|&;#~!\t") {
			b.WriteString(a)
			continue
		}
		b.WriteString("'" + strings.ReplaceAll(a, "'", `'\''`) + "'")
	}
	return b.String()
}
