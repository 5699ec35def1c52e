"""Line and column of every node, from libcst's public PositionProvider.

Positions are asked for only in files that have something to report (and in the project modules a
why-chain names): the provider's pass over one tree is made then, once, and kept.
"""

from __future__ import annotations

from typing import Optional

import libcst as cst
from libcst.metadata import CodeRange, MetadataWrapper, PositionProvider


class Positions:
    """`positions.get(node)`: the node's CodeRange, or None for a node outside the module."""

    def __init__(self, module: cst.Module) -> None:
        # unsafe_skip_copy: the analysis holds this tree's own nodes, which a copy would not answer for
        self._ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)

    def get(self, node: cst.CSTNode) -> Optional[CodeRange]:
        return self._ranges.get(node)
