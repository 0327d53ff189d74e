"""The advisor's tool surface: typed tools over the estimator, recommender, rules and catalog."""
