"""The `devlint` command.

    devlint [OPTIONS] [PATH]...          lint files and folders (static; never runs them)
    devlint rules                        the rule catalogue
    devlint explain CODE                 one rule's documentation
    devlint docs [--check] [DIR]         write (or check) the rule pages in rules/
    devlint --runtime [--simulate-gpu] [--gpus N] script.py [ARGS]...
    devlint --runtime [--simulate-gpu] -- pytest [ARGS]...

Exit codes: 0 no findings, 1 findings, 2 usage error, bad config, or a file
that could not be analysed.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Optional, Sequence

import click

from devlint import __version__
from devlint.config import ConfigError, load_config, select_rules, split_codes, validate_codes
from devlint.rules import ALL_RULES, RULES_BY_CODE

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SUBCOMMANDS = ("rules", "explain", "docs")


def _fail(message: str) -> None:
    click.echo(f"devlint: error: {message}", err=True)
    sys.exit(EXIT_ERROR)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("paths", nargs=-1, type=click.Path(path_type=str))
@click.option("--select", multiple=True, metavar="CODES",
              help="Rules to run: codes or prefixes (DEV101, DEV1, ALL), comma-separated. Replaces the default set.")
@click.option("--extend-select", multiple=True, metavar="CODES", help="Rules to add to the selected set.")
@click.option("--ignore", multiple=True, metavar="CODES", help="Rules to skip: codes or prefixes.")
@click.option("--format", "output_format", type=click.Choice(["text", "json", "sarif", "github"]), default="text",
              show_default=True, help="Output format.")
@click.option("--config", "config_path", type=click.Path(path_type=Path),
              help="A pyproject.toml (or TOML file) with a [tool.devlint] table. Default: the nearest pyproject.toml.")
@click.option("--exclude", multiple=True, metavar="GLOB", help="Folder or file patterns to skip when walking.")
@click.option("--jobs", "-j", type=click.IntRange(min=0), default=0, help="Worker processes (0: automatic).")
@click.option("--no-cache", is_flag=True, help="Analyse every file again, ignoring .devlint_cache.")
@click.option("--exit-zero", is_flag=True, help="Exit 0 even when there are findings.")
@click.option("--color/--no-color", default=None, help="Color the text output (default: when a terminal).")
@click.version_option(__version__, "--version", prog_name="devlint")
def lint(paths: Sequence[str], select: Sequence[str], extend_select: Sequence[str], ignore: Sequence[str],
         output_format: str, config_path: Optional[Path], exclude: Sequence[str], jobs: int, no_cache: bool,
         exit_zero: bool, color: Optional[bool]) -> None:
    """Find device-safety bugs in PyTorch code (mixed cpu/cuda tensors, GPUs assumed,
    unsynchronized timings, GPU tensors handed to numpy).

    PATHS are files or folders (walked for *.py). Subcommands: `devlint rules`,
    `devlint explain CODE`, `devlint docs`. Runtime checking: `devlint --runtime --help`.
    """
    from devlint.batch import check_files
    from devlint.discovery import discover
    from devlint.engine import has_file_errors
    from devlint.findings import DECODE_ERROR, INTERNAL_ERROR
    from devlint.output import FORMATS

    try:
        config = load_config(config_path)
        if select:
            config.select = split_codes(select)
            validate_codes(config.select, "--select")
        for option, values in (("--extend-select", extend_select), ("--ignore", ignore)):
            codes = split_codes(values)
            validate_codes(codes, option)
            (config.extend_select if option == "--extend-select" else config.ignore).extend(codes)
    except ConfigError as exc:
        _fail(str(exc))
    if not paths:
        _fail("no paths given (try `devlint .` or `devlint --help`)")
    rules = select_rules(config)
    files, missing = discover(paths, tuple(config.exclude) + tuple(exclude))
    for path in missing:
        click.echo(f"devlint: error: {path}: no such file or folder", err=True)
    findings = check_files(files, [r.code for r in rules], jobs=jobs, use_cache=not no_cache)
    render = FORMATS[output_format]
    use_color = sys.stdout.isatty() if color is None else color
    out = render(findings, files_checked=len(files), rules=list(rules), color=use_color and output_format == "text")
    if out:
        click.echo(out, nl=False)
    for finding in findings:
        if finding.code in (DECODE_ERROR, INTERNAL_ERROR):
            click.echo(f"devlint: error: {finding.path}: {finding.message}", err=True)
    if missing or has_file_errors(findings):
        sys.exit(EXIT_ERROR)
    if findings and not exit_zero:
        sys.exit(EXIT_FINDINGS)
    sys.exit(EXIT_CLEAN)


@click.command("rules")
@click.option("--all", "show_all", is_flag=True, help="Include the off-by-default rules' note.")
def rules_command(show_all: bool) -> None:
    """The rule catalogue."""
    click.echo(f"{'code':<7} {'name':<28} {'severity':<8} {'default':<7} summary")
    for rule in ALL_RULES:
        default = "on" if rule.default_enabled else "off"
        click.echo(f"{rule.code:<7} {rule.name:<28} {rule.severity:<8} {default:<7} {rule.summary()}")
    click.echo("\n`devlint explain CODE` shows a rule's documentation; off rules are enabled with --select.")


@click.command("explain")
@click.argument("code")
def explain_command(code: str) -> None:
    """A rule's full documentation."""
    from devlint.docs import rule_page

    rule = RULES_BY_CODE.get(code.upper()) or next((r for r in ALL_RULES if r.name == code.lower()), None)
    if rule is None:
        _fail(f"unknown rule '{code}' (see `devlint rules`)")
    click.echo(rule_page(rule), nl=False)


