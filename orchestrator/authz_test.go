package orchestrator

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
	"github.com/agentgrid/agentgrid/panes"
)

// startSocketEngine runs a real engine named session with its socket,
// "cat" in the main view, a tiled 200x60 grid and a short kill grace;
// setup (may be nil) changes the config and the options first. It returns
// the engine and its socket's path.
func startSocketEngine(t *testing.T, session string, setup func(*config.Config, *Options)) (*Engine, string) {
	t.Helper()
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	cfg.Agents.KillGrace = config.Duration{Duration: 200 * time.Millisecond}
	// The socket path must stay short (sun_path).
	dir, err := os.MkdirTemp("", "ag-"+session+"-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	sock := filepath.Join(dir, "s.sock")
	opts := Options{Session: session, Spawner: panes.PTYSpawner{}, StateDir: t.TempDir(), SocketPath: sock, Logger: testLogger()}
	if setup != nil {
		setup(&cfg, &opts)
	}
	e, err := New(cfg, opts)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), []string{"cat"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		if err := e.Shutdown(ctx); err != nil {
			t.Errorf("shutdown: %v", err)
		}
	})
	e.Resize(200, 60)
	return e, sock
}

// startAuthzEngine is startSocketEngine with two kinds with grants.
func startAuthzEngine(t *testing.T) (*Engine, string) {
	return startSocketEngine(t, "authz", func(cfg *config.Config, _ *Options) {
		cfg.Kinds["boss"] = config.Kind{Command: []string{"cat"}, Grants: []string{"all"}}
		cfg.Kinds["mailer"] = config.Kind{Command: []string{"cat"}, Grants: []string{"send"}}
		cfg.Agents.MaxDepth = 3 // a1, its child and a grandchild
	})
}

