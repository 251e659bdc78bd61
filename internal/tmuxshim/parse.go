// Package tmuxshim speaks tmux's command language for the programs that
// run inside agentgrid: it parses a tmux command line (tmux's aliases and
// flag grammar), expands tmux formats and turns send-keys key names into
// bytes. The engine executes the parsed commands (orchestrator/tmux*.go);
// the `tmux` entry point of the agentgrid binary (Main) only forwards its
// argv over the control socket, one short process per call.
package tmuxshim

import (
	"fmt"
	"strings"
)

// Version is what `tmux -V` prints: a version every tool that checks it
// accepts (they need at least 3.2).
const Version = "tmux 3.5a"

// spec is one command's flag grammar in getopt form: a letter followed by
// ':' takes an argument. noop commands accept any flags and do nothing.
type spec struct {
	name  string
	flags string
	noop  bool
}

var specs = []spec{
	{name: "display-message", flags: "aCc:d:F:INpt:v"},
	{name: "show-options", flags: "AgHpqst:vw"},
	{name: "show-window-options", flags: "gvt:"},
	{name: "list-panes", flags: "aF:f:st:"},
	{name: "split-window", flags: "bc:de:fF:hIl:p:Pt:vZ"},
	{name: "respawn-pane", flags: "c:e:kt:"},
	{name: "send-keys", flags: "c:FHKlMN:Rt:X"},
	{name: "select-pane", flags: "DdegLlMmP:RT:t:UZ"},
	{name: "set-option", flags: "aFgopqst:uUw"},
	{name: "set-window-option", flags: "aFgoqt:u"},
	{name: "select-layout", flags: "Enopt:"},
	{name: "resize-pane", flags: "DLMRt:Ux:y:Z"},
	{name: "kill-pane", flags: "at:"},
	{name: "kill-window", flags: "at:"},
	{name: "kill-session", flags: "aCt:"},
	{name: "capture-pane", flags: "ab:CeE:JNpPqS:Tt:"},
	{name: "has-session", flags: "t:"},
	{name: "new-session", flags: "Ac:dDe:EF:f:n:Ps:t:x:Xy:"},
	{name: "new-window", flags: "abc:de:F:kn:PSt:"},
	{name: "list-sessions", flags: "F:f:"},
	{name: "list-windows", flags: "aF:f:t:"},
	{name: "join-pane", flags: "bdfhvp:l:s:t:"},
	{name: "break-pane", flags: "abdPF:n:s:t:"},
	{name: "select-window", flags: "lnpTt:"},
	{name: "wait-for", noop: true},
	{name: "set-hook", noop: true},
	{name: "refresh-client", noop: true},
	{name: "source-file", noop: true},
	{name: "attach-session", noop: true},
	{name: "detach-client", noop: true},
	{name: "set-buffer", noop: true},
	{name: "list-buffers", noop: true},
	{name: "set-environment", noop: true},
	{name: "start-server", noop: true},
}

var aliases = map[string]string{
	"display": "display-message", "displayp": "display-message",
	"show": "show-options", "showw": "show-window-options",
	"lsp": "list-panes", "splitw": "split-window", "respawnp": "respawn-pane",
	"send": "send-keys", "selectp": "select-pane", "set": "set-option",
	"setw": "set-window-option", "selectl": "select-layout", "resizep": "resize-pane",
	"killp": "kill-pane", "killw": "kill-window", "capturep": "capture-pane",
	"has": "has-session", "new": "new-session", "neww": "new-window",
	"ls": "list-sessions", "lsw": "list-windows", "joinp": "join-pane",
	"breakp": "break-pane", "selectw": "select-window", "wait": "wait-for",
	"refresh": "refresh-client", "source": "source-file", "attach": "attach-session",
	"a": "attach-session", "at": "attach-session", "detach": "detach-client",
	"setb": "set-buffer", "lsb": "list-buffers", "setenv": "set-environment", "start": "start-server",
}

// Command is one parsed tmux command.
type Command struct {
	// Name is the full command name (aliases resolved).
	Name string
	// NoOp is set for the commands agentgrid accepts and ignores.
	NoOp bool
	// Flags holds the flags without an argument that were given.
	Flags map[byte]bool
	// Opts holds each flag's arguments, in order (-e may repeat).
	Opts map[byte][]string
	// Args are the positional arguments after the flags.
	Args []string
}

// Has reports whether flag f was given.
func (c Command) Has(f byte) bool { return c.Flags[f] || len(c.Opts[f]) > 0 }

