package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/agentgrid/agentgrid/internal/agentcli"
	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
	"github.com/agentgrid/agentgrid/internal/control"
)

func init() {
	register(benchSection{
		Name: "clihooks",
		About: "hook event -> state on screen with each real CLI's hook process: a payload recorded live, fed to the hook " +
			"command line the CLI's preset wires (run as the CLI runs it), beside a tmux client round trip; needs the live cache (make live)",
		Run: runCLIHooksBench,
	})
}

// chCLI is one CLI of the section: the recorded payload (a permission
// request: the agent waits, its reason on screen) and the text in it that
// each run replaces with a fresh token.
type chCLI struct {
	name, pkg, fixture, token string
	// event is the hook event whose command line the payload is fed to.
	event string
}

var chCLIs = []chCLI{
	{"claude", "@anthropic-ai/claude-code", "live_permission_request", "live-file3.txt", "PermissionRequest"},
	{"codex", "@openai/codex", "live_permission_request", "cx-file.txt", "PermissionRequest"},
	{"gemini", "@google/gemini-cli", "live_notification_exec", "g-file.txt", "Notification"},
	{"opencode", "opencode-ai", "live_permission_asked", "oc-file.txt", "permission.asked"},
}

func runCLIHooksBench(o benchOptions) ([]benchRow, error) {
	versions, why := chLiveCache()
	if why != "" {
		fmt.Fprintln(os.Stderr, "clihooks: skipped:", why)
		return nil, nil
	}
	n := max(hbMinRuns, 10*o.Runs)
	e, err := newWBEnv(os.Stderr)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(e.dir)
	tm, tmuxErr := startBenchTmux("clihooks")
	if tmuxErr == nil {
		defer tm.close()
	}
	s, err := e.startAgentgrid("main-vertical", hbCols, hbRows)
	if err != nil {
		return nil, err
	}
	defer s.close()
	root, err := wbRepoRoot()
	if err != nil {
		return nil, err
	}
	var rows []benchRow
	fmt.Fprintf(os.Stderr, "clihooks: median (p90) of %d runs, from starting the CLI's hook process to the new reason on agentgrid's screen\n", n)
	for _, c := range chCLIs {
		payload, err := os.ReadFile(filepath.Join(root, "internal", "agentcli", c.name, "testdata", c.fixture+".json"))
		if err != nil {
			return rows, fmt.Errorf("read the recorded %s payload: %w", c.name, err)
		}
		if !bytes.Contains(payload, []byte(c.token)) {
			return rows, fmt.Errorf("the recorded %s payload %s no longer holds %q; update the clihooks bench", c.name, c.fixture, c.token)
		}
		argv, how, err := chHookArgv(c, e)
		if err != nil {
			return rows, err
		}
		ctx, cancel := wbCall()
		a, err := s.client.Spawn(ctx, control.SpawnParams{Title: c.name, Argv: []string{"cat"}})
		cancel()
		if err != nil {
			return rows, fmt.Errorf("spawn the agent the %s hook events are for: %w", c.name, err)
		}
		// The CLI runs its hooks with its own environment: the agent's,
		// with the agent's id and token.
		token, err := chAgentToken(a.PID)
		if err != nil {
			return rows, err
		}
		env := append(append([]string{}, e.env...), "AGENTGRID_SOCKET="+s.client.Path(), "AGENTGRID_AGENT_ID="+a.ID, "AGENTGRID_TOKEN="+token)
		var ms, tmuxMS []float64
		for i := -2; i < n; i++ { // two warm-up rounds
			want := fmt.Sprintf("%s-%04d", c.name, i+2)
			cmd := exec.Command(argv[0], argv[1:]...)
			cmd.Env = env
			cmd.Stdin = bytes.NewReader(bytes.Replace(payload, []byte(c.token), []byte(want), 1))
			var stderr bytes.Buffer
			cmd.Stdout, cmd.Stderr = &stderr, &stderr
			select { // forget changes already seen
			case <-s.term.changed:
			default:
			}
			start := time.Now()
			if err := cmd.Start(); err != nil {
				return rows, fmt.Errorf("start the %s hook process %q: %w", c.name, argv, err)
			}
			err := s.term.waitScreen(5*time.Second, func(sc string) bool { return strings.Contains(sc, want) })
			d := time.Since(start)
			_ = cmd.Wait()
			if err != nil {
				ctx, cancel := wbCall()
				got, _ := s.client.Agent(ctx, a.ID)
				cancel()
				return rows, fmt.Errorf("%s: the reason %q of a hook event never reached the screen: %w (the hook process said %q; the agent is %s: %q)", c.name, want, err, stderr.String(), got.State, got.Why)
			}
			var dt time.Duration
			if tmuxErr == nil {
				if dt, err = hbTimeTmux(tm); err != nil {
					return rows, err
				}
			}
			if i < 0 {
				continue
			}
			ms = append(ms, wbMS(d))
			if tmuxErr == nil {
				tmuxMS = append(tmuxMS, wbMS(dt))
			}
		}
		r := benchRow{
			Metric:    fmt.Sprintf("%s %s: %s via %s -> reason on screen (tmux: display-message -p x)", c.name, versions[c.pkg], c.event, how),
			Agentgrid: hbMedP90(ms, "ms"),
		}
		if tmuxErr == nil {
			r.Tmux = hbMedP90(tmuxMS, "ms")
			r.Ratio = ratio(median(ms), median(tmuxMS))
		}
		rows = append(rows, r)
	}
	return rows, tmuxErr
}

