#!/usr/bin/env bash
# Records the output byte streams of real programs for the tmux differential
# suite (tmuxdiff_test.go). Each program runs in an 80x24 pane of a private
# tmux server with TERM=xterm-256color; `pipe-pane` saves exactly the bytes
# the program wrote (after the tty's output processing, i.e. what a terminal
# receives) into NAME.80x24.bin next to this script.
#
# Run it again only to refresh the recordings; they are committed so the
# suite does not depend on program versions:
#   panes/vterm/testdata/tmuxdiff/record.sh [name ...]
set -euo pipefail

cd "$(dirname "$0")"
out=$PWD
sock="agentgrid-rec-$$"
work=$(mktemp -d)
W=80 H=24

T() { tmux -L "$sock" -f /dev/null "$@"; }
cleanup() {
	local sock_path
	sock_path=$(T display -p -t ctl "#{socket_path}" 2>/dev/null || true)
	T kill-server 2>/dev/null || true
	[[ -n $sock_path ]] && rm -f "$sock_path"
	rm -rf "$work"
}
trap cleanup EXIT

# wait_for SESSION REGEX: poll the pane's text until it matches (10 s deadline).
wait_for() {
	local deadline=$((SECONDS + 10))
	until T capture-pane -p -t "$1" | grep -Eq -- "$2"; do
		if ((SECONDS >= deadline)); then
			echo "record.sh: timed out waiting for /$2/ in $1; the pane shows:" >&2
			T capture-pane -p -t "$1" >&2
			exit 1
		fi
		sleep 0.1
	done
}

# begin NAME COMMAND: start COMMAND in a fresh pane with recording on. The
# pane first waits for a line of (unechoed) input so the pipe is attached
# before the program writes its first byte.
begin() {
	local name=$1 cmd=$2
	T new-session -d -s "$name" -x "$W" -y "$H" -c "$work" \
		"stty -echo; read -r _; stty echo; $cmd; exec sleep 3600"
	T pipe-pane -t "$name" -o "cat > '$out/$name.${W}x${H}.bin'"
	T send-keys -t "$name" Enter
}

# finish NAME: stop recording, then give the pipe's cat time to flush.
finish() {
	T pipe-pane -t "$1"
	local f="$out/$1.${W}x${H}.bin" size=-1 deadline=$((SECONDS + 5))
	while [[ $(stat -c %s "$f") != "$size" ]] && ((SECONDS < deadline)); do
		size=$(stat -c %s "$f")
		sleep 0.2
	done
	T kill-session -t "$1"
	echo "recorded $(basename "$f") ($(stat -c %s "$f") bytes)"
}

export LC_ALL=C.UTF-8 TMUX=
T new-session -d -s ctl -x "$W" -y "$H" \; set -g status off \; \
	set -g default-terminal xterm-256color \; set -g default-shell /bin/bash \; \
	set -g history-limit 2000

# Inputs the programs show.
for i in $(seq 1 300); do
	case $((i % 7)) in
	0) echo "// step $i: comment line with some words in it" ;;
	1) echo "func step$i(x int) (int, error) {" ;;
	2) echo "	if x > $i { return 0, fmt.Errorf(\"too big: %d\", x) }" ;;
	3) echo "	s := \"string literal $i\"" ;;
	4) echo "	return x * $i, nil // multiply" ;;
	5) echo "}" ;;
	6) echo "" ;;
	esac
done | sed '1i package main\n\nimport "fmt"\n' >"$work/main.go"
seq 1 500 | awk '{ printf "%4d  The quick brown fox jumps over the lazy dog, line %d of the sample text.\n", $1, $1 }' >"$work/sample.txt"

rec_vim() {
	begin vim "vim -N -u DEFAULTS -i NONE -c 'syntax on' -c 'set number' main.go"
	wait_for vim 'import "fmt"'
	T send-keys -t vim C-d
	wait_for vim 'step1[5-9]'
	T send-keys -t vim C-d C-f
	wait_for vim 'step[3-9][0-9]'
	T send-keys -t vim j j j j w w
	wait_for vim '[0-9]+,[0-9]+'
	finish vim
}

rec_less() {
	begin less "less sample.txt"
	wait_for less 'line 23 of'
	T send-keys -t less Space
	wait_for less 'line 46 of'
	T send-keys -t less Space j j /fox Enter
	wait_for less 'line 6[0-9] of'
	finish less
}

rec_top() {
	begin top "top -d 30"
	wait_for top 'PID +USER'
	finish top
}

rec_gitlog() {
	(
		cd "$work" && rm -rf repo && mkdir repo && cd repo
		export GIT_AUTHOR_NAME=dev GIT_AUTHOR_EMAIL=dev@example.com GIT_COMMITTER_NAME=dev GIT_COMMITTER_EMAIL=dev@example.com
		export GIT_AUTHOR_DATE=2026-01-01T00:00:00Z GIT_COMMITTER_DATE=2026-01-01T00:00:00Z
		git init -q -b main && echo a >a && git add a && git commit -qm "initial commit"
		git checkout -qb feature && echo b >b && git add b && git commit -qm "feature: add b"
		echo c >c && git add c && git commit -qm "feature: add c"
		git checkout -q main && echo d >d && git add d && git commit -qm "main: add d"
		git merge -q --no-edit feature -m "merge feature"
		git checkout -qb fix && echo e >e && git add e && git commit -qm "fix: add e"
		git checkout -q main && echo f >f && git add f && git commit -qm "main: add f"
		git tag v1.0
	)
	begin gitlog "cd repo && git --no-pager log --graph --color=always --decorate --all --date=short --format='%C(auto)%h%d %s %C(blue)%ad%C(reset)' && git --no-pager log --graph --color=always --all --stat | head -30; echo log end"
	wait_for gitlog "log end"
	finish gitlog
}

