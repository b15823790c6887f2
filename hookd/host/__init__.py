"""Host mode (`hookd run`): spawn the CLI, serve its hooks, relay the conversation."""
