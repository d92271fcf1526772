"""Judge-free regression gates: each measures the exact checks (or the pointers, or the
injection screen) on fixed data, compares the figures with those committed under
``expected/`` and fails on a regression past its stated tolerance. ``python -m benchmarks.gates``
runs them all."""
