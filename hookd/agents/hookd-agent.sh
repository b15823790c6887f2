#!/bin/bash
# hookd-agent: an agent CLI's command hook, forwarded to the warm hookd daemon.
#
#   hookd-agent.sh PORT TOKEN_FILE AGENT/EVENT [DEADLINE_S [MODE [HOOKD MODULE [READY_FILE]]]]
#
# Reads the hook payload on stdin, POSTs it to http://127.0.0.1:PORT/agent/AGENT/EVENT
# with the token read from TOKEN_FILE (never from the command line), and gives the
# agent what the daemon encoded: the body on stdout (exit 0) or on stderr (other
# exits), and the exit code of the x-hookd-exit header. Bash (5 or later) built-ins only
# (its /dev/tcp, `read` of the ready file and of /proc): with the daemon running no process
# is started, so the round trip costs a few milliseconds.
#
# Who it talks to: only the daemon of READY_FILE. The daemon writes that file (0600, in
# this user's 0700 runtime directory) once it listens: its pid, its start time (field 22
# of /proc/PID/stat, clock ticks after boot) and its port; it removes the file before it
# lets go of the port. So a live process of this user with that pid and that start time
# is the daemon that wrote the file, and while it lives it holds the port: no other
# program can listen there. A daemon killed without cleaning up leaves its file behind,
# and its pid may come back as another process, never with the same start time. The
# proof is checked before connecting and again after (the same daemon both times), and
# nothing is sent without it. With HOOKD (the hookd executable) and MODULE (the hooks
# file), a daemon not proven is asked for: `HOOKD up MODULE --port PORT` starts it (a
# port held by another program is its error) or confirms it, and the proof is checked
# again.
#
# One deadline, DEADLINE_S (default 55), covers the whole exchange with the daemon (from
# the proof on, after any `hookd up`): connect, request, status line, headers and a body
# of exactly Content-Length bytes; each read waits only for what is left of it. An answer
# cut short, stalled or dripping past the deadline is no answer.
#
# When no usable answer comes (no daemon, none proven, no whole answer within DEADLINE_S,
# a refusal, garbage) it fails closed: exit 2 and one line on stderr, which every agent
# reads as "do not run it". MODE "open" (for events that block nothing) exits 1 instead:
# the agent shows the line and goes on; "pass" exits 0 (for an agent that denies on any
# non-zero exit, as Copilot CLI does). "cancel" (for Cline, which reads only stdout and runs
# the tool whatever the exit code) prints {"cancel": true, "errorMessage": "hookd: ..."} on
# stdout and exits 0, as it does for any answer of the daemon's that is not exit 0.
export LC_ALL=C # bytes, not characters: ${#body}, read -N; and "." in $EPOCHREALTIME
trap '' PIPE    # a peer that hangs up makes the write fail (exit 2 below), not kill the shim
port=$1 token_file=$2 target=$3 deadline=${4:-55} mode=${5:-closed} hookd=$6 module=$7
ready=$8

fail() {
	local said
	if [ "$mode" = cancel ]; then # a JSON string: no control byte, \ and " escaped
		said=${1//[[:cntrl:]]/ } said=${said//\\/\\\\} said=${said//\"/\\\"}
		printf '{"cancel": true, "errorMessage": "hookd: %s"}\n' "$said"
		exit 0
	fi
	printf 'hookd: %s\n' "$1" >&2
	case $mode in
	open) exit 1 ;;
	pass) exit 0 ;;
	esac
	exit 2
}

# True when READY_FILE proves that this module's live daemon holds PORT; keeps the file's
# text, the pid, its start time and where /proc/PID/stat gives it (at), else sets why to the
# reason there is no proof. Parameter expansion, not regular expressions: it is paid per call.
proven() {
	local rest n
	local -a fields
	why="no ready file names the hookd daemon on 127.0.0.1:$port"
	[ -n "$ready" ] || return 1
	why="the hookd daemon is not running on 127.0.0.1:$port"
	[ -e "$ready" ] || return 1
	why="$ready does not name this user's hookd daemon on port $port"
	[ -f "$ready" ] && [ -O "$ready" ] || return 1
	IFS= read -r -d '' text <"$ready" 2>/dev/null
	rest=${text#*\"port\": } # the first "port" (the module's path comes after it)
	[ "${rest%%[,\}]*}" = "$port" ] || return 1
	rest=${text#\{\"pid\": } pid=${rest%%,*} # {"pid": PID, "start_ticks": T, ...
	case $pid in '' | *[!0-9]*) return 1 ;; esac
	why="$ready gives no start time for pid $pid (a daemon of an older hookd: \`hookd down\` stops it)"
	case $rest in "$pid, \"start_ticks\": "*) ;; *) return 1 ;; esac
	rest=${rest#"$pid, \"start_ticks\": "} ticks=${rest%%,*}
	case $ticks in '' | *[!0-9]*) return 1 ;; esac
	why="the hookd daemon of $ready (pid $pid) is not running; port $port may be another program's"
	[ -O "/proc/$pid" ] && read -r -a fields <"/proc/$pid/stat" 2>/dev/null || return 1
	# field 2, the name, may hold spaces and ") " (15 bytes at most): it ends at the last of
	# the first words that ends with ")"; the state and the start time follow it
	at=1
	if [[ "${fields[*]:2:7}" == *\)* ]]; then
		for ((n = 2; n < 9; n++)); do [[ ${fields[n]} == *\) ]] && at=$n; done
	fi
	[ "${fields[at + 1]}" != Z ] && [ "${fields[at + 20]}" = "$ticks" ]
}

