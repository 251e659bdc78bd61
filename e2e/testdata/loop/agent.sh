#!/bin/sh
# A scripted agent: three turns, each ending with a recorded Claude Code
# Stop payload fed to `agentgrid hook claude`, as Claude Code's own hook
# would. Each answer is kept for the test to read.
dir=$1
for n in 1 2 3; do
	"$AG" hook claude <"$dir/stop$n.json" >"$dir/answer$n.tmp"
	mv "$dir/answer$n.tmp" "$dir/answer$n.json"
	echo "turn $n over"
done
echo "script over"
exec cat
