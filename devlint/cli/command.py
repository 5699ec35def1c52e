"""The `devlint` command: a click.Group whose default subcommand is `check`.

    devlint [check] [OPTIONS] [PATH]...  lint files, notebooks and folders (static; never runs them);
                                         --fix, --diff, --add-noqa change or show changes to them
    devlint rules                        the rule catalogue
    devlint rule CODE                    one rule's documentation (`explain` is an alias)
    devlint docs --out DIR [--check]     write (or check) the rule pages and an mkdocs.yml
    devlint server                       a language server (LSP over stdio) for editors
    devlint --runtime [--simulate-gpu] [--gpus N] script.py [ARGS]...
    devlint --runtime [--simulate-gpu] -- pytest [ARGS]...

Exit codes: 0 no findings, 1 findings, 2 usage error, bad config, or a file
that could not be analysed. The lint itself runs in devlint.cli.lint_run.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional, Sequence

import click

from devlint import __version__
from devlint.cli.config import OUTPUT_FORMAT_NAMES as OUTPUT_FORMATS
from devlint.cli.config import SEVERITIES

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2


def _fail(message: str) -> None:
    click.echo(f"devlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@click.command("check", context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--select", multiple=True, metavar="CODES",
              help="Rules to run: codes or prefixes (DEV101, DEV1, ALL), comma-separated. Replaces the selection "
                   "of the config file.")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Rules to add to the selection.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Rules to skip: codes or prefixes.")
@click.option("--extend-ignore", multiple=True, metavar="CODES", help="More rules to skip (same as --ignore).")
@click.option("--output-format", "--format", "output_format", type=click.Choice(OUTPUT_FORMATS), default=None,
              help="full (the default, or output-format in the config): the code under a caret and the why; "
                   "concise: one line each; json, sarif, github, junit, gitlab. --format is an alias; text is full.")
@click.option("--isolated", is_flag=True, help="Read no config file: the defaults and the command line only.")
@click.option("--config", "config_path", type=click.Path(path_type=Path),
              help="A TOML file with a [tool.devlint] table (or devlint's keys at its top level), for every file. "
                   "Default: for each file, the closest .devlint.toml, devlint.toml or pyproject.toml with "
                   "[tool.devlint] above it.")
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
@click.option("--fix-only", is_flag=True, help="Apply the fixes and report nothing else (exit 0 unless "
                                               "--exit-non-zero-on-fix).")
@click.option("--exit-non-zero-on-fix", is_flag=True,
              help="Exit 1 when --fix fixed something, even if nothing remains.")
@click.option("--fixable", multiple=True, metavar="CODES", help="Only these rules' fixes are applied or offered "
                                                                "(replaces fixable in the config).")
@click.option("--extend-fixable", multiple=True, metavar="CODES", help="Rules whose fixes are offered, in addition.")
@click.option("--unfixable", multiple=True, metavar="CODES", help="These rules' fixes are neither applied nor offered.")
@click.option("--diff", is_flag=True,
              help="Print the fixes as a unified diff instead of applying them (exit 1 if any).")
@click.option("--show-fixes", is_flag=True, help="Show each finding's fix, and list what --fix fixed.")
@click.option("--add-noqa", is_flag=True, help="Add a `# noqa: CODE` to every line with a finding.")
@click.option("--output-file", "-o", "output_file", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help="Write the report to FILE instead of stdout.")
@click.option("--statistics", is_flag=True, help="Count findings by rule instead of listing them.")
@click.option("--quiet", "-q", is_flag=True, help="Print the findings only: no summary, no progress.")
@click.option("--color", type=click.Choice(["auto", "always", "never"]), default="auto", show_default=True,
              help="Color the text output (auto: on a terminal, unless NO_COLOR is set or FORCE_COLOR is).")
@click.option("--no-color", "no_color", is_flag=True, help="Same as --color never.")
@click.option("--no-progress", is_flag=True, help="No progress bar (shown on a terminal for runs over 2 s).")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, help="Worker processes (0: automatic).")
@click.option("--isolated-files", is_flag=True,
              help="Check each file alone, without reading the project modules it imports (config: isolated-files).")
@click.option("--watch", is_flag=True, help="Lint, then lint each changed file (and its importers) again as it "
                                            "changes, until Ctrl-C.")
@click.option("--no-cache", "-n", "no_cache", is_flag=True,
              help="Analyse every file again, ignoring the cache of earlier runs.")
@click.option("--cache-dir", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="Keep the cache there (default: the user's cache folder, or DEVLINT_CACHE_DIR).")
@click.option("--exit-zero", "-e", "exit_zero", is_flag=True,
              help="Exit 0 even with findings or files that could not be analysed.")
@click.option("--fail-on", type=click.Choice(SEVERITIES), default=None,
              help="The least severe finding that makes the run exit 1 (default: warning, or fail-on in the "
                   "config; infos never fail unless this says info).")
@click.option("--show-settings", metavar="PATH", help="Print the settings that apply to PATH (which config, "
                                                      "rules, ignores, excludes) and lint nothing.")
@click.option("--show-files", is_flag=True, help="Print the files that would be checked, each with its config, "
                                                 "and lint nothing.")
def lint(paths: Sequence[str], no_color: bool, no_progress: bool, watch: bool, **options) -> None:
    """Find device-safety bugs in PyTorch code (mixed cpu/cuda tensors, GPUs assumed,
    unsynchronized timings, GPU tensors handed to numpy).

    PATHS are files or folders (walked for *.py and *.ipynb); `-` reads stdin.
    `devlint PATH...` is the same as `devlint check PATH...`.
    Runtime checking: `devlint --runtime --help`.
    """
    from devlint.cli.lint_run import LintOptions, UsageError, run_lint

    if no_color:
        options["color"] = "never"
    try:
        lint_options = LintOptions.from_flags(paths=paths, progress=not no_progress, **options)
        if watch:  # devlint.cli.watch
            from devlint.cli.watch import run_watch

            code = run_watch(lint_options)
        else:
            code = run_lint(lint_options)
    except UsageError as exc:
        _fail(str(exc))
    raise LintDone(code)


@click.command("rules")
@click.option("--all", "show_all", is_flag=True, help="Also list DEV001-DEV003 and DEV005, the reports on files that cannot be "
                                                      "analysed.")
def rules_command(show_all: bool) -> None:
    """The rule catalogue."""
    from devlint.cli.docs import FILE_PROBLEMS
    from devlint.static.rules import ALL_RULES

    click.echo(f"{'code':<7} {'name':<28} {'severity':<8} {'default':<7} summary")
    for rule in (list(FILE_PROBLEMS) if show_all else []) + list(ALL_RULES):
        default = "on" if rule.default_enabled else "off"
        click.echo(f"{rule.code:<7} {rule.name:<28} {rule.severity:<8} {default:<7} {rule.summary()}")
    click.echo("\n`devlint rule CODE` shows a rule's documentation; off rules are enabled with --extend-select.")


@click.command("rule")
@click.argument("code")
def rule_command(code: str) -> None:
    """A rule's full documentation, by code or name (DEV001-DEV003 and DEV005 too)."""
    from devlint.cli.docs import lookup, rule_page

    rule = lookup(code)
    if rule is None:
        _fail(f"unknown rule '{code}' (see `devlint rules --all`)")
    click.echo(rule_page(rule), nl=False)


