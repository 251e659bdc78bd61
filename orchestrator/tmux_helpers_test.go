package orchestrator

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
)

// shimSession is an engine with its socket and the tmux entry point of a
// freshly built agentgrid binary on every pane's PATH.
type shimSession struct {
	t    *testing.T
	e    *Engine
	sock string
	dir  string // the session's state folder
}

// built is the agentgrid binary the shim tests share: one go build for the
// whole package (a link under the race detector on a loaded machine takes
// seconds, and every shim test used to pay it), removed by TestMain.
var built struct {
	once sync.Once
	dir  string
	bin  string
	err  error
}

func TestMain(m *testing.M) {
	code := m.Run()
	if built.dir != "" {
		_ = os.RemoveAll(built.dir)
	}
	os.Exit(code)
}

// buildAgentgrid builds the real binary, whose "tmux" link the panes run,
// once for the package. Each test still gets its own session, socket and
// state folder; the binary itself is read-only.
func buildAgentgrid(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the agentgrid binary")
	}
	built.once.Do(func() {
		built.dir, built.err = os.MkdirTemp("", "ag-orch-bin-")
		if built.err != nil {
			return
		}
		built.bin = filepath.Join(built.dir, "agentgrid")
		cmd := exec.Command("go", "build", "-o", built.bin, ".")
		cmd.Dir = ".."
		if out, err := cmd.CombinedOutput(); err != nil {
			built.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if built.err != nil {
		t.Fatal(built.err)
	}
	return built.bin
}

func startShimSession(t *testing.T, env []string, mutate func(*config.Config)) *shimSession {
	t.Helper()
	bin := buildAgentgrid(t)
	// sun_path is short: keep the socket out of the long TempDir names.
	sockDir, err := os.MkdirTemp("", "ag-tmux-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(sockDir) })
	if err := os.Chmod(sockDir, 0o700); err != nil {
		t.Fatal(err)
	}
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "main-vertical", MinAgentWidth: 20, MinAgentHeight: 5}
	cfg.Agents.KillGrace = config.Duration{Duration: 300 * time.Millisecond}
	if mutate != nil {
		mutate(&cfg)
	}
	if env == nil {
		env = os.Environ()
	}
	// agentgrid itself runs inside a tmux: that one must stay out of reach.
	env = append(slices.Clone(env), "TMUX=/tmp/outer-tmux/default,1,0", "TMUX_PANE=%99")
	s := &shimSession{t: t, sock: filepath.Join(sockDir, "s.sock"), dir: t.TempDir()}
	s.e, err = New(cfg, Options{Session: "shimtest", StateDir: s.dir, SocketPath: s.sock, TmuxShim: bin, Env: env, Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.e.Start(context.Background(), []string{"sh", "-c", "exec sleep 600"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = s.e.Shutdown(ctx)
	})
	s.e.Resize(200, 50)
	return s
}

// envOf is the environment the engine gave an agent.
func (s *shimSession) envOf(id string) []string {
	var env []string
	if err := s.e.do(func() { env = slices.Clone(s.e.st.agents[id].env) }); err != nil {
		s.t.Fatal(err)
	}
	return env
}

// tmux runs `tmux args...` through sh in agent as's environment, so the
// tmux found is whatever that agent's PATH finds first.
func (s *shimSession) tmux(as string, args ...string) (stdout, stderr string, code int) {
	s.t.Helper()
	return s.tmuxEnv(as, nil, args...)
}

// tmuxEnv is tmux with extra variables in the caller's environment.
func (s *shimSession) tmuxEnv(as string, extra []string, args ...string) (stdout, stderr string, code int) {
	s.t.Helper()
	cmd := exec.Command("/bin/sh", append([]string{"-c", `exec tmux "$@"`, "sh"}, args...)...)
	cmd.Env = append(s.envOf(as), extra...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		s.t.Fatalf("run tmux %q: %v", args, err)
	}
	return o.String(), e.String(), code
}

// ok runs a tmux command that must succeed and returns its output.
func (s *shimSession) ok(as string, args ...string) string {
	s.t.Helper()
	out, errOut, code := s.tmux(as, args...)
	if code != 0 {
		s.t.Fatalf("tmux %q exited %d: %s", args, code, errOut)
	}
	return out
}

var paneIDRe = regexp.MustCompile(`^%[0-9]+$`)

// agentOfPane is the agent id behind a %N the shim printed.
func (s *shimSession) agentOfPane(pane string) string {
	s.t.Helper()
	pane = strings.TrimSpace(pane)
	id, ok := paneAgent(pane)
	if !paneIDRe.MatchString(pane) || !ok {
		s.t.Fatalf("%q is not a pane id", pane)
	}
	return id
}

// waitScreen waits until agent id's screen contains want.
func (s *shimSession) waitScreen(id, want string) {
	s.t.Helper()
	var text string
	deadline := time.Now().Add(20 * time.Second)
	for {
		text, _ = s.e.Capture(id, false, 100)
		// A long line wraps in a narrow pane.
		if strings.Contains(strings.ReplaceAll(text, "\n", ""), want) {
			return
		}
		if time.Now().After(deadline) {
			s.t.Fatalf("%s never showed %q; screen:\n%s", id, want, text)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// focusStays checks that no tmux command moved agentgrid's focus.
func (s *shimSession) focusStays(what string) {
	s.t.Helper()
	if f := s.e.Snapshot().Focus; f != "main" {
		s.t.Fatalf("after %s the focus moved to %q", what, f)
	}
}

// unquoteLogArgv splits a logged argv, written the way the shell quotes it
// (words separated by spaces, special characters escaped with '\').
func unquoteLogArgv(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(c)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
