"""Rule selection and the `[tool.devlint]` table of pyproject.toml (or of any TOML file).

Selection is layered as Ruff layers it: the file's `select` (or the defaults), plus its
`extend-select`, minus its `ignore`/`extend-ignore`; then the command line's the same way. A
`--select` on the command line starts over: it replaces everything the file selected or ignored.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from devlint.core.limits import parse_size
from devlint.static.rule_index import RULE_INDEX, RuleInfo

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on older Pythons only
    import tomli as tomllib

LIST_KEYS = ("select", "ignore", "extend-select", "extend-ignore", "exclude", "extend-exclude", "fixable",
             "unfixable", "extend-fixable")
BOOL_KEYS = ("force-exclude", "respect-gitignore", "assume-gpu", "isolated-files")
# `assume-gpu = true`: a GPU-only project, where GPU assumptions are the design.
GPU_ASSUMPTION_RULES = ("DEV201", "DEV202", "DEV203", "DEV204")
SEVERITIES = ("error", "warning", "info")  # most severe first
OUTPUT_FORMAT_NAMES = ("concise", "full", "json", "sarif", "github", "junit", "gitlab", "text")
CHOICE_KEYS = {"fail-on": SEVERITIES, "output-format": OUTPUT_FORMAT_NAMES}
# `import-roots` is read where imports are resolved (devlint.static.project.layout), from the project's root.
KNOWN_KEYS = frozenset(LIST_KEYS + BOOL_KEYS + tuple(CHOICE_KEYS)
                       + ("per-file-ignores", "max-file-size", "extend", "import-roots"))
# The config files of one folder, the first found deciding (as Ruff's .ruff.toml, ruff.toml, pyproject.toml);
# a pyproject.toml without a [tool.devlint] table is passed over.
CONFIG_NAMES = (".devlint.toml", "devlint.toml", "pyproject.toml")
# Keys that add to what an extended file says rather than replace it
_ACCUMULATED = ("extend-select", "extend-ignore", "extend-exclude", "extend-fixable")


class ConfigError(Exception):
    """Bad user input: printed as one line, exit code 2."""


@dataclass
class Selection:
    """One layer of rule selection (the config file, or the command line)."""

    select: Optional[list[str]] = None  # None: keep what the layer below chose
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)


@dataclass
class Config:
    select: Optional[list[str]] = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)  # with extend-ignore
    exclude: Optional[list[str]] = None  # None: the default folders (see discovery.DEFAULT_EXCLUDES)
    extend_exclude: list[str] = field(default_factory=list)
    per_file_ignores: dict[str, list[str]] = field(default_factory=dict)
    force_exclude: bool = False
    respect_gitignore: bool = True
    assume_gpu: bool = False
    isolated_files: bool = False  # each file alone: the project's other modules are not read
    max_file_size: Optional[int] = None  # bytes; None: devlint.core.limits.DEFAULT_MAX_FILE_SIZE
    fixable: Optional[list[str]] = None  # None: every rule's fix
    unfixable: list[str] = field(default_factory=list)
    extend_fixable: list[str] = field(default_factory=list)
    fail_on: Optional[str] = None  # None: the command line's or "warning"
    output_format: Optional[str] = None
    source: Optional[str] = None
    extends: list[str] = field(default_factory=list)  # the files `extend` brought in, nearest first
    root: Path = field(default_factory=Path.cwd)  # patterns are relative to the config file's folder
    warnings: list[str] = field(default_factory=list)

    def selection(self) -> Selection:
        ignore = list(self.ignore) + (list(GPU_ASSUMPTION_RULES) if self.assume_gpu else [])
        return Selection(self.select, list(self.extend_select), ignore)


def split_codes(values: Sequence[str]) -> list[str]:
    codes = []
    for value in values:
        for part in value.replace(" ", ",").split(","):
            if part.strip():
                codes.append(part.strip().upper())
    return codes


def validate_codes(codes: Sequence[str], where: str) -> None:
    for code in codes:
        if code == "ALL":
            continue
        if not any(rule.code.startswith(code) for rule in RULE_INDEX):
            raise ConfigError(f"{where}: unknown rule code or prefix '{code}' (see `devlint rules`)")


def _specificity(rule: RuleInfo, codes: Sequence[str]) -> int:
    """How precisely `codes` name the rule: the longest matching code (ALL: 0), -1 if none does."""
    return max((0 if code == "ALL" else len(code) for code in codes
                if code == "ALL" or rule.code.startswith(code)), default=-1)


def select_rules(*layers: Selection) -> list[RuleInfo]:
    """The rules the layers select. Within the layers since the last `select`, the more precise
    code wins: `ignore = ["DEV101"]` holds against a later `--extend-select DEV1`, not against
    `--extend-select DEV101`. The rules as the index knows them (`RuleInfo.load()`: the class)."""
    chosen = {r for r in RULE_INDEX if r.default_enabled}
    carried: list[str] = []  # ignores still in force
    for layer in layers:
        picked: dict = {}
        if layer.select is not None:
            chosen, carried = set(), []
            picked = {r: _specificity(r, layer.select) for r in RULE_INDEX if _specificity(r, layer.select) >= 0}
        for rule in RULE_INDEX:
            level = _specificity(rule, layer.extend_select)
            if level >= 0:
                picked[rule] = max(picked.get(rule, -1), level)
        chosen |= {r for r, level in picked.items() if _specificity(r, carried) <= level}
        chosen -= {r for r in chosen if 0 <= picked.get(r, -1) <= _specificity(r, layer.ignore)
                   or (r not in picked and _specificity(r, layer.ignore) >= 0)}
        carried += layer.ignore
    return sorted(chosen, key=lambda r: r.code)


def find_pyproject(start: Path) -> Optional[Path]:
    for folder in [start, *start.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def config_in(folder: Path) -> Optional[Path]:
    """The config file that decides for `folder` if one lies in it: .devlint.toml, devlint.toml, or a
    pyproject.toml with a [tool.devlint] table."""
    for name in CONFIG_NAMES:
        candidate = folder / name
        if candidate.is_file():
            if name != "pyproject.toml" or _has_devlint_table(candidate):
                return candidate
    return None


def find_config(start: Path) -> Optional[Path]:
    """The closest config file in `start` or a folder above it."""
    for folder in [start, *start.parents]:
        found = config_in(folder)
        if found is not None:
            return found
    return None


def _has_devlint_table(path: Path) -> bool:
    """Whether a pyproject.toml has a [tool.devlint] table (a file that is not valid TOML is an error)."""
    return _devlint_table(_read_toml(path), path, False) is not None


def _read_toml(path: Path) -> dict:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a config file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    except RecursionError:
        raise ConfigError(f"{path}: invalid TOML: nested too deeply") from None


def _devlint_table(data: dict, path: Path, explicit: bool) -> Optional[dict]:
    """[tool.devlint]; in a file that is not a pyproject.toml also [devlint] or the top level."""
    tool = data.get("tool")
    if tool is not None and not isinstance(tool, dict):
        raise ConfigError(f"{path}: `tool` must be a table, not {_type_name(tool)}")
    table = tool.get("devlint") if tool is not None else None
    if table is None and path.name != "pyproject.toml" and explicit:  # a devlint.toml: [devlint] or top level
        rest = {k: v for k, v in data.items() if k != "tool"}
        table = data.get("devlint", rest or None)
    if table is not None and not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.devlint] must be a table, not {_type_name(table)}")
    return table


def _type_name(value: object) -> str:
    return {str: "a string", int: "a number", float: "a number", bool: "a boolean", list: "an array"}.get(
        type(value), type(value).__name__)


def load_config(path: Optional[Path], start: Optional[Path] = None) -> Config:
    """The config of `path` (given with --config), else of the closest config file above `start`
    (default: the current folder). Without one, the defaults, rooted at the project's folder."""
    explicit = path is not None
    if path is None:
        start = Path(os.path.abspath(start or Path.cwd()))
        path = find_config(start)
        if path is None:
            project = find_pyproject(start)
            return Config(root=project.resolve().parent if project else start)
    table, chain = _load_table(path, explicit, [])
    if table is None:
        if explicit:
            raise ConfigError(f"{path}: no [tool.devlint] table")
        return Config(root=path.resolve().parent)
    config = parse_table(table, path)
    config.extends = chain
    return config