// chHookArgv is the process the CLI starts for one hook event, from the
// wiring agentgrid generates for it: Claude Code, Codex and Gemini CLI run
// the command line of their settings with /bin/sh -c; OpenCode's plugin
// (generated by agentgrid) starts `agentgrid hook opencode` itself.
func chHookArgv(c chCLI, e *wbEnv) (argv []string, how string, err error) {
	cli, ok := registry.Lookup(c.name)
	if !ok {
		return nil, "", fmt.Errorf("no CLI %q in the registry", c.name)
	}
	w := agentcli.Wiring{Session: "bench", AgentID: c.name, StateDir: filepath.Join(e.dir, "wiring"), Exe: e.bin, Hooks: true}
	// Gemini's wiring reads the user's Gemini home: give it an empty one.
	wargv, wenv, err := cli.Wire(w, []string{c.name}, []string{"GEMINI_CLI_HOME=" + filepath.Join(e.dir, "gemini-user")})
	if err != nil {
		return nil, "", fmt.Errorf("wire %s: %w", c.name, err)
	}
	var command string
	switch c.name {
	case "claude":
		command, err = chSettingsCommand(chArgAfter(wargv, "--settings"), c.event)
	case "gemini":
		command, err = chSettingsCommand(filepath.Join(chEnv(wenv, "GEMINI_CLI_HOME"), ".gemini", "settings.json"), c.event)
	case "codex":
		command, err = chCodexCommand(wargv, c.event)
	case "opencode":
		// The plugin's spawn(EXE, ["hook", "opencode"]), no shell.
		plugin, err := os.ReadFile(filepath.Join(w.StateDir, w.AgentID+"-opencode-plugin.js"))
		if err != nil || !strings.Contains(chEnv(wenv, "OPENCODE_CONFIG_CONTENT"), "opencode-plugin.js") ||
			!bytes.Contains(plugin, []byte(strconv.Quote(e.bin))) || !bytes.Contains(plugin, []byte(`spawn(EXE, ["hook", "opencode"]`)) {
			return nil, "", fmt.Errorf("the OpenCode wiring no longer spawns agentgrid hook opencode from its plugin (%v); update the clihooks bench", err)
		}
		return []string{e.bin, "hook", "opencode"}, "its plugin's spawn of agentgrid hook opencode", nil
	}
	if err != nil {
		return nil, "", fmt.Errorf("%s: find the %s hook command: %w", c.name, c.event, err)
	}
	return []string{"/bin/sh", "-c", command}, "sh -c '" + strings.Replace(command, e.bin, "agentgrid", 1) + "'", nil
}

