package orchestrator

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/envlist"
)

var idWordRe = regexp.MustCompile(`^[%@][0-9]+$`)

// Claude Code 2.1.211's recorded calls for a team of two teammates, replayed
// against the real binary: the ids the shim prints are the ids used later,
// each respawned pane really runs its command in the same pane, kill-pane
// retires the id, and the focus never moves.
func TestTmuxClaudeCurrentProtocol(t *testing.T) {
	s := startShimSession(t, nil, nil)
	// Agents that exist already, so the session's ids are not the log's.
	spawn(t, s.e, "sleep", "600")
	spawn(t, s.e, "sleep", "600")

	for id, pane := range map[string]string{"main": "%0", "a2": "%2"} {
		env := s.envOf(id)
		if envlist.Value(env, "TMUX") != s.sock+","+strconv.Itoa(os.Getpid())+",0" || envlist.Value(env, "TMUX_PANE") != pane ||
			!strings.HasPrefix(envlist.Value(env, "PATH"), filepath.Join(s.dir, "bin")+":") {
			t.Fatalf("%s's environment does not lead tmux to agentgrid: TMUX=%q TMUX_PANE=%q PATH=%q",
				id, envlist.Value(env, "TMUX"), envlist.Value(env, "TMUX_PANE"), envlist.Value(env, "PATH"))
		}
	}
	project := t.TempDir()
	teammate := filepath.Join(t.TempDir(), "claude")
	script := "#!/bin/sh\necho \"teammate $4 in $(pwd) pane $TMUX_PANE teams=$CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS\"\nexec sleep 600\n"
	if err := os.WriteFile(teammate, []byte(script), 0o700); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile("testdata/claude-code-2.1.211-tmux-calls.log")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]string{"%0": "%0", "@0": "@0"}
	var fresh []string // ids the shim printed that the log has not used yet
	var killed []string
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	if len(lines) != 36 {
		t.Fatalf("the log has %d calls, want 36", len(lines))
	}
	for n, line := range lines {
		fields := strings.SplitN(line, "\t", 4)
		argv := unquoteLogArgv(fields[3])
		for i, w := range argv {
			switch {
			case i > 0 && argv[i-1] == "-S":
				argv[i] = s.sock // the socket Claude takes from $TMUX
			case idWordRe.MatchString(w):
				if _, ok := ids[w]; !ok {
					if len(fresh) == 0 {
						t.Fatalf("call %d uses %s, which no split-window returned", n+1, w)
					}
					ids[w], fresh = fresh[0], fresh[1:]
				}
				argv[i] = ids[w]
			}
		}
		if i := indexOf(argv, "respawn-pane"); i >= 0 {
			last := len(argv) - 1
			argv[last] = strings.ReplaceAll(strings.ReplaceAll(argv[last], "/opt/claude/versions/2.1.211", teammate), "/work/project", project)
		}
		out := s.ok("main", argv...)
		s.focusStays(strings.Join(argv, " "))
		switch {
		case indexOf(argv, "split-window") >= 0:
			id := strings.TrimSpace(out)
			a := s.agentOfPane(id)
			in, ok := s.e.Agent(a)
			if !ok || in.Parent != "main" {
				t.Fatalf("split-window made %s (%s), want an agent whose parent is the caller: %+v", id, a, in)
			}
			fresh = append(fresh, id)
		case indexOf(argv, "respawn-pane") >= 0:
			id := argv[indexOf(argv, "-t")+1]
			a := s.agentOfPane(id)
			name := "alpha"
			if len(killed) == 0 && strings.Contains(argv[len(argv)-1], "beta@") {
				name = "beta"
			}
			s.waitScreen(a, "teammate "+name+" in "+project+" pane "+id+" teams=1")
			in, _ := s.e.Agent(a)
			if in.State != agentstate.Running || syscall.Kill(in.PID, 0) != nil {
				t.Fatalf("respawned %s is not running: %+v", id, in)
			}
			if in.Title != name {
				t.Fatalf("%s's title = %q, want %q from select-pane -T", id, in.Title, name)
			}
			if want := map[string]string{"alpha": "4", "beta": "2"}[name]; in.Accent != want {
				t.Fatalf("%s's border colour = %q, want %q from pane-border-style", id, in.Accent, want)
			}
		case indexOf(argv, "kill-pane") >= 0:
			id := argv[indexOf(argv, "-t")+1]
			killed = append(killed, id)
			_, errOut, code := s.tmux("main", "display-message", "-t", id, "-p", "#{pane_id}")
			if code != 1 || strings.TrimSpace(errOut) != "can't find pane: "+id {
				t.Fatalf("after kill-pane, display -t %s = %d %q; want tmux's can't find pane", id, code, errOut)
			}
			if strings.Contains(s.ok("main", "list-panes", "-t", "@0", "-F", "#{pane_id}"), id+"\n") {
				t.Fatalf("list-panes still lists killed %s", id)
			}
		case indexOf(argv, "list-panes") >= 0:
			for _, id := range fresh {
				if !strings.Contains(out, id+"\n") {
					t.Fatalf("list-panes does not list %s:\n%s", id, out)
				}
			}
		}
		if strings.Contains(line, "client_termtype") && strings.TrimSpace(out) == "" {
			t.Fatal("display-message -p '#{client_termtype}' printed nothing")
		}
	}
	if len(killed) != 2 {
		t.Fatalf("the replay killed %d teammates, want 2", len(killed))
	}
	// A new pane never gets a retired id.
	id := strings.TrimSpace(s.ok("main", "split-window", "-d", "-P", "-F", "#{pane_id}", "--", "cat"))
	for _, k := range killed {
		if id == k {
			t.Fatalf("split-window reused the retired id %s", k)
		}
	}
	// What the calls were is in the session's state folder when asked for.
	if _, err := os.Stat(filepath.Join(s.dir, "tmux-shim.log")); err == nil {
		t.Fatal("the shim logged without AGENTGRID_TMUX_LOG=1")
	}
}

func indexOf(argv []string, w string) int {
	for i, a := range argv {
		if a == w {
			return i
		}
	}
	return -1
}
