package e2e

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// styledWords is what a program prints: underline styles, underline
// colours and 24-bit colours, each word after a plain space.
const styledWords = `printf ' \033[4:3mCURLY\033[m \033[4:2mDOUBLE\033[m \033[4:4mDOTTED\033[m \033[4:5mDASHED\033[m \033[58:2::255:0:0;4:3mREDCURL\033[m \033[38;2;10;20;30mDEEPRGB\033[m \033[58;5;196;4mULCOL\033[m \n'`

var styledWordNames = []string{"CURLY", "DOUBLE", "DOTTED", "DASHED", "REDCURL", "DEEPRGB", "ULCOL"}

// sgrsBefore returns, for each word, the SGR sequences just before it in a
// capture-pane -e screen.
func sgrsBefore(screen string) map[string]string {
	out := map[string]string{}
	for _, w := range styledWordNames {
		if m := regexp.MustCompile(`((?:\x1b\[[0-9;:]*m)*)` + w).FindStringSubmatch(screen); m != nil {
			out[w] = m[1]
		}
	}
	return out
}

// The tmux differential case for the frame writer's styles: the same
// bytes printed in a plain tmux pane and in agentgrid's main view inside
// tmux (which has them all, and 24-bit colour as $COLORTERM says) arrive in
// tmux with the same underline styles, underline colours and 24-bit
// colours — not reduced to 256 colours, not turned into 4;3 (italic).
func TestStylesArriveThroughAgentgridAsInTmux(t *testing.T) {
	t.Parallel()
	h := newHarness(t, 120, 20, "")
	// The reference: a second window of the same tmux running the printf.
	h.mustTmux("new-window", "-d", "-t", "e2e", "-n", "plain", "sh", "-c", styledWords+"; exec sleep 600")
	var want map[string]string
	waitFor(t, 10*time.Second, func() bool {
		s, err := h.tmux("capture-pane", "-p", "-e", "-t", "e2e:plain")
		want = sgrsBefore(s)
		return err == nil && len(want) == len(styledWordNames)
	}, "the styled words in a plain tmux pane", nil)

	h.run([]string{"env", "COLORTERM=truecolor", "agentgrid", "--session", h.session, "--", "sh", "-c", styledWords + "; exec sleep 600"})
	var got map[string]string
	var screen string
	waitFor(t, 15*time.Second, func() bool {
		screen, _ = h.tmux("capture-pane", "-p", "-e", "-t", "e2e:0")
		got = sgrsBefore(screen)
		return len(got) == len(styledWordNames)
	}, "the styled words in agentgrid's main view", h.capture)
	for _, w := range styledWordNames {
		if got[w] != want[w] {
			t.Errorf("%s arrives in tmux as %q through agentgrid, %q straight from the program", w, got[w], want[w])
		}
	}
	if t.Failed() {
		t.Logf("agentgrid's screen: %q", strings.ReplaceAll(screen, "\x1b", "^["))
	}
}
