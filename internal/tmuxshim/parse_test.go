package tmuxshim

import (
	"reflect"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		argv  []string
		name  string
		flags string // letters of the argument-less flags given, sorted
		opts  map[byte][]string
		args  []string
		err   string
	}{
		{argv: []string{"splitw", "-dPh", "-t%0", "-l", "70%", "-F", "#{pane_id}", "--", "cat"},
			name: "split-window", flags: "Pdh", opts: map[byte][]string{'t': {"%0"}, 'l': {"70%"}, 'F': {"#{pane_id}"}}, args: []string{"cat"}},
		{argv: []string{"split-window", "-e", "A=1", "-e", "B=2", "-v", "sh -c 'x'"},
			name: "split-window", flags: "v", opts: map[byte][]string{'e': {"A=1", "B=2"}}, args: []string{"sh -c 'x'"}},
		{argv: []string{"send-keys", "-t", "%3", "-l", "--", "-not-a-flag"},
			name: "send-keys", flags: "l", opts: map[byte][]string{'t': {"%3"}}, args: []string{"-not-a-flag"}},
		{argv: []string{"select-pane", "-t", "%1", "-P", "bg=default,fg=blue"},
			name: "select-pane", opts: map[byte][]string{'t': {"%1"}, 'P': {"bg=default,fg=blue"}}},
		{argv: []string{"show", "-Av", "mouse"}, name: "show-options", flags: "Av", args: []string{"mouse"}},
		{argv: []string{"display", "-p", "#{client_termtype}"}, name: "display-message", flags: "p", args: []string{"#{client_termtype}"}},
		{argv: []string{"lsp", "-a"}, name: "list-panes", flags: "a"},
		{argv: []string{"list-p", "-a"}, name: "list-panes", flags: "a"}, // an unambiguous prefix
		{argv: []string{"wait-for", "-S", "x"}, name: "wait-for", args: []string{"-S", "x"}},
		{argv: []string{"frobnicate"}, err: "unknown command: frobnicate"},
		{argv: []string{"list"}, err: "ambiguous command: list"},
		{argv: []string{"split-window", "-q"}, err: "command split-window: unknown flag -q"},
		{argv: []string{"split-window", "-l"}, err: "command split-window: -l expects an argument"},
	}
	for _, tt := range tests {
		c, err := Parse(tt.argv)
		if tt.err != "" {
			if err == nil || err.Msg != tt.err {
				t.Errorf("Parse(%q) error = %v, want %q", tt.argv, err, tt.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.argv, err)
			continue
		}
		var got []string
		for f := range c.Flags {
			got = append(got, string(f))
		}
		flags := sortedJoin(got)
		if c.Name != tt.name || flags != tt.flags || !reflect.DeepEqual(c.Args, orEmpty(tt.args)) || !reflect.DeepEqual(c.Opts, orEmptyOpts(tt.opts)) {
			t.Errorf("Parse(%q) = %s flags=%q opts=%q args=%q; want %s %q %q %q", tt.argv, c.Name, flags, c.Opts, c.Args, tt.name, tt.flags, tt.opts, tt.args)
		}
	}
}

func sortedJoin(s []string) string {
	for i := range s {
		for j := i + 1; j < len(s); j++ {
			if s[j] < s[i] {
				s[i], s[j] = s[j], s[i]
			}
		}
	}
	return strings.Join(s, "")
}

