"""Stage 2: claims from an answer: the sentence baseline, LLM decomposition, main conclusion."""
