package orchestrator

import (
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
)

// A pane's OSC 52 clipboard write reaches the UIs (PaneRequests) only with
// [clipboard] pane_osc52 = "write"; its notifications always do, with the
// agent they came from. Real processes in real PTYs.
func TestPaneRequestsFollowTheClipboardSetting(t *testing.T) {
	// The clipboard write comes first, so once the notification is in, a
	// write that was going to be recorded is too.
	script := `printf '\033]52;c;c2VjcmV0\007\033]777;notify;Build;finished\007'; exec cat`
	for _, mode := range []string{config.PaneOSC52Off, config.PaneOSC52Write} {
		e := newTestEngine(t, nil, nil, func(c *config.Config) { c.Clipboard.PaneOSC52 = mode })
		a := spawn(t, e, "sh", "-c", script)
		var reqs []PaneRequest
		pollUntil(t, 15*time.Second, "the pane's notification", func() bool {
			reqs, _ = e.PaneRequests(0)
			for _, q := range reqs {
				if q.Kind == PaneNotice {
					return true
				}
			}
			return false
		})
		var clip, notice *PaneRequest
		for i := range reqs {
			switch reqs[i].Kind {
			case PaneClipboard:
				clip = &reqs[i]
			case PaneNotice:
				notice = &reqs[i]
			}
		}
		if notice.Agent != a.ID || notice.Title != "Build" || notice.Body != "finished" {
			t.Errorf("%s: notice %+v, want Build: finished from %s", mode, *notice, a.ID)
		}
		switch {
		case mode == config.PaneOSC52Off && clip != nil:
			t.Errorf("pane_osc52 = off, yet the pane's clipboard write was recorded: %+v", *clip)
		case mode == config.PaneOSC52Write && (clip == nil || clip.Data != "c2VjcmV0" || clip.Agent != a.ID):
			t.Errorf("pane_osc52 = write: clipboard request %+v, want c2VjcmV0 from %s", clip, a.ID)
		}
		if later, seq := e.PaneRequests(reqs[len(reqs)-1].Seq); len(later) != 0 || seq != reqs[len(reqs)-1].Seq {
			t.Errorf("%s: after the last one: %v, seq %d", mode, later, seq)
		}
	}
}
