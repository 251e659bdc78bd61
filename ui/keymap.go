package ui

import (
	"fmt"
	"strings"
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
	{modeScroll, "Scrollback mode", "Entered with prefix [ or the mouse wheel; the pane stops following its output."},
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
	actZoom
	actClose
	actLayoutCycle
	actScrollMode
	actAgents
	actHelp
	actRedraw
	actDetach
	actQuit

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
}

// prefixToken stands for the configured prefix key in the keymap.
const prefixToken = "prefix"

// keymap is agentgrid's complete key table.
var keymap = []binding{
	{[]string{prefixToken}, actSendPrefix, "send the prefix key itself to the focused pane", modePrefix},
	{[]string{"c"}, actNewAgent, "new agent: prompt for a command line", modePrefix},
	{[]string{"left", "h"}, actFocusLeft, "focus the pane to the left", modePrefix},
	{[]string{"right", "l"}, actFocusRight, "focus the pane to the right", modePrefix},
	{[]string{"up", "k"}, actFocusUp, "focus the pane above", modePrefix},
	{[]string{"down", "j"}, actFocusDown, "focus the pane below", modePrefix},
	{[]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}, actFocusNumber, "focus pane by number (0 = main view)", modePrefix},
	{[]string{"z"}, actZoom, "zoom the focused pane / unzoom", modePrefix},
	{[]string{"x"}, actClose, "close the focused agent (asks while it runs)", modePrefix},
	{[]string{"space", "L"}, actLayoutCycle, "next layout", modePrefix},
	{[]string{"[", "pgup"}, actScrollMode, "scrollback mode for the focused pane", modePrefix},
	{[]string{"w"}, actAgents, "agents overlay", modePrefix},
	{[]string{"?"}, actHelp, "this help", modePrefix},
	{[]string{"r"}, actRedraw, "redraw the whole screen (after another program wrote over it)", modePrefix},
	{[]string{"d"}, actDetach, "detach (ends the session: asks while agents run)", modePrefix},
	{[]string{"q"}, actQuit, "quit (asks while agents run)", modePrefix},

	{[]string{"alt+left"}, actFocusLeft, "focus the pane to the left", modeDirect},
	{[]string{"alt+right"}, actFocusRight, "focus the pane to the right", modeDirect},
	{[]string{"alt+up"}, actFocusUp, "focus the pane above", modeDirect},
	{[]string{"alt+down"}, actFocusDown, "focus the pane below", modeDirect},

	{[]string{"up", "k"}, actScrollUp, "one line up", modeScroll},
	{[]string{"down", "j"}, actScrollDown, "one line down", modeScroll},
	{[]string{"pgup"}, actScrollPageUp, "one page up", modeScroll},
	{[]string{"pgdown", "ctrl+f", "space"}, actScrollPageDown, "one page down", modeScroll},
	{[]string{"ctrl+u"}, actScrollHalfUp, "half a page up", modeScroll},
	{[]string{"ctrl+d"}, actScrollHalfDown, "half a page down", modeScroll},
	{[]string{"g", "home"}, actScrollTop, "oldest line", modeScroll},
	{[]string{"G", "end"}, actScrollBottom, "newest line", modeScroll},
	{[]string{"/"}, actSearchForward, "search towards newer lines", modeScroll},
	{[]string{"?"}, actSearchBackward, "search towards older lines", modeScroll},
	{[]string{"n"}, actSearchNext, "repeat the search", modeScroll},
	{[]string{"N"}, actSearchPrev, "repeat the search the other way", modeScroll},
	{[]string{"q", "esc"}, actScrollExit, "leave scrollback mode", modeScroll},

	{[]string{"up", "k"}, actListUp, "previous agent", modeAgents},
	{[]string{"down", "j"}, actListDown, "next agent", modeAgents},
	{[]string{"enter"}, actListShow, "show the agent: swap it into view", modeAgents},
	{[]string{"x"}, actListClose, "close the agent (asks while it runs)", modeAgents},
	{[]string{"q", "esc", "w"}, actOverlayExit, "close the overlay", modeAgents},

	{[]string{"up", "k"}, actListUp, "scroll up", modeHelp},
	{[]string{"down", "j"}, actListDown, "scroll down", modeHelp},
	{[]string{"q", "esc", "?"}, actOverlayExit, "close the help", modeHelp},
}

// keyPress is the part of a key event the keymap looks at. Both forms are
// tried so that "?" matches a text key and "ctrl+b" a modified one.
type keyPress interface {
	String() string
	Keystroke() string
}

// lookup returns the binding for k in mode, or nil. prefix is the configured
// prefix key, which the "prefix" token stands for.
func lookup(mode keyMode, k keyPress, prefix string) *binding {
	s, ks := k.String(), k.Keystroke()
	for i := range keymap {
		b := &keymap[i]
		if b.mode != mode {
			continue
		}
		for _, key := range b.keys {
			if key == prefixToken {
				key = prefix
			}
			if key == s || key == ks {
				return b
			}
		}
	}
	return nil
}

// keysLabel renders a binding's keys for humans, naming the prefix.
func keysLabel(b binding, prefix string) string {
	if b.action == actFocusNumber {
		return "0 … 9"
	}
	labels := make([]string, len(b.keys))
	for i, k := range b.keys {
		if k == prefixToken {
			k = prefix
		}
		labels[i] = k
	}
	return strings.Join(labels, ", ")
}

// helpSection is one titled block of the help overlay and the docs.
type helpSection struct {
	title, intro string
	rows         [][2]string // keys, description
}

// helpSections builds the help content from the keymap.
func helpSections(prefix string) []helpSection {
	var out []helpSection
	for _, m := range modeNames {
		sec := helpSection{title: m.title, intro: m.intro}
		for _, b := range keymap {
			if b.mode == m.mode {
				sec.rows = append(sec.rows, [2]string{keysLabel(b, prefix), b.desc})
			}
		}
		out = append(out, sec)
	}
	return out
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
	for _, sec := range helpSections(prefix) {
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
	b.WriteString("| drag, release | forwarded to the pane where the button went down, when it asked for mouse reporting |\n")
	return b.String()
}
