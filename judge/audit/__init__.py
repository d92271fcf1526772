"""The append-only audit log of verifications: the log, its migrations, and statistics over it."""
