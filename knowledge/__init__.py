"""Cited knowledge: GPU and model catalogs, the guides' tables and claims, and the sources they cite.

Load with :func:`knowledge.catalog.load_catalog` (validated once, cached). Nothing is read at import time.
"""
