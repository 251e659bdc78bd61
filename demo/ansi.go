package demo

import "strings"

// The simulated agents and the demo orchestrator write raw escape sequences on
// purpose: the point of the demo is to exercise agentgrid's terminal emulator
// the way a real agent CLI does (colours, cursor movement, erase, titles).
const (
	csi       = "\x1b["
	sgrReset  = csi + "0m"
	sgrBold   = csi + "1m"
	sgrDim    = csi + "2m"
	sgrItalic = csi + "3m"

	fgRed     = csi + "31m"
	fgGreen   = csi + "32m"
	fgYellow  = csi + "33m"
	fgBlue    = csi + "34m"
	fgMagenta = csi + "35m"
	fgCyan    = csi + "36m"
	fgGray    = csi + "90m"
	fgOrange  = csi + "38;5;208m"
	fgViolet  = csi + "38;5;141m"

	bgDiffAdd = csi + "48;5;22m"
	bgDiffDel = csi + "48;5;52m"

	eraseLine   = csi + "2K"
	eraseToEnd  = csi + "K"
	cursorUp    = csi + "1A"
	hideCursor  = csi + "?25l"
	showCursor  = csi + "?25h"
	bell        = "\a"
	spinnerRune = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
)

// paint wraps s in the given SGR prefix and a reset.
func paint(style, s string) string { return style + s + sgrReset }

// setTitle is OSC 2: the window (pane) title.
func setTitle(title string) string { return "\x1b]2;" + title + "\a" }

// notify is OSC 9: a desktop-style notification, which agentgrid reads as
// "this agent wants attention".
func notify(body string) string { return "\x1b]9;" + body + "\a" }

// spinnerFrames returns the braille spinner frames as separate strings.
func spinnerFrames() []string {
	var out []string
	for _, r := range spinnerRune {
		out = append(out, string(r))
	}
	return out
}

// bar draws a progress bar of width cells filled to frac (0..1).
func bar(frac float64, width int) string {
	if frac < 0 {
		frac = 0
	}
	if frac > 1 {
		frac = 1
	}
	full := int(frac*float64(width) + 0.5)
	return paint(fgCyan, strings.Repeat("█", full)) + paint(fgGray, strings.Repeat("░", width-full))
}
