package config

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/agentgrid/agentgrid/internal/agentcli/registry"
)

// TestMalformed decodes broken files and expects every problem, each on its
// line. Expected messages are "line: substring".
func TestMalformed(t *testing.T) {
	isolate(t)
	cases := []struct {
		name string
		doc  string
		want []string
	}{
		{
			name: "unknown keys everywhere",
			doc: `colour = "red"
[layout]
nmae = "tiled"
[ui]
theme = "dark"
blink = true
[kinds.claude]
comand = ["claude"]
[[startup]]
title = "x"
command = ["sh"]
wd = "/tmp"
[[hooks]]
on = ["bell"]
run = ["true"]
retries = 3
[nope]
a = 1
`,
			want: []string{
				`1: unknown key "colour"`,
				`3: unknown key "layout.nmae"`,
				`6: unknown key "ui.blink"`,
				`8: unknown key "kinds.claude.comand"`,
				`12: unknown key "startup[0].wd"`,
				`16: unknown key "hooks[0].retries"`,
				`17: unknown key "nope"`,
			},
		},
		{
			name: "wrong types",
			doc: `[layout]
main_size = "big"
min_agent_width = 12.5
[agents]
start_offscreen = "yes"
scrollback = true
finished_linger = 15
[ui]
theme = 3
[orchestrator]
command = "claude --model opus"
[limits.kinds]
claude = "two"
[keys]
prefix = ["ctrl+b"]
`,
			want: []string{
				`2: layout.main_size: expected an integer, got the string "big"`,
				`3: layout.min_agent_width: expected an integer, got the number 12.5`,
				`5: agents.start_offscreen: expected true or false`,
				`6: agents.scrollback: expected an integer, got true`,
				`7: agents.finished_linger: expected a string, got the integer 15`,
				`9: ui.theme: expected a string`,
				`11: orchestrator.command: expected an array, got the string "claude --model opus"; write ["claude", "--model", "opus"]`,
				`13: limits.kinds.claude: expected an integer`,
				`15: keys.prefix: expected a string, got an array`,
			},
		},
		{
			name: "bad values",
			doc: `[layout]
name = "grid"
main_size = 95
min_agent_width = 9
min_agent_height = 2

[agents]
max_queued = -1
scrollback = -5
kill_grace = "-2s"
idle_after = "5 seconds"

[limits]
default = -3
[limits.kinds]
robot = 1

[keys]
prefix = "ctrl+shift+banana"

[ui]
theme = "neon"
fps = 0

[status]
max_entry_width = 0

[log]
level = "loud"
`,
			want: []string{
				`2: layout.name = "grid": unknown layout`,
				`3: layout.main_size = 95: must be between 20 and 80`,
				`4: layout.min_agent_width = 9: must be between 10 and 500`,
				`5: layout.min_agent_height = 2: must be between 3 and 200`,
				`8: agents.max_queued = -1: must be between 0 and 10000`,
				`9: agents.scrollback = -5: must be between 0 and 1000000`,
				`10: agents.kill_grace = -2s: must be between 0s and 5m`,
				`11: agents.idle_after: "5 seconds" is not a duration`,
				`14: limits.default = -3: must be between 0 and 10000`,
				`16: limits.kinds.robot: no such kind`,
				`19: keys.prefix = "ctrl+shift+banana": unknown key "banana"`,
				`22: ui.theme = "neon": unknown theme`,
				`23: ui.fps = 0: must be between 1 and 120`,
				`26: status.max_entry_width = 0: must be between 1 and 500`,
				`29: log.level = "loud": must be one of debug, info, warn, error`,
			},
		},
		{
			name: "alt arrows",
			doc: `[keys]
prefix = "Alt+Left"
alt_arrows_focus = true
`,
			want: []string{
				`3: keys.alt_arrows_focus = true takes alt+left, the prefix key: turn it off or choose another prefix`,
			},
		},
		{
			name: "alt arrows not a boolean",
			doc: `[keys]
alt_arrows_focus = "yes"
`,
			want: []string{
				`2: keys.alt_arrows_focus: expected true or false`,
			},
		},
		{
			name: "startup, hooks and kinds",
			doc: `[orchestrator]
kind = "gpt"

[[startup]]
title = "nothing"

[[startup]]
title = "ghost"
kind = "robot"

[[startup]]
command = ["go", "test"]
[startup.env]
GOFLAGS = "-count=1"

[[hooks]]
on = ["agent_started", "agent_explodes"]
run = []

[[hooks]]
on = []
run = ["true"]
timeout = "-1s"

[kinds.mine]
command = ["mine"]
hooks = "cursor"
grants = ["send", "everything"]

[kinds.codex]
teams = true

[kinds.claude2]
command = ["/opt/bin/claude"]
teams = true

[kinds.worker]
mcp_tools = ["list_agents", "spawn_everything"]

[kinds.claude3]
command = ["claude"]
omo = true
`,
			want: []string{
				`2: orchestrator.kind = "gpt": no such kind`,
				`4: startup[0] ("nothing"): needs a command or a kind`,
				`9: startup[1].kind = "robot": no such kind`,
				`17: hooks[0].on: unknown event "agent_explodes"`,
				`18: hooks[0].run: needs a command to run`,
				`21: hooks[1].on: list at least one event`,
				`23: hooks[1].timeout = -1s: must be between 0s and 1h`,
				`27: kinds.mine.hooks = "cursor": unknown adapter`,
				`28: kinds.mine.grants: unknown grant "everything"`,
				`31: kinds.codex.teams: agentgrid turns on agent teams only for claude`,
				`38: kinds.worker.mcp_tools: unknown MCP tool "spawn_everything"`,
				`42: kinds.claude3.omo: oh-my-opencode-slim's panes are an OpenCode plugin's`,
			},
		},
		{
			name: "syntax error stops only this file",
			doc:  "[layout]\nname = \"tiled\"\nmain_size = = 3\n",
			want: []string{`3: TOML syntax`},
		},
		{
			name: "values too large",
			doc: `[layout]
min_agent_width = 1000000000
min_agent_height = 1000000000

[agents]
max_queued = 1000000000
scrollback = 1000000000
finished_linger = "25h"
kill_grace = "2562047h"
idle_after = "2562047h"
keep_state = "3651d"

[limits]
default = 1000000000
[limits.kinds]
shell = 10001

[status]
max_entry_width = 100000
stale_after = "100000h"

[[hooks]]
on = ["bell"]
run = ["true"]
timeout = "2h"
`,
			want: []string{
				`2: layout.min_agent_width = 1000000000: must be between 10 and 500`,
				`3: layout.min_agent_height = 1000000000: must be between 3 and 200`,
				`6: agents.max_queued = 1000000000: must be between 0 and 10000`,
				`7: agents.scrollback = 1000000000: must be between 0 and 1000000`,
				`8: agents.finished_linger = 25h0m0s: must be between 0s and 24h`,
				`9: agents.kill_grace = 2562047h0m0s: must be between 0s and 5m`,
				`10: agents.idle_after = 2562047h0m0s: must be between 0s and 24h`,
				`11: agents.keep_state = 87624h0m0s: must be between 0s and 87600h`,
				`14: limits.default = 1000000000: must be between 0 and 10000`,
				`16: limits.kinds.shell = 10001: must be between 0 and 10000`,
				`19: status.max_entry_width = 100000: must be between 1 and 500`,
				`20: status.stale_after = 100000h0m0s: must be between 0s and 24h`,
				`25: hooks[0].timeout = 2h0m0s: must be between 0s and 1h`,
			},
		},
		{
			name: "unclosed table header: its own line, not the next",
			doc:  "[layout]\nname = \"tiled\"\n[ui\nfps = 30\n",
			want: []string{`3: TOML syntax`},
		},
		{
			name: "value missing at the end of a line",
			doc:  "[ui]\nfps = \n[layout]\n",
			want: []string{`2: TOML syntax`},
		},
		{
			name: "duplicate key",
			doc:  "[ui]\nfps = 30\nfps = 40\n",
			want: []string{`3: TOML syntax`},
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, diags := Decode(Default(), "f.toml", []byte(c.doc))
			var got []string
			for _, d := range diags {
				if d.File != "f.toml" {
					t.Errorf("diagnostic without the file: %v", d)
				}
				got = append(got, fmt.Sprintf("%d: %s", d.Line, d.Msg))
			}
			if len(got) != len(c.want) {
				t.Fatalf("got %d problems, want %d:\n%s", len(got), len(c.want), strings.Join(got, "\n"))
			}
			for i, w := range c.want {
				if !strings.HasPrefix(got[i], w) {
					t.Errorf("problem %d:\n got %q\nwant prefix %q", i, got[i], w)
				}
			}
		})
	}
}

