package hooks

import (
	"slices"
	"testing"

	"github.com/agentgrid/agentgrid/config"
)

// config validates [[hooks]] on = [...] against its own list, since it
// cannot import this package; the two lists must be the same.
func TestEventTypesMatchConfig(t *testing.T) {
	if !slices.Equal(config.Events, EventTypes()) {
		t.Errorf("config.Events = %v, hooks.EventTypes() = %v", config.Events, EventTypes())
	}
}
