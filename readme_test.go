package main

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// TestReadmeOrder keeps the README in the order a new user reads it:
// install, usage (with the agent CLIs), configuration, keys, then
// troubleshooting; a feature's section goes under one of them (### ...)
// rather than after the keys.
func TestReadmeOrder(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, l := range strings.Split(string(readme), "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			got = append(got, h)
		}
	}
	want := []string{"Install", "Usage", "Configuration", "Keys", "Troubleshooting", "Development"}
	if !slices.Equal(got, want) {
		t.Errorf("README's sections are %q, want %q", got, want)
	}
}
