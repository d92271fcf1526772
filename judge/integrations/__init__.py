"""Integrations with other tools, each behind its own optional extra:

- :mod:`judge.integrations.langchain`: a LangChain ``Runnable`` that verifies a chain's answer
  against its retrieved documents (``pip install 'grounding-judge[langchain]'``);
- :mod:`judge.integrations.pytest`: ``assert_grounded`` for tests, and a pytest plugin with a
  ``grounding_verifier`` fixture (``pip install 'grounding-judge[pytest]'``).
"""
