package orchestrator

import (
	"fmt"
	"slices"
	"time"
)

// queueEntry is one agent waiting for a slot in the grid.
type queueEntry struct {
	ID     string
	Seq    int
	Since  time.Time
	Reason string
	pos    int // 1-based, filled in by Lookup
}

// deferredQueue is the FIFO of agents waiting for a slot. It is bounded for
// new spawns (Push refuses past max) but never drops an entry: agents moved
// back from the grid are always taken (PushFront).
type deferredQueue struct {
	entries []queueEntry
	max     int
}

// newDeferredQueue returns a queue refusing new spawns past max entries.
func newDeferredQueue(max int) *deferredQueue {
	if max <= 0 {
		max = 100
	}
	return &deferredQueue{max: max}
}

// Len is the number of waiting agents.
func (q *deferredQueue) Len() int { return len(q.entries) }

// Full reports whether Push would refuse.
func (q *deferredQueue) Full() bool { return len(q.entries) >= q.max }

// fullError is the error a spawn gets when the queue is full.
func (q *deferredQueue) fullError() error {
	return fmt.Errorf("queue is full (%d agents waiting); close some agents or raise agents.max_queued", len(q.entries))
}

// Push appends e, or refuses when the queue is full.
func (q *deferredQueue) Push(e queueEntry) error {
	if q.Full() {
		return q.fullError()
	}
	q.entries = append(q.entries, e)
	return nil
}

// PushFront puts agents moved off screen back at the head, oldest first, so
// they return before newer requests; it is never refused.
func (q *deferredQueue) PushFront(es ...queueEntry) {
	es = slices.Clone(es)
	slices.SortStableFunc(es, func(a, b queueEntry) int { return a.Seq - b.Seq })
	q.entries = append(es, q.entries...)
}

// Remove takes id out of the queue and reports whether it was there.
func (q *deferredQueue) Remove(id string) bool {
	i := q.index(id)
	if i < 0 {
		return false
	}
	q.entries = slices.Delete(q.entries, i, i+1)
	return true
}

// Lookup returns id's entry with its position, or nil when not queued.
func (q *deferredQueue) Lookup(id string) *queueEntry {
	i := q.index(id)
	if i < 0 {
		return nil
	}
	e := q.entries[i]
	e.pos = i + 1
	return &e
}

// SetReason records why id is still waiting.
func (q *deferredQueue) SetReason(id, reason string) {
	if i := q.index(id); i >= 0 {
		q.entries[i].Reason = reason
	}
}

// Entries returns a copy of the queue, head first.
func (q *deferredQueue) Entries() []queueEntry { return slices.Clone(q.entries) }

func (q *deferredQueue) index(id string) int {
	return slices.IndexFunc(q.entries, func(e queueEntry) bool { return e.ID == id })
}
