"""What the file's definitions say by their syntax alone: a class's methods (its bases' too), whether a
method is static or a classmethod, the parameters a function uses on the host. functions.py, the walk's
other parts and the tables' questions (`FileQuestions`) all ask them; they ask nothing of the walk."""

from __future__ import annotations

from typing import AbstractSet, Iterator, Optional, cast

import libcst as cst

from devlint.core.torch_catalogue import views as api
from devlint.core.values import UNKNOWN, Class, Value
from devlint.static.analysis.prepass import device_move
from devlint.static.syntax import children, dotted, names_in, target_names
from devlint.static.syntax import positional_names as positional_names  # (re-exported: a question of syntax alone)


def by_shape(cls: Class, depth: int = 0) -> bool:
    """A module by its `forward` alone, or a subclass of one: no nn.Module base anywhere up its chain."""
    return cls.by_shape or depth < 8 and any(isinstance(b, Class) and by_shape(b, depth + 1) for b in cls.bases)


def find_method(cls: Optional[Class], name: str, classes: dict[str, Class],
                depth: int = 0) -> Optional[cst.FunctionDef]:
    """`name` defined in cls or a base class of this file."""
    if cls is None or cls.node is None or depth > 8:
        return None
    found = _methods_of(cls.node).get(name)
    if found is not None:
        return found
    for base in cls.bases:  # resolved where the class was defined: an alias, another module's class
        found = find_method(base, name, classes, depth + 1) \
            if isinstance(base, Class) and base.node is not cls.node else None
        if found is not None:
            return found
    for arg in cls.node.bases:
        base_name = dotted(arg.value)
        if base_name in classes and base_name != cls.name:
            found = find_method(classes[base_name], name, classes, depth + 1)
            if found is not None:
                return found
    return None


def _methods_of(node: cst.ClassDef) -> dict[str, cst.FunctionDef]:
    """name -> the first `def` of that name in the class body: looked up once per class (a base class of
    many, like torch's `Module`, is asked thousands of times for names it does not define)."""
    known = _METHODS.get(id(node))
    if known is not None and known[0] is node:
        return known[1]
    methods: dict[str, cst.FunctionDef] = {}
    body = node.body
    for stmt in body.body if type(body) is cst.IndentedBlock else ():
        if type(stmt) is cst.FunctionDef:
            methods.setdefault(stmt.name.value, stmt)
    if len(_METHODS) >= _MAX_CLASSES:
        _METHODS.clear()
    _METHODS[id(node)] = (node, methods)  # the node is kept: its id names no other while it is a key
    return methods


_MAX_CLASSES = 512
_METHODS: dict[int, tuple[cst.ClassDef, dict[str, cst.FunctionDef]]] = {}


def is_abstract(fdef: cst.FunctionDef) -> bool:
    """`@abstractmethod`, or a body (after its docstring) that only raises NotImplementedError: no call runs it,
    a call through `self` runs a subclass's override."""
    if any(decorator_name(d).rsplit(".", 1)[-1] == "abstractmethod" for d in fdef.decorators):
        return True
    body = fdef.body
    statements = list(body.body) if type(body) is cst.IndentedBlock else []
    if statements and type(statements[0]) is cst.SimpleStatementLine \
            and type(statements[0].body[0]) is cst.Expr and type(statements[0].body[0].value) is cst.SimpleString:
        statements = statements[1:]  # the docstring
    if len(statements) != 1 or type(statements[0]) is not cst.SimpleStatementLine:
        return False
    small = statements[0].body[0]
    if type(small) is not cst.Raise or small.exc is None:
        return False
    exc = small.exc.func if type(small.exc) is cst.Call else small.exc
    return dotted(exc) == "NotImplementedError"