def _load_table(path: Path, explicit: bool, seen: list[Path]) -> tuple[Optional[dict], list[str]]:
    """The file's devlint table with what its `extend` chain brings in merged below it."""
    resolved = path.resolve()
    if resolved in seen:
        raise ConfigError(f"{path}: `extend` goes round in a circle ({' -> '.join(str(p) for p in seen)})")
    table = _devlint_table(_read_toml(path), path, explicit or path.name != "pyproject.toml")
    if table is None or "extend" not in table:
        return table, []
    base_name = table["extend"]
    if not isinstance(base_name, str):
        raise ConfigError(f"{path}: [tool.devlint] extend must be a path (a string)")
    base_path = Path(os.path.expanduser(base_name))
    if not base_path.is_absolute():
        base_path = resolved.parent / base_path
    base, chain = _load_table(base_path, True, [*seen, resolved])
    merged = dict(base or {})
    for key, value in table.items():
        if key in _ACCUMULATED and key in merged:
            merged[key] = list(merged[key]) + list(value) if isinstance(value, list) else value
        elif key == "per-file-ignores" and isinstance(merged.get(key), dict) and isinstance(value, dict):
            merged[key] = {**merged[key], **value}
        elif key != "extend":
            merged[key] = value
    return merged, [str(base_path), *chain]


