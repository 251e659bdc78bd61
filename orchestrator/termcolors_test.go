package orchestrator

import (
	"context"
	"image/color"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/panes"
	"github.com/agentgrid/agentgrid/panes/vterm"
)

// TestPanesReportTheThemesColours: a program asking its terminal for the
// foreground and background (OSC 10/11, as vim does to choose a scheme)
// gets the colours the session was given, not a fixed white on black.
func TestPanesReportTheThemesColours(t *testing.T) {
	cfg := config.Default()
	cfg.Layout = config.Layout{Name: "tiled", MinAgentWidth: 10, MinAgentHeight: 3}
	colors := vterm.NewDefaultColors(color.RGBA{0x12, 0x34, 0x56, 0xff}, color.White)
	e, err := New(cfg, Options{Session: "test", Spawner: panes.PTYSpawner{}, StateDir: t.TempDir(), Logger: testLogger(),
		TermColors: colors})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Start(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		_ = e.Shutdown(ctx)
	})
	e.Resize(80, 10)
	// Each reply is 24 bytes ("ESC ] 1x ; rgb:rrrr/gggg/bbbb BEL"); the
	// program reads them raw and prints them with ESC and BEL made visible.
	in := spawn(t, e, "sh", "-c", `stty raw -echo min 24 time 0; printf '\033]10;?\007'; a=$(dd bs=24 count=1 2>/dev/null | tr '\033\007' 'EB')
printf '\033]11;?\007'; b=$(dd bs=24 count=1 2>/dev/null | tr '\033\007' 'EB'); stty sane; echo "$a"; echo "$b"`)
	waitFinished(t, e, in.ID)
	screen, err := e.Capture(in.ID, false, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"E]10;rgb:1212/3434/5656B", "E]11;rgb:ffff/ffff/ffffB"} {
		if !strings.Contains(screen, want) {
			t.Errorf("screen %q lacks the reply %q", screen, want)
		}
	}
}
