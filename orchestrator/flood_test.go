package orchestrator

import (
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentgrid/agentgrid/config"
	"github.com/agentgrid/agentgrid/internal/agentstate"
	"github.com/agentgrid/agentgrid/internal/control"
)

// paneSignalFloods are shell loops that print terminal titles, desktop
// notifications, bells, or all three, as fast as sh can.
var paneSignalFloods = []struct{ name, body string }{
	{"titles", `printf '\033]2;title %d\007' $i`},
	{"notices", `printf '\033]9;notice %d\007' $i`},
	{"bells", `printf '\007'`},
	{"all", `printf '\033]2;title %d\007\033]777;notify;n;body %d\007\007' $i $i`},
}

// floodFor is how long each flood of TestPaneSignalFloodKeepsTheEngineAnswering
// lasts; `go run ./bench faults` runs the same floods for 30 s each.
const floodFor = 3 * time.Second

// TestPaneSignalFloodKeepsTheEngineAnswering floods titles, notifications,
// bells and all three from a real shell in a real PTY: the engine's memory
// stays bounded, keystrokes to the main view keep echoing, and closing the
// flooding agent answers at once.
func TestPaneSignalFloodKeepsTheEngineAnswering(t *testing.T) {
	if testing.Short() {
		t.Skip("flood")
	}
	for _, fl := range paneSignalFloods {
		t.Run(fl.name, func(t *testing.T) {
			e := newTestEngine(t, nil, []string{"cat"}, func(c *config.Config) {
				c.Layout.MinAgentWidth, c.Layout.MinAgentHeight = 30, 10
				c.Agents.StartOffscreen = false
				c.Agents.MaxQueued = 500
			})
			e.Resize(80, 24)
			main := e.Snapshot().Main
			if main == nil || main.Term == nil {
				t.Fatal("no main view")
			}
			mainTerm := main.Term.(readOnly).t
			script := fmt.Sprintf("read go; i=0; while :; do %s; i=$((i+1)); done", fl.body)
			flood := spawn(t, e, "sh", "-c", script)
			// A session with many agents (waiting in the queue, not
			// started) makes every snapshot cost more, as in real use.
			for range 300 {
				spawn(t, e, "cat")
			}
			// Started, so its terminal takes the keystroke that lets it go.
			// Not "running": the shell waits in read without a word, and
			// once the 300 spawns took longer than agents.idle_after (5 s,
			// on a loaded machine) it had already turned idle.
			waitAgent(t, e, flood.ID, "started", func(a control.AgentInfo) bool { return a.PID > 0 })
			if err := e.Send(flood.ID, []byte("\r")); err != nil {
				t.Fatal(err)
			}
			waitAgent(t, e, flood.ID, "flooding", func(a control.AgentInfo) bool {
				return a.State == agentstate.Waiting || strings.HasPrefix(a.Title, "title ")
			})

			runtime.GC()
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			base, peak := ms.HeapInuse, ms.HeapInuse
			var echoes []time.Duration
			end := time.Now().Add(floodFor)
			for i := 0; time.Now().Before(end); i++ {
				key := fmt.Sprintf("k%dz", i)
				start := time.Now()
				// One key a line, so that no echo wraps across rows.
				if err := e.Input(control.MainID, []byte(key+"\r")); err != nil {
					t.Fatalf("keystroke %d to the main view: %v", i, err)
				}
				// Generous: the bound is for a stuck engine, not for speed
				// on a busy machine (the bench measures that).
				pollUntil(t, 10*time.Second, "the echo of "+key, func() bool { return strings.Contains(mainTerm.Text(), key) })
				echoes = append(echoes, time.Since(start))
				runtime.ReadMemStats(&ms)
				peak = max(peak, ms.HeapInuse)
			}
			slices.Sort(echoes)
			p99 := echoes[(len(echoes)*99)/100]
			grew := int64(peak) - int64(base)
			t.Logf("%s: %d echoes, p50 %v p99 %v; heap in use %d MB, peak growth %d MB",
				fl.name, len(echoes), echoes[len(echoes)/2], p99, base>>20, grew>>20)
			if grew > 32<<20 {
				t.Errorf("the heap grew by %d MB during a %v flood of %s", grew>>20, floodFor, fl.name)
			}

			start := time.Now()
			if err := e.Close(flood.ID); err != nil {
				t.Fatalf("close the flooding agent: %v", err)
			}
			if el := time.Since(start); el > 2*time.Second {
				t.Errorf("close of the flooding agent took %v", el)
			}
			if got := waitFinished(t, e, flood.ID); got.State != agentstate.Killed {
				t.Fatalf("flooding agent after close = %+v", got)
			}
		})
	}
}

// TestTextsFromPanesAreSanitisedAndCapped: a title with bidi and zero-width
// characters and a huge notification reach the agent's info cleaned and
// capped; of a burst of notifications the last one is what stays.
func TestTextsFromPanesAreSanitisedAndCapped(t *testing.T) {
	e := newTestEngine(t, nil, nil, nil)
	e.Resize(80, 24)
	// U+202E (right-to-left override), U+200B (zero width space), U+2066
	// (left-to-right isolate) in the title; a 5000-byte notification body.
	in := spawn(t, e, "sh", "-c",
		`printf '\033]2;evil\342\200\256txt.exe\342\200\213 \342\201\246name\007'; `+
			`printf '\033]9;%s\007' "$(head -c 5000 /dev/zero | tr '\0' x)"; exec cat`)
	a := waitAgent(t, e, in.ID, "titled and waiting", func(a control.AgentInfo) bool {
		return a.Title != "sh" && a.State == agentstate.Waiting
	})
	if a.Title != "eviltxt.exe name" {
		t.Errorf("title = %q, want %q", a.Title, "eviltxt.exe name")
	}
	if n := len([]rune(a.Why)); n > maxWhyLen || !strings.HasPrefix(a.Why, "notification: xxx") || !strings.HasSuffix(a.Why, "…") {
		t.Errorf("why has %d runes (cap %d): %.60q…", n, maxWhyLen, a.Why)
	}
	// A burst of notifications: each is handled or replaced by a later
	// one, and the last one's text is the one that stays.
	var burst strings.Builder
	for i := range 50 {
		fmt.Fprintf(&burst, "\x1b]9;step %d\x07", i)
	}
	if err := e.Send(in.ID, []byte("\x04")); err != nil { // cat exits
		t.Fatal(err)
	}
	waitFinished(t, e, in.ID)
	b := spawn(t, e, "sh", "-c", "printf '"+strings.NewReplacer("\x1b", `\033`, "\x07", `\007`).Replace(burst.String())+"'; exec cat")
	b = waitAgent(t, e, b.ID, "the last notification", func(a control.AgentInfo) bool {
		return strings.HasSuffix(a.Why, "notification: step 49") || strings.HasSuffix(a.Why, "notifications: step 49")
	})
	if b.State != agentstate.Waiting {
		t.Fatalf("after the burst = %+v", b)
	}
}