def parse_table(table: dict, path: Path) -> Config:
    where = f"{path}: [tool.devlint]"
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{where}: unknown key(s) {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(sorted(KNOWN_KEYS))})")
    for key in LIST_KEYS:
        if key in table and not _strings(table[key]):
            raise ConfigError(f"{where} {key} must be a list of strings")
    for key in BOOL_KEYS:
        if key in table and not isinstance(table[key], bool):
            raise ConfigError(f"{where} {key} must be true or false")
    config = Config(source=str(path), root=path.resolve().parent)
    if "select" in table:
        config.select = split_codes(table["select"])
        if not config.select:
            config.warnings.append(f"{where} select is empty: no rule is enabled")
    config.extend_select = split_codes(table.get("extend-select", []))
    config.ignore = split_codes(table.get("ignore", [])) + split_codes(table.get("extend-ignore", []))
    if "exclude" in table:
        config.exclude = list(table["exclude"])
    config.extend_exclude = list(table.get("extend-exclude", []))
    config.force_exclude = table.get("force-exclude", False)
    config.respect_gitignore = table.get("respect-gitignore", True)
    config.assume_gpu = table.get("assume-gpu", False)
    config.isolated_files = table.get("isolated-files", False)
    for key, choices in CHOICE_KEYS.items():
        if key in table and table[key] not in choices:
            raise ConfigError(f"{where} {key} must be one of {', '.join(choices)}, not {table[key]!r}")
    config.fail_on = table.get("fail-on")
    config.output_format = table.get("output-format")
    if "fixable" in table:
        config.fixable = split_codes(table["fixable"])
    config.unfixable = split_codes(table.get("unfixable", []))
    config.extend_fixable = split_codes(table.get("extend-fixable", []))
    if "max-file-size" in table:
        try:
            config.max_file_size = parse_size(table["max-file-size"])
        except ValueError as exc:
            raise ConfigError(f"{where} max-file-size {exc}") from None
    for key, codes in (("select", config.select or []), ("extend-select", config.extend_select),
                       ("ignore", config.ignore), ("fixable", config.fixable or []), ("unfixable", config.unfixable),
                       ("extend-fixable", config.extend_fixable)):
        validate_codes(codes, f"{where} {key}")
    ignores = table.get("per-file-ignores", {})
    if not isinstance(ignores, dict) or not all(_strings(v) for v in ignores.values()):
        raise ConfigError(f"{where} per-file-ignores must be a table of pattern = [codes]")
    for pattern, codes in ignores.items():
        config.per_file_ignores[pattern] = split_codes(codes)
        validate_codes(config.per_file_ignores[pattern], f"{where} per-file-ignores '{pattern}'")
    return config


def _strings(value: object) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)
