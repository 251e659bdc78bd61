package hooks

import (
	"log/slog"
	"sync"
	"sync/atomic"
)

// DefaultQueueCap is how many undelivered events one subscriber may have
// pending before the oldest are dropped (and counted).
const DefaultQueueCap = 10000

// Bus fans events out to subscribers. Publish never blocks: each subscriber
// has its own FIFO queue, drained into its channel by its own goroutine, so a
// slow subscriber (a hook runner, a remote UI) delays nobody else and loses
// nothing while it catches up. The queue grows as needed up to a cap
// (DefaultQueueCap unless SetQueueCap); only a subscriber that stays that far
// behind loses events, oldest first, and every loss is counted and logged.
type Bus struct {
	mu       sync.Mutex
	subs     map[*subscriber]struct{}
	queueCap int
	closed   bool
	dropped  atomic.Uint64
	logger   *slog.Logger
}

// NewBus returns an empty bus.
func NewBus() *Bus {
	return &Bus{subs: make(map[*subscriber]struct{}), queueCap: DefaultQueueCap, logger: slog.Default()}
}

// SetQueueCap sets the per-subscriber backlog cap for subscribers created afterwards.
func (b *Bus) SetQueueCap(n int) {
	if n < 1 {
		n = 1
	}
	b.mu.Lock()
	b.queueCap = n
	b.mu.Unlock()
}

// SetLogger sets where drops are reported.
func (b *Bus) SetLogger(l *slog.Logger) {
	if l == nil {
		return
	}
	b.mu.Lock()
	b.logger = l
	b.mu.Unlock()
}

// Dropped is the total number of events dropped across all subscribers.
func (b *Bus) Dropped() uint64 { return b.dropped.Load() }

type subscriber struct {
	bus  *Bus
	out  chan Event
	wake chan struct{} // cap 1: poked by Publish
	done chan struct{} // closed by cancel
	once sync.Once

	mu      sync.Mutex
	queue   []Event
	cap     int
	closing bool // bus closed: deliver what is queued, then close out
	dropped uint64
}

// Subscribe returns a channel that receives every event published from now
// on, in order, and a cancel function that stops delivery and closes the
// channel. buf is the channel's own buffer; the backlog beyond it is held in
// the subscriber's queue.
func (b *Bus) Subscribe(buf int) (<-chan Event, func()) {
	if buf < 0 {
		buf = 0
	}
	s := &subscriber{
		bus:  b,
		out:  make(chan Event, buf),
		wake: make(chan struct{}, 1),
		done: make(chan struct{}),
	}
	b.mu.Lock()
	s.cap = b.queueCap
	if b.closed {
		b.mu.Unlock()
		close(s.out)
		return s.out, func() {}
	}
	b.subs[s] = struct{}{}
	b.mu.Unlock()
	go s.pump()
	cancel := func() {
		s.once.Do(func() {
			b.mu.Lock()
			delete(b.subs, s)
			b.mu.Unlock()
			close(s.done)
		})
	}
	return s.out, cancel
}

// Publish hands ev to every subscriber without waiting for any of them.
func (b *Bus) Publish(ev Event) {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	for s := range b.subs {
		s.push(ev)
	}
	b.mu.Unlock()
}

// Close stops the bus: every subscriber receives what was already published,
// then its channel is closed. Publish after Close does nothing.
func (b *Bus) Close() {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return
	}
	b.closed = true
	subs := b.subs
	b.subs = map[*subscriber]struct{}{}
	b.mu.Unlock()
	for s := range subs {
		s.mu.Lock()
		s.closing = true
		s.mu.Unlock()
		s.poke()
	}
}

func (s *subscriber) push(ev Event) {
	s.mu.Lock()
	if len(s.queue) >= s.cap {
		// Drop the oldest: the newest events describe the current state,
		// which is what a subscriber that fell this far behind needs most.
		s.queue[0] = Event{}
		s.queue = s.queue[1:]
		s.dropped++
		n := s.dropped
		s.mu.Unlock()
		total := s.bus.dropped.Add(1)
		if n == 1 || n%1000 == 0 {
			s.bus.logger.Warn("event subscriber is too slow; dropped its oldest events", "dropped", n, "total_dropped", total, "queue_cap", s.cap)
		}
		s.mu.Lock()
	}
	s.queue = append(s.queue, ev)
	s.mu.Unlock()
	s.poke()
}

func (s *subscriber) poke() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// pump moves queued events into the channel in order until cancelled or, after
// the bus closed, until the queue is empty.
func (s *subscriber) pump() {
	defer close(s.out)
	var batch []Event
	for {
		s.mu.Lock()
		batch = append(batch[:0], s.queue...)
		clear(s.queue)
		s.queue = s.queue[:0]
		closing := s.closing
		s.mu.Unlock()
		for i, ev := range batch {
			select {
			case s.out <- ev:
				batch[i] = Event{}
			case <-s.done:
				return
			}
		}
		if len(batch) > 0 {
			continue // more may have arrived while we delivered
		}
		if closing {
			return
		}
		select {
		case <-s.wake:
		case <-s.done:
			return
		}
	}
}
