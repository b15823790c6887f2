#!/bin/sh
# report.sh: echo what the command saw, one "name=value" line each, as plain
# text (on UserPromptSubmit it becomes additionalContext).
printf 'stdin=%s\n' "$(cat)"
printf 'cwd=%s\n' "$(pwd)"
printf 'project=%s\n' "$CLAUDE_PROJECT_DIR"
printf 'event=%s\n' "$HOOKD_EVENT"
printf 'callback=%s\n' "$HOOKD_CALLBACK_ID"
printf 'attempt=%s\n' "$HOOKD_ATTEMPT"
printf 'args=%s\n' "$*"
