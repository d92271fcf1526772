"""Text primitives shared by the stages, and their loaders at the edge: citation markers,
token counts (the tokenizer file), sentence embeddings (the model packages)."""
