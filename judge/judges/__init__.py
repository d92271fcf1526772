"""Judge backends: the HTTP judge over an OpenAI-compatible endpoint, its verdict cache, prompt
templates, and opening the judge a request is verified with."""