func dialAs(t *testing.T, sock, token string) *control.Client {
	t.Helper()
	c, err := control.DialToken(sock, token)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func wantForbidden(t *testing.T, what string, err error) {
	t.Helper()
	if control.ErrorCode(err) != control.CodeForbidden {
		t.Errorf("%s: got %v, want a refusal (code %d)", what, err, control.CodeForbidden)
	}
}

func wantOK(t *testing.T, what string, err error) {
	t.Helper()
	if err != nil {
		t.Errorf("%s: %v", what, err)
	}
}

// TestAgentActsOnlyOnItselfAndWhatItStarted drives the rules through the
// socket with each agent's own token: an agent cannot type into the main
// view, cannot forge another agent's state, cannot read, wait for or close a
// sibling, and can do all of it to the agents it started.
func TestAgentActsOnlyOnItselfAndWhatItStarted(t *testing.T) {
	e, sock := startAuthzEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	user := dialAs(t, sock, "")
	a1, err := user.Spawn(ctx, control.SpawnParams{Title: "a1", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	sib, err := user.Spawn(ctx, control.SpawnParams{Title: "sibling", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	if a1.Parent != "" {
		t.Errorf("an agent the user spawned has parent %q, want none", a1.Parent)
	}
	tok := e.AgentToken(a1.ID)
	if len(tok) < 32 || tok == e.AgentToken(sib.ID) || tok == e.AgentToken(control.MainID) {
		t.Fatalf("agent tokens are not distinct secrets: %q %q", tok, e.AgentToken(sib.ID))
	}
	c := dialAs(t, sock, tok)
	child, err := c.Spawn(ctx, control.SpawnParams{Title: "child", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	if child.Parent != a1.ID {
		t.Errorf("the child's parent is %q, want %s", child.Parent, a1.ID)
	}
	grand, err := dialAs(t, sock, e.AgentToken(child.ID)).Spawn(ctx, control.SpawnParams{Title: "grandchild", Argv: []string{"cat"}})
	if err != nil || grand.Parent != child.ID {
		t.Fatalf("grandchild spawn: %+v, %v", grand, err)
	}
	waitAgent(t, e, sib.ID, "running", func(a control.AgentInfo) bool { return a.State.Alive() })

	wantForbidden(t, "send to main", c.Send(ctx, control.MainID, "echo owned\r"))
	wantForbidden(t, "send to a sibling", c.Send(ctx, sib.ID, "x"))
	wantForbidden(t, "signal a sibling", c.Signal(ctx, sib.ID, "claude", agentstate.Signal{State: "waiting", Why: "permission: rm -rf /"}))
	wantForbidden(t, "signal its own child", c.Signal(ctx, child.ID, "claude", agentstate.Signal{State: "waiting"}))
	wantForbidden(t, "signal main", c.Signal(ctx, control.MainID, "claude", agentstate.Signal{State: "waiting"}))
	_, err = c.Agent(ctx, control.MainID)
	wantForbidden(t, "get main", err)
	_, err = c.Capture(ctx, sib.ID, false, 0)
	wantForbidden(t, "capture a sibling", err)
	_, err = c.Explain(ctx, sib.ID)
	wantForbidden(t, "explain a sibling", err)
	_, err = c.Wait(ctx, []string{child.ID, sib.ID}, time.Millisecond)
	wantForbidden(t, "wait for a sibling", err)
	wantForbidden(t, "close a sibling", c.CloseAgent(ctx, sib.ID))
	wantForbidden(t, "close main", c.CloseAgent(ctx, control.MainID))
	wantForbidden(t, "status keyed by a sibling", c.SetStatus(ctx, sib.ID, "waiting: permission: rm -rf /", "", 0))
	wantForbidden(t, "status scoped to a sibling", c.SetStatus(ctx, "note", "x", sib.ID, 0))
	wantOK(t, "the user scopes an entry to the sibling", user.SetStatus(ctx, "review", "needs a look", sib.ID, 0))
	wantForbidden(t, "clear an entry scoped to a sibling", c.ClearStatus(ctx, "review"))

	if got, _ := e.Agent(sib.ID); got.State == agentstate.Waiting || got.Source == "hook:claude" {
		t.Errorf("a refused signal changed the sibling: %s from %s", got.State, got.Source)
	}
	for _, id := range []string{control.MainID, sib.ID} {
		if got, _ := e.Agent(id); !got.State.Alive() {
			t.Errorf("%s is %s after refused requests, want it alive", id, got.State)
		}
	}

	wantOK(t, "signal itself", c.Signal(ctx, a1.ID, "claude", agentstate.Signal{State: "waiting", Why: "question"}))
	waitAgent(t, e, a1.ID, "waiting from its own hook", func(a control.AgentInfo) bool { return a.State == agentstate.Waiting })
	wantOK(t, "status of its own", c.SetStatus(ctx, "tests", "3 failing", a1.ID, 0))
	wantOK(t, "send to itself", c.Send(ctx, a1.ID, "x"))
	wantOK(t, "send to its child", c.Send(ctx, child.ID, "hello child\r"))
	if _, err := c.Capture(ctx, grand.ID, false, 0); err != nil {
		t.Errorf("capture its grandchild: %v", err)
	}
	list, err := c.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, a := range list {
		ids = append(ids, a.ID)
	}
	if want := []string{a1.ID, child.ID, grand.ID}; fmt.Sprint(ids) != fmt.Sprint(want) {
		t.Errorf("the agent lists %v, want only itself and what it started %v", ids, want)
	}
	wantOK(t, "close its grandchild", c.CloseAgent(ctx, grand.ID))
	wantOK(t, "close its child", c.CloseAgent(ctx, child.ID))
	res, err := c.Wait(ctx, []string{child.ID, grand.ID}, 15*time.Second)
	if err != nil || res.TimedOut {
		t.Fatalf("wait for its closed children: %+v, %v", res, err)
	}

	// The user (no token, outside the session) and the main view keep full control.
	wantOK(t, "the main view sends to an agent", dialAs(t, sock, e.AgentToken(control.MainID)).Send(ctx, sib.ID, "from main\r"))
	all, err := user.List(ctx)
	if err != nil || len(all) != 4 {
		t.Fatalf("the user lists %d agents (%v), want 4", len(all), err)
	}
	for _, a := range all {
		if a.ID == grand.ID && a.Parent != child.ID {
			t.Errorf("list shows %s with parent %q, want %s", a.ID, a.Parent, child.ID)
		}
	}
}

// TestForgedTokensAndGrants: a token this session did not give out is
// refused; a kind's grants reach any agent; grants never pass to an agent
// that a less privileged one starts.
func TestForgedTokensAndGrants(t *testing.T) {
	e, sock := startAuthzEngine(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	user := dialAs(t, sock, "")
	plain, err := user.Spawn(ctx, control.SpawnParams{Title: "plain", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	boss, err := user.Spawn(ctx, control.SpawnParams{Title: "boss", Kind: "boss"})
	if err != nil {
		t.Fatal(err)
	}
	mailer, err := user.Spawn(ctx, control.SpawnParams{Title: "mailer", Kind: "mailer"})
	if err != nil {
		t.Fatal(err)
	}
	waitAgent(t, e, plain.ID, "running", func(a control.AgentInfo) bool { return a.State.Alive() })

	forged := dialAs(t, sock, strings.Repeat("0", 64))
	wantForbidden(t, "a forged token sends", forged.Send(ctx, plain.ID, "x"))
	_, err = forged.List(ctx)
	wantForbidden(t, "a forged token lists", err)
	if err != nil && !strings.Contains(err.Error(), "token") {
		t.Errorf("the refusal does not say what is wrong: %v", err)
	}

	b := dialAs(t, sock, e.AgentToken(boss.ID))
	wantOK(t, "a granted kind sends to main", b.Send(ctx, control.MainID, "from boss\r"))
	wantOK(t, "a granted kind signals another agent", b.Signal(ctx, plain.ID, "claude", agentstate.Signal{State: "waiting", Why: "asked"}))
	waitAgent(t, e, plain.ID, "waiting from the boss's signal", func(a control.AgentInfo) bool { return a.State == agentstate.Waiting })

	m := dialAs(t, sock, e.AgentToken(mailer.ID))
	wantOK(t, "send granted", m.Send(ctx, plain.ID, "mail\r"))
	wantForbidden(t, "close not granted", m.CloseAgent(ctx, plain.ID))

	// A plain agent that starts a "boss" does not get a boss.
	p := dialAs(t, sock, e.AgentToken(plain.ID))
	sub, err := p.Spawn(ctx, control.SpawnParams{Title: "would-be boss", Kind: "boss"})
	if err != nil {
		t.Fatal(err)
	}
	wantForbidden(t, "a boss started by a plain agent sends to main", dialAs(t, sock, e.AgentToken(sub.ID)).Send(ctx, control.MainID, "x"))
	wantOK(t, "a granted kind closes any agent", b.CloseAgent(ctx, sub.ID))
}

// authzHelperEnv makes the test binary act as a client inside an agent (see
// TestAuthzHelperProcess).
const authzHelperEnv = "AGENTGRID_TEST_AUTHZ_HELPER"

// TestAuthzHelperProcess is not a test: started by the engine as an agent
// (a real child in a real PTY) with authzHelperEnv set, it calls the
// session the way `agentgrid send` would and exits 0 when every answer is
// what the rules promise, 1 otherwise, printing what went wrong.
func TestAuthzHelperProcess(t *testing.T) {
	mode := os.Getenv(authzHelperEnv)
	if mode == "" {
		t.Skip("a helper process for the authorization tests")
	}
	fails := 0
	check := func(what string, err error, wantCode int) {
		if control.ErrorCode(err) != wantCode || wantCode == 0 && err != nil {
			fmt.Printf("FAIL %s: %v\r\n", what, err)
			fails++
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	sibling := os.Getenv("HELPER_SIBLING")
	switch mode {
	case "no-token":
		// Drop the secret and claim to be the main view.
		_ = os.Unsetenv(control.EnvToken)
		_ = os.Setenv("AGENTGRID_AGENT_ID", control.MainID)
		c, err := control.DialEnv()
		if err != nil {
			fmt.Printf("FAIL dial: %v\r\n", err)
			os.Exit(1)
		}
		check("send to main without a token", c.Send(ctx, control.MainID, "echo owned\r"), control.CodeForbidden)
		check("close a sibling without a token", c.CloseAgent(ctx, sibling), control.CodeForbidden)
		_, err = c.List(ctx)
		check("list without a token", err, control.CodeForbidden)
	case "hook-handler":
		// A [[hooks]] handler acts for the user: it may speak for any agent.
		c, err := control.DialEnv()
		if err != nil {
			fmt.Printf("FAIL dial: %v\n", err)
			os.Exit(1)
		}
		check("a hook handler sets a status entry keyed by an agent", c.SetStatus(ctx, control.MainID, "handled", "", 0), 0)
	case "orphan":
		// Leave the process tree (the shell that started us exits, so we
		// are handed to init), drop the secret, and call as if from outside.
		parent, _ := strconv.Atoi(os.Getenv("HELPER_ENGINE_PID"))
		deadline := time.Now().Add(10 * time.Second)
		for below(os.Getpid(), parent) {
			if time.Now().After(deadline) {
				fmt.Printf("ORPHAN-FAIL still below the engine\r\n")
				os.Exit(1)
			}
			time.Sleep(10 * time.Millisecond) // waiting to be reparented
		}
		_ = os.Unsetenv(control.EnvToken)
		c, err := control.DialEnv()
		if err != nil {
			fmt.Printf("ORPHAN-FAIL dial: %v\r\n", err)
			os.Exit(1)
		}
		check("send to main from an orphan without a token", c.Send(ctx, control.MainID, "echo owned\r"), control.CodeForbidden)
		if fails == 0 {
			fmt.Printf("ORPHAN-OK\r\n")
		} else {
			fmt.Printf("ORPHAN-FAIL\r\n")
		}
	case "own-token":
		c, err := control.DialEnv()
		if err != nil {
			fmt.Printf("FAIL dial: %v\r\n", err)
			os.Exit(1)
		}
		check("send to main", c.Send(ctx, control.MainID, "echo owned\r"), control.CodeForbidden)
		check("signal a sibling", c.Signal(ctx, sibling, "claude", agentstate.Signal{State: "waiting", Why: "permission: rm -rf /"}), control.CodeForbidden)
		self := os.Getenv("AGENTGRID_AGENT_ID")
		check("signal itself", c.Signal(ctx, self, "claude", agentstate.Signal{State: "running", Why: "working"}), 0)
		child, err := c.Spawn(ctx, control.SpawnParams{Title: "child", Argv: []string{"sleep", "1000"}})
		check("spawn a child", err, 0)
		if err == nil {
			check("close its own child", c.CloseAgent(ctx, child.ID), 0)
			res, err := c.Wait(ctx, []string{child.ID}, 10*time.Second)
			check("wait for its own child", err, 0)
			if err == nil && (res.TimedOut || res.Agents[0].State != agentstate.Killed) {
				fmt.Printf("FAIL the closed child is %+v\r\n", res)
				fails++
			}
		}
	}
	if fails > 0 {
		os.Exit(1)
	}
	os.Exit(0)
}

// TestRealChildIsHeldToItsRights starts the test binary as agents of a real
// engine: one that drops its token and claims to be the main view gets
// nothing; one that keeps it cannot type into the main view or forge a
// sibling's state, and can close the agent it started.
func TestRealChildIsHeldToItsRights(t *testing.T) {
	e, _ := startAuthzEngine(t)
	sib, err := e.Spawn(control.SpawnRequest{Title: "sibling", Argv: []string{"cat"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"no-token", "own-token"} {
		t.Run(mode, func(t *testing.T) {
			a, err := e.Spawn(control.SpawnRequest{Title: mode, Argv: []string{os.Args[0], "-test.run=^TestAuthzHelperProcess$"},
				Env: map[string]string{authzHelperEnv: mode, "HELPER_SIBLING": sib.ID}})
			if err != nil {
				t.Fatal(err)
			}
			got := waitFinished(t, e, a.ID)
			if got.ExitCode == nil || *got.ExitCode != 0 {
				text, _ := e.Capture(a.ID, false, 100)
				t.Fatalf("the helper agent ended %s (%s):\n%s", got.State, got.Why, text)
			}
		})
	}
	// A process of an agent that leaves the process tree by a double fork
	// still sits in the agent's session.
	t.Run("orphan", func(t *testing.T) {
		a, err := e.Spawn(control.SpawnRequest{Title: "orphan", Argv: []string{"sh", "-c", `("$0" -test.run='^TestAuthzHelperProcess$' &); exec sleep 1000`, os.Args[0]},
			Env: map[string]string{authzHelperEnv: "orphan", "HELPER_ENGINE_PID": strconv.Itoa(os.Getpid())}})
		if err != nil {
			t.Fatal(err)
		}
		var text string
		pollUntil(t, 20*time.Second, "the orphan's verdict", func() bool {
			text, _ = e.Capture(a.ID, false, 100)
			return strings.Contains(text, "ORPHAN-")
		})
		if !strings.Contains(text, "ORPHAN-OK") {
			t.Fatalf("the orphan helper says:\n%s", text)
		}
		_ = e.Close(a.ID)
	})
	if got, _ := e.Agent(sib.ID); !got.State.Alive() || got.Source == "hook:claude" {
		t.Errorf("the sibling is %s from %s, want it alive and untouched", got.State, got.Source)
	}
	if got, _ := e.Agent(control.MainID); !got.State.Alive() {
		t.Errorf("main is %s", got.State)
	}
	text, _ := e.Capture(control.MainID, false, 0)
	if strings.Contains(text, "owned") {
		t.Errorf("text reached the main view:\n%s", text)
	}
}

// TestHookHandlersActForTheUser: a [[hooks]] handler runs inside the session
// (a child of agentgrid) and gets a token with full control, so what it
// asks for is done, where a process of the session without a token is refused.
func TestHookHandlersActForTheUser(t *testing.T) {
	cfg := config.Default()
	cfg.Hooks = []config.Hook{{On: []string{"agent_started"}, Run: []string{os.Args[0], "-test.run=^TestAuthzHelperProcess$"}}}
	dir, err := os.MkdirTemp("", "ag-authz-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	e, err := New(cfg, Options{Session: "authz-hooks", StateDir: t.TempDir(), SocketPath: filepath.Join(dir, "s.sock"),
		Env: append(os.Environ(), authzHelperEnv+"=hook-handler"), Logger: testLogger()})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), []string{"cat"}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	pollUntil(t, 15*time.Second, "the hook handler's status entry", func() bool {
		for _, s := range e.Status().Entries() {
			if s.Key == control.MainID && s.Text == "handled" {
				return true
			}
		}
		return false
	})
}

// TestTokenStaysOutOfCommandLines: the MCP server an agent CLI starts with a
// filtered environment finds the agent's token through a private file, so
// the secret is in no argv (Codex gets its MCP env as a -c argument, and
// argv is shown by list --json and readable by every local user).
func TestTokenStaysOutOfCommandLines(t *testing.T) {
	cfg := config.Default()
	sess := agentcli.Wiring{Session: "s1", Socket: "/run/ag/s1.sock", AgentID: "a1", StateDir: t.TempDir(), Exe: "/opt/ag/agentgrid", Token: newToken()}
	for _, kind := range []string{"claude", "codex", "gemini", "opencode"} {
		argv, env, err := resolveKind(cfg, control.SpawnRequest{Kind: kind, Prompt: "go"}, sess)
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Join(append(argv, env...), "\n")
		// Claude and Gemini read their MCP settings from generated files.
		files, _ := filepath.Glob(filepath.Join(sess.StateDir, "a1-*"))
		for _, f := range files {
			if filepath.Base(f) != "a1-token" {
				b, _ := os.ReadFile(f)
				all += "\n" + string(b)
			}
		}
		if strings.Contains(all, sess.Token) {
			t.Errorf("%s: the token is in its argv, env or settings:\n%s", kind, all)
		}
		if !strings.Contains(all, control.EnvTokenFile) {
			t.Errorf("%s: its MCP server is not told where the token is:\n%s", kind, all)
		}
	}
	path := filepath.Join(sess.StateDir, "a1-token")
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file %s: %v, mode %v; want 0600", path, err, st)
	}
	t.Setenv(control.EnvToken, "")
	t.Setenv(control.EnvTokenFile, path)
	if got := control.TokenFromEnv(); got != sess.Token {
		t.Errorf("TokenFromEnv() = %q, want the token from the file", got)
	}
}

// below reports whether ancestor is among pid's ancestors, from /proc;
// without /proc it reports whether pid has not yet been handed to init.
func below(pid, ancestor int) bool {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		return pid == os.Getpid() && os.Getppid() != 1
	}
	for pid > 1 {
		if pid == ancestor {
			return true
		}
		b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil {
			return false
		}
		// The command name is in parentheses and may hold anything.
		fields := strings.Fields(string(b[bytes.LastIndexByte(b, ')')+1:]))
		if len(fields) < 2 {
			return false
		}
		pid, _ = strconv.Atoi(fields[1])
	}
	return false
}
