package control

import "strings"

// TreeOrder orders agents as their family tree: each root (started by the
// user, by the main view, or by an agent not in the list) in creation
// order, each followed by its descendants, depth first. depth is 0 for a
// root. `agentgrid list --tree` and the agents overlay draw it.
func TreeOrder(agents []AgentInfo) (ordered []AgentInfo, depth []int) {
	known := map[string]bool{}
	for _, a := range agents {
		known[a.ID] = true
	}
	children := map[string][]AgentInfo{}
	var roots []AgentInfo
	for _, a := range agents {
		if a.Parent == "" || a.Parent == MainID || !known[a.Parent] || a.Parent == a.ID {
			roots = append(roots, a)
			continue
		}
		children[a.Parent] = append(children[a.Parent], a)
	}
	seen := map[string]bool{}
	var walk func(a AgentInfo, d int)
	walk = func(a AgentInfo, d int) {
		if seen[a.ID] {
			return
		}
		seen[a.ID] = true
		ordered, depth = append(ordered, a), append(depth, d)
		for _, c := range children[a.ID] {
			walk(c, d+1)
		}
	}
	for _, r := range roots {
		walk(r, 0)
	}
	for _, a := range agents { // a cycle has no root: list it flat
		walk(a, 0)
	}
	return ordered, depth
}

// TreeLabel is an agent's id drawn at its depth in the tree: "a3" for a
// root, "└─ a4" below it, "  └─ a5" below that.
func TreeLabel(id string, depth int) string {
	if depth <= 0 {
		return id
	}
	return strings.Repeat("  ", depth-1) + "└─ " + id
}
