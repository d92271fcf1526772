"""One module per `judge` sub-command; each exposes ``register(subparsers)``."""
