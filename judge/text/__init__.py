"""Text primitives shared by the stages: citation markers."""
