"""The verification pipeline, one module or subpackage per stage, in order: ledger (1),
claims (2), align (3), checks (4), entail (5), policy (6); ``runner`` orchestrates them and
does nothing else."""
