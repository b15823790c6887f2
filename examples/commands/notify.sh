#!/bin/sh
# Notification: a side effect only. A failure here (any exit but 0 and 2) is a
# non-blocking error: hookd logs stderr and the session goes on.
cat >/dev/null
command -v notify-send >/dev/null 2>&1 || { echo "notify-send not installed" >&2; exit 1; }
notify-send "Claude Code" "needs your attention"
