"""Rule selection and the `[tool.devlint]` table of pyproject.toml."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from devlint.rules import ALL_RULES, Rule

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on older Pythons only
    import tomli as tomllib

KNOWN_KEYS = {"select", "ignore", "extend-select", "exclude"}


class ConfigError(Exception):
    """Bad user input: printed as one line, exit code 2."""


@dataclass
class Config:
    select: Optional[list[str]] = None
    extend_select: list[str] = field(default_factory=list)
    ignore: list[str] = field(default_factory=list)
    exclude: list[str] = field(default_factory=list)
    source: Optional[str] = None


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
        if not any(rule.code.startswith(code) for rule in ALL_RULES):
            raise ConfigError(f"{where}: unknown rule code or prefix '{code}' (see `devlint rules`)")


def select_rules(config: Config) -> list[type[Rule]]:
    def matches(rule: type[Rule], codes: Sequence[str]) -> bool:
        return any(code == "ALL" or rule.code.startswith(code) for code in codes)

    if config.select is not None:
        chosen = [r for r in ALL_RULES if matches(r, config.select)]
    else:
        chosen = [r for r in ALL_RULES if r.default_enabled]
    chosen += [r for r in ALL_RULES if matches(r, config.extend_select) and r not in chosen]
    chosen = [r for r in chosen if not matches(r, config.ignore)]
    return sorted(chosen, key=lambda r: r.code)


def find_pyproject(start: Path) -> Optional[Path]:
    for folder in [start, *start.parents]:
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


def load_config(path: Optional[Path]) -> Config:
    """The [tool.devlint] table of `path` (or of the nearest pyproject.toml)."""
    explicit = path is not None
    if path is None:
        path = find_pyproject(Path.cwd())
        if path is None:
            return Config()
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{path}: config file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read config: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: invalid TOML: {exc}") from None
    table = data.get("tool", {}).get("devlint") if path.name == "pyproject.toml" else data.get("devlint", data)
    if table is None:
        if explicit:
            raise ConfigError(f"{path}: no [tool.devlint] table")
        return Config()
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.devlint] must be a table")
    unknown = set(table) - KNOWN_KEYS
    if unknown:
        raise ConfigError(f"{path}: unknown key(s) in [tool.devlint]: {', '.join(sorted(unknown))} "
                          f"(known: {', '.join(sorted(KNOWN_KEYS))})")
    config = Config(source=str(path))
    for key in KNOWN_KEYS & set(table):
        value = table[key]
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{path}: [tool.devlint] {key} must be a list of strings")
    if "select" in table:
        config.select = split_codes(table["select"])
    config.extend_select = split_codes(table.get("extend-select", []))
    config.ignore = split_codes(table.get("ignore", []))
    config.exclude = list(table.get("exclude", []))
    for key, codes in (("select", config.select or []), ("extend-select", config.extend_select),
                       ("ignore", config.ignore)):
        validate_codes(codes, f"{path}: [tool.devlint] {key}")
    return config
