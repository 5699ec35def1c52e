"""Runtime checking: torch calls intercepted while code runs (see runner.py, pytest_plugin.py)."""
