"""Measurements of the verifier, sorted by kind; run each with ``python -m`` from the repository
root (``python -m benchmarks.gates``, ``python -m benchmarks.harness.accuracy ...``).

- ``gates/``: judge-free regression gates with committed expected figures;
- ``harness/``: measurements that need a judge, and take minutes to hours;
- ``faults/``: what the verifier does when something it relies on breaks;
- ``tools/``: judge-free utilities to compare two versions of the code or count calls.

``common.py`` holds what they share; ``README.md`` is the index.
"""
