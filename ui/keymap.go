package ui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/bubbles/v2/key"
)

// keyMode is the context in which a binding applies.
type keyMode int

const (
	// modeDirect bindings work at any time, without the prefix.
	modeDirect keyMode = iota
	// modePrefix bindings follow the prefix key.
	modePrefix
	// modeScroll bindings apply while a pane is in scrollback mode.
	modeScroll
	// modeSelect bindings apply while text is marked for copying, before
	// the scrollback mode's.
	modeSelect
	// modeAgents bindings apply in the agents overlay.
	modeAgents
	// modeHelp bindings apply in the help overlay.
	modeHelp
)

// modeNames are the section titles of the help overlay and docs/KEYS.md, in
// the order they are shown.
var modeNames = []struct {
	mode  keyMode
	title string
	intro string
}{
	{modePrefix, "After the prefix", "Press the prefix key (default ctrl+b), release it, then one of these keys."},
	{modeDirect, "Without the prefix", "These work at any time. Every other key goes to the focused pane."},
	{modeScroll, "Scrollback mode", "Entered with prefix [ or the mouse wheel; the pane stops following its output. The word motions stop where tmux's vi copy mode does: a word is letters, digits and _, or a run of other punctuation; W, B and E know only spaces."},
	{modeSelect, "Marking text to copy", "While the copy cursor shows (h, l, 0, $, a word motion or v in scrollback mode show it). The copy goes to your terminal's clipboard (OSC 52) and to the session's paste buffers (agentgrid paste). Dragging with the mouse over a pane whose program does not take the mouse marks and copies too."},
	{modeAgents, "Agents overlay", "Opened with prefix w: every agent, visible, queued, off screen or finished."},
	{modeHelp, "Help overlay", "Opened with prefix ?."},
}

// action is what a binding does.
type action int

const (
	actNone action = iota
	actSendPrefix
	actNewAgent
	actFocusLeft
	actFocusRight
	actFocusUp
	actFocusDown
	actFocusNumber
	actGoTo
	actZoom
	actClose
	actLayoutCycle
	actScrollMode
	actAgents
	actHelp
	actRedraw
	actTheme
	actCommand
	actRecord
	actDetach
	actQuit
	actLoopStop

	actScrollUp
	actScrollDown
	actScrollPageUp
	actScrollPageDown
	actScrollHalfUp
	actScrollHalfDown
	actScrollTop
	actScrollBottom
	actSearchForward
	actSearchBackward
	actSearchNext
	actSearchPrev
	actScrollExit
	actSelectStart
	actCursorLeft
	actCursorRight
	actCursorUp
	actCursorDown
	actCursorLineStart
	actCursorLineEnd
	actWordNext
	actWordPrev
	actWordEnd
	actSpaceWordNext
	actSpaceWordPrev
	actSpaceWordEnd
	actCopy
	actSelectCancel

	actListUp
	actListDown
	actListShow
	actListClose
	actOverlayExit
)

// binding is one row of the keymap: it drives key routing, the help overlay
// and docs/KEYS.md alike, so the three can never disagree.
type binding struct {
	// keys are matched against a key press's String() and Keystroke();
	// "prefix" stands for the configured prefix key.
	keys   []string
	action action
	desc   string
	mode   keyMode
	// opt is the config option the binding needs; 0 for none.
	opt keyOption
}

// keyOption is a binding that the config turns on.
type keyOption int

const (
	// optAltArrows: alt+arrow focus moves, [keys] alt_arrows_focus. Off by
	// default as in tmux, so that vim, mc and readline get those keys.
	optAltArrows keyOption = 1 + iota
)

// keyOptions are the optional bindings the config turned on.
type keyOptions struct {
	altArrows bool
}

// has reports whether the binding's option, if any, is on.
func (o keyOptions) has(opt keyOption) bool {
	switch opt {
	case optAltArrows:
		return o.altArrows
	}
	return true
}

// optionNote names the config setting an optional binding needs, for the
// generated docs.
func optionNote(opt keyOption) string {
	switch opt {
	case optAltArrows:
		return " (with `[keys] alt_arrows_focus = true`)"
	}
	return ""
}

// prefixToken stands for the configured prefix key in the keymap.
const prefixToken = "prefix"