func TestValidateDefaultAndBad(t *testing.T) {
	isolate(t)
	if d := Validate(Default()); len(d) != 0 {
		t.Fatalf("Default() is invalid: %v", d)
	}
	cfg := Default()
	cfg.Layout.MainSize = 5
	cfg.UI.Theme = "nope"
	d := Validate(cfg)
	if len(d) != 2 || d[0].File != "" || !strings.Contains(d[0].String(), "main_size = 5") {
		t.Errorf("Validate = %v", d)
	}
}

func TestEventsMatchExample(t *testing.T) {
	for _, ev := range Events {
		if !strings.Contains(ExampleTOML(), ev) {
			t.Errorf("event %s is not documented in the example", ev)
		}
	}
	for _, a := range registry.Adapters() {
		if _, ok := DefaultKinds()[a]; !ok {
			t.Errorf("adapter %s has no default kind", a)
		}
	}
	if !slices.Contains(BuiltinThemes, Default().UI.Theme) {
		t.Error("default theme is not built in")
	}
}

func TestParseKey(t *testing.T) {
	good := map[string]string{
		"ctrl+b":         "ctrl+b",
		"ctrl+a":         "ctrl+a",
		"alt+space":      "alt+space",
		"ctrl+]":         "ctrl+]",
		"Ctrl+B":         "ctrl+b",
		"alt+ctrl+x":     "ctrl+alt+x",
		"shift+ctrl+tab": "ctrl+shift+tab",
		"ctrl+@":         "ctrl+@",
		"`":              "`",
		"f12":            "f12",
		"ctrl+F5":        "ctrl+f5",
		"ctrl++":         "ctrl++",
		"+":              "+",
		"super+enter":    "super+enter",
		"alt+escape":     "alt+esc",
		" ctrl+b ":       "ctrl+b",
	}
	for in, want := range good {
		got, err := NormalizeKey(in)
		if err != nil || got != want {
			t.Errorf("NormalizeKey(%q) = %q, %v; want %q", in, got, err, want)
		}
		if err := ParseKey(in); err != nil {
			t.Errorf("ParseKey(%q) = %v", in, err)
		}
	}
	bad := map[string]string{
		"":            "empty",
		"ctrl+":       "unknown key",
		"control+b":   "unknown modifier",
		"ctrl+ctrl+b": "twice",
		"ctrl+banana": "unknown key",
		"alt+B":       "shift+b",
		"\x02":        "control character",
		"ctrl+b+c":    "unknown modifier",
	}
	for in, want := range bad {
		err := ParseKey(in)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseKey(%q) = %v, want an error containing %q", in, err, want)
		}
	}
}

