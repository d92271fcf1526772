"""What the verifier does when something it relies on breaks: judge replies without a score, a
kept output whose inputs changed, the audit log under faults."""
