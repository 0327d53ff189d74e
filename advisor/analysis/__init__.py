"""The analysis of one workload: memory need, the user's own configurations, the recommender's search, limits,
capacity, claims and the rules. Both conversation drivers call :func:`advisor.analysis.evaluate.analyse` with an
:class:`advisor.analysis.request.AnalysisRequest` (the dialog builds it from its slots, the agent's `recommend`
tool from its arguments), so the two give the same numbers by construction."""
