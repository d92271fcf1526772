"""Evaluation against human labels: records, runs, metrics, calibration, reports and plots."""
