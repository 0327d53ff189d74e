"""The advisor: estimator (pure math), recommender, and the conversation layer."""
