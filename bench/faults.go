package main

import (
	"fmt"
	"os"
	"sort"
)

// faultPart is one measurement of the faults section; files add theirs with
// registerFault in an init function, so each fault lives in its own file.
type faultPart struct {
	Name string
	Run  func(o benchOptions) ([]benchRow, error)
}

var faultParts = map[string]faultPart{}

func registerFault(p faultPart) {
	if _, dup := faultParts[p.Name]; dup {
		panic("bench: faults part " + p.Name + " registered twice")
	}
	faultParts[p.Name] = p
}

func init() {
	register(benchSection{
		Name:  "faults",
		About: "how agentgrid and tmux hold up under abuse, each part in its own file (-only names parts); lower is better",
		Run:   runFaults,
	})
}

func faultPartNames() []string {
	names := make([]string, 0, len(faultParts))
	for n := range faultParts {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func runFaults(o benchOptions) ([]benchRow, error) {
	var rows []benchRow
	var firstErr error
	for _, n := range faultPartNames() {
		if !o.want(n) {
			continue
		}
		r, err := faultParts[n].Run(o)
		rows = append(rows, r...)
		if err != nil {
			fmt.Fprintf(os.Stderr, "faults: %s: %v\n", n, err)
			if firstErr == nil {
				firstErr = err
			}
		}
	}
	return rows, firstErr
}
