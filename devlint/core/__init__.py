"""The vocabulary every layer shares: abstract values, facts, findings, positions, limits."""
