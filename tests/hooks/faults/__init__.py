"""Hooks modules for the fault matrix: one module per fault, each with a healthy ``Ok`` hook."""
