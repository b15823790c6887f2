#!/bin/sh
# UserPromptSubmit: plain text on stdout (exit 0) becomes additional context.
cat >/dev/null
branch=$(git -C "$CLAUDE_PROJECT_DIR" branch --show-current 2>/dev/null)
echo "Current git branch: ${branch:-unknown}. Run the tests before you commit."