// chSettingsCommand reads the last command hook of event from a Claude
// Code or Gemini CLI settings file (agentgrid's comes after the user's).
func chSettingsCommand(path, event string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	var s struct {
		Hooks map[string][]agentcli.HookGroup `json:"hooks"`
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	groups := s.Hooks[event]
	if len(groups) == 0 || len(groups[len(groups)-1].Hooks) == 0 {
		return "", fmt.Errorf("%s subscribes no command to %s", path, event)
	}
	return groups[len(groups)-1].Hooks[0].Command, nil
}

var chCodexRE = regexp.MustCompile(`command=("(?:[^"\\]|\\.)*")`)

// chCodexCommand reads the command of event from Codex's -c hooks.<event>=….
func chCodexCommand(argv []string, event string) (string, error) {
	for i, a := range argv {
		if i > 0 && argv[i-1] == "-c" && strings.HasPrefix(a, "hooks."+event+"=") {
			if m := chCodexRE.FindStringSubmatch(a); m != nil {
				return strconv.Unquote(m[1])
			}
		}
	}
	return "", fmt.Errorf("no -c hooks.%s in %q", event, argv)
}

func chArgAfter(argv []string, flag string) string {
	for i := 1; i < len(argv); i++ {
		if argv[i-1] == flag {
			return argv[i]
		}
	}
	return ""
}

func chEnv(env []string, key string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], key+"="); ok {
			return v
		}
	}
	return ""
}

// chLiveCache reports the pinned CLI versions (package -> version) when the
// live suite's cache holds them installed, else why the section skips.
func chLiveCache() (map[string]string, string) {
	root, err := wbRepoRoot()
	if err != nil {
		return nil, err.Error()
	}
	data, err := os.ReadFile(filepath.Join(root, "live", "versions"))
	if err != nil {
		return nil, "read live/versions: " + err.Error()
	}
	cache := os.Getenv("AGENTGRID_LIVE_CACHE")
	if cache == "" {
		d, err := os.UserCacheDir()
		if err != nil {
			return nil, "no cache folder: " + err.Error()
		}
		cache = filepath.Join(d, "agentgrid-live")
	}
	sum := sha256.Sum256(data)
	prefix := filepath.Join(cache, "npm-"+hex.EncodeToString(sum[:6]))
	if stamp, err := os.ReadFile(filepath.Join(prefix, "installed")); err != nil || !bytes.Equal(stamp, data) {
		return nil, fmt.Sprintf("the live cache %s does not hold the CLIs of live/versions; run `make live` once to install them", prefix)
	}
	versions := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		if f := strings.Fields(sc.Text()); len(f) == 2 && !strings.HasPrefix(f[0], "#") {
			versions[f[0]] = f[1]
		}
	}
	return versions, ""
}

// chAgentToken reads AGENTGRID_TOKEN from the environment of the agent's
// process, which a CLI's hook processes inherit. The spawn returns once the
// program's exec is committed, and Linux sets up the new environment a
// moment later: until then /proc shows none, so it is read again until the
// token shows or 5 s passed.
func chAgentToken(pid int) (string, error) {
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
		if err != nil {
			return "", fmt.Errorf("read the agent's environment for its token: %w", err)
		}
		for _, kv := range strings.Split(string(b), "\x00") {
			if v, ok := strings.CutPrefix(kv, "AGENTGRID_TOKEN="); ok {
				return v, nil
			}
		}
		if time.Now().After(deadline) {
			return "", errors.New("the agent's environment has no AGENTGRID_TOKEN")
		}
		time.Sleep(time.Millisecond) // polling /proc for the exec to finish
	}
}
