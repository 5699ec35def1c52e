"""The language server (pygls): diagnostics on open, change (debounced) and save; code actions; hover.

Each document is linted on a worker thread, so that the server keeps answering while a large file
is analysed; a result is published only if the document has not changed since it was read.
A burst of changes lints once, DEBOUNCE_SECONDS after the last one. A save, or a change on disk
to a configuration file or a Python file, lints the other open documents again: they may import
what changed.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from typing import Optional
from urllib.parse import unquote

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from devlint import __version__
from devlint.cli.server.linting import LintResult, SettingsCache, lint_text
from devlint.cli.server.protocol import FIX_ALL_KIND, Lines, code_actions, diagnostic, hover

DEBOUNCE_SECONDS = 0.3
# Changes on disk that can change an open document's findings: its configuration, and the project's
# modules it imports (which the analysis reads from disk, not from the editor).
WATCHED_FILES = ("pyproject.toml", ".gitignore", "*.py")
log = logging.getLogger(__name__)


@dataclass
class Linted:
    """The findings of one version of a document."""

    version: Optional[int]
    text: str
    result: LintResult


class DevlintServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("devlint", __version__, text_document_sync_kind=types.TextDocumentSyncKind.Incremental)
        self.settings = SettingsCache()
        self.linted: dict[str, Linted] = {}
        self.pending: dict[str, asyncio.Task] = {}
        self.reported_errors: set[str] = set()
        self.open_documents: set[str] = set()  # their URIs as the client spells them

    def lines(self, text: str) -> Lines:
        return Lines(text, self.workspace.position_codec.client_num_units)

    def schedule(self, uri: str, delay: float) -> None:
        """Lint the document `delay` seconds from now, replacing a lint still waiting for it."""
        waiting = self.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        self.pending[uri] = asyncio.get_running_loop().create_task(self._lint_later(uri, delay))

    async def _lint_later(self, uri: str, delay: float) -> None:
        if delay:
            await asyncio.sleep(delay)
        linted = await self.lint(uri)
        if self.pending.get(uri) is asyncio.current_task():
            del self.pending[uri]
        if linted is not None:
            self.publish(uri, linted)

    async def lint(self, uri: str) -> Optional[Linted]:
        """The document's findings as it is now (from the last lint if nothing changed since); None if it
        changed or closed while it was being linted."""
        document = self.workspace.get_text_document(uri)
        version, text = document.version, document.source
        known = self.linted.get(uri)
        if known is not None and known.version == version and known.text == text:
            return known
        path = document.path
        result = await asyncio.get_running_loop().run_in_executor(None, self._lint_sync, path, text)
        current = self.workspace.text_documents.get(unquote(uri))
        if current is None or current.version != version:
            return None
        linted = Linted(version, text, result)
        self.linted[uri] = linted
        return linted

    def _lint_sync(self, path: str, text: str) -> LintResult:
        if path.endswith(".ipynb"):  # notebooks reach a server through notebook sync, which this one lacks
            return LintResult(skipped="notebooks are linted on the command line only")
        try:
            return lint_text(path, text, self.settings.for_file(path))
        except Exception as exc:  # noqa: BLE001 - a bug of devlint's must not take the editor's server down
            log.exception("linting %s", path)
            return LintResult(error=f"internal error linting {path}: {type(exc).__name__}: {exc}")

    def publish(self, uri: str, linted: Linted) -> None:
        result = linted.result
        if result.error and result.error not in self.reported_errors:
            self.reported_errors.add(result.error)  # once per distinct error, not on every keystroke
            self.window_show_message(types.ShowMessageParams(type=types.MessageType.Error,
                                                             message=f"devlint: {result.error}"))
        if result.skipped:
            self.window_log_message(types.LogMessageParams(type=types.MessageType.Log, message=result.skipped))
        lines = self.lines(linted.text)
        diagnostics = [diagnostic(f, uri, lines, rule_url(f.code)) for f in result.findings]
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(
            uri=uri, version=linted.version, diagnostics=diagnostics))

    def relint_open_documents(self, but: Optional[str] = None, delay: float = 0) -> None:
        """Every open document (but one) again: a file they may import or their configuration changed."""
        for uri in sorted(self.open_documents - {but}):
            self.linted.pop(uri, None)
            self.schedule(uri, delay)

    def watch_files(self) -> None:
        """Ask the client to report changes to WATCHED_FILES, where it can (dynamic registration)."""
        capability = self.client_capabilities.workspace
        watched = capability.did_change_watched_files if capability is not None else None
        if watched is None or not watched.dynamic_registration:
            return
        watchers = [types.FileSystemWatcher(glob_pattern=f"**/{name}") for name in WATCHED_FILES]
        self.client_register_capability(types.RegistrationParams(registrations=[types.Registration(
            id="devlint-watched-files", method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
            register_options=types.DidChangeWatchedFilesRegistrationOptions(watchers=watchers))]))

    def forget(self, uri: str) -> None:
        self.open_documents.discard(uri)
        waiting = self.pending.pop(uri, None)
        if waiting is not None:
            waiting.cancel()
        self.linted.pop(uri, None)
        self.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))


def rule_url(code: str) -> Optional[str]:
    """The rule's page on the documentation site (None: no such rule)."""
    from devlint.cli.docs import rule_url as site_url

    return site_url(code)


def build_server() -> DevlintServer:
    server = DevlintServer()

    @server.feature(types.INITIALIZED)
    def initialized(ls: DevlintServer, params: types.InitializedParams) -> None:
        ls.watch_files()

    @server.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
    def files_changed(ls: DevlintServer, params: types.DidChangeWatchedFilesParams) -> None:
        ls.relint_open_documents(delay=DEBOUNCE_SECONDS)  # a checkout changes many files at once

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    async def did_open(ls: DevlintServer, params: types.DidOpenTextDocumentParams) -> None:
        ls.open_documents.add(params.text_document.uri)
        ls.schedule(params.text_document.uri, 0)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    async def did_change(ls: DevlintServer, params: types.DidChangeTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, DEBOUNCE_SECONDS)

    @server.feature(types.TEXT_DOCUMENT_DID_SAVE)
    async def did_save(ls: DevlintServer, params: types.DidSaveTextDocumentParams) -> None:
        ls.schedule(params.text_document.uri, 0)
        ls.relint_open_documents(but=params.text_document.uri, delay=DEBOUNCE_SECONDS)  # its importers

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    async def did_close(ls: DevlintServer, params: types.DidCloseTextDocumentParams) -> None:
        ls.forget(params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_CODE_ACTION, types.CodeActionOptions(
        code_action_kinds=[types.CodeActionKind.QuickFix, FIX_ALL_KIND]))
    async def code_action(ls: DevlintServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        linted = await ls.lint(uri)
        if linted is None:
            return []
        lines = ls.lines(linted.text)
        return code_actions(linted.result.findings, uri, linted.text, lines, params.range, params.context.only,
                            lambda f: diagnostic(f, uri, lines, rule_url(f.code)))

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    async def on_hover(ls: DevlintServer, params: types.HoverParams) -> Optional[types.Hover]:
        linted = await ls.lint(params.text_document.uri)
        if linted is None:
            return None
        return hover(linted.result.findings, ls.lines(linted.text), params.position, rule_url)

    return server
