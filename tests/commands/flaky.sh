#!/bin/sh
# flaky.sh COUNTER FAILURES CODE: count runs in COUNTER; the first FAILURES runs
# exit with CODE, later runs print the run number as JSON and exit 0.
while read -r _; do :; done  # consume the hook input (no fork)
runs=$(( $(cat "$1" 2>/dev/null || echo 0) + 1 ))
echo "$runs" >"$1"
if [ "$runs" -le "$2" ]; then
    echo "temporary failure $runs" >&2
    exit "$3"
fi
printf '{"systemMessage": "run %s"}' "$runs"
