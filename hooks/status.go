package hooks

import (
	"sort"
	"sync"
	"time"

	"github.com/agentgrid/agentgrid/internal/oneline"
)

// Caps applied when an entry is stored; the status line caps each entry
// again, by display width, when it draws.
const (
	MaxStatusKeyLen  = 64  // runes
	MaxStatusTextLen = 256 // runes
)

// StatusStore holds the status line's entries: key -> {text, agent, source,
// updated, ttl}. It is safe for concurrent use. Text is sanitised on the way
// in (escape sequences and control characters removed, line breaks and tabs
// turned into spaces, runs of spaces collapsed, length capped), so whatever a
// hook or script sends can be drawn as is.
//
// Expiry is lazy: reads drop entries past their TTL and mark entries not
// confirmed for the stale window as Stale. NextDeadline tells a UI when the
// next such change is due, so it can set one timer instead of polling.
type StatusStore struct {
	now func() time.Time

	mu         sync.Mutex
	entries    map[string]StatusEntry
	staleAfter time.Duration
	onChange   func(StatusEntry)
	changed    chan struct{}
}

// NewStatusStore returns an empty store; now is the clock (nil means time.Now).
func NewStatusStore(now func() time.Time) *StatusStore {
	if now == nil {
		now = time.Now
	}
	return &StatusStore{now: now, entries: make(map[string]StatusEntry), changed: make(chan struct{}, 1)}
}

// SetStaleAfter sets the freshness window (config status.stale_after); 0 disables staleness.
func (s *StatusStore) SetStaleAfter(d time.Duration) {
	s.mu.Lock()
	s.staleAfter = d
	s.mu.Unlock()
	s.poke()
}

// SetOnChange registers fn, called (outside the store's lock) with the new
// entry after every change, or with the removed entry and Cleared set after a
// clear or an expiry. The engine uses it to publish status_changed.
func (s *StatusStore) SetOnChange(fn func(StatusEntry)) {
	s.mu.Lock()
	s.onChange = fn
	s.mu.Unlock()
}

// Changed returns a capacity-1 channel that receives a value (without
// blocking the writer) whenever the entries change, so a UI coalesces many
// updates into one redraw.
func (s *StatusStore) Changed() <-chan struct{} { return s.changed }

func (s *StatusStore) poke() {
	select {
	case s.changed <- struct{}{}:
	default:
	}
}

// Set stores text under key, scoped to agent when agent is not empty. An
// empty text (after sanitising) clears the key. ttl 0 never expires.
// changed reports whether what is shown differs from before (text, agent, or
// a stale entry refreshed); setting the same text again still counts as a
// confirmation and restarts the TTL and stale clocks.
func (s *StatusStore) Set(key, text, agent, source string, ttl time.Duration) (changed bool) {
	return s.set(key, text, agent, source, ttl, false)
}

// SetNotice stores a message of agentgrid's own for the user under key:
// the status line draws notices before other entries and does not cap
// their width, so a sentence such as "ignored .agentgrid.toml (not
// trusted)" is read whole. Clients of the socket cannot set notices.
func (s *StatusStore) SetNotice(key, text string, ttl time.Duration) (changed bool) {
	return s.set(key, text, "", "agentgrid", ttl, true)
}

func (s *StatusStore) set(key, text, agent, source string, ttl time.Duration, notice bool) (changed bool) {
	key = oneline.Sanitize(key, MaxStatusKeyLen)
	if key == "" {
		return false
	}
	text = oneline.Sanitize(text, MaxStatusTextLen)
	if text == "" {
		return s.Clear(key)
	}
	if ttl < 0 {
		ttl = 0
	}
	now := s.now()
	e := StatusEntry{Key: key, Text: text, Agent: agent, Source: source, Updated: now, TTL: ttl, Notice: notice}
	s.mu.Lock()
	old, had := s.entries[key]
	if had && s.expired(old, now) {
		had = false
	}
	changed = !had || old.Text != text || old.Agent != agent || old.Notice != notice || s.stale(old, now)
	s.entries[key] = e
	fn := s.onChange
	s.mu.Unlock()
	if changed {
		s.poke()
		if fn != nil {
			fn(e)
		}
	}
	return changed
}

// Clear removes key; it reports whether there was a live entry to remove.
func (s *StatusStore) Clear(key string) bool {
	key = oneline.Sanitize(key, MaxStatusKeyLen)
	s.mu.Lock()
	old, had := s.entries[key]
	if had {
		delete(s.entries, key)
		had = !s.expired(old, s.now())
	}
	fn := s.onChange
	s.mu.Unlock()
	if had {
		s.poke()
		if fn != nil {
			old.Cleared = true
			fn(old)
		}
	}
	return had
}

// ClearAgent removes every entry scoped to agent id (when the agent is closed).
func (s *StatusStore) ClearAgent(id string) int {
	if id == "" {
		return 0
	}
	s.mu.Lock()
	var keys []string
	for k, e := range s.entries {
		if e.Agent == id {
			keys = append(keys, k)
		}
	}
	s.mu.Unlock()
	n := 0
	for _, k := range keys {
		if s.Clear(k) {
			n++
		}
	}
	return n
}

// Entries returns the live entries ordered by key, with Stale computed;
// expired entries are removed (and reported to the change callback).
func (s *StatusStore) Entries() []StatusEntry { return s.list("", false) }

// ForAgent returns the live entries scoped to agent id, ordered by key.
func (s *StatusStore) ForAgent(id string) []StatusEntry { return s.list(id, true) }

func (s *StatusStore) list(agent string, filter bool) []StatusEntry {
	now := s.now()
	s.mu.Lock()
	out := make([]StatusEntry, 0, len(s.entries))
	var gone []StatusEntry
	for k, e := range s.entries {
		if s.expired(e, now) {
			delete(s.entries, k)
			gone = append(gone, e)
			continue
		}
		if filter && e.Agent != agent {
			continue
		}
		e.Stale = s.stale(e, now)
		out = append(out, e)
	}
	fn := s.onChange
	s.mu.Unlock()
	sort.Slice(out, func(i, j int) bool { return out[i].Key < out[j].Key })
	if len(gone) > 0 {
		s.poke()
		if fn != nil {
			sort.Slice(gone, func(i, j int) bool { return gone[i].Key < gone[j].Key })
			for _, e := range gone {
				e.Cleared = true
				fn(e)
			}
		}
	}
	return out
}

// NextDeadline is the earliest time at which an entry expires or turns
// stale; ok is false when nothing is due.
func (s *StatusStore) NextDeadline() (t time.Time, ok bool) {
	now := s.now()
	s.mu.Lock()
	defer s.mu.Unlock()
	consider := func(d time.Time) {
		if !ok || d.Before(t) {
			t, ok = d, true
		}
	}
	for _, e := range s.entries {
		if e.TTL > 0 {
			consider(e.Updated.Add(e.TTL))
		}
		if s.staleAfter > 0 && !s.stale(e, now) {
			consider(e.Updated.Add(s.staleAfter))
		}
	}
	return t, ok
}

func (s *StatusStore) expired(e StatusEntry, now time.Time) bool {
	return e.TTL > 0 && !now.Before(e.Updated.Add(e.TTL))
}

func (s *StatusStore) stale(e StatusEntry, now time.Time) bool {
	return s.staleAfter > 0 && now.Sub(e.Updated) >= s.staleAfter
}
