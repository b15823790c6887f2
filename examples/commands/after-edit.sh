#!/bin/sh
# PostToolUse (Edit|Write): JSON on stdout (exit 0) is the hook's output.
cat >/dev/null
cat <<'JSON'
{"hookSpecificOutput": {"hookEventName": "PostToolUse",
  "additionalContext": "A file was edited: run the formatter before committing."}}
JSON
