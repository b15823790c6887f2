#!/bin/sh
# PreToolUse (WebFetch): ask a policy store, which may be busy.
# Exit 75 (EX_TEMPFAIL) while it is locked: settings.json retries that code.
cat >/dev/null
if [ -e "$CLAUDE_PROJECT_DIR/.policy.lock" ]; then
    echo "policy store is locked, try again" >&2
    exit 75
fi
exit 0