@click.command("docs")
@click.argument("directory", required=False, type=click.Path(path_type=Path))
@click.option("--out", "out", type=click.Path(file_okay=False, path_type=Path), metavar="DIR",
              help="The folder to write the pages into (the same as DIRECTORY).")
@click.option("--check", is_flag=True, help="Only report pages that are missing or stale; exit 1 if any.")
def docs_command(directory: Optional[Path], out: Optional[Path], check: bool) -> None:
    """Write one Markdown page per rule (and an index) into DIR: `devlint docs --out DIR`.

    Nothing is written unless DIR is named (this repository's pages: `devlint docs --out rules`).
    """
    from devlint.cli.docs import CATALOGUE, stale_pages, write_pages

    if directory is not None and out is not None and directory != out:
        _fail(f"two folders given: {directory} and --out {out}")
    directory = out or directory
    if directory is None:
        _fail("say where to write the pages: `devlint docs --out DIR` (one rule's page: `devlint rule CODE`)")
    if check:
        stale = stale_pages(CATALOGUE, directory)
        for name in stale:
            click.echo(f"{directory / name}: missing or stale (run `devlint docs --out {directory}`)")
        sys.exit(EXIT_FINDINGS if stale else EXIT_CLEAN)
    written = write_pages(CATALOGUE, directory)
    click.echo(f"wrote {len(written)} pages to {directory}")


@click.command("version")
def version_command() -> None:
    """devlint's version (the same as `devlint --version`)."""
    click.echo(f"devlint {__version__}")


class _RuntimeCommand(click.Command):
    """Reached as `devlint --runtime ...`: its usage says so (the group routes it by that flag)."""

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        formatter.write_usage("devlint --runtime", "[OPTIONS] SCRIPT [ARGS]... | -- pytest [ARGS]...")


@click.command("runtime", cls=_RuntimeCommand, hidden=True,
               context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False,
                                 "help_option_names": ["-h", "--help"]})
@click.option("--runtime", is_flag=True, required=True, help="Run the code with torch's calls checked.")
@click.option("--simulate-gpu", is_flag=True, help="Simulate CUDA devices on the cpu (automatic without CUDA).")
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True, help="GPU count: simulated where fewer are present.")
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


# Subcommands that live in modules of their own, imported only when used (so that `devlint PATH`
# never pays for them): name -> "module:attribute". A module that cannot be imported (an extra not
# installed) leaves its subcommand out. Registration point: add a line here, e.g.
#     "server": "devlint.cli.server:server_command",
LAZY_COMMANDS: dict[str, str] = {"server": "devlint.cli.server:server_command"}
# `explain` is the first version's name for `rule`
ALIASES = {"explain": "rule"}


