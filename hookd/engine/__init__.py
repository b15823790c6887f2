"""The engine: runs hooks under timeouts and the failure policy; dispatch, merge, rewrite."""