func orEmpty(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

func orEmptyOpts(m map[byte][]string) map[byte][]string {
	if m == nil {
		return map[byte][]string{}
	}
	return m
}

func TestSplitCommands(t *testing.T) {
	got := SplitCommands([]string{"send-keys", "-t", "%1", "C-c", ";", "kill-pane", "-t", `%1\;`, "lsp"})
	want := [][]string{{"send-keys", "-t", "%1", "C-c"}, {"kill-pane", "-t", "%1"}, {"lsp"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("SplitCommands = %q, want %q", got, want)
	}
}

func TestParseGlobals(t *testing.T) {
	g, err := ParseGlobals([]string{"-S", "/run/x.sock", "-u2", "-Lname", "display-message", "-p", "x"})
	if err != nil || g.Socket != "/run/x.sock" || !reflect.DeepEqual(g.Argv, []string{"display-message", "-p", "x"}) {
		t.Fatalf("ParseGlobals = %+v, %v", g, err)
	}
	if g, err := ParseGlobals([]string{"-V"}); err != nil || !g.Version {
		t.Fatalf("-V = %+v, %v", g, err)
	}
	if _, err := ParseGlobals([]string{"-C", "attach"}); err == nil {
		t.Fatal("control mode must be refused")
	}
	if g, err := ParseGlobals([]string{"-f/dev/null", "--", "-V"}); err != nil || g.Version || !reflect.DeepEqual(g.Argv, []string{"-V"}) {
		t.Fatalf("-- ends the flags: %+v, %v", g, err)
	}
	for _, c := range []struct {
		argv []string
		want string
	}{
		{[]string{"-L"}, "-L expects an argument"},
		{[]string{"-uc", "ls"}, "agentgrid's tmux does not run shell commands with -c"},
		{[]string{"-ux", "ls"}, "unknown option -- x"},
	} {
		if _, err := ParseGlobals(c.argv); err == nil || err.Msg != c.want {
			t.Errorf("ParseGlobals(%q) error = %v, want %q", c.argv, err, c.want)
		}
	}
}

func TestExpand(t *testing.T) {
	vars := Vars(func(n string) (string, bool) {
		v, ok := map[string]string{
			"pane_id": "%3", "pane_active": "1", "window_active": "0", "session_name": "work",
			"window_index": "0", "pane_title": "alpha", "@omo_url": "http://x", "pane_width": "80",
		}[n]
		return v, ok
	})
	for _, tt := range []struct{ in, want string }{
		{"#{pane_id}", "%3"},
		{"#{session_name}:#{window_index}", "work:0"},
		{"#{pane_id}\t#{pane_width}\t#{@omo_url}\t#{nope}|", "%3\t80\thttp://x\t|"},
		{"#{?pane_active,yes,no} #{?window_active,yes,no}", "yes no"},
		{"#{?#{==:#{pane_id},%3},match,miss}", "match"},
		{"#{==:#{pane_id},%4} #{!=:a,b} #{||:0,1} #{&&:1,0}", "0 1 1 0"},
		{"## #D #S #T", "# %3 work alpha"},
		{"#[fg=blue,bold] #{pane_title} #[default]", "#[fg=blue,bold] alpha #[default]"},
		{"#{?pane_active,a,b,c}", "a"},
		{"broken #{pane_id", "broken #{pane_id"},
	} {
		if got := Expand(tt.in, vars); got != tt.want {
			t.Errorf("Expand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSendKeysInput(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{[]string{"send-keys", "-t", "%1", "echo hi", "Enter"}, "echo hi\r"},
		{[]string{"send-keys", "C-c"}, "\x03"},
		{[]string{"send-keys", "-l", "Enter"}, "Enter"},
		{[]string{"send-keys", "-H", "41", "0d"}, "A\r"},
		{[]string{"send-keys", "M-x", "Escape", "BSpace", "Up", "F5", "C-m", "KPEnter", "Tab", "Space", "^a"}, "\x1bx\x1b\x7f\x1b[A\x1b[15~\r\r\t \x01"},
		{[]string{"send-keys", "-N", "3", "x"}, "xxx"},
	} {
		c, perr := Parse(tt.argv)
		if perr != nil {
			t.Fatal(perr)
		}
		got, err := SendKeysInput(c)
		if err != nil || got != tt.want {
			t.Errorf("SendKeysInput(%q) = %q, %v; want %q", tt.argv, got, err, tt.want)
		}
	}
	c, _ := Parse([]string{"send-keys", "-X", "cancel"})
	if _, err := SendKeysInput(c); err == nil {
		t.Error("send-keys -X (copy mode) must fail")
	}
}

func TestStyleForeground(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"bg=default,fg=blue", "4"},
		{"fg=brightred", "9"},
		{"fg=colour208,bold", "208"},
		{"fg=#FF8800", "#ff8800"},
		{"fg=#ff88", ""},
		{"fg=default", ""},
		{"bg=red", ""},
		{"fg=colour999", ""},
		{"fg=\x1b]52;c;x\x07", ""},
	} {
		if got := StyleForeground(tt.in); got != tt.want {
			t.Errorf("StyleForeground(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
