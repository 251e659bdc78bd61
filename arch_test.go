package main

import (
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// allowedImports is the import rule of docs/ARCHITECTURE.md: which of our
// packages each package's non-test code may import. Change both together.
// The module root's package main is listed as "main".
var allowedImports = map[string][]string{
	"main":                       {"internal/cli"},
	"internal/cli":               {"config", "demo", "internal/agentcli/registry", "internal/agentstate", "internal/control", "internal/mcpserver", "internal/oneline", "internal/procstat", "internal/statedir", "internal/timeslice", "internal/tmuxshim", "internal/watchdog", "layout", "orchestrator", "panes", "panes/vterm", "themes", "ui"},
	"internal/agentstate":        {},
	"internal/oneline":           {},
	"internal/envlist":           {},
	"internal/timeslice":         {},
	"internal/rawio":             {},
	"internal/procstat":          {},
	"internal/agentcli":          {"internal/agentstate"},
	"internal/agentcli/claude":   {"internal/agentcli", "internal/agentstate"},
	"internal/agentcli/codex":    {"internal/agentcli", "internal/agentcli/claude", "internal/agentstate"},
	"internal/agentcli/gemini":   {"internal/agentcli", "internal/agentstate"},
	"internal/agentcli/opencode": {"internal/agentcli", "internal/agentstate"},
	"internal/agentcli/registry": {"internal/agentcli", "internal/agentcli/claude", "internal/agentcli/codex", "internal/agentcli/gemini", "internal/agentcli/opencode", "internal/agentstate", "internal/oneline"},
	"internal/control":           {"config", "hooks", "internal/agentstate", "internal/oneline", "internal/procstat", "internal/rawio"},
	"internal/mcpserver":         {"internal/agentstate", "internal/control"},
	"internal/statedir":          {"internal/control"},
	"internal/tmuxshim":          {"internal/control"},
	"internal/watchdog":          {"internal/procstat"},
	"internal/worktree":          {},
	"internal/policy":            {"internal/agentstate"},
	"config":                     {"internal/agentcli", "internal/agentcli/registry", "layout"},
	"layout":                     {},
	"themes":                     {"internal/agentstate"},
	"panes/vterm":                {},
	"panes":                      {"internal/envlist", "internal/rawio", "panes/vterm"},
	"panes/panestest":            {"panes"},
	"hooks":                      {"config", "internal/agentstate", "internal/oneline"},
	"orchestrator":               {"config", "hooks", "internal/agentcli", "internal/agentcli/registry", "internal/agentstate", "internal/control", "internal/envlist", "internal/oneline", "internal/policy", "internal/tmuxshim", "internal/worktree", "layout", "panes", "panes/vterm"},
	"ui":                         {"config", "hooks", "internal/agentstate", "internal/control", "internal/oneline", "internal/rawio", "layout", "orchestrator", "panes/vterm", "themes", "ui/termrt"},
	"ui/termrt":                  {"internal/envlist", "panes/vterm"},
	"demo":                       {"internal/agentstate", "internal/control"},
	"bench":                      {"hooks", "internal/agentcli", "internal/agentcli/registry", "internal/agentstate", "internal/control", "internal/watchdog", "panes/vterm"},
	"e2e":                        {},
	"live/modelserver":           {},
}

const modulePath = "github.com/agentgrid/agentgrid/"

// TestImportRules keeps the package graph the one docs/ARCHITECTURE.md describes.
func TestImportRules(t *testing.T) {
	seen := map[string]bool{}
	err := filepath.WalkDir(".", func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		pkg := filepath.ToSlash(filepath.Dir(path))
		if pkg == "." {
			pkg = "main"
		}
		allowed, ok := allowedImports[pkg]
		if !ok {
			t.Errorf("package %s is not in the import rules; add it to docs/ARCHITECTURE.md and allowedImports", pkg)
			return nil
		}
		seen[pkg] = true
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		for _, imp := range f.Imports {
			p := strings.Trim(imp.Path.Value, `"`)
			if !strings.HasPrefix(p, modulePath) {
				continue
			}
			dep := strings.TrimPrefix(p, modulePath)
			if !contains(allowed, dep) {
				t.Errorf("%s imports %s, which docs/ARCHITECTURE.md does not allow for %s (allowed: %v)", path, dep, pkg, allowed)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for pkg := range allowedImports {
		if !seen[pkg] && pkg != "e2e" { // e2e holds only tests
			missing = append(missing, pkg)
		}
	}
	sort.Strings(missing)
	if len(missing) > 0 {
		t.Errorf("import rules list packages that no longer exist: %v", missing)
	}
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