// keymap is agentgrid's complete key table.
var keymap = []binding{
	{[]string{prefixToken}, actSendPrefix, "send the prefix key itself to the focused pane", modePrefix, 0},
	{[]string{"c"}, actNewAgent, "new agent: prompt for a command line", modePrefix, 0},
	{[]string{"left", "h"}, actFocusLeft, "focus the pane to the left", modePrefix, 0},
	{[]string{"right", "l"}, actFocusRight, "focus the pane to the right", modePrefix, 0},
	{[]string{"up", "k"}, actFocusUp, "focus the pane above", modePrefix, 0},
	{[]string{"down", "j"}, actFocusDown, "focus the pane below", modePrefix, 0},
	{[]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, actFocusNumber, "focus agent N as on its border (0 = main view)", modePrefix, 0},
	{[]string{"'"}, actGoTo, "go to any agent: prompt for its number, id or title", modePrefix, 0},
	{[]string{"z"}, actZoom, "zoom the focused pane / unzoom", modePrefix, 0},
	{[]string{"x"}, actClose, "close the focused agent (asks while it runs)", modePrefix, 0},
	{[]string{"space", "L"}, actLayoutCycle, "next layout", modePrefix, 0},
	{[]string{"[", "pgup"}, actScrollMode, "scrollback mode for the focused pane", modePrefix, 0},
	{[]string{"w"}, actAgents, "agents overlay", modePrefix, 0},
	{[]string{"?"}, actHelp, "this help", modePrefix, 0},
	{[]string{":"}, actCommand, "command prompt: theme NAME (or auto)", modePrefix, 0},
	{[]string{"T"}, actTheme, "next colour theme: the built-in, then your own files", modePrefix, 0},
	{[]string{"R"}, actRecord, "start / stop recording the screen (asciicast)", modePrefix, 0},
	{[]string{"r"}, actRedraw, "redraw every row (another program wrote over it)", modePrefix, 0},
	{[]string{"d"}, actDetach, "detach: leave the session running (agentgrid attach)", modePrefix, 0},
	{[]string{"q"}, actQuit, "quit the session for every terminal (asks while agents run)", modePrefix, 0},
	{[]string{"S"}, actLoopStop, "stop the focused agent's continuation loop", modePrefix, 0},

	{[]string{"alt+left"}, actFocusLeft, "focus the pane to the left", modeDirect, optAltArrows},
	{[]string{"alt+right"}, actFocusRight, "focus the pane to the right", modeDirect, optAltArrows},
	{[]string{"alt+up"}, actFocusUp, "focus the pane above", modeDirect, optAltArrows},
	{[]string{"alt+down"}, actFocusDown, "focus the pane below", modeDirect, optAltArrows},

	{[]string{"up", "k"}, actScrollUp, "one line up", modeScroll, 0},
	{[]string{"down", "j"}, actScrollDown, "one line down", modeScroll, 0},
	{[]string{"pgup"}, actScrollPageUp, "one page up", modeScroll, 0},
	{[]string{"pgdown", "ctrl+f", "space"}, actScrollPageDown, "one page down", modeScroll, 0},
	{[]string{"ctrl+u"}, actScrollHalfUp, "half a page up", modeScroll, 0},
	{[]string{"ctrl+d"}, actScrollHalfDown, "half a page down", modeScroll, 0},
	{[]string{"g", "home"}, actScrollTop, "oldest line", modeScroll, 0},
	{[]string{"G", "end"}, actScrollBottom, "newest line", modeScroll, 0},
	{[]string{"/"}, actSearchForward, "search towards newer lines", modeScroll, 0},
	{[]string{"?"}, actSearchBackward, "search towards older lines", modeScroll, 0},
	{[]string{"n"}, actSearchNext, "repeat the search", modeScroll, 0},
	{[]string{"N"}, actSearchPrev, "repeat the search the other way", modeScroll, 0},
	{[]string{"v"}, actSelectStart, "start marking text at the copy cursor", modeScroll, 0},
	{[]string{"left", "h"}, actCursorLeft, "copy cursor left", modeScroll, 0},
	{[]string{"right", "l"}, actCursorRight, "copy cursor right", modeScroll, 0},
	{[]string{"0"}, actCursorLineStart, "copy cursor to the start of the line", modeScroll, 0},
	{[]string{"$"}, actCursorLineEnd, "copy cursor to the end of the line's text", modeScroll, 0},
	{[]string{"w"}, actWordNext, "copy cursor to the next word's start", modeScroll, 0},
	{[]string{"b"}, actWordPrev, "copy cursor to the word's start, or the previous word's", modeScroll, 0},
	{[]string{"e"}, actWordEnd, "copy cursor to the word's end, or the next word's", modeScroll, 0},
	{[]string{"W"}, actSpaceWordNext, "as w, words separated by spaces only", modeScroll, 0},
	{[]string{"B"}, actSpaceWordPrev, "as b, words separated by spaces only", modeScroll, 0},
	{[]string{"E"}, actSpaceWordEnd, "as e, words separated by spaces only", modeScroll, 0},
	{[]string{"q", "esc"}, actScrollExit, "leave scrollback mode", modeScroll, 0},

	{[]string{"up", "k"}, actCursorUp, "copy cursor up (the view follows)", modeSelect, 0},
	{[]string{"down", "j"}, actCursorDown, "copy cursor down (the view follows)", modeSelect, 0},
	{[]string{"y", "enter"}, actCopy, "copy the marked text (after v) and leave scrollback mode", modeSelect, 0},
	{[]string{"esc", "q"}, actSelectCancel, "hide the copy cursor and drop the marks (again: leave scrollback mode)", modeSelect, 0},

	{[]string{"up", "k"}, actListUp, "previous agent", modeAgents, 0},
	{[]string{"down", "j"}, actListDown, "next agent", modeAgents, 0},
	{[]string{"enter"}, actListShow, "show the agent: swap it into view", modeAgents, 0},
	{[]string{"x"}, actListClose, "close the agent (asks while it runs)", modeAgents, 0},
	{[]string{"q", "esc", "w"}, actOverlayExit, "close the overlay", modeAgents, 0},

	{[]string{"up", "k"}, actListUp, "scroll up", modeHelp, 0},
	{[]string{"down", "j"}, actListDown, "scroll down", modeHelp, 0},
	{[]string{"q", "esc", "?"}, actOverlayExit, "close the help", modeHelp, 0},
}

