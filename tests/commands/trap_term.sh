#!/bin/sh
# trap_term.sh FIFO: say "ready" on FIFO, wait; on SIGTERM say "term" and exit.
trap 'echo term >"$1"; exit 0' TERM
sleep 1000 &
echo ready >"$1"
wait