def sole_override(cls: Optional[Class], name: str, classes: dict[str, Class]) -> Optional[cst.FunctionDef]:
    """The concrete `name` of the one class of this file derived from cls that defines one (a template method's
    base calls `self.step()`, which the base only declares): None when no class or several do."""
    if cls is None:
        return None
    found = {id(m): m for c in classes.values() if c.node is not cls.node and _derives(c, cls, classes, 0)
             for m in (find_method(c, name, classes),) if m is not None and not is_abstract(m)}
    return next(iter(found.values())) if len(found) == 1 else None


def _derives(cls: Class, base: Class, classes: dict[str, Class], depth: int) -> bool:
    if cls.node is None or depth > 8:
        return False
    parents = [b for b in cls.bases if isinstance(b, Class)] + [
        classes[n] for n in (dotted(arg.value) for arg in cls.node.bases) if n in classes and n != cls.name]
    return any(p.node is base.node or p.node is not cls.node and _derives(p, base, classes, depth + 1)
               for p in parents)


def moved_by_own_move(cls: Class, classes: dict[str, Class]) -> set[str]:
    """The attributes a module class's own `to`/`cuda`/`_apply` override moves (`self.scale =
    self.scale.to(device)` before `super().to(device)`): they move with the module, as a buffer does."""
    moved: set[str] = set()
    for name in api.OWN_MOVE_OVERRIDES:
        method = find_method(cls, name, classes)
        statements = method.body.body if method is not None and type(method.body) is cst.IndentedBlock else ()
        for stmt in statements:
            looped = _moved_in_loop(stmt)  # `for c in self.critics: c.cuda()`
            if looped is not None:
                moved.add(looped)
            for small in stmt.body if type(stmt) is cst.SimpleStatementLine else ():
                if type(small) is cst.Assign and len(small.targets) == 1:
                    target = dotted(small.targets[0].target) or ""
                    if target.startswith("self.") and _moved_from(small.value) == target:
                        moved.add(target[5:])
    return moved


def _moved_in_loop(stmt: cst.BaseStatement) -> Optional[str]:
    """`for c in self.critics: c.cuda()`: the attribute whose members a loop moves in place, one by one."""
    if type(stmt) is not cst.For or type(stmt.target) is not cst.Name or type(stmt.body) is not cst.IndentedBlock:
        return None
    held = dotted(stmt.iter) or ""
    member = stmt.target.value
    for line in stmt.body.body:
        for small in line.body if type(line) is cst.SimpleStatementLine else ():
            call = small.value if type(small) is cst.Expr else None
            if held.startswith("self.") and type(call) is cst.Call and type(call.func) is cst.Attribute \
                    and call.func.attr.value in api.MOVE_METHODS and dotted(call.func.value) == member:
                return held[5:]
    return None


def _moved_from(value: cst.BaseExpression) -> Optional[str]:
    """`self.x.to(device)`: `self.x`; `[m.cuda() for m in self.mats]`: `self.mats` (each member moved)."""
    if type(value) is cst.ListComp and type(value.elt) is cst.Call and type(value.elt.func) is cst.Attribute \
            and value.elt.func.attr.value in api.MOVE_METHODS and type(value.for_in.target) is cst.Name \
            and dotted(value.elt.func.value) == value.for_in.target.value:
        return dotted(value.for_in.iter)
    if type(value) is cst.Call and type(value.func) is cst.Attribute and value.func.attr.value in api.MOVE_METHODS:
        return dotted(value.func.value)
    return None


def decorator_name(decorator: cst.Decorator) -> str:
    expr = decorator.decorator
    if type(expr) is cst.Call:
        expr = expr.func
    return dotted(expr) or ""


def is_static(fdef: cst.FunctionDef) -> bool:
    return any(decorator_name(d) == "staticmethod" for d in fdef.decorators)


def is_classmethod(fdef: cst.FunctionDef) -> bool:
    return any(decorator_name(d) == "classmethod" for d in fdef.decorators)


def bound_to(arg: cst.Arg, index: int, names: list[str]) -> Optional[str]:
    """The parameter a call's `index`-th argument goes to: its keyword, or the name at its position."""
    return arg.keyword.value if arg.keyword is not None else names[index] if index < len(names) else None


