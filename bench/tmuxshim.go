package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func init() {
	register(benchSection{
		Name:  "tmux",
		About: "one call of agentgrid's tmux entry point (process start to exit, answered by the session over its socket) beside the same call to a real tmux server; lower is better",
		Run:   runTmuxShimBench,
	})
}

// tsMinRuns is the least number of samples behind a median and p90.
const tsMinRuns = 40

func runTmuxShimBench(o benchOptions) ([]benchRow, error) {
	n := max(tsMinRuns, 10*o.Runs)
	e, err := newWBEnv(os.Stderr)
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(e.dir)
	tm, tmuxErr := startBenchTmux("shim")
	if tmuxErr == nil {
		defer tm.close()
	}
	s, err := e.startAgentgrid("main-vertical", hbCols, hbRows)
	if err != nil {
		return nil, err
	}
	defer s.close()
	// The entry point is the binary started as "tmux", as every pane finds it.
	link := filepath.Join(e.dir, "shimbin", "tmux")
	if err := os.MkdirAll(filepath.Dir(link), 0o700); err != nil {
		return nil, err
	}
	if err := os.Symlink(e.bin, link); err != nil {
		return nil, err
	}
	env := append(append([]string{}, e.env...), "TMUX="+s.client.Path()+","+strconv.Itoa(s.pid())+",0", "TMUX_PANE=%0")
	calls := []struct {
		what string
		args []string
		want string
	}{
		{"display-message -p '#{pane_id}'", []string{"display-message", "-p", "#{pane_id}"}, "%0"},
		{"list-panes -F '#{pane_id}'", []string{"list-panes", "-F", "#{pane_id}"}, "%0"},
	}
	var rows []benchRow
	fmt.Fprintf(os.Stderr, "tmux: the median (p90) of %d runs, process start to exit, the two interleaved\n", n)
	for _, c := range calls {
		var shim, real []float64
		for i := -2; i < n; i++ { // two warm-up rounds fill the page cache
			d1, err := tsTime(link, c.args, env, c.want)
			if err != nil {
				return rows, err
			}
			var d2 time.Duration
			if tmuxErr == nil {
				args := append([]string{"-L", tm.socket, "-f", "/dev/null"}, c.args...)
				if d2, err = tsTime(tm.path, args, append(os.Environ(), "TMUX="), "%0"); err != nil {
					return rows, err
				}
			}
			if i < 0 {
				continue
			}
			shim = append(shim, wbMS(d1))
			if tmuxErr == nil {
				real = append(real, wbMS(d2))
			}
		}
		r := benchRow{Metric: "tmux " + c.what, Agentgrid: hbMedP90(shim, "ms")}
		if tmuxErr == nil {
			r.Tmux = hbMedP90(real, "ms")
			r.Ratio = ratio(median(shim), median(real))
		}
		rows = append(rows, r)
	}
	return rows, tmuxErr
}

// tsTime runs one call and checks its first line.
func tsTime(path string, args, env []string, want string) (time.Duration, error) {
	cmd := exec.Command(path, args...)
	cmd.Env = env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	d := time.Since(start)
	if first, _, _ := strings.Cut(out.String(), "\n"); err != nil || first != want {
		return d, fmt.Errorf("%s %s printed %q (%s) and ended with %v, want %q first", filepath.Base(path), strings.Join(args, " "), out.String(), strings.TrimSpace(errb.String()), err, want)
	}
	return d, nil
}
