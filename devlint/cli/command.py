"""The `devlint` command.

    devlint [OPTIONS] [PATH]...          lint files, notebooks and folders (static; never runs them);
                                         --fix, --diff, --add-noqa change or show changes to them
    devlint --watch [OPTIONS] PATH...    lint, then lint again what changes, until Ctrl-C
    devlint rules                        the rule catalogue
    devlint explain CODE                 one rule's documentation
    devlint docs [--check] [DIR]         write (or check) the rule pages in rules/
    devlint server                       a language server (LSP over stdio) for editors
    devlint --runtime [--simulate-gpu] [--gpus N] script.py [ARGS]...
    devlint --runtime [--simulate-gpu] -- pytest [ARGS]...

Exit codes: 0 no findings, 1 findings, 2 usage error, bad config, or a file
that could not be analysed. The lint itself runs in devlint.cli.lint_run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional, Sequence

import click

from devlint import __version__
from devlint.static.rules import ALL_RULES

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SUBCOMMANDS = ("rules", "explain", "docs")
OUTPUT_FORMATS = ("concise", "full", "json", "sarif", "github", "junit", "gitlab", "text")


def _fail(message: str) -> None:
    click.echo(f"devlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@click.command(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--select", multiple=True, metavar="CODES",
              help="Rules to run: codes or prefixes (DEV101, DEV1, ALL), comma-separated. Replaces the selection "
                   "of the config file.")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Rules to add to the selection.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Rules to skip: codes or prefixes.")
@click.option("--extend-ignore", multiple=True, metavar="CODES", help="More rules to skip (same as --ignore).")
@click.option("--output-format", "--format", "output_format", type=click.Choice(OUTPUT_FORMATS), default="full",
              show_default=True, help="full: the code under a caret and the why; concise: one line each; "
                                      "json, sarif, github, junit, gitlab. --format is an alias; text is full.")
@click.option("--config", "config_path", type=click.Path(path_type=Path),
              help="A TOML file with a [tool.devlint] table (or devlint's keys at its top level). "
                   "Default: the nearest pyproject.toml.")
@click.option("--exclude", multiple=True, metavar="PATTERN",
              help="Gitignore-style patterns to skip, replacing the default list and the config's.")
@click.option("--extend-exclude", multiple=True, metavar="PATTERN", help="Patterns to skip, in addition.")
@click.option("--force-exclude/--no-force-exclude", default=None,
              help="Apply the excludes to files named on the command line too (for pre-commit).")
@click.option("--respect-gitignore/--no-respect-gitignore", default=None,
              help="Skip files that .gitignore files ignore (default: on).")
@click.option("--stdin-filename", metavar="PATH", help="The path to report (and to match patterns) for `devlint -`.")
@click.option("--fix/--no-fix", default=False, help="Apply the safe fixes, in place.")
@click.option("--unsafe-fixes/--no-unsafe-fixes", default=False, help="Include the unsafe fixes (with --fix, --diff).")
@click.option("--diff", is_flag=True,
              help="Print the fixes as a unified diff instead of applying them (exit 1 if any).")
@click.option("--show-fixes", is_flag=True, help="Show each finding's fix, and list what --fix fixed.")
@click.option("--add-noqa", is_flag=True, help="Add a `# noqa: CODE` to every line with a finding.")
@click.option("--statistics", is_flag=True, help="Count findings by rule instead of listing them.")
@click.option("--quiet", "-q", is_flag=True, help="Print the findings only: no summary, no progress.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Color the text output (auto: on a terminal, unless NO_COLOR is set or FORCE_COLOR is).")
@click.option("--no-color", "no_color", is_flag=True, help="Same as --color never.")
@click.option("--no-progress", is_flag=True, help="No progress bar (shown on a terminal for runs over 2 s).")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, help="Worker processes (0: automatic).")
@click.option("--no-cache", is_flag=True, help="Analyse every file again, ignoring the cache of earlier runs.")
@click.option("--isolated-files", is_flag=True,
              help="Check each file alone, without reading the project modules it imports (config: isolated-files).")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even with findings or files that could not be analysed.")
@click.option("--watch", is_flag=True, help="Lint, then lint each changed file again as it changes, until Ctrl-C.")
@click.version_option(__version__, "--version", prog_name="devlint")
def lint(paths: Sequence[str], no_color: bool, no_progress: bool, watch: bool, **options) -> None:
    """Find device-safety bugs in PyTorch code (mixed cpu/cuda tensors, GPUs assumed,
    unsynchronized timings, GPU tensors handed to numpy).

    PATHS are files or folders (walked for *.py and *.ipynb); `-` reads stdin.
    Subcommands: `devlint rules`, `devlint explain CODE`, `devlint docs`, `devlint server`.
    Runtime checking: `devlint --runtime --help`.
    """
    from devlint.cli.lint_run import LintOptions, UsageError, run_lint

    if no_color:
        options["color"] = "never"
    try:
        lint_options = LintOptions(paths=paths, progress=not no_progress, **options)
        if watch:  # devlint.cli.watch
            from devlint.cli.watch import run_watch

            code = run_watch(lint_options)
        else:
            code = run_lint(lint_options)
    except UsageError as exc:
        _fail(str(exc))
    sys.exit(code)


@click.command("rules")
@click.option("--all", "show_all", is_flag=True, help="Also list DEV001-DEV003 and DEV005, the reports on files that cannot be "
                                                      "analysed.")
def rules_command(show_all: bool) -> None:
    """The rule catalogue."""
    from devlint.cli.docs import FILE_PROBLEMS

    click.echo(f"{'code':<7} {'name':<28} {'severity':<8} {'default':<7} summary")
    for rule in (list(FILE_PROBLEMS) if show_all else []) + list(ALL_RULES):
        default = "on" if rule.default_enabled else "off"
        click.echo(f"{rule.code:<7} {rule.name:<28} {rule.severity:<8} {default:<7} {rule.summary()}")
    click.echo("\n`devlint explain CODE` shows a rule's documentation; off rules are enabled with --extend-select.")


@click.command("explain")
@click.argument("code")
def explain_command(code: str) -> None:
    """A rule's full documentation (DEV001-DEV003 and DEV005 too)."""
    from devlint.cli.docs import lookup, rule_page

    rule = lookup(code)
    if rule is None:
        _fail(f"unknown rule '{code}' (see `devlint rules --all`)")
    click.echo(rule_page(rule), nl=False)


