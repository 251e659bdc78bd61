package ui

import (
	"context"
	"time"

	tea "charm.land/bubbletea/v2"
)

// pumpBurst is how many frames the pump sends back to back after a quiet
// period before it falls back to one per interval. A change after a pause
// (a spawned agent's first output right after the frame that showed its
// pane, an echo after a focus switch) is drawn at once, while a flood still
// gets at most fps frames a second.
const pumpBurst = 3

// newsGapDiv sets the least gap before a news frame (an agent's new
// state): the frame interval divided by it.
const newsGapDiv = 4

// framePump turns the engine's change pokes into frame messages: at most
// one every interval on average (a token bucket of pumpBurst frames), at
// most one pending (send blocks until the model's event loop takes it, and
// pokes arriving meanwhile coalesce in the cap-1 channels), and no timer at
// all while nothing changes. A poke on urgent (the focused pane printed,
// typically the echo of a key) may borrow the next interval's frame, so it
// is drawn at once even while other panes flood; the average rate stays
// within the limit because the borrowed frame is paid back.
//
// Frames during a flood are not slowed further: a frame costs the event
// loop a composition and a write of the rows that changed, cheap enough
// that halving the rate under load only delayed whatever came next (a new
// agent's first output waited two intervals behind the churn of closing
// the last one).
//
// A poke on fresh (output the user waits for: a new agent's first line,
// the echo of a keystroke; Engine.AwaitedOutput) is drawn at once. It comes
// at most once per spawn or keystroke, so it cannot flood; it is charged to
// the budget (down to minus one interval) so that echoes during a flood do
// not add frames to it. Without it, a keystroke's echo waited for the token
// that the floods' frames had spent (6.6 ms median, 20 ms p99 while 8 panes
// flooded, against tmux's 2.9 and 6.5), and starting agents one after
// another left each new agent's first line waiting up to two intervals.
//
// A poke on news (an agent's new state or reason, the status its hook set;
// Engine.StateChanged) is drawn at once too, unless a frame went out less
// than a quarter interval ago: then when that quarter is over. So news
// frames come at most four times the frame rate, however fast states
// change, and pokes within the quarter share a frame. They are charged to
// the budget as fresh ones are. Under the budget alone, hook events that
// came one after another (the CLI's next event soon after the last was
// drawn) each waited for the interval to end: 14.5 ms from the hook's start
// to its reason on screen, against 2.6 ms for a tmux client round trip.
type framePump struct {
	changed  []<-chan struct{}
	urgent   <-chan struct{}
	fresh    <-chan struct{}
	news     <-chan struct{}
	send     func(tea.Msg)
	interval time.Duration
	now      func() time.Time
	after    func(time.Duration) <-chan time.Time
	// idle, when set, is called each time the pump starts waiting for a
	// poke; tests use it to observe that nothing else is going on.
	idle func()
}

// newFramePump builds a pump for up to fps frames a second.
func newFramePump(send func(tea.Msg), fps int, urgent <-chan struct{}, changed ...<-chan struct{}) *framePump {
	if fps <= 0 {
		fps = 60
	}
	return &framePump{changed: changed, urgent: urgent, send: send, interval: time.Second / time.Duration(fps), now: time.Now, after: time.After}
}

// run pumps until ctx ends.
func (p *framePump) run(ctx context.Context) {
	var a, b <-chan struct{}
	if len(p.changed) > 0 {
		a = p.changed[0]
	}
	if len(p.changed) > 1 {
		b = p.changed[1]
	}
	full := time.Duration(pumpBurst) * p.interval
	// tokens are frames that may be sent without waiting, counted in
	// intervals; they refill at one per interval up to pumpBurst, and an
	// urgent frame may take them down to minus one.
	tokens := full
	var stamp time.Time // when tokens was last brought up to date
	var sent time.Time  // when the last frame was sent
	for {
		if p.idle != nil {
			p.idle()
		}
		urgent, fresh, news := false, false, false
		select {
		case <-ctx.Done():
			return
		case <-a:
		case <-b:
		case <-p.urgent:
			urgent = true
		case <-p.fresh:
			fresh = true
		case <-p.news:
			news = true
		}
		if fresh && !stamp.IsZero() {
			now := p.now()
			tokens = min(tokens+now.Sub(stamp), full)
			stamp = now
		}
	wait:
		for !fresh && !stamp.IsZero() {
			now := p.now()
			tokens = min(tokens+now.Sub(stamp), full)
			stamp = now
			need := p.interval
			if urgent {
				need = 0
			}
			wait := need - tokens
			short := false // the wait is the news gap's, not the budget's
			if gap := p.interval/newsGapDiv - now.Sub(sent); news && gap < wait {
				wait, short = gap, true
			}
			if wait <= 0 {
				break
			}
			select {
			case <-ctx.Done():
				return
			case <-p.after(wait):
				if !short {
					// The timer ran for exactly what was missing.
					tokens = need
				}
				break wait
			case <-p.urgent:
				urgent = true
			case <-p.fresh:
				fresh = true
				break wait
			case <-p.news:
				news = true
			}
		}
		// The frame takes its snapshot after this: pokes already queued
		// are covered by it and need no frame of their own. An echo frame
		// leaves floods out, so their pokes stay for the next frame.
		drain := []<-chan struct{}{a, b, p.urgent, p.fresh, p.news}
		if fresh {
			drain = drain[2:]
		}
		for _, ch := range drain {
			select {
			case <-ch:
			default:
			}
		}
		p.send(frameMsg{echo: fresh})
		if fresh || news {
			// Drawn at once, yet paid for: the next ordinary frame waits,
			// so echoes during a flood do not add frames to it.
			tokens = max(tokens-p.interval, -p.interval)
		} else {
			tokens -= p.interval
		}
		stamp = p.now()
		sent = stamp
	}
}
