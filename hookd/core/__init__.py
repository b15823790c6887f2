"""The core: registry, context, loader, matcher, policy and runner detection. No trio."""
