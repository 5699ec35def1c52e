"""`devlint server`: devlint as a language server (LSP over stdio), for any editor with an LSP client.

pygls and lsprotocol come with the `server` extra (`pip install 'devlint[server]'`); they are
imported only when the server starts, so that the linter itself does not need them.
"""

from __future__ import annotations

import sys

import click


@click.command("server", context_settings={"help_option_names": ["-h", "--help"]})
def server_command() -> None:
    """Run devlint as a language server over stdin/stdout (see docs/editors.md for editor setups)."""
    try:
        from devlint.cli.server.app import build_server
    except ImportError as exc:
        click.echo(f"devlint: error: `devlint server` needs pygls and lsprotocol: pip install 'devlint[server]' "
                   f"({exc})", err=True)
        sys.exit(2)
    protocol_out = sys.stdout.buffer
    sys.stdout = sys.stderr  # stdout carries the protocol: a stray print must not corrupt it
    build_server().start_io(sys.stdin.buffer, protocol_out)
