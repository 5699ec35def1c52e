"""`devlint server` driven end to end by a real LSP client (pytest-lsp), as an editor drives it:
open a buggy file, read the diagnostics and their why-chains, apply a code action, type the result
back, read the diagnostics again."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

from devlint.cli.docs import rule_url

from tests.conftest import ROOT

pytest_lsp = pytest.importorskip("pytest_lsp", reason="pytest-lsp (Python >= 3.10) drives the server tests")
types = pytest.importorskip("lsprotocol.types")
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities  # noqa: E402

in_session = pytest.mark.asyncio(loop_scope="module")  # the tests share one server

BUGGY = """\
import torch

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
offsets = torch.linspace(-1.0, 1.0, steps=8)
features = torch.randn(4, 8).to(device)
shifted = features + offsets
tag = "\N{FIRE}"; array = features.detach().numpy()
print(tag, array, shifted)
"""
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "devlint", "server"],
                            server_env=dict(os.environ, PYTHONPATH=str(ROOT)))


@pytest_lsp.fixture(config=SERVER, scope="module")
async def client(lsp_client: LanguageClient):
    lsp_client.registrations = []

    @lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)
    def register(params: types.RegistrationParams) -> None:  # an editor's answer to the server's request
        lsp_client.registrations.extend(params.registrations)

    await lsp_client.initialize_session(types.InitializeParams(
        capabilities=client_capabilities("visual-studio-code"), root_uri=ROOT.as_uri()))
    yield
    await lsp_client.shutdown_session()


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("server")


class Document:
    """A document the test client has open: its text and version, as an editor keeps them."""

    def __init__(self, client: LanguageClient, path: Path, text: str) -> None:
        self.client, self.uri, self.text, self.version = client, path.as_uri(), text, 1
        path.write_text(text, encoding="utf-8")

    async def open(self) -> list:
        self.client.diagnostics.pop(self.uri, None)
        self.client.text_document_did_open(types.DidOpenTextDocumentParams(
            types.TextDocumentItem(uri=self.uri, language_id="python", version=self.version, text=self.text)))
        return await self.diagnostics()

    async def change(self, text: str) -> list:
        """Send the whole new text (as a full-document change), then wait for its diagnostics."""
        self.client.diagnostics.pop(self.uri, None)
        self.text, self.version = text, self.version + 1
        self.client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=self.uri, version=self.version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
        return await self.diagnostics()

    async def diagnostics(self) -> list:
        async def published() -> list:
            while self.uri not in self.client.diagnostics:
                await self.client.wait_for_notification(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
            return list(self.client.diagnostics[self.uri])

        return await asyncio.wait_for(published(), timeout=60)

    async def actions(self, where: types.Range, only=None) -> list:
        context = types.CodeActionContext(diagnostics=[], only=only)
        return list(await self.client.text_document_code_action_async(types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=self.uri), range=where, context=context)) or [])

    def applied(self, action: types.CodeAction) -> str:
        """The text with the action's edits, positions read in UTF-16 units as VS Code reads them."""
        edits = action.edit.changes[self.uri]
        out = self.text
        for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
            out = out[:_offset(out, edit.range.start)] + edit.new_text + out[_offset(out, edit.range.end):]
        return out


def _offset(text: str, position: types.Position) -> int:
    lines = text.splitlines(keepends=True)
    start = sum(len(line) for line in lines[:position.line])
    line = lines[position.line] if position.line < len(lines) else ""
    units = 0
    for index, char in enumerate(line):
        if units >= position.character:
            return start + index
        units += 2 if ord(char) > 0xFFFF else 1
    return start + len(line.rstrip("\r\n"))


def _by_code(diagnostics: list, code: str):
    found = [d for d in diagnostics if d.code == code]
    assert len(found) == 1, [(d.code, d.message) for d in diagnostics]
    return found[0]


@in_session
async def test_diagnostic_with_why_chain_then_fix_then_clean(client: LanguageClient, folder: Path):
    document = Document(client, folder / "train.py", BUGGY)
    diagnostics = await document.open()
    mixed = _by_code(diagnostics, "DEV101")
    assert mixed.source == "devlint" and mixed.severity == types.DiagnosticSeverity.Error
    assert (mixed.range.start.line, mixed.range.start.character, mixed.range.end.character) == (5, 10, 28)
    assert mixed.code_description.href == rule_url("DEV101")
    steps = {(r.location.range.start.line, r.message.split(":")[0]) for r in mixed.related_information}
    assert steps == {(2, "`features` is on `device`"), (4, "`features` is on `device`"), (3, "`offsets` is on cpu")}
    assert all(r.location.uri == document.uri for r in mixed.related_information)

    numpy = _by_code(diagnostics, "DEV401")
    assert numpy.range.start.line == 6
    assert numpy.range.start.character == len('tag = "\N{FIRE}"; array = ') + 1  # in UTF-16 units: the emoji takes 2
    fixes = [a for a in await document.actions(numpy.range) if a.title.startswith("DEV401: bring it")]
    assert len(fixes) == 1 and fixes[0].is_preferred and fixes[0].kind == types.CodeActionKind.QuickFix
    fixed = document.applied(fixes[0])
    assert 'tag = "\N{FIRE}"; array = features.detach().cpu().numpy()\n' in fixed

    after = await document.change(fixed)
    assert [d.code for d in after] == ["DEV101"]  # DEV401 is gone, the mix is still there


@in_session
async def test_hover_shows_each_operand_device_and_why(client: LanguageClient, folder: Path):
    document = Document(client, folder / "hover.py", BUGGY)
    await document.open()
    result = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=document.uri), position=types.Position(line=5, character=22)))
    text = result.contents.value
    assert "**[DEV101]" in text and "`mixed-devices`" in text
    assert "- `features` is on `device`: line 3 `device = torch.device(" in text
    assert "- `offsets` is on cpu: line 4 `offsets = torch.linspace(" in text
    nothing = await client.text_document_hover_async(types.HoverParams(
        text_document=types.TextDocumentIdentifier(uri=document.uri), position=types.Position(line=0, character=2)))
    assert nothing is None


