#!/bin/sh
# PreToolUse (Bash): refuse a few destructive commands.
# Exit 2 blocks the call; stderr is the reason shown to the model.
input=$(cat)
case "$input" in
    *'rm -rf /"'* | *'rm -rf / '* | *'rm -rf ~'*)
        echo "refusing a recursive delete of / or ~" >&2
        exit 2 ;;
    *'git push --force'* | *'git push -f'*)
        echo "force pushes are not allowed; push a new branch instead" >&2
        exit 2 ;;
esac
exit 0
