"""devlint: find device-safety bugs in PyTorch code.

Static mode (``devlint PATH``) never imports torch; runtime mode lives in
``devlint.runtime`` and imports it lazily.
"""

__version__ = "0.1.0"
