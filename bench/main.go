// Command bench prints agentgrid's performance tables, each figure beside
// tmux measured in the same run on the same machine:
//
//	go run ./bench vterm          # one section
//	go run ./bench all            # every section
//	go run ./bench -runs 5 vterm  # more runs per median
//	go run ./bench -only idle workbench  # one part of a section
//
// A section is a named function that returns rows of
// "metric | agentgrid | tmux | ratio"; files add theirs with register in an
// init function, so new areas (workbench, hooks ...) plug in without
// touching this file.
package main

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
	"text/tabwriter"
)

// benchRow is one line of a section's table. Empty cells print as "-".
type benchRow struct {
	Metric    string
	Agentgrid string
	Tmux      string
	Ratio     string
}

// benchSection is a named group of measurements.
type benchSection struct {
	Name  string
	About string // one line shown above the table
	Run   func(o benchOptions) ([]benchRow, error)
}

// benchOptions are the command-line settings every section receives.
type benchOptions struct {
	Runs int // repetitions per measurement; sections report the median
	MB   int // input size for throughput measurements, in MiB
	// Only names the parts of a section to measure (empty: all of them);
	// sections without parts ignore it.
	Only map[string]bool
}

// want reports whether part of a section is to be measured.
func (o benchOptions) want(part string) bool { return len(o.Only) == 0 || o.Only[part] }

var sections = map[string]benchSection{}

// register adds a section; it is called from init functions.
func register(s benchSection) {
	if _, dup := sections[s.Name]; dup {
		panic("bench: section " + s.Name + " registered twice")
	}
	sections[s.Name] = s
}

func sectionNames() []string {
	names := make([]string, 0, len(sections))
	for n := range sections {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

func main() {
	var o benchOptions
	flag.IntVar(&o.Runs, "runs", 3, "runs per measurement (the median is reported)")
	flag.IntVar(&o.MB, "mb", 16, "MiB of input per ingest measurement")
	only := flag.String("only", "", "measure only these parts, comma-separated (workbench: idle, which also times full redraws; spawn; flood. faults: conns, floods)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: go run ./bench [flags] section... | all\nsections: %s\n", strings.Join(sectionNames(), ", "))
		flag.PrintDefaults()
	}
	flag.Parse()
	for _, p := range strings.Split(*only, ",") {
		if p = strings.TrimSpace(p); p != "" {
			if o.Only == nil {
				o.Only = map[string]bool{}
			}
			o.Only[p] = true
		}
	}
	if o.Runs < 1 {
		o.Runs = 1
	}
	names := flag.Args()
	if len(names) == 0 {
		flag.Usage()
		os.Exit(2)
	}
	if len(names) == 1 && names[0] == "all" {
		names = sectionNames()
	}
	failed := false
	for _, n := range names {
		s, ok := sections[n]
		if !ok {
			fmt.Fprintf(os.Stderr, "bench: unknown section %q (known: %s)\n", n, strings.Join(sectionNames(), ", "))
			os.Exit(2)
		}
		rows, err := s.Run(o)
		printTable(os.Stdout, s, rows)
		switch {
		case errors.Is(err, errNoTmux):
			fmt.Fprintf(os.Stderr, "bench: section %s: %v\n", s.Name, err)
		case err != nil:
			fmt.Fprintf(os.Stderr, "bench: section %s: %v\n", s.Name, err)
			failed = true
		}
	}
	if failed {
		os.Exit(1)
	}
}

func printTable(f *os.File, s benchSection, rows []benchRow) {
	fmt.Fprintf(f, "\n== %s: %s\n\n", s.Name, s.About)
	w := tabwriter.NewWriter(f, 0, 0, 1, ' ', 0)
	fmt.Fprintln(w, "metric\t| agentgrid\t| tmux\t| ratio")
	fmt.Fprintln(w, "------\t| ---------\t| ----\t| -----")
	dash := func(s string) string {
		if s == "" {
			return "-"
		}
		return s
	}
	for _, r := range rows {
		fmt.Fprintf(w, "%s\t| %s\t| %s\t| %s\n", r.Metric, dash(r.Agentgrid), dash(r.Tmux), dash(r.Ratio))
	}
	_ = w.Flush()
}

// median returns the median of xs (the mean of the middle two for an even
// count); it is what every section reports, so one slow run on a shared
// machine does not move the figure.
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// ratio formats a/b as "2.41x", or "" when b is zero.
func ratio(a, b float64) string {
	if b == 0 {
		return ""
	}
	return fmt.Sprintf("%.2fx", a/b)
}

var errNoTmux = errors.New("tmux is not installed, so its column is empty (apt-get install tmux)")
