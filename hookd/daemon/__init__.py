"""The hooks daemon for interactive Claude Code: install, lifecycle, command shim, reload."""
