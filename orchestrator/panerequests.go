package orchestrator

import (
	"sync"

	"github.com/agentgrid/agentgrid/config"
)

// PaneRequest is something a pane's program asked of the terminal
// agentgrid runs in: a desktop notification (OSC 9/777/99) or a clipboard
// write (OSC 52). The engine only records them; each UI forwards what its
// config allows, so a request reaches every attached terminal once.
type PaneRequest struct {
	// Seq numbers the requests of the session, from 1.
	Seq   uint64
	Agent string
	Kind  PaneRequestKind
	// Title and Body are a notification's, as the program sent them (not
	// sanitised: the UI does that for its terminal).
	Title, Body string
	// Data is a clipboard write's payload, base64 as the program sent it.
	Data string
}

// PaneRequestKind says what a PaneRequest asks for.
type PaneRequestKind int

// The kinds of pane requests.
const (
	PaneNotice PaneRequestKind = iota + 1
	PaneClipboard
)

// maxPaneRequests is how many requests the engine keeps for UIs that did
// not read them yet; older ones are dropped.
const maxPaneRequests = 32

// maxClipboardData caps a clipboard write forwarded from a pane.
const maxClipboardData = 128 << 10

// paneRequests is the bounded record of recent pane requests.
type paneRequests struct {
	mu    sync.Mutex
	seq   uint64
	items []PaneRequest
}

func (r *paneRequests) add(q PaneRequest) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.seq++
	q.Seq = r.seq
	r.items = append(r.items, q)
	if len(r.items) > maxPaneRequests {
		r.items = append(r.items[:0], r.items[len(r.items)-maxPaneRequests:]...)
	}
}

// PaneRequests returns the requests recorded after seq after, oldest first,
// and the sequence number to ask after next time.
func (e *Engine) PaneRequests(after uint64) ([]PaneRequest, uint64) {
	r := &e.paneReqs
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.seq <= after {
		return nil, r.seq
	}
	var out []PaneRequest
	for _, q := range r.items {
		if q.Seq > after {
			out = append(out, q)
		}
	}
	return out, r.seq
}

// onPaneClipboard records a pane's OSC 52 write, when the config lets
// panes write the clipboard at all (else the terminal never reports them).
func (e *Engine) onPaneClipboard(a *agent, data string) {
	if e.cfg.Clipboard.PaneOSC52 != config.PaneOSC52Write || len(data) > maxClipboardData {
		return
	}
	e.paneReqs.add(PaneRequest{Agent: a.id, Kind: PaneClipboard, Data: data})
	e.poke()
}

// onPaneNotice records a pane's own notification for the UIs.
func (e *Engine) onPaneNotice(a *agent, title, body string) {
	e.paneReqs.add(PaneRequest{Agent: a.id, Kind: PaneNotice, Title: title, Body: body})
	e.poke()
}
