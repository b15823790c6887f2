#!/bin/bash
# hookd-agent: an agent CLI's command hook, forwarded to the warm hookd daemon.
#
#   hookd-agent.sh PORT TOKEN_FILE AGENT/EVENT [DEADLINE_S [open]]
#
# Reads the hook payload on stdin, POSTs it to http://127.0.0.1:PORT/agent/AGENT/EVENT
# with the token read from TOKEN_FILE (never from the command line), and gives the
# agent what the daemon encoded: the body on stdout (exit 0) or on stderr (other
# exits), and the exit code of the x-hookd-exit header. Bash built-ins only (its
# /dev/tcp): no process is started, so the round trip costs a few milliseconds.
#
# When no usable answer comes (no daemon, no answer within DEADLINE_S, default 55,
# a refusal, garbage) it fails closed: exit 2 and one line on stderr, which every
# agent reads as "do not run it". With "open" (for events that block nothing) it
# exits 1 instead: the agent shows the line and goes on.
export LC_ALL=C
port=$1 token_file=$2 target=$3 deadline=${4:-55} mode=${5:-closed}

fail() {
	printf 'hookd: %s\n' "$1" >&2
	[ "$mode" = open ] && exit 1
	exit 2
}

[ -n "$target" ] || fail "usage: hookd-agent.sh PORT TOKEN_FILE AGENT/EVENT [DEADLINE_S [open]]"
IFS= read -r token 2>/dev/null <"$token_file"
[ -n "$token" ] || fail "cannot read the daemon's token from $token_file"
IFS= read -r -d '' body
{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null || fail "the hookd daemon is not running on 127.0.0.1:$port"
printf 'POST /agent/%s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
	"$target" "$token" "${#body}" "$body" 2>/dev/null >&3 || fail "the hookd daemon on port $port closed the connection"

IFS= read -r -t "$deadline" status <&3 || fail "no answer from the hookd daemon within ${deadline}s"
status=${status%$'\r'}
code=
while IFS= read -r -t "$deadline" line <&3; do
	line=${line%$'\r'}
	[ -z "$line" ] && break
	case $line in
	[Xx]-[Hh]ookd-[Ee]xit:*) code=${line#*:} code=${code// /} ;;
	esac
done
IFS= read -r -d '' -t "$deadline" answer <&3
case $status in
"HTTP/1.1 200 "*) ;;
*) fail "the hookd daemon refused the call: ${status:-no status line}" ;;
esac
case $code in
0) printf '%s' "$answer" ;;
1 | 2) printf '%s\n' "${answer%$'\n'}" >&2 ;;
*) fail "the hookd daemon answered garbage (no exit code)" ;;
esac
exit "$code"
