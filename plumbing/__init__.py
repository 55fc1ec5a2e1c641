"""Per-user process plumbing shared by the client and the search server.

Stdlib only, and it knows nothing of the app: what a helper preloads, what its freshness
is keyed on and where its files live come in as arguments from the entry points.
"""