# True when what proven found still holds: the same ready file, the same live process.
still() {
	local now
	local -a fields
	IFS= read -r -d '' now <"$ready" 2>/dev/null
	[ "$now" = "$text" ] && read -r -a fields <"/proc/$pid/stat" 2>/dev/null &&
		[ "${fields[at + 1]}" != Z ] && [ "${fields[at + 20]}" = "$ticks" ]
}

# Connects fd 3 to the proven daemon: proven before, and the same daemon still there after
# (it holds the port from before it writes its file until after it removes it).
connect() {
	end=$((${EPOCHREALTIME/./} + us)) # the deadline: from here to the answer's last byte
	proven || return 1
	why="the hookd daemon of $ready (pid $pid) takes no connection on port $port"
	{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || return 1
	still || { why="the hookd daemon of $ready went away"; return 1; }
}

# Sets us to the microseconds in a number of seconds (55, 0.3).
micros() {
	local whole=${1%%.*} frac=000000
	[[ $1 == *.* ]] && frac=${1#*.}000000
	us=$((10#${whole:-0} * 1000000 + 10#${frac:0:6}))
}

# Sets t to the seconds left before the deadline (for read -t); fails when none are.
left() {
	local rest=$((end - ${EPOCHREALTIME/./})) frac
	((rest > 0)) || return 1
	frac=$((rest % 1000000 + 1000000)) # 1 and six digits
	t=$((rest / 1000000)).${frac:1}
}

# Reads one line of the answer's head into line within the deadline, or fails: $1 says what
# to say when the peer hangs up first.
head_line() {
	local got=0 rest=$((end - ${EPOCHREALTIME/./})) frac # left's, inline: paid per line
	((rest > 0)) || fail "$late"
	frac=$((rest % 1000000 + 1000000))
	IFS= read -r -t $((rest / 1000000)).${frac:1} line <&3 2>/dev/null || got=$?
	((got > 128)) && fail "$late"
	((got == 0)) || fail "$1"
	line=${line%$'\r'}
}

usage="usage: hookd-agent.sh PORT TOKEN_FILE AGENT/EVENT [DEADLINE_S [MODE [HOOKD MODULE [READY_FILE]]]]"
[ -n "$target" ] || fail "$usage"
[ -n "$EPOCHREALTIME" ] || fail "bash 5 or later is needed (its \$EPOCHREALTIME)"
case $deadline in
'' | *[!0-9.]* | .* | *. | *.*.*) fail "DEADLINE_S is a number of seconds, not $deadline" ;;
esac
IFS= read -r token 2>/dev/null <"$token_file"
[ -n "$token" ] || [ -n "$module" ] || fail "cannot read the daemon's token from $token_file"
IFS= read -r -d '' body
micros "$deadline"
if ! connect; then
	[ -n "$hookd" ] && [ -n "$module" ] || fail "$why"
	why=$("$hookd" up "$module" --port "$port" --quiet 2>&1 >/dev/null)
	if [ -n "$why" ]; then
		why=${why##*$'\n'} why=${why#hookd up: error: }
		fail "the hookd daemon is not running on 127.0.0.1:$port and did not start: $why"
	fi
	connect || fail "$why (after \`hookd up\`)"
	IFS= read -r token 2>/dev/null <"$token_file" # a start makes a new one
fi
[ -n "$token" ] || fail "cannot read the daemon's token from $token_file"

late="no answer from the hookd daemon within ${deadline}s"
printf 'POST /agent/%s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
	"$target" "$token" "${#body}" "$body" 2>/dev/null >&3 || fail "the hookd daemon on port $port closed the connection"

# Read errors (a connection reset) are the one line's business, not bash's own message.
head_line "the hookd daemon closed the connection without an answer"
case $line in
"HTTP/1.1 200 "*) ;;
*) fail "the hookd daemon refused the call: ${line:-no status line}" ;;
esac
late="no whole answer from the hookd daemon within ${deadline}s" code= length=
while head_line "the hookd daemon's answer ended inside its head" && [ -n "$line" ]; do
	case $line in
	[Xx]-[Hh]ookd-[Ee]xit:*) code=${line#*:} code=${code// /} ;;
	[Cc]ontent-[Ll]ength:*) length=${line#*:} length=${length// /} ;;
	esac
done
case $code in
0 | 1 | 2) ;;
*) fail "the hookd daemon answered garbage (no exit code)" ;;
esac
case $length in
'' | *[!0-9]* | ??????????*) fail "the hookd daemon answered garbage (no Content-Length)" ;;
esac
answer= got=0
if ((10#$length > 0)); then
	left || fail "$late"
	IFS= read -r -N $((10#$length)) -t "$t" answer <&3 2>/dev/null || got=$?
	((got > 128)) && fail "$late"
	((${#answer} == 10#$length)) || fail "the hookd daemon's answer ended after ${#answer} of $length bytes"
fi
case $code in
0) printf '%s' "$answer" ;;
*)
	[ "$mode" = cancel ] && fail "${answer#hookd: }"
	printf '%s\n' "${answer%$'\n'}" >&2
	;;
esac
exit "$code"
