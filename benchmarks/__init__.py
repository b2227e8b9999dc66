"""gojax vs XLA:CPU benchmarks (run as ``python -m benchmarks``; see docs/performance.md).

Not part of the unit tests: timings depend on the machine and its load.
"""
