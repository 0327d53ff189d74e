"""The recommender: search GPU × count × layout, price, check by the rules, rank."""
