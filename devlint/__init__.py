"""devlint: find device-safety bugs in PyTorch code.

Static mode (``devlint PATH``) never imports torch; runtime mode lives in
``devlint.runtime`` and imports it lazily.

PYTEST_DONT_REWRITE: devlint's pytest plugin is imported before pytest starts when `devlint --runtime
-- pytest` launches it; pytest would otherwise warn, in the user's session, that it cannot rewrite it.
"""

__version__ = "0.1.0"