func TestScanLines(t *testing.T) {
	doc := `# comment = 1
top = "a # not a comment = x"
list = [
  "x = 1",
  "[not.a.table]",
]
text = """
fake = 2
"""
"quoted.key" = 1
a.b.c = 2
[tbl]   # trailing comment
k = { inline = 1 }
[[arr]]
x = 1
[[arr]]
x = 2
[arr.sub]
y = 3
[ 'other' . "t" ]
z = 4
`
	lines := scanLines(doc)
	want := map[string]int{
		"top": 2, "list": 3, "text": 7, "quoted.key": 10, "a.b.c": 11, "tbl": 12, "tbl.k": 13,
		"arr": 14, "arr.0": 14, "arr.0.x": 15, "arr.1": 16, "arr.1.x": 17, "arr.1.sub": 18, "arr.1.sub.y": 19,
		"other.t": 20, "other.t.z": 21,
	}
	for k, l := range want {
		if lines[k] != l {
			t.Errorf("line of %s = %d, want %d", k, lines[k], l)
		}
	}
	for _, k := range []string{"comment", "fake", "not.a.table", "x = 1"} {
		if _, ok := lines[k]; ok {
			t.Errorf("%q recorded from inside a string or comment", k)
		}
	}
}

// [ui] notify_on names known events only, [clipboard] pane_osc52 is off or
// write: anything else is reported with its key.
func TestValidateNoticesAndClipboard(t *testing.T) {
	isolate(t)
	cfg := Default()
	cfg.UI.NotifyOn = []string{"waiting", "finished"}
	cfg.Clipboard.PaneOSC52 = "read"
	d := Validate(cfg)
	var got []string
	for _, x := range d {
		got = append(got, x.String())
	}
	all := strings.Join(got, "\n")
	if len(d) != 2 || !strings.Contains(all, `ui.notify_on: "finished" is not an event`) || !strings.Contains(all, `clipboard.pane_osc52 = "read"`) {
		t.Errorf("Validate = %v", got)
	}
	cfg.UI.NotifyOn = []string{"done", "failed"}
	cfg.Clipboard.PaneOSC52 = PaneOSC52Write
	if d := Validate(cfg); len(d) != 0 {
		t.Errorf("valid settings refused: %v", d)
	}
}