def host_params(fdef: cst.FunctionDef) -> set[str]:
    """Parameters the function uses on the host: handed to a cpu-only argument, or brought to the cpu
    (`lengths.cpu()`, `.tolist()`): its caller may keep them there."""
    params = set(positional_names(fdef))
    short = {path.rsplit(".", 1)[-1]: spec for path, spec in api.CPU_ONLY_ARGS.items()}
    found: set[str] = set()
    stack: list[cst.CSTNode] = [fdef.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            func = node.func
            receiver = func.value if type(func) is cst.Attribute else None
            if type(receiver) is cst.Attribute and receiver.attr.value in api.SAME_DATA_VIEWS:
                receiver = receiver.value  # `lens.data.tolist()`, `lens.detach().cpu()`'s receiver is lens
            elif type(receiver) is cst.Call and type(receiver.func) is cst.Attribute \
                    and receiver.func.attr.value in api.SAME_DATA_VIEWS and not receiver.args:
                receiver = receiver.func.value
            if type(func) is cst.Attribute and type(receiver) is cst.Name and receiver.value in params \
                    and (func.attr.value in _TO_HOST or func.attr.value == "to" and _to_cpu(node)):
                found.add(receiver.value)
            if any(word in (dotted(func) or "").lower() for word in api.TEXT_ENCODERS):
                # `self.tokenizer(caption, return_tensors="pt")`: text, which the tokenizer turns into tensors
                found.update(a.value.value for a in node.args if type(a.value) is cst.Name and a.value.value in params)
            spec = short.get((dotted(func) or "").rsplit(".", 1)[-1])
            if spec is not None:
                position, keyword = spec
                for i, arg in enumerate(node.args):
                    named = arg.keyword.value == keyword if arg.keyword else i == position
                    if named and type(arg.value) is cst.Name and arg.value.value in params:
                        found.add(arg.value.value)
        elif type(node) is cst.For:
            found |= _read_element_by_element(node, params)
        stack.extend(children(node))
    return found


def _read_element_by_element(loop: cst.For, params: set[str]) -> set[str]:
    """`for i, length in enumerate(lengths): ... length.item()`: a parameter whose elements the loop brings to
    the host one by one, so its caller may keep it anywhere."""
    source = loop.iter
    if type(source) is cst.Call and dotted(source.func) in ("enumerate", "zip", "reversed") and source.args:
        iterated = [a.value for a in source.args]
    else:
        iterated = [source]
    names = {n.value for n in iterated if type(n) is cst.Name and n.value in params}
    if not names:
        return set()
    targets = set(target_names(loop.target))
    stack: list[cst.CSTNode] = [loop.body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call and type(node.func) is cst.Attribute and type(node.func.value) is cst.Name \
                and node.func.value.value in targets and node.func.attr.value in _TO_HOST:
            return names
        if type(node) is cst.BinaryOperation and type(node.operator) is cst.Multiply and any(
                type(one) is cst.List and type(other) is cst.Name and other.value in targets
                for one, other in ((node.left, node.right), (node.right, node.left))):
            return names  # `[state[b]] * n`: each element a Python count, read on the host
        stack.extend(children(node))
    return set()


_TO_HOST = api.TO_HOST_METHODS


def _to_cpu(call: cst.Call) -> bool:
    """`x.to("cpu")`, `x.to(device="cpu")`, `x.to(torch.device("cpu"))`."""
    return any("'cpu'" in text or '"cpu"' in text
               for text in (cst.Module([]).code_for_node(arg.value) for arg in call.args[:1]))



def sent_params(fdef: cst.FunctionDef) -> set[str]:
    """Parameters the function sends to a device, as they are or as a name computed from them (`tensor =
    data.detach()` ... `tensor = tensor.cuda()`, `return t.detach().cuda()`)."""
    params = set(positional_names(fdef))
    derived, _ = derived_names(fdef, params)
    sent: set[str] = set()
    for node in body_nodes(fdef):
        if type(node) is cst.Call and type(node.func) is cst.Attribute and device_move(node):
            root = root_name(node.func.value)
            source = derived.get(root.value) if root is not None else None
            if source is not None:
                sent.add(source)
    return sent


def moved_on_entry(fdef: cst.FunctionDef) -> set[str]:
    """Parameters the function sends to a device, under their own name (`pos = pos.long().to(q.device)`), before
    any use that depends on where they are (asking their shape, reshaping them, testing them for None do not):
    where a caller put them does not matter (unlike a copy sent there)."""
    pending, found = set(positional_names(fdef)), set()
    for statement in getattr(fdef.body, "body", ()):
        used = names_in(statement) & pending
        small = statement.body[0] if type(statement) is cst.SimpleStatementLine and len(statement.body) == 1 \
            else None
        if used and type(small) is cst.Assign and len(small.targets) == 1 and type(small.value) is cst.Call \
                and type(small.value.func) is cst.Attribute and device_move(small.value):
            target, root = small.targets[0].target, root_name(small.value.func.value)
            if type(target) is cst.Name and root is not None and root.value == target.value and root.value in used:
                found.add(root.value)
        pending -= {name for name in used if name in found or not _placement_free(statement, name)}
        if not pending:
            break
    return found


def _placement_free(statement: cst.CSTNode, name: str) -> bool:
    """Does the statement use `name` only in ways that do not depend on its device: `name.dim()`, `name.shape`,
    `name = name.unsqueeze(0)`, `name is None`, assigning it anew?"""
    stack: list[tuple[cst.CSTNode, Optional[cst.CSTNode]]] = [(statement, None)]
    while stack:
        node, parent = stack.pop()
        if type(node) is cst.Name and node.value == name and not (
                type(parent) is cst.Attribute and parent.value is node and parent.attr.value in api.SHAPE_ONLY_METHODS
                or type(parent) is cst.AssignTarget
                or type(parent) is cst.Comparison and tests_none(parent)):
            return False
        stack.extend((child, node) for child in children(node))
    return True


def tests_none(comparison: cst.Comparison) -> bool:
    """`x is None`, `x is not None` (each comparison of the chain against None by identity)."""
    return all(type(c.operator) in (cst.Is, cst.IsNot) and type(c.comparator) is cst.Name
               and c.comparator.value == "None" for c in comparison.comparisons)


def derived_names(fdef: cst.FunctionDef, params: set[str]) -> tuple[dict[str, str], set[int]]:
    """Each name computed from a parameter (-> that parameter), and id() of the Name nodes that only bind or
    compute such names (an assignment's target, the root of its value, a loop's iterable)."""
    derived = {name: name for name in params}
    binding: set[int] = set()
    for node in body_nodes(fdef):  # in the order written: a name is computed before it is used
        target: Optional[cst.BaseExpression] = None
        value: Optional[cst.BaseExpression] = None
        if type(node) is cst.Assign and len(node.targets) == 1:
            target, value = node.targets[0].target, node.value
        elif type(node) is cst.For:
            target, value = node.target, node.iter
        # (`feats, n = graph`: each part of a parameter unpacked is computed from it)
        names = [target] if type(target) is cst.Name else [e.value for e in cast(cst.Tuple, target).elements] \
            if type(target) in (cst.Tuple, cst.List) else []
        root = root_name(value) if value is not None and names else None
        if root is None or root.value not in derived:
            continue
        for bound in names:
            if type(bound) is cst.Name and derived.setdefault(bound.value, derived[root.value]) == derived[root.value]:
                binding.update((id(bound), id(root)))
    return derived, binding


def handed_to_members(fdef: cst.FunctionDef) -> frozenset[str]:
    """The parameters a method only hands on, as they are, to calls of the object's members (`self.head(x,
    weights=weights)` and no other use of `weights`): "member<TAB>parameter<TAB>slot" each, the slot the
    member's call binds it to (a position among its arguments, or a keyword)."""
    params = set(positional_names(fdef)[1:]) | {p.name.value for p in fdef.params.kwonly_params}
    uses: dict[str, int] = {}
    handed: list[tuple[str, str, str]] = []
    keywords: set[int] = set()  # (`weights=` names no variable)
    for node in body_nodes(fdef):
        if type(node) is cst.Name and node.value in params and id(node) not in keywords:
            uses[node.value] = uses.get(node.value, 0) + 1
        elif type(node) is cst.Call:
            keywords.update(id(arg.keyword) for arg in node.args if arg.keyword is not None)
        if type(node) is cst.Call and type(node.func) is cst.Attribute and dotted(node.func.value) == "self":
            handed.extend((node.func.attr.value, arg.value.value, arg.keyword.value if arg.keyword else str(i))
                          for i, arg in enumerate(node.args) if not arg.star and type(arg.value) is cst.Name
                          and arg.value.value in params)
    told = {param: sum(1 for _, p, _ in handed if p == param) for _, param, _ in handed}
    return frozenset("\t".join(entry) for entry in handed if told[entry[1]] == uses.get(entry[1]))


def body_nodes(fdef: cst.FunctionDef) -> Iterator[cst.CSTNode]:
    """The function's body node by node, in the order written; nested functions, classes and lambdas left out."""
    stack: list[cst.CSTNode] = [fdef.body]
    while stack:
        node = stack.pop()
        if type(node) in _NESTED_SCOPES:
            continue
        yield node
        stack.extend(reversed(children(node)))


_NESTED_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def _small_statements(fdef: cst.FunctionDef) -> Iterator[cst.BaseSmallStatement]:
    """The function's one-line statements (`x = ...`, `global g`) at any depth of its blocks, expressions not
    entered (what `local_names` reads, at a fraction of a walk of every node); nested functions and classes
    left out."""
    stack: list[cst.CSTNode] = [fdef.body]
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.SimpleStatementLine or kind is cst.SimpleStatementSuite:
            yield from cast("cst.SimpleStatementLine", node).body
        elif kind is cst.IndentedBlock:
            stack.extend(reversed(cast(cst.IndentedBlock, node).body))
        elif kind not in _NESTED_SCOPES:  # a compound statement, an `else:`, `except:`, `finally:`, a match case
            stack.extend(reversed([c for c in children(node) if isinstance(c, _BLOCK_PARTS)]))


def stored_on_self(fdef: cst.FunctionDef, self_name: str) -> dict[str, str]:
    """attribute -> parameter, for each `self.scene = scene` of the body: the object the caller passed, kept."""
    stored: dict[str, str] = {}
    for statement in _small_statements(fdef):
        if type(statement) is cst.Assign and type(statement.value) is cst.Name and len(statement.targets) == 1:
            target = statement.targets[0].target
            if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == self_name:
                stored[target.attr.value] = statement.value.value
    return stored


def unpacked_at_top(module: cst.Module) -> frozenset[str]:
    """The names the module level binds by unpacking (`X, mask, lengths = featurize(batch, device)`): parts of a
    computed value, never a configuration read whole (`cfg = load_config()`, whose `cfg.device` is a choice)."""
    names: set[str] = set()
    stack: list[cst.CSTNode] = list(reversed(module.body))
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is cst.SimpleStatementLine:
            for small in cast(cst.SimpleStatementLine, node).body:
                if type(small) is cst.Assign:
                    names.update(n for t in small.targets if type(t.target) in (cst.Tuple, cst.List)
                                 for n in target_names(t.target))
        elif kind is cst.IndentedBlock:
            stack.extend(reversed(cast(cst.IndentedBlock, node).body))
        elif kind not in _NESTED_SCOPES:
            stack.extend(reversed([c for c in children(node) if isinstance(c, _BLOCK_PARTS)]))
    return frozenset(names)


_BLOCK_PARTS = (cst.BaseSuite, cst.BaseCompoundStatement, cst.Else, cst.ExceptHandler, cst.ExceptStarHandler,
                cst.Finally, cst.MatchCase)


# the wrappers that hand back their argument as it is (`Variable(t)`)
_IDENTITY_NAMES = frozenset(path.rsplit(".", 1)[-1] for path in api.IDENTITY_FUNCTIONS)


def _wraps_one(call: cst.Call) -> bool:
    return len(call.args) == 1 and not call.args[0].keyword and not call.args[0].star \
        and (dotted(call.func) or "").rsplit(".", 1)[-1] in _IDENTITY_NAMES


def root_name(node: cst.BaseExpression) -> Optional[cst.Name]:
    """The name a chain of calls, attributes, subscripts and arithmetic starts from: `data` of
    `data.detach().float()`, `boxes` of `(boxes[i] // 2).int()`, `tensor` of `Variable(tensor).cuda()`."""
    while True:
        kind = type(node)
        if kind is cst.Call and _wraps_one(cast(cst.Call, node)):
            node = cast(cst.Call, node).args[0].value
        elif kind is cst.Call:
            node = node.func  # type: ignore[attr-defined]
        elif kind is cst.Attribute or kind is cst.Subscript:
            node = node.value  # type: ignore[attr-defined]
        elif kind is cst.BinaryOperation:
            node = node.left  # type: ignore[attr-defined]
        else:
            return cast(cst.Name, node) if kind is cst.Name else None


def number_params(fdef: cst.FunctionDef) -> frozenset[str]:
    """Parameters annotated `int`/`float`: a tensor passed there is one number, 0-dim (`step(self, t: int)`
    given an element of the timesteps), which combines with a tensor on any device."""
    return annotated_params(fdef, api.NUMBER_ANNOTATIONS, optional=False)


def annotated_params(fdef: cst.FunctionDef, kinds: AbstractSet[str], optional: bool) -> frozenset[str]:
    """Parameters annotated with one of `kinds` (a builtin's name); `optional`: `int | None`, `Optional[int]` too."""
    params = (*fdef.params.posonly_params, *fdef.params.params, *fdef.params.kwonly_params)
    return frozenset(p.name.value for p in params if p.annotation is not None and dotted(
        given_annotation(p.annotation.annotation) if optional else p.annotation.annotation) in kinds)


def given_annotation(annotation: cst.BaseExpression) -> cst.BaseExpression:
    """`float` of `float | None`, `Optional[float]`, `Union[float, None]`: what the parameter is when given."""
    if type(annotation) is cst.BinaryOperation and type(annotation.operator) is cst.BitOr:
        sides = [side for side in (annotation.left, annotation.right) if dotted(side) != "None"]
        return sides[0] if len(sides) == 1 else annotation
    if type(annotation) is cst.Subscript and (dotted(annotation.value) or "").rsplit(".", 1)[-1] in _OPTIONALS:
        kept = [e.slice.value for e in annotation.slice
                if type(e.slice) is cst.Index and dotted(e.slice.value) != "None"]
        return kept[0] if len(kept) == 1 else annotation
    return annotation


_OPTIONALS = ("Optional", "Union")


def registered_by_hand(cls: cst.ClassDef) -> frozenset[str]:
    """Plain-list attributes whose members the class's `__init__` registers one by one: in a loop over them
    (`for i, layer in enumerate(self.gates): for p in layer.parameters(): self.register_parameter(...)`), or
    through a method of the class that does (`self._add_to_parameters(self.kernels, "kernel")`)."""
    methods = _methods_of(cls)
    init = methods.get("__init__")
    found: set[str] = set()
    for node in body_nodes(init) if init is not None else ():
        if type(node) is cst.For:
            source = node.iter
            if type(source) is cst.Call and dotted(source.func) in ("enumerate", "zip") and source.args:
                source = source.args[0].value
            name = _self_attribute(source)
            if name is not None and _registers(node.body, methods):
                found.add(name)
        elif type(node) is cst.Call and _registering_method(node, methods):
            found.update(name for name in (_self_attribute(arg.value) for arg in node.args) if name is not None)
    return frozenset(found)


def _self_attribute(node: cst.BaseExpression) -> Optional[str]:
    name = dotted(node)
    return name[len("self."):] if name is not None and name.startswith("self.") and name.count(".") == 1 else None


def _registers(body: cst.CSTNode, methods: dict[str, cst.FunctionDef], depth: int = 1) -> bool:
    """A call that registers a member on `self` (`self.register_parameter`, `self.add_module`, `setattr(self,`),
    or a method of the class that makes one."""
    stack: list[cst.CSTNode] = [body]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            func = dotted(node.func) or ""
            if func.startswith("self.") and func[len("self."):] in api.REGISTERING_METHODS:
                return True
            if func == "setattr" and node.args and dotted(node.args[0].value) == "self":
                return True
            if depth > 0 and _registering_method(node, methods, depth):
                return True
        stack.extend(children(node))
    return False


def _registering_method(call: cst.Call, methods: dict[str, cst.FunctionDef], depth: int = 1) -> bool:
    """`self._add_to_parameters(...)`, a method of the class whose body registers members."""
    func = dotted(call.func) or ""
    method = methods.get(func[len("self."):]) if func.startswith("self.") and func.count(".") == 1 else None
    return method is not None and method.name.value != "__init__" and _registers(method.body, methods, depth - 1)


def local_names(fdef: cst.FunctionDef) -> frozenset[str]:
    """The names a function assigns as a whole (`x = ...`, `a, b = ...`), less those it declares
    `global`/`nonlocal`: Python makes them local to it throughout (a read before the assignment raises
    UnboundLocalError, it never sees the global)."""
    assigned: set[str] = set()
    declared: set[str] = set()
    for node in _small_statements(fdef):
        if type(node) is cst.Assign:
            for target in node.targets:
                if type(target.target) is not cst.Subscript:
                    assigned.update(target_names(target.target))
        elif type(node) in (cst.Global, cst.Nonlocal):
            declared.update(name.name.value for name in cast("cst.Global | cst.Nonlocal", node).names)
    return frozenset(assigned - declared)


def forget_rebound_globals(env: dict[str, Value], rebound: frozenset[str]) -> None:
    """What the module's functions (and its importers) see of a name some function rebinds through
    `global`: not the module-level placeholder (`device = None`), since `main()` may have run first."""
    for name in rebound:
        if name in env:
            env[name] = UNKNOWN


def parametrized(fdef: cst.FunctionDef) -> list[tuple[list[str], cst.Call]]:
    """A test's `@pytest.mark.parametrize("a, b", rows)` decorators: the names each gives values to, and the call."""
    if not fdef.name.value.startswith("test"):
        return []
    found: list[tuple[list[str], cst.Call]] = []
    for decorator in fdef.decorators:
        call = decorator.decorator
        if type(call) is cst.Call and (dotted(call.func) or "").endswith(".parametrize") and call.args \
                and type(call.args[0].value) is cst.SimpleString:
            names = call.args[0].value.evaluated_value
            if isinstance(names, str):
                found.append(([n.strip() for n in names.split(",")], call))
    return found


def pytest_defaults(fdef: cst.FunctionDef) -> frozenset[str]:
    """Parameters pytest leaves at their defaults in a test (`def test_attack(name, device="cpu")`): those with
    a default that no `@pytest.mark.parametrize("a, b", ...)` names (a parameter with a default is no fixture)."""
    if not fdef.name.value.startswith("test"):
        return frozenset()
    named = {name for names, _ in parametrized(fdef) for name in names}
    params = list(fdef.params.params) + list(fdef.params.kwonly_params)
    return frozenset(p.name.value for p in params if p.default is not None and p.name.value not in named)


def calls_attribute(cls: cst.ClassDef, attributes: list[str]) -> bool:
    """Does the class call one of these attributes itself (`self.conv(x)`, `self.conv.forward(x)`)?"""
    wanted = set(attributes) | {f"{a}.forward" for a in attributes}
    stack: list[cst.CSTNode] = [cls]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call and dotted(node.func) in wanted:
            return True
        stack.extend(children(node))
    return False


def wraps_one_cuda_call(fdef: cst.FunctionDef) -> bool:
    """`def set_device(gpu_id): torch.cuda.set_device(gpu_id)`: a body that is one `torch.cuda` call of the
    function's parameters (after a docstring) is that call under another name, an API for GPU mode: its callers
    decide whether a GPU is there."""
    statement = _one_statement(fdef)
    if type(statement) not in (cst.Expr, cst.Return):
        return False
    call = cast("cst.Expr | cst.Return", statement).value
    if type(call) is not cst.Call or not (dotted(call.func) or "").startswith(api.CUDA_NAMESPACE + "."):
        return False
    # it hands the call what its caller gives (`gpu_id`): a method's own `torch.cuda.synchronize()` is no wrapper
    given = {param.name.value for param in fdef.params.params if param.name.value not in ("self", "cls")}
    handed = {arg.value.value for arg in call.args if type(arg.value) is cst.Name}
    return bool(given) and given <= handed


def _one_statement(fdef: cst.FunctionDef) -> Optional[cst.BaseSmallStatement]:
    """The body's only statement (after a docstring), where it is a simple one."""
    body = fdef.body
    if isinstance(body, cst.SimpleStatementSuite):
        small = list(body.body)
    elif all(type(line) is cst.SimpleStatementLine for line in body.body):
        small = [s for line in cast("list[cst.SimpleStatementLine]", list(body.body)) for s in line.body]
    else:
        return None
    small = [s for s in small if not (type(s) is cst.Expr and isinstance(s.value, cst.BaseString))]
    return small[0] if len(small) == 1 else None


def clock_wrapped(fdef: cst.FunctionDef) -> Optional[str]:
    """`def current_time_millis(): return int(round(time.monotonic_ns() / 1_000_000))`: a function whose body only
    returns a wall-clock read (in other units) is that clock under another name; the clock's path, or None."""
    statement = _one_statement(fdef)
    if type(statement) is not cst.Return or statement.value is None:
        return None
    stack: list[cst.CSTNode] = [statement.value]
    while stack:
        node = stack.pop()
        if type(node) is cst.Call:
            name = dotted(node.func) or ""
            if name in api.CLOCKS:
                return name
            if name in _CLOCK_NAMES:  # `from time import perf_counter`
                return _CLOCK_NAMES[name]
        stack.extend(children(node))
    return None


_CLOCK_NAMES = {path.rsplit(".", 1)[1]: path for path in api.CLOCKS if path.rsplit(".", 1)[1] != "time"}


def dataclass_fields(cls: cst.ClassDef) -> Optional[list[str]]:
    """The fields of a `@dataclass` (`@dataclasses.dataclass(frozen=True)` too), in order: the annotated names of
    its body, which its generated `__init__` takes in that order; None for any other class."""
    decorated = [dotted(d.decorator.func if type(d.decorator) is cst.Call else d.decorator) or ""
                 for d in cls.decorators]
    if not any(name.rsplit(".", 1)[-1] == api.DATACLASS_DECORATOR for name in decorated):
        return None
    fields = []
    for line in cls.body.body:
        for small in getattr(line, "body", ()) if type(line) is cst.SimpleStatementLine else ():
            if type(small) is cst.AnnAssign and type(small.target) is cst.Name \
                    and "ClassVar" not in (dotted(small.annotation.annotation) or ""):
                fields.append(small.target.value)
    return fields
