"""The HTTP transport: ``hookd serve HOOKS --http [HOST:]PORT`` (protocol/SPEC.md section 14)."""
