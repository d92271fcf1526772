"""The second-opinion HTTP service: app, request guard, fail-safe wrappers, OpenAPI, metrics."""
