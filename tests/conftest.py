from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
EXPECT = re.compile(r"#\s*expect:\s*(?P<codes>DEV\d+(?:\s*,\s*DEV\d+)*)")


def expected_findings(source: str) -> set[tuple[int, str]]:
    """{(line, code)} from the `# expect: DEV101, DEV201` markers of a fixture or example."""
    expected = set()
    for number, line in enumerate(source.splitlines(), start=1):
        match = EXPECT.search(line)
        if match:
            for code in match.group("codes").split(","):
                expected.add((number, code.strip()))
    return expected


@pytest.fixture
def root() -> Path:
    return ROOT


@pytest.fixture(autouse=True, scope="session")
def _session_cache(tmp_path_factory) -> None:
    """The runs of the suite (in-process and `devlint` subprocesses) cache in a temporary folder, not the user's."""
    os.environ.setdefault("DEVLINT_CACHE_DIR", str(tmp_path_factory.mktemp("devlint-cache")))


@pytest.fixture
def pytester(pytester):
    """Inner sessions get the setting pyproject.toml gives this one: pytest-asyncio (installed for
    pytest-lsp) warns in a session that leaves its fixtures' loop scope unset."""
    pytester.makeini("[pytest]\nasyncio_default_fixture_loop_scope = function\n")
    return pytester
