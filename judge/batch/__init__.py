"""Bulk verification of logged traffic: ``judge batch``.

JSON Lines of requests in, one response line per request out, resumable; verified in one
process (:mod:`judge.batch.local`) or on a Ray cluster (:mod:`judge.batch.ray_engine`).
"""
