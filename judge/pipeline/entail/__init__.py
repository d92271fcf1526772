"""Stage 5: entailment: evidence views and windows, the verdict schema and score, thresholds, and
pooling a claim's judgements over its windows, views and sentences."""
