package opencode

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The plugin waits for the hook's answer as long as AGENTGRID_HOOK_BUDGET
// lets the hook wait, read when the plugin starts: a hook that answers
// after three seconds (past the default two) is heard with the budget set
// to 2s, and not without it.
func TestPluginFollowsTheHookBudget(t *testing.T) {
	node := needNode(t)
	script := "#!/bin/sh\ncat >/dev/null\nsleep 3\nprintf '{\"block\":\"late but heard\"}'\n"
	driver := pluginImport(t, t.TempDir(), script) + `
const p = await AgentgridPlugin({ directory: "/proj" });
const r = {};
try {
  await p["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c1" }, { args: { command: "ls" } });
  r.result = "went ahead";
} catch (e) { r.result = e.message; }
console.log(JSON.stringify(r));
process.exit(0);
`
	for _, c := range []struct{ budget, want string }{
		{"2s", "late but heard"},
		{"", "went ahead"},
		{"soon", "went ahead"}, // not a duration: the default
	} {
		cmd := exec.Command(node, "--input-type=module", "-e", driver)
		cmd.Env = append(os.Environ(), EnvHookBudget+"="+c.budget)
		b, err := cmd.Output()
		if err != nil {
			t.Fatalf("node: %v\n%s", err, b)
		}
		var r struct{ Result string }
		if err := json.Unmarshal(b, &r); err != nil {
			t.Fatalf("driver printed %q: %v", b, err)
		}
		if r.Result != c.want {
			t.Errorf("%s=%q, a hook answering after 3 s: %q, want %q", EnvHookBudget, c.budget, r.Result, c.want)
		}
	}
}

// The plugin tells the hook when it stops waiting (so that the hook prints
// no answer nobody reads, and the notices in it are offered again), and it
// takes the answer as soon as its line is complete: a hook still busy after
// printing (acknowledging the notices) does not make the plugin miss it.
func TestPluginPassesItsDeadlineAndTakesTheAnswerLine(t *testing.T) {
	node := needNode(t)
	dir := t.TempDir()
	seen := filepath.Join(dir, "deadline")
	script := "#!/bin/sh\ncat >/dev/null\nprintf '%s' \"$" + EnvHookDeadline + "\" > " + seen + "\nprintf '{\"block\":\"answered, then busy\"}\\n'\nsleep 4\n"
	driver := pluginImport(t, dir, script) + `
const p = await AgentgridPlugin({ directory: "/proj" });
const r = { asked: Date.now() };
try {
  await p["tool.execute.before"]({ tool: "bash", sessionID: "s", callID: "c1" }, { args: { command: "ls" } });
  r.result = "went ahead";
} catch (e) { r.result = e.message; }
console.log(JSON.stringify(r));
process.exit(0);
`
	cmd := exec.Command(node, "--input-type=module", "-e", driver)
	cmd.Env = append(os.Environ(), EnvHookBudget+"=")
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("node: %v\n%s", err, b)
	}
	var r struct {
		Result string
		Asked  int64
	}
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatalf("driver printed %q: %v", b, err)
	}
	if r.Result != "answered, then busy" {
		t.Errorf("a hook that printed its answer and then took 4 s to exit: %q, want the block", r.Result)
	}
	got, err := os.ReadFile(seen)
	if err != nil {
		t.Fatal(err)
	}
	deadline, err := strconv.ParseInt(string(got), 10, 64)
	if err != nil || deadline < r.Asked+AskBudget || deadline > r.Asked+AskBudget+1000 {
		t.Errorf("the hook saw %s=%q, want the plugin's deadline, %d ms after it asked at %d", EnvHookDeadline, got, AskBudget, r.Asked)
	}
}
