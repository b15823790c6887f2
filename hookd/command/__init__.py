"""Command hooks from settings files: loading, child processes, the exit-code table."""
