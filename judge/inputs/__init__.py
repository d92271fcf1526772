"""What the verifier reads as input, before any stage: a request document (JSON refusing a key
given twice), validated into :class:`~judge.schemas.VerifyRequest` with errors that name the
field."""