// keyPress is the part of a key event the keymap looks at. Both forms are
// tried so that "?" matches a text key and "ctrl+b" a modified one.
type keyPress interface {
	String() string
	Keystroke() string
}

// keyBindings are the keymap's rows as Bubbles key bindings, index for
// index: their keys (with the "prefix" token) and their help, the keys as
// shown and the description. Key routing matches against them, and the
// help overlay and docs/KEYS.md are drawn from their help.
var keyBindings = func() []key.Binding {
	out := make([]key.Binding, len(keymap))
	for i, b := range keymap {
		label := strings.Join(b.keys, ", ")
		if b.action == actFocusNumber {
			label = "0 … 9"
		}
		out[i] = key.NewBinding(key.WithKeys(b.keys...), key.WithHelp(label, b.desc))
	}
	return out
}()

// keystroke shows a key press as its keystroke ("shift+a" for a capital
// A), the second form a binding's keys are matched against.
type keystroke struct{ k keyPress }

func (k keystroke) String() string { return k.k.Keystroke() }

// withPrefix is kb with the "prefix" token replaced by the prefix key.
func withPrefix(kb key.Binding, prefix string) key.Binding {
	keys := kb.Keys()
	if !slices.Contains(keys, prefixToken) {
		return kb
	}
	keys = slices.Clone(keys)
	for i, k := range keys {
		if k == prefixToken {
			keys[i] = prefix
		}
	}
	kb.SetKeys(keys...)
	return kb
}

// lookup returns the binding for k in mode, or nil. prefix is the configured
// prefix key, which the "prefix" token stands for; opts are the optional
// bindings turned on. Both the key's name ("?") and its keystroke
// ("ctrl+b") are matched.
func lookup(mode keyMode, k keyPress, prefix string, opts keyOptions) *binding {
	for i := range keymap {
		b := &keymap[i]
		if b.mode != mode || !opts.has(b.opt) {
			continue
		}
		kb := withPrefix(keyBindings[i], prefix)
		if key.Matches(k, kb) || key.Matches(keystroke{k}, kb) {
			return b
		}
	}
	return nil
}

// keysLabel renders row i's keys for humans, naming the prefix.
func keysLabel(i int, prefix string) string {
	label := keyBindings[i].Help().Key
	if slices.Contains(keymap[i].keys, prefixToken) {
		label = strings.ReplaceAll(label, prefixToken, prefix)
	}
	return label
}

// helpSection is one titled block of the help overlay and the docs.
type helpSection struct {
	title, intro string
	rows         [][2]string // keys, description
	// commands: the rows are shell commands, not keys (their column is
	// as wide as they need, apart from the keys').
	commands bool
}