@click.command("docs")
@click.argument("directory", required=False, type=click.Path(path_type=Path), default=Path("rules"))
@click.option("--check", is_flag=True, help="Only report pages that are missing or stale; exit 1 if any.")
def docs_command(directory: Path, check: bool) -> None:
    """Write one Markdown page per rule (and an index) into DIRECTORY (default: rules/)."""
    from devlint.docs import stale_pages, write_pages

    if check:
        stale = stale_pages(ALL_RULES, directory)
        for name in stale:
            click.echo(f"{directory / name}: missing or stale (run `devlint docs {directory}`)")
        sys.exit(EXIT_FINDINGS if stale else EXIT_CLEAN)
    written = write_pages(ALL_RULES, directory)
    click.echo(f"wrote {len(written)} pages to {directory}")


@click.command("runtime", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False,
                                            "help_option_names": ["-h", "--help"]})
@click.option("--runtime", is_flag=True, required=True, help="Run the code with torch's calls checked.")
@click.option("--simulate-gpu", is_flag=True, help="Simulate CUDA devices on the cpu (automatic without CUDA).")
@click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True, help="Simulated GPU count.")
@click.option("--format", "output_format", type=click.Choice(["text", "json"]), default="text", show_default=True)
@click.argument("command", nargs=-1, type=click.UNPROCESSED)
def runtime_command(runtime: bool, simulate_gpu: bool, gpus: int, output_format: str,
                    command: Sequence[str]) -> None:
    """Run SCRIPT [ARGS]... or `-- pytest [ARGS]...` with every torch operation's devices checked.

    Without CUDA, a GPU is simulated on the cpu so that GPU-only bugs show up in CPU-only CI.
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
    sys.exit(run_main(command, simulate_gpu=True if simulate_gpu else None, gpus=gpus, output_format=output_format))


def main(argv: Optional[Sequence[str]] = None) -> None:
    args = list(sys.argv[1:] if argv is None else argv)
    head = args[: args.index("--")] if "--" in args else args
    if "--runtime" in head:
        runtime_command.main(args, prog_name="devlint")
    elif args and args[0] in SUBCOMMANDS:  # a folder named like one: `devlint ./rules`
        command = {"rules": rules_command, "explain": explain_command, "docs": docs_command}[args[0]]
        command.main(args[1:], prog_name=f"devlint {args[0]}")
    else:
        lint.main(args, prog_name="devlint")


if __name__ == "__main__":
    main()
