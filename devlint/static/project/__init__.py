"""The project around a checked file: its root, its import roots, and its modules read once (never run)."""
