"""The answer loop: write a cited draft, verify it, repair or regenerate, fall back."""
