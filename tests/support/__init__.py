"""Code the tests and the benchmarks share (a `companion run` process driver, load scenarios).

Tests import it as `support.*` (pytest puts tests/ on the path); benchmarks as `tests.support.*`.
"""