@click.command("docs")
@click.argument("directory", required=False, type=click.Path(path_type=Path), default=Path("rules"))
@click.option("--check", is_flag=True, help="Only report pages that are missing or stale; exit 1 if any.")
def docs_command(directory: Path, check: bool) -> None:
    """Write one Markdown page per rule (and an index) into DIRECTORY (default: rules/)."""
    from devlint.cli.docs import CATALOGUE, stale_pages, write_pages

    if check:
        stale = stale_pages(CATALOGUE, directory)
        for name in stale:
            click.echo(f"{directory / name}: missing or stale (run `devlint docs {directory}`)")
        sys.exit(EXIT_FINDINGS if stale else EXIT_CLEAN)
    written = write_pages(CATALOGUE, directory)
    click.echo(f"wrote {len(written)} pages to {directory}")


@click.command("runtime", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False,
                                            "help_option_names": ["-h", "--help"]})
@click.option("--runtime", is_flag=True, required=True, help="Run the code with torch's calls checked.")
@click.option("--simulate-gpu", is_flag=True, help="Simulate CUDA devices on the cpu (automatic without CUDA).")
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True, help="Simulated GPU count.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help="The report: text on stderr, or JSON on stdout (the program's own output then goes to stderr).")
@click.option("--output-file", type=click.Path(dir_okay=False, path_type=str), help="Write the report there instead.")
@click.option("--keep-going", is_flag=True,
              help="Record every device problem (once per call site, counted) and carry on (simulated GPU only).")
@click.option("--confirm", is_flag=True,
              help="Also lint the files the run went through: which static findings were seen at run time, "
                   "which runtime problems no static rule predicted.")
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def runtime_command(runtime: bool, simulate_gpu: bool, gpus: int, output_format: str, output_file: Optional[str],
                    keep_going: bool, confirm: bool, command: Sequence[str]) -> None:
    """Run SCRIPT [ARGS]..., `-- pytest [ARGS]...` or `-- torchrun [OPTIONS] SCRIPT [ARGS]...` with every
    torch operation's devices checked.

    Without CUDA, GPUs are simulated on the cpu so that GPU-only bugs show up in CPU-only CI.
    """
    command = list(command)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        _fail("--runtime needs a script (`devlint --runtime train.py ARGS`) or `-- pytest ARGS`")
    try:
        from devlint.runtime.runner import main as run_main
    except ImportError as exc:
        _fail(f"runtime mode needs torch: pip install 'devlint[runtime]' ({exc})")
    try:
        code = run_main(command, simulate_gpu=True if simulate_gpu else None, gpus=gpus, output_format=output_format,
                        keep_going=keep_going, confirm=_lint_every_rule if confirm else None,
                        output_file=output_file)
    except KeyboardInterrupt:  # end as Python ends on Ctrl-C: killed by SIGINT (the shell says 130)
        import os
        import signal

        signal.signal(signal.SIGINT, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGINT)
        code = 130
    sys.exit(code)


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    head = args[: args.index("--")] if "--" in args else args
    if "--runtime" in head:
        runtime_command.main(args, prog_name="devlint")
    elif args and args[0] in SUBCOMMANDS:  # a folder named like one: `devlint ./rules`
        command = {"rules": rules_command, "explain": explain_command, "docs": docs_command}[args[0]]
        command.main(args[1:], prog_name=f"devlint {args[0]}")
    elif args and args[0] == "server":  # the language server (devlint.cli.server)
        from devlint.cli.server import server_command

        server_command.main(args[1:], prog_name="devlint server")
    else:
        lint.main(args, prog_name="devlint")


def _lint_every_rule(files: Sequence[str]) -> list:
    """What `--confirm` holds against the run: every rule, no cache."""
    from devlint.cli.batch import check_files
    from devlint.static.rules import ALL_RULES

    return check_files(files, [rule.code for rule in ALL_RULES], use_cache=False)


if __name__ == "__main__":
    main()
