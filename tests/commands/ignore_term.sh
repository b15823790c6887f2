#!/bin/sh
# ignore_term.sh FIFO: ignore SIGTERM (the background child inherits that),
# tell FIFO "<own pid> <child pid>", then wait forever: only SIGKILL ends it.
trap '' TERM
sleep 1000 &
echo "$$ $!" >"$1"
wait