@in_session
async def test_noqa_action_silences_the_line(client: LanguageClient, folder: Path):
    document = Document(client, folder / "noqa.py", BUGGY)
    mixed = _by_code(await document.open(), "DEV101")
    actions = [a for a in await document.actions(mixed.range) if "noqa" in a.title]
    assert [a.title for a in actions] == ["DEV101: silence with `# noqa: DEV101` on this line"]
    silenced = document.applied(actions[0])
    assert "shifted = features + offsets  # noqa: DEV101\n" in silenced
    assert "DEV101" not in [d.code for d in await document.change(silenced)]


@in_session
async def test_unsafe_fix_is_labelled_and_fix_all_takes_only_safe_ones(client: LanguageClient, folder: Path):
    text = "import torch\n\nbias = torch.cuda.FloatTensor([0.0, 0.2])\nvalues = bias.numpy()\n"
    document = Document(client, folder / "legacy.py", text)
    gpu = _by_code(await document.open(), "DEV204")
    titles = [a.title for a in await document.actions(gpu.range, only=[types.CodeActionKind.QuickFix])
              if not a.title.endswith("on this line")]
    assert titles and all(t.startswith("DEV204: ") and t.endswith(" (unsafe)") for t in titles)
    whole = types.Range(start=types.Position(line=0, character=0), end=types.Position(line=4, character=0))
    fix_all = await document.actions(whole, only=[types.CodeActionKind.SourceFixAll])
    assert [a.kind for a in fix_all] == ["source.fixAll.devlint"]
    fixed = document.applied(fix_all[0])
    assert fixed == text.replace("bias.numpy()", "bias.detach().cpu().numpy()")  # the safe DEV401, not DEV204's


@in_session
async def test_a_syntax_error_is_a_diagnostic_and_the_server_lives_on(client: LanguageClient, folder: Path):
    broken = Document(client, folder / "broken.py", "import torch\nx = torch.zeros(3,\n")
    [finding] = await broken.open()
    assert finding.code == "DEV001" and finding.message.startswith("syntax error")
    fixed = await broken.change("import torch\nx = torch.zeros(3)\ny = x.cuda()\n")
    assert "DEV001" not in [d.code for d in fixed] and fixed  # linted again, for real


@in_session
async def test_a_burst_of_changes_is_linted_once_at_its_last_version(client: LanguageClient, folder: Path):
    document = Document(client, folder / "typing.py", BUGGY)
    await document.open()
    for version, text in ((2, BUGGY.replace("shifted", "moved")), (3, "import torch\nx = torch.zeros(3,\n")):
        client.text_document_did_change(types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=document.uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)]))
    client.diagnostics.pop(document.uri, None)
    assert [d.code for d in await document.diagnostics()] == ["DEV001"]  # the last text's, not the one before


@in_session
async def test_a_save_lints_the_other_open_documents_again(client: LanguageClient, folder: Path):
    """They may import the saved module (whole-project analysis reads it from disk)."""
    saved = Document(client, folder / "saved.py", BUGGY)
    other = Document(client, folder / "importer.py", "import torch\nimport saved\nx = torch.ones(2).cuda()\n")
    await saved.open()
    before = await other.open()
    client.diagnostics.pop(other.uri, None)
    client.text_document_did_save(types.DidSaveTextDocumentParams(
        text_document=types.TextDocumentIdentifier(uri=saved.uri)))
    assert [d.code for d in await other.diagnostics()] == [d.code for d in before]


@in_session
async def test_the_nearest_pyproject_decides_for_the_file(client: LanguageClient, folder: Path):
    project = folder / "project"
    (project / "tests").mkdir(parents=True)
    (project / "pyproject.toml").write_text('[tool.devlint]\nper-file-ignores = { "tests/*" = ["DEV401"] }\n')
    inside = Document(client, project / "tests" / "test_t.py", BUGGY)
    codes = sorted(d.code for d in await inside.open())
    assert codes == ["DEV101"]
    outside = Document(client, project / "train.py", BUGGY)
    assert sorted(d.code for d in await outside.open()) == ["DEV101", "DEV401"]

    [watch] = [r for r in client.registrations if r.method == types.WORKSPACE_DID_CHANGE_WATCHED_FILES]
    assert "**/pyproject.toml" in [w["globPattern"] for w in watch.register_options["watchers"]]  # plain JSON here
    (project / "pyproject.toml").write_text('[tool.devlint]\nignore = ["DEV101"]\n')  # edited while open
    client.diagnostics.pop(outside.uri, None)
    client.workspace_did_change_watched_files(types.DidChangeWatchedFilesParams(changes=[types.FileEvent(
        uri=(project / "pyproject.toml").as_uri(), type=types.FileChangeType.Changed)]))
    assert [d.code for d in await outside.diagnostics()] == ["DEV401"]


def test_the_server_command_says_what_it_needs_when_pygls_is_missing(tmp_path: Path):
    import subprocess

    blocker = tmp_path / "pygls"
    blocker.mkdir()
    (blocker / "__init__.py").write_text("raise ImportError('pygls hidden for this test')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]))
    done = subprocess.run([sys.executable, "-m", "devlint", "server"], capture_output=True, text=True, env=env,
                          timeout=60, stdin=subprocess.DEVNULL)
    assert done.returncode == 2
    assert re.search(r"needs pygls and lsprotocol: pip install 'devlint\[server\]'", done.stderr)
    assert "Traceback" not in done.stderr
