"""Benchmarks of hook answerers over the control protocol (`make bench`, not part of the tests)."""