class DevlintGroup(click.Group):
    """`devlint [check] ...`: the first word picks a subcommand, else the words are `check`'s.

    A first word that names a subcommand and also an existing file or folder (a project's `docs/`
    folder) is linted as a path, unless what follows shows the subcommand is meant: one of its own
    options (`devlint docs --out site`), or a word that is neither an option nor an existing path
    (`devlint rule DEV101`). `devlint ./docs` and `devlint check docs` are always paths.
    """

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(set(self.commands) | set(LAZY_COMMANDS) | set(ALIASES))

    def get_command(self, ctx: click.Context, name: str) -> Optional[click.Command]:
        name = ALIASES.get(name, name)
        if name in self.commands:
            return self.commands[name]
        target = LAZY_COMMANDS.get(name)
        if target is None:
            return None
        import importlib

        module, _, attribute = target.partition(":")
        try:
            return getattr(importlib.import_module(module), attribute)
        except ImportError as exc:  # `devlint --help` still lists it; running it says why it cannot run
            return _unavailable(name, f"`devlint {name}` is not available: {exc}")

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        return super().parse_args(ctx, route(self, ctx, list(args)))


def _unavailable(name: str, why: str) -> click.Command:
    def explain(**_: object) -> None:
        _fail(why)

    return click.Command(name, callback=explain, help=f"(not available: {why})",
                         context_settings={"ignore_unknown_options": True, "allow_extra_args": True})


def route(group: click.Group, ctx: click.Context, args: list[str]) -> list[str]:
    """The arguments with the subcommand's name first (`check` where none is named)."""
    head = args[: args.index("--")] if "--" in args else args
    if "--runtime" in head:
        return ["runtime", *args]
    if args and args[0] in ("-h", "--help", "--version"):
        return args
    names = set(group.list_commands(ctx))
    if not args or args[0] not in names:
        return ["check", *args]
    if not os.path.lexists(args[0]) or _means_subcommand(group, ctx, args):
        return args
    if args[0] != "check":
        command = group.get_command(ctx, args[0])
        own = sorted(opt for p in command.params for opt in getattr(p, "opts", ()) if opt.startswith("--"))
        hint = f" (its own options: {', '.join(own)})" if own else ""
        click.echo(f"devlint: note: `{args[0]}` is linted as the path it names here; the `{args[0]}` subcommand "
                   f"is run when one of its options or a word that is no path follows{hint}", err=True)
    return ["check", *args]


def _means_subcommand(group: click.Group, ctx: click.Context, args: list[str]) -> bool:
    """Whether the words after a subcommand's name that is also a path belong to the subcommand."""
    command = group.get_command(ctx, args[0])
    if command is None or args[0] == "check":
        return False
    own = _option_names(command)
    shared = _option_names(lint)
    takes_value = {opt for p in lint.params if isinstance(p, click.Option) and not p.is_flag for opt in p.opts}
    words = iter(args[1:])
    for word in words:
        if word.startswith("-") and word.split("=")[0] in own - shared:
            return True
        if word in takes_value:  # `--format concise`: the value is no path
            next(words, None)
        elif not word.startswith("-") and not os.path.lexists(word):
            return True
    return False


def _option_names(command: click.Command) -> set[str]:
    return {opt for p in command.params for opt in [*getattr(p, "opts", ()), *getattr(p, "secondary_opts", ())]}


@click.group("devlint", cls=DevlintGroup, context_settings={"help_option_names": ["-h", "--help"],
                                                            "max_content_width": 100})
@click.version_option(__version__, "--version", prog_name="devlint")
def cli() -> None:
    """Find device-safety bugs in PyTorch code. `devlint PATH...` is `devlint check PATH...`;
    its options: `devlint check --help`; runtime checking: `devlint --runtime --help`."""


def register(group: click.Group, commands: Sequence[click.Command]) -> None:
    for command in commands:
        group.add_command(command)


register(cli, (lint, rules_command, rule_command, docs_command, version_command, runtime_command))


class LintDone(SystemExit):
    """The end of a lint run, with its exit code: what is left is only memory to give back."""


def main(argv: Optional[Sequence[str]] = None) -> None:
    """The `devlint` command; `argv` None: the process's own arguments, and the process ends with the run."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        cli.main(args, prog_name="devlint")
    except LintDone as done:
        if argv is None:
            _exit_now(done.code if isinstance(done.code, int) else 2)
        raise


def _exit_now(code: int) -> None:
    """End the process without tearing down its objects (as mypy does): freeing every tree and table the
    run kept, one by one, took a third of a whole-project run's time. Output is flushed first."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):  # a closed pipe (`devlint . | head`): nothing more to say
            pass
    os._exit(code)


def _lint_every_rule(files: Sequence[str]) -> list:
    """What `--confirm` holds against the run: every rule, no cache."""
    from devlint.cli.batch import check_files
    from devlint.static.rules import ALL_RULES

    return check_files(files, [rule.code for rule in ALL_RULES], use_cache=False)


if __name__ == "__main__":
    main()
