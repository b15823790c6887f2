#!/bin/sh
# exit_with.sh CODE [STDOUT] [STDERR]: read the hook input, write STDOUT and
# STDERR as given, exit with CODE (a negative CODE: kill itself with that signal).
while read -r _; do :; done  # consume the hook input (no fork)
printf '%s' "${2-}"
printf '%s' "${3-}" >&2
case "$1" in
    -*) kill "$1" $$ ;;
esac
exit "$1"