// Opt is the last argument of flag f, or "".
func (c Command) Opt(f byte) string {
	if v := c.Opts[f]; len(v) > 0 {
		return v[len(v)-1]
	}
	return ""
}

// Error is a tmux error: the message tmux prints on stderr, exit status 1.
type Error struct{ Msg string }

func (e *Error) Error() string { return e.Msg }

// Errorf makes an Error.
func Errorf(format string, args ...any) *Error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// lookup resolves a command name or alias; unknown names give tmux's
// "unknown command" and an unambiguous prefix is accepted, as tmux does.
func lookup(name string) (spec, *Error) {
	if full, ok := aliases[name]; ok {
		name = full
	}
	var found []spec
	for _, s := range specs {
		if s.name == name {
			return s, nil
		}
		if strings.HasPrefix(s.name, name) {
			found = append(found, s)
		}
	}
	if len(found) == 1 && name != "" {
		return found[0], nil
	}
	if len(found) > 1 {
		return spec{}, Errorf("ambiguous command: %s", name)
	}
	return spec{}, Errorf("unknown command: %s", name)
}

// Parse parses one command's argv (the command name first) with tmux's
// flag grammar: clustered flags (-dPh), an argument attached or in the next
// word (-t%1, -t %1), and "--" or the first non-flag word ending the flags.
func Parse(argv []string) (Command, *Error) {
	if len(argv) == 0 {
		return Command{}, Errorf("no command given")
	}
	s, err := lookup(argv[0])
	if err != nil {
		return Command{}, err
	}
	c := Command{Name: s.name, NoOp: s.noop, Flags: map[byte]bool{}, Opts: map[byte][]string{}}
	if s.noop {
		c.Args = argv[1:]
		return c, nil
	}
	// s.flags lists the command's flags, each one that takes an argument
	// followed by ':' (as getopt's).
	takesArg := func(f byte) bool {
		k := strings.IndexByte(s.flags, f)
		return f != ':' && k >= 0 && k+1 < len(s.flags) && s.flags[k+1] == ':'
	}
	n, err := scanFlags(argv[1:], takesArg,
		func(f byte) *Error { return Errorf("command %s: -%c expects an argument", s.name, f) },
		func(f byte, v string) *Error {
			switch {
			case f == ':' || strings.IndexByte(s.flags, f) < 0:
				return Errorf("command %s: unknown flag -%c", s.name, f)
			case takesArg(f):
				c.Opts[f] = append(c.Opts[f], v)
			default:
				c.Flags[f] = true
			}
			return nil
		})
	if err != nil {
		return Command{}, err
	}
	c.Args = argv[1+n:]
	return c, nil
}

// scanFlags reads the flags at the start of argv with tmux's grammar:
// clustered flags (-dPh), a flag's argument attached or in the next word
// (-t%1, -t %1), and "--" or the first word that is not a flag ending
// them. takesArg says which flags take an argument and missing makes the
// error for one given none; set gets each flag with its argument ("" for a
// flag without one), and an error from it ends the scan. It returns how
// many words of argv the flags took.
func scanFlags(argv []string, takesArg func(f byte) bool, missing func(f byte) *Error, set func(f byte, v string) *Error) (int, *Error) {
	i := 0
	for ; i < len(argv); i++ {
		w := argv[i]
		if w == "--" {
			return i + 1, nil
		}
		if len(w) < 2 || w[0] != '-' {
			break
		}
		for j := 1; j < len(w); j++ {
			f := w[j]
			if !takesArg(f) {
				if err := set(f, ""); err != nil {
					return i, err
				}
				continue
			}
			v := w[j+1:]
			if v == "" {
				if i+1 >= len(argv) {
					return i, missing(f)
				}
				i++
				v = argv[i]
			}
			if err := set(f, v); err != nil {
				return i, err
			}
			break
		}
	}
	return i, nil
}

// SplitCommands splits an argv at tmux's ";" separators (a word ";" or a
// word ending in "\;"), giving one argv per command.
func SplitCommands(argv []string) [][]string {
	var out [][]string
	var cur []string
	for _, w := range argv {
		switch {
		case w == ";" || w == `\;`:
			out = append(out, cur)
			cur = nil
		case strings.HasSuffix(w, `\;`) && !strings.HasSuffix(w, `\\;`):
			cur = append(cur, strings.TrimSuffix(w, `\;`))
			out = append(out, cur)
			cur = nil
		default:
			cur = append(cur, w)
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}
