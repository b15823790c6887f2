"""Test support: a scripted fake Anthropic API and helpers to run the real CLI offline."""