rec_ls() {
	mkdir -p "$work/tree/dir1" "$work/tree/dir2" && cd "$work/tree" &&
		touch plain.txt script.sh archive.tar.gz image.png notes.md && chmod +x script.sh &&
		ln -sf plain.txt link && ln -sf missing broken && mkfifo fifo && cd - >/dev/null
	begin ls "ls --color=always tree; ls -la --color=always tree | cut -c1-10,40-; ls --color=always -C /usr/share"
	wait_for ls 'zoneinfo|zsh|man'
	finish ls
}

rec_progress() {
	begin progress 'for i in $(seq 0 4 100); do n=$((i / 5)); bar=$(printf "%*s" $n "" | tr " " "#"); printf "\r\033[32m[%-20s]\033[0m %3d%% downloading file.tar.gz" "$bar" $i; done; printf "\ndone\n"'
	wait_for progress '^done'
	finish progress
}

rec_agent() {
	begin agent 'printf "\033[1m> \033[0mfix the failing test\n\n"; s="⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"; for i in $(seq 1 40); do [ $i -gt 1 ] && printf "\033[3A"; c=${s:$((i % 10)):1}; printf "\033[2K\r\033[38;5;208m%s\033[0m Working… (%ds · \033[1mesc\033[0m to interrupt)\n" "$c" $i; printf "\033[2K\r  \033[2m└\033[0m Editing \033[36mpanes/file_%d.go\033[0m\n" $i; printf "\033[2K\r\033[38;2;120;120;120m  %d tokens\033[0m\n" $((i * 137)); done; printf "\033[3A\033[J\033[32m●\033[0m Done: 3 files changed\n"'
	wait_for agent 'Done: 3 files'
	finish agent
}

rec_cjk() {
	begin cjk 'printf "中文：终端模拟器需要正确处理宽字符。\n日本語：端末エミュレータは全角文字を扱います。\n한국어: 터미널 에뮬레이터는 넓은 문자를 처리합니다.\n"; for i in 1 2 3; do printf "混合 mixed テキスト text 한글 %d|\n" $i; done; printf "%s\n" "行末折り返しのテスト：あいうえおかきくけこさしすせそたちつてとなにぬねのはひふへほまみむめもやゆよ"'
	wait_for cjk 'やゆよ'
	finish cjk
}

rec_emoji() {
	begin emoji 'printf "status: ✅ passed  ❌ failed  ⚠️ warning  🚀 deployed\n"; printf "people: 👍 👍🏽 👨‍👩‍👧 🧑‍💻 🏳️‍🌈\n"; printf "flags: 🇯🇵 🇺🇸 🇩🇪 | symbols: ★ ☆ ♥ ☀ ☂ ✓ ✗ →\n"; printf "end\n"'
	wait_for emoji '^end'
	finish emoji
}

rec_combining() {
	begin combining 'printf "café naïve résumé (precomposed)\n"; printf "cafe\xcc\x81 nai\xcc\x88ve re\xcc\x81sume\xcc\x81 (combining)\n"; printf "a\xcc\x81\xcc\x82\xcc\x83 stacked | Z\xcd\x91\xcd\x92\xcd\x93algo | \xe0\xa4\xb9\xe0\xa4\xbf\xe0\xa4\xa8\xe0\xa5\x8d\xe0\xa4\xa6\xe0\xa5\x80 | \xe0\xb8\x81\xe0\xb8\xb3\n"; printf "end\n"'
	wait_for combining '^end'
	finish combining
}

rec_linedraw() {
	begin linedraw "python3 -c '
import curses
def main(s):
    curses.curs_set(0)
    s.box()
    s.addstr(0, 2, \" agentgrid \")
    w = curses.newwin(8, 30, 3, 5); w.box(); w.addstr(1, 2, \"inner window\"); w.hline(3, 1, curses.ACS_HLINE, 28)
    w.addch(3, 0, curses.ACS_LTEE); w.addch(3, 29, curses.ACS_RTEE); w.addstr(5, 2, \"ready\")
    s.addstr(12, 5, \"unicode: ┌──┬──┐ │  │  │ └──┴──┘ ═══ ╔╗╚╝\")
    s.noutrefresh(); w.noutrefresh(); curses.doupdate()
    s.getch()
curses.wrapper(main)'"
	wait_for linedraw 'ready'
	finish linedraw
}

all=(vim less top gitlog ls progress agent cjk emoji combining linedraw)
for name in "${@:-${all[@]}}"; do
	"rec_$name"
done
