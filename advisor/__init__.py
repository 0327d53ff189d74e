"""The advisor: estimator (pure math), recommender, and the conversation layer."""

import knowledge as _knowledge  # noqa: F401 - msgspec loaded the way knowledge/__init__.py says (start-up)
