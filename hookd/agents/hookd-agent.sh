#!/bin/bash
# hookd-agent: an agent CLI's command hook, forwarded to the warm hookd daemon.
#
#   hookd-agent.sh PORT TOKEN_FILE AGENT/EVENT [DEADLINE_S [MODE [HOOKD MODULE [READY_FILE]]]]
#
# Reads the hook payload on stdin, POSTs it to http://127.0.0.1:PORT/agent/AGENT/EVENT
# with the token read from TOKEN_FILE (never from the command line), and gives the
# agent what the daemon encoded: the body on stdout (exit 0) or on stderr (other
# exits), and the exit code of the x-hookd-exit header. Bash built-ins only (its
# /dev/tcp, `read` of /proc/net/tcp): with the daemon running no process is started,
# so the round trip costs a few milliseconds.
#
# With HOOKD (the hookd executable) and MODULE (the hooks file) given, a daemon that is
# not running is started (`HOOKD up MODULE --port PORT`) and asked once more.
#
# Before the token is sent, the listener on the port must belong to this user. The daemon's
# READY_FILE (0600, in this user's runtime directory) naming PORT and a live process of
# this user settles it at once: that process holds the port. Otherwise the kernel's socket
# tables say who listens (its uid in /proc/net/tcp or tcp6, where they exist; reading them
# costs the kernel a few ms per hundred sockets): a program of another user on the port
# gets nothing. A program of this user could read the token file anyway.
#
# When no usable answer comes (no daemon, no answer within DEADLINE_S, default 55,
# a refusal, garbage) it fails closed: exit 2 and one line on stderr, which every
# agent reads as "do not run it". MODE "open" (for events that block nothing) exits
# 1 instead: the agent shows the line and goes on; "pass" exits 0 (for an agent that
# denies on any non-zero exit, as Copilot CLI does).
export LC_ALL=C
trap '' PIPE # a peer that hangs up makes the write fail (exit 2 below), not kill the shim
port=$1 token_file=$2 target=$3 deadline=${4:-55} mode=${5:-closed} hookd=$6 module=$7
ready=$8

fail() {
	printf 'hookd: %s\n' "$1" >&2
	case $mode in
	open) exit 1 ;;
	pass) exit 0 ;;
	esac
	exit 2
}

# Sets owner to the uid of the listener that answers 127.0.0.1:PORT (this user's when one
# of several is), from the kernel's socket tables; empty when none is listed (or there are
# no such tables: not Linux).
listener_uid() {
	local hex table sl addr rem st queues tr retr uid rest
	printf -v hex '%04X' "$port"
	for table in "${HOOKD_PROC_NET:-/proc/net}"/tcp "${HOOKD_PROC_NET:-/proc/net}"/tcp6; do
		[ -r "$table" ] || continue
		while read -r sl addr rem st queues tr retr uid rest; do
			[ "$st" = 0A ] && [ "${addr##*:}" = "$hex" ] || continue
			case ${addr%:*} in
			0100007F | 00000000 | 00000000000000000000000000000000 | \
				0000000000000000FFFF00000100007F | 00000000000000000000000001000000)
				owner=$uid
				[ "$uid" = "$UID" ] && return 0
				;;
			esac
		done <"$table"
	done
	return 0
}

# True when READY_FILE, this user's, names PORT and a live process of this user: the daemon.
ready_is_ours() {
	local text pid
	[ -n "$ready" ] && [ -O "$ready" ] || return 1
	IFS= read -r -d '' text <"$ready" 2>/dev/null
	[[ $text =~ \"port\":\ *([0-9]+) ]] && [ "${BASH_REMATCH[1]}" = "$port" ] || return 1
	[[ $text =~ \"pid\":\ *([0-9]+) ]] || return 1
	pid=${BASH_REMATCH[1]}
	[ -O "/proc/$pid" ] && kill -0 "$pid" 2>/dev/null
}

connect() {
	{ exec 3<>"/dev/tcp/127.0.0.1/$port"; } 2>/dev/null
}

[ -n "$target" ] || fail "usage: hookd-agent.sh PORT TOKEN_FILE AGENT/EVENT [DEADLINE_S [MODE [HOOKD MODULE [READY_FILE]]]]"
IFS= read -r token 2>/dev/null <"$token_file"
[ -n "$token" ] || [ -n "$module" ] || fail "cannot read the daemon's token from $token_file"
IFS= read -r -d '' body
if ! connect; then
	[ -n "$hookd" ] && [ -n "$module" ] || fail "the hookd daemon is not running on 127.0.0.1:$port"
	why=$("$hookd" up "$module" --port "$port" --quiet 2>&1 >/dev/null)
	if [ -n "$why" ]; then
		why=${why##*$'\n'} why=${why#hookd up: error: }
		fail "the hookd daemon is not running on 127.0.0.1:$port and did not start: $why"
	fi
	connect || fail "the hookd daemon is not running on 127.0.0.1:$port (not even after \`hookd up\`)"
	IFS= read -r token 2>/dev/null <"$token_file"
fi
[ -n "$token" ] || fail "cannot read the daemon's token from $token_file"
owner=
ready_is_ours || listener_uid
[ -z "$owner" ] || [ "$owner" = "$UID" ] || fail "port $port is held by another user's program (uid $owner), not the hookd daemon"
printf 'POST /agent/%s HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer %s\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s' \
	"$target" "$token" "${#body}" "$body" 2>/dev/null >&3 || fail "the hookd daemon on port $port closed the connection"

# Read errors (a connection reset) are the one line's business, not bash's own message.
IFS= read -r -t "$deadline" status <&3 2>/dev/null || fail "no answer from the hookd daemon within ${deadline}s"
status=${status%$'\r'}
code=
while IFS= read -r -t "$deadline" line <&3 2>/dev/null; do
	line=${line%$'\r'}
	[ -z "$line" ] && break
	case $line in
	[Xx]-[Hh]ookd-[Ee]xit:*) code=${line#*:} code=${code// /} ;;
	esac
done
IFS= read -r -d '' -t "$deadline" answer <&3 2>/dev/null
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
