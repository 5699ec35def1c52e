"""Where a module lives, read from the members its `__init__` gave it."""

from __future__ import annotations

from dataclasses import replace

from devlint.core.values import Located, Module, Seq, Tensor, Unknown


def placed_by_members(module: Module) -> Module:
    """A module lives where its parameters do: built from members all created on one device
    (`nn.Linear(..., device=device)` in `__init__`), it is on that device, not where modules start."""
    members, unplaced = _members(module)
    if not members:
        return module
    if any(member.device is None for member in members):
        # a member we cannot place (`nn.Linear(..., **factory_kwargs)` given a device we cannot read): the
        # module is where that member is, which we do not know
        return replace(module, where=None)
    first = members[0]
    if unplaced:  # members elsewhere than where modules start, beside one we cannot place: unknown
        return module if all(m.device == module.where for m in members) else replace(module, where=None)
    if all(member.device == first.device for member in members):
        return module if first.device == module.where else replace(module, where=first.device, why=first.why)
    for member in members:  # split across devices: the member left where modules start says why
        if member.device == module.where and member.why:
            return replace(module, why=member.why)
    return module


def only_handed_in(module: Module) -> bool:
    """Does the module hold members of unknown kind (what its caller handed it: `self.model = model`) and no
    layer or parameter of its own? Then it is where they are, which nobody here knows."""
    members, unplaced = _members(module)
    return unplaced and not members


def _members(module: Module) -> tuple[list[Tensor | Module], bool]:
    """The module's own parameters and submodules (a plain list's too), and whether it also holds a member of
    unknown kind (a module handed in?), which may live anywhere."""
    members: list[Tensor | Module] = []
    unplaced = False
    for _, value in module.attrs:
        if isinstance(value, (Unknown, Located)):
            unplaced = True
        elif isinstance(value, Tensor) and value.parameter or isinstance(value, Module) and not value.stateless:
            members.append(value)
        elif isinstance(value, Seq) and isinstance(value.elem, Module) and not value.elem.stateless:
            members.append(value.elem)
    return members, unplaced
