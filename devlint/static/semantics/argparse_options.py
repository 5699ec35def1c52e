"""argparse: the options a script declares, so that `args.device` and `args.no_cuda` mean what
their names and defaults say (a device chosen by the user, a flag about CUDA)."""

from __future__ import annotations

import re
from typing import Optional, cast

from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.callsite import Args, CallSite
from devlint.core.values import (
    SELECTED, UNKNOWN, ArgsNamespace, Availability, Const, DeviceValue, Parser, ParserGroup, Seq, Value,
)


def option(args: Args) -> Optional[tuple[str, Value]]:
    """(dest, value) for `add_argument('--device', default='cuda')`."""
    flags = [v.value for _, v in args.positional if isinstance(v, Const) and isinstance(v.value, str)]
    long = [f for f in flags if f.startswith("--")]
    dest_value = args.get("dest")
    if isinstance(dest_value, Const) and isinstance(dest_value.value, str):
        dest = dest_value.value
    elif long:
        dest = long[0][2:].replace("-", "_")
    elif flags:
        dest = flags[0].lstrip("-").replace("-", "_")
    else:
        return None
    if dest in api.FLAG_NAMES or dest.startswith(("use_cuda", "cuda", "gpu", "use_gpu")) \
            and not api.looks_like_device_name(dest):
        return dest, Availability(positive=True)  # the user's choice: they asked for a GPU
    if dest in api.NEGATIVE_FLAG_NAMES or dest.startswith("no_cuda") or dest.startswith("no_gpu"):
        return dest, Availability(positive=False)
    if api.looks_like_device_name(dest) or dest in ("gpu_id", "gpu_ids", "gpus", "local_rank"):
        return dest, DeviceValue(where=SELECTED)  # the user's choice, whatever the default
    default = args.get("default")
    if isinstance(default, Const) and isinstance(default.value, str) \
            and _RELEASED.fullmatch(default.value.rsplit("/", 1)[-1]) is not None:
        # `--ckpt` whose default names published weights (`stylegan2_ffhq_config_f_1024_official-3ab41b38.pth`):
        # the option holds released weights, as its default does (a path, not a device)
        return dest, default
    return dest, UNKNOWN


_RELEASED = re.compile(api.RELEASED_CHECKPOINT_NAME)


def argument_parser(site: CallSite) -> Value:
    site.evaluate_arguments()
    return Parser()


def add_argument(site: CallSite) -> Value:
    found = option(site.args)
    if found is not None and site.receiver_name:
        parser = cast(Parser, site.receiver)  # a Parser method's (registry.METHODS)
        site.walk.assign_name(site.receiver_name, Parser(options=parser.options + (found,)), site.state, site.node)
    return UNKNOWN


def parse_args(site: CallSite) -> Value:
    namespace = ArgsNamespace(options=cast(Parser, site.receiver).options)  # a Parser method's
    return namespace if site.name == "parse_args" else Seq(kind="tuple", items=(namespace, UNKNOWN))


def add_group(site: CallSite) -> Value:
    return ParserGroup(parser=site.receiver_name or "")


def parser_other(site: CallSite) -> Value:
    return UNKNOWN


def group_add_argument(site: CallSite) -> Value:
    """A group's options land on its parser."""
    group = cast(ParserGroup, site.receiver)  # a ParserGroup method's (registry.METHODS)
    parser = site.state.env.get(group.parser)
    found = option(site.args)
    if isinstance(parser, Parser) and found is not None:
        site.state.env[group.parser] = Parser(options=parser.options + (found,))
    return UNKNOWN


FUNCTIONS = {"argparse.ArgumentParser": argument_parser}
PARSER_METHODS = {
    "add_argument": add_argument, "parse_args": parse_args, "parse_known_args": parse_args,
    "add_argument_group": add_group, "add_mutually_exclusive_group": add_group,
}
GROUP_METHODS = {"add_argument": group_add_argument}

