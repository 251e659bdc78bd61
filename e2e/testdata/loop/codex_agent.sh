#!/bin/sh
# A scripted agent in Codex's shape: its turns end with recorded Codex Stop
# payloads (Claude Code's shape, on stdin), whose answer does not continue
# it; every continuation is typed into its terminal, read here as a line.
dir=$1
"$AG" hook codex <"$dir/codex_stop1.json" >/dev/null
i=2
while IFS= read -r line; do
	printf '%s\n' "$line" >>"$dir/typed.txt"
	echo "turn $i read"
	"$AG" hook codex <"$dir/codex_stop$i.json" >/dev/null
	i=$((i + 1))
	[ "$i" -gt 3 ] && break
done
echo "script over"
exec cat