// sessionsHelp is the help's last section: the commands that come back to
// a session after a detach, and the size rule for several terminals.
var sessionsHelp = helpSection{
	title:    "Sessions",
	intro:    "A session runs on after its terminal detaches or closes. The panes follow the size of the terminal that typed last; every other terminal lays them out at its own size.",
	commands: true,
	rows: [][2]string{
		{"agentgrid attach [NAME]", "attach this terminal to a running session (the only one, or NAME)"},
		{"agentgrid attach --read-only", "look only, also agentgrid watch: focus, zoom, scroll, search; no key reaches a pane"},
		{"agentgrid ls", "the running sessions: name, agents, attached terminals, age"},
		{"agentgrid kill-session NAME", "end a session from outside, as quitting it does: its agents are hung up"},
	},
}

// helpSections builds the help content from the keymap: the bindings that
// opts turn on, or every binding with a note on its setting when all is set
// (for the docs).
func helpSections(prefix string, opts keyOptions, all bool) []helpSection {
	var out []helpSection
	for _, m := range modeNames {
		sec := helpSection{title: m.title, intro: m.intro}
		for i, b := range keymap {
			desc := keyBindings[i].Help().Desc
			switch {
			case b.mode != m.mode:
			case all:
				sec.rows = append(sec.rows, [2]string{keysLabel(i, prefix), desc + optionNote(b.opt)})
			case opts.has(b.opt):
				sec.rows = append(sec.rows, [2]string{keysLabel(i, prefix), desc})
			}
		}
		if len(sec.rows) > 0 {
			out = append(out, sec)
		}
	}
	// Its rows are commands and settings: their wide column is the
	// commands', so the keys above keep a narrow one.
	return append(out, sessionsHelp, helpSection{title: "Beyond the keys", intro: "Copying, notices, recordings and worktrees from the command line and the config.", rows: beyondKeys, commands: true})
}

// beyondKeys are the help's rows for what is not a key: the copy's paste
// buffers, notices, recording and worktrees.
var beyondKeys = [][2]string{
	{"agentgrid paste", "print the last copy (-b N: an older one); copies also go to your terminal's clipboard (OSC 52)"},
	{"[ui] notify_on", "bell, OSC 9 (osc9) or OSC 777 (osc777) when an agent is waiting, done or failed; never for the pane you look at"},
	{"agentgrid --record FILE", "record the screen as an asciicast v2 file with agent markers (prefix R stops and starts)"},
	{"agentgrid spawn --worktree NAME", "a git worktree and branch of its own: agentgrid/NAME; close --remove-worktree removes a clean one"},
}

// KeymapMarkdown returns agentgrid's key bindings as Markdown, generated from
// the same table the UI routes keys with; docs/KEYS.md is its output.
func KeymapMarkdown() string {
	const prefix = "ctrl+b"
	var b strings.Builder
	b.WriteString("# agentgrid keys\n\n")
	b.WriteString("Generated by `ui.KeymapMarkdown()` from the keymap in `ui/keymap.go`, the same table that routes keys and draws the help overlay; do not edit by hand.\n\n")
	fmt.Fprintf(&b, "The prefix key is `%s` by default (`[keys] prefix` in the config). Pressed twice, it reaches the focused pane.\n", prefix)
	b.WriteString("Keys, pastes and mouse events not listed here go to the focused pane, encoded for the modes that pane's program asked for.\n")
	for _, sec := range helpSections(prefix, keyOptions{}, true) {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n| keys | action |\n|---|---|\n", sec.title, sec.intro)
		for _, r := range sec.rows {
			keys := strings.Split(r[0], ", ")
			for i, k := range keys {
				keys[i] = "`" + strings.ReplaceAll(k, "|", `\|`) + "`"
			}
			fmt.Fprintf(&b, "| %s | %s |\n", strings.Join(keys, " "), r[1])
		}
	}
	b.WriteString("\n## Mouse\n\n")
	b.WriteString("| event | effect |\n|---|---|\n")
	b.WriteString("| click | focus the pane; forwarded to it when its program asked for mouse reporting |\n")
	b.WriteString("| wheel | forwarded when the pane's program asked for mouse reporting; else arrow keys for a full-screen program (less, vim); else scroll the pane's history (scrollback mode, left by scrolling back to the bottom) |\n")
	b.WriteString("| drag, release | forwarded to the pane where the button went down, when it asked for mouse reporting; else the drag marks text and the release copies it (clipboard and `agentgrid paste`) |\n")
	return b.String()
}
