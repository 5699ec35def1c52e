"""Calls into code devlint cannot see: imported functions, methods of values of unknown kind.

What they do to devices is unknown, so their results are unknown; but what
they are given tells something: a module handed to them may be moved there, a
GPU value given to them means GPU work, and a project function may well wait
for the GPU (a validation run ends with `.cpu()`).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Optional, Union, cast

import libcst as cst

from devlint.core.torch_catalogue import views as api
from devlint.static.semantics.callsite import Args, CallSite
from devlint.static.semantics.devices import device_argument, unknown_to
from devlint.static.syntax import dotted
from devlint.core.values import (
    CPU, UNKNOWN, Const, DeviceValue, Function, HostArray, LambdaFunction, Located, ModelWrapper, Module, Seq, Tensor,
    Unknown, Value,
)


FOLLOWS_INPUTS = "follows its inputs"  # the why-step of an unseen call's result (a pass-through: `tqdm(steps)`)


def unknown_function(site: CallSite, by_name: bool = False) -> Value:
    """An imported function: `utils.train_epoch(model, loader)`; `by_name`: a member of an imported module
    taken by name (`models.__dict__[arch](...)`, the model zoo idiom: its entries are constructors)."""
    args, state = site.args, site.state
    site.walk.escape(args, state)
    site.facts.note_gpu_work(site.node, [v for _, v in args.all()], state)
    given = args.keywords.get("device")
    if given is not None and isinstance(given[1], (Const, DeviceValue)) and not site.file.in_test():
        # `mace_mp(model="medium", device="cuda")`: the library builds on the GPU it is told to use (a test's
        # `SingleDeviceStrategy(device=torch.device("cuda"))` beside mocks only names one)
        device_argument(site.facts, given[1], state, given[0])
    accelerator = args.keywords.get(api.ACCELERATOR_KEYWORD)
    if accelerator is not None and isinstance(accelerator[1], Const) and accelerator[1].value in api.GPU_ACCELERATORS:
        state.guarded = True  # `L.Fabric(accelerator="cuda")`: what follows runs with a GPU, or the run stops here
    if checkpoint_io(site.path) or site.path in api.DATA_DEPENDENT_LIBRARY_OPS or _validated(site):
        site.facts.note_sync(state)
    if _constructs_a_module(site, by_name):
        where = state.default_device or CPU
        return Module(why=((site.node, "modules are created on cpu"),), where=where, ident=id(site.node))
    if not by_name and _builds_a_loss(site):
        # `criterion = losses.CharbonnierLoss()`: a loss, as torch's own are: it computes where its inputs are,
        # and they must share a device
        return Module(why=((site.node, ""),), where=None, stateless=True, ident=id(site.node))
    # (a module, or a value of unknown kind moved to a device: `load_model(name).to(device)`)
    wrapped = next((v for _, v in args.all() if isinstance(v, Module) and not v.stateless or type(v) is Located),
                   None)
    if not by_name and wrapped is not None and _class_like(site.path):
        # `atk = torchattacks.PGD(model, eps=...)`: an object that runs the model (on a GPU only if known there)
        return _runs(site, wrapped)
    return UNKNOWN if by_name else follows_inputs(site)


def is_zoo_builder(path: str) -> bool:
    name = path.rsplit(".", 1)[-1]
    return path in api.MODEL_ZOO_BUILDERS or path.startswith(api.MODEL_ZOO_PREFIXES) and name[:1].islower() \
        and not name.startswith(api.MODEL_ZOO_HELPERS)


def zoo_model(site: CallSite) -> Value:
    """`torchvision.models.resnet18(weights=...)`, `timm.create_model(name)`: a new module, on the cpu (its
    pretrained weights are loaded there too), or the default device where the code set one."""
    site.evaluate_arguments()
    if any(isinstance(v, Module) or type(v) is Located for _, v in site.args.all()):
        return UNKNOWN  # built around a module it is given (a feature extractor of it): where that one is
    return _new_module(site)


def _new_module(site: CallSite) -> Module:
    """A library's new module: on the cpu, or the default device where the code set one."""
    where = site.state.default_device or CPU
    return Module(why=((site.node, "modules are created on cpu"),), where=where, ident=id(site.node))


def is_hub_model(path: str) -> bool:
    """`transformers.AutoModelForCausalLM.from_pretrained`: a model class's constructor (not a tokenizer's)."""
    library, _, rest = path.partition(".")
    cls, _, constructor = rest.rpartition(".")
    return f"{library}." in api.HUB_MODEL_LIBRARIES and constructor in api.HUB_MODEL_CONSTRUCTORS \
        and cls[:1].isupper() and "." not in cls and not cls.endswith(api.HUB_NON_MODEL_SUFFIXES)


def hub_model(site: CallSite) -> Value:
    """A Hugging Face model from the hub: a new module on the cpu (loaded there too), unless it is placed or
    quantized where it is built (accelerate's hooks then move its inputs: where they come from is theirs)."""
    site.evaluate_arguments()
    if site.args.starstar or any(name in api.HUB_PLACING_KEYWORDS for name in site.args.keywords):
        return UNKNOWN
    return _new_module(site)


def _runs(site: CallSite, wrapped: Value) -> ModelWrapper:
    """What a call handed a module gives back, which runs it: where the module is, when known to be on a GPU."""
    on_gpu = wrapped.device is not None and wrapped.device.is_gpu
    return ModelWrapper(why=wrapped.why + ((site.node, "it runs the module it is given"),),
                        where=wrapped.device if on_gpu else None)


def wrapper_call(site: CallSite, wrapper: ModelWrapper) -> Value:
    """`atk(images, labels)`: the wrapped module's work, on its device (its inputs moved there by the object)."""
    site.walk.escape(site.args, site.state)
    site.facts.note_gpu_work(site.node, [wrapper] + [v for _, v in site.args.all()], site.state)
    if wrapper.where is None:
        return UNKNOWN
    step = (site.node, f"`{site.file.code(site.node.func)}(...)` runs its module (inferred)")
    return Tensor(why=wrapper.why + (step,), where=wrapper.where, derived=True, inferred=True, maybe_object=True)


def checkpoint_io(name: str) -> bool:
    """`save_checkpoint(model, ...)`, `load_checkpoint(fabric, model, path)`, `trainer.save_model()`: writing
    a checkpoint copies the tensors to the host, loading one copies them from it (after the queued work, and
    returning once the data is there): either way the GPU has nothing queued after the call."""
    words = name.rsplit(".", 1)[-1].lower()
    return any(verb in words for verb in api.CHECKPOINT_VERBS) and any(noun in words for noun in api.CHECKPOINT_NOUNS)


def _validated(site: CallSite) -> bool:
    """`torch.distributions.Categorical(probs)`: built, it checks its arguments on the host (not with
    `validate_args=False`)."""
    if not site.path.startswith(api.VALIDATING_CLASSES) or not _class_like(site.path):
        return False
    off = site.args.keywords.get(api.VALIDATE_KEYWORD)
    return off is None or not (isinstance(off[1], Const) and off[1].value is False)


def _builds_a_loss(site: CallSite) -> bool:
    name = site.path.rsplit(".", 1)[-1]
    return name.endswith(api.LOSS_CLASS_SUFFIX) and _class_like(site.path) and "device" not in site.args.keywords \
        and not site.path.startswith(api.LIBRARY_PREFIXES) and not _project_class(site)


def _project_class(site: CallSite) -> bool:
    """A class of the project's own that no walk could take (`.proxy_losses.ProxyNCALoss`, from a relative import
    of a package too deep to walk): its code, which may well align its inputs, as pytorch-metric-learning's
    losses do; not a loss of an unseen library, which computes where its inputs are, as torch's own do."""
    return site.path.startswith(".") or site.file.project_module(site.path.rpartition(".")[0])


def returns_torch_tensors(node: cst.Call) -> bool:
    """`tokenizer(texts, padding=True, return_tensors="pt")`: asked for torch tensors, it builds them."""
    keyword, value = api.TORCH_TENSORS_KEYWORD
    return any(arg.keyword is not None and arg.keyword.value == keyword and type(arg.value) is cst.SimpleString
               and arg.value.evaluated_value == value for arg in node.args)


def tokenized(node: cst.Call) -> Value:
    """What a tokenizer asked for torch tensors returns: a mapping of cpu tensors (`input_ids`, `attention_mask`),
    which its `.to(device)` moves."""
    return Seq(kind="dict", elem=Tensor(why=((node, "a tokenizer's tensors, made on cpu"),), where=CPU))


def follows_inputs(site: CallSite) -> Value:
    """A function nobody can see, given tensors on one device D (and on no other): what it returns,
    used as a tensor, is on D (`helper(x)` follows its inputs). Marked inferred: it may be a number."""
    if _class_like(site.path):
        return UNKNOWN  # a class: an object, not a tensor
    inputs = [v for _, v in site.args.positional + list(site.args.keywords.values())]
    if site.args.star or site.args.starstar or any(isinstance(v, (Module, DeviceValue, LambdaFunction, Function))
                                                   for v in inputs) \
            or any(name.endswith("device") for name in site.args.keywords):
        # a module, a device or a function handed over (`convert_tensor(x, device=d)`, `tree.map_structure(lambda x:
        # x.to(device), feats)`): the function may well move things
        return UNKNOWN
    if site.args.positional and type(site.args.positional[0][1]) is Unknown \
            and (dotted(site.node.func) or "").startswith("self."):
        return UNKNOWN  # `self.conv(graph, feats, etypes)`: its data is of unknown kind, an index says nothing
    tensors = [v for v in inputs if isinstance(v, Tensor) and not v.scalar]
    devices = [v.where for v in tensors if v.where is not None]
    if len(tensors) == 1 and tensors[0].where is None and tensors[0].cpu_path is not None:
        # `preds = model(inputs)` of inputs moved under `if num_gpus:`: on the cpu where they stayed there
        step = (site.node, f"`{site.file.code(site.node.func)}(...)` {FOLLOWS_INPUTS} (inferred)")
        return Tensor(why=tensors[0].why + (step,), derived=True, inferred=True, cpu_path=tensors[0].cpu_path)
    if not devices or len(devices) < len(tensors):
        return UNKNOWN
    if any(type(v) is Located and v.where != devices[0] for v in inputs):
        return UNKNOWN  # something of unknown kind elsewhere (a module?): the function may move things

    if len(set(devices)) > 1 and not all(d.kind == "param" for d in devices):
        if site.path and names_a_loss(site.node.func) and not _project_class(site):
            # `loss_fn(out, torch.from_numpy(labels))` of a library: a loss computes with both, as torch's do
            operands = [site.operand(node, v) for node, v in site.args.positional + list(site.args.keywords.values())
                        if isinstance(v, Tensor)]
            if len(operands) == 2 == len(site.args.positional):  # (input, target: a CTC loss's lengths go anywhere)
                return site.walk.operation(site.node, site.file.code(site.node.func), operands, site.state)
        return UNKNOWN  # given tensors on two devices: which one wins is the function's business
    # a forward's inputs each have a device of their own, all following the module: take the first
    source = tensors[0]
    where = replace(devices[0], implicit=False)  # computed there, not made there without device=
    params = {v.from_param for v in tensors}
    callee = site.file.code(site.node.func)
    loss = names_a_loss(site.node.func)
    step = (site.node, f"`{callee}(...)` computes a loss where its inputs are" if loss
            else f"`{callee}(...)` {FOLLOWS_INPUTS} (inferred)")
    return Tensor(why=source.why + (step,), where=where, derived=True, inferred=not loss, scalar=loss,
                  from_param=params.pop() if len(params) == 1 else None)


def names_a_loss(func: cst.BaseExpression) -> bool:
    """`criterion(out, y)`, `self.loss_fn(out, y)`: a callable named as a loss holds one (not `get_loss`)."""
    name = (dotted(func) or "").rsplit(".", 1)[-1].lower()
    return any(name == word or name.startswith(word + "_") or name.endswith("_" + word)
               for word in api.LOSS_CALLABLE_WORDS)


def _class_like(path: str) -> bool:
    """`Net`, `losses.CharbonnierLoss`: named as classes are (an object is what calling one gives)."""
    return path.rsplit(".", 1)[-1][:1].isupper()


def _constructs_a_module(site: CallSite, by_name: bool = False) -> bool:
    """`model = Net(args)` with a class imported from the project (or a model zoo's entry taken by name),
    whose result the file uses as only a module can be used (`model.eval()`, `model.parameters()`): a new
    module, on the cpu. A lowercase factory (`build_model(cfg)`) may well move what it builds: it stays
    unknown, as does a constructor given a device or a module to wrap."""
    if not by_name and (not _class_like(site.path) or site.path.rsplit(".", 1)[-1].isupper()
                        or site.path.startswith(api.LIBRARY_PREFIXES)):
        return False
    if by_name and site.file.sets_gpu_default(site.path):
        return False  # a zoo whose builders make CUDA the default tensor type: what they build may be on a GPU
    args = site.args
    if args.starstar or any(isinstance(v, DeviceValue) or (k or "").endswith("device")
                            for k, (_, v) in list(args.keywords.items()) + [(None, a) for a in args.positional]):
        return False
    modules = site.file.module_names()
    if any(isinstance(v, Module) and not v.stateless or type(v) is Located and v.where is not None
           and v.where.kind != "param" or type(v) is Unknown and dotted(node) in modules for node, v in args.all()):
        # `DDP(net)` of apex: a wrapper around a module it is handed (a value moved, a name used as a module whose
        # value the walk lost: `net, opt = amp.initialize(net, opt)`), where that module is
        return False
    consumer = site.file.consumer(site.node)
    if type(consumer) is not cst.Assign or len(consumer.targets) != 1:
        return False
    target = dotted(consumer.targets[0].target)
    return target is not None and target in site.file.module_names()


def unknown_callee(site: CallSite) -> Value:
    """A call of a value of unknown kind (`fn(x)` where fn is a parameter)."""
    site.walk.escape(site.args, site.state)
    site.facts.note_gpu_work(site.node, [v for _, v in site.args.all()], site.state)
    return follows_inputs(site)


def unknown_method(site: CallSite) -> Value:
    """`obj.method(...)` on a value of unknown kind (or only known to live on a device)."""
    result = _unknown_method(site)
    if checkpoint_io(site.name):
        site.facts.note_sync(site.state)  # after the work it queued: the copies wait for it
    return result


def _unknown_method(site: CallSite) -> Value:
    name, receiver, state, facts = site.name, site.receiver, site.state, site.facts
    args = site.args
    site.walk.escape(args, state)
    located = isinstance(receiver, Located)
    work = state.timing.work
    if name in api.TO_HOST_METHODS and work is not None and (
            work[0] is site.receiver_node is not None or type(receiver) is Unknown and _computed(site.receiver_node)):
        # `model(x).cpu()`: the host copy of what the GPU work just made waits for it; so does a host copy of
        # what a call we cannot see returned (`self.model.decode(p).logits.cpu()`), made of that work (not a
        # stored object's, `ae.cpu()`: a module sent back to the host under an offload switch)
        facts.note_sync(state)
    if name in api.SYNC_METHODS:
        holder = receiver if isinstance(receiver, (Located, Tensor)) else _chain_root(site)
        if holder is not None and holder.device is not None and holder.device.is_gpu:
            facts.note_sync(state)  # `out.last_hidden_state[:, 0].cpu()`: a part of a GPU value, copied
    if name in api.MOVES_TO_ARGUMENT or name in api.MOVES_TO_GPU:
        return unknown_to(site)
    if name in api.SAME_DEVICE_METHODS_MODULE and located:
        return receiver
    if name in api.MOVES_TO_CPU:
        return Located(why=((site.node, ""),), where=CPU)
    if name in api.HOST_METHODS and (site.receiver_name and site.receiver_name in site.file.tensor_names()
                                     or _host_chain(site.receiver_node)):
        facts.note_sync(state)  # `best.cpu().numpy()`: only a tensor goes so to numpy, and the copy waits
    if name == "items" and located:
        return Seq(kind="list", elem=Seq(kind="tuple", items=(UNKNOWN, receiver)))
    if name == "synchronize":
        facts.note_sync(state)
    if name in api.LAUNCHING_METHODS or located:
        facts.note_gpu_work(site.node, [receiver] + [v for _, v in args.all()], state)
    elif args.positional or args.keywords:
        facts.note_gpu_work(site.node, [v for _, v in args.all()], state)
    if name in api.WAITING_LIBRARY_METHODS:
        facts.note_sync(state)  # `model.generate(ids)`: it returns when its last step is done
    if isinstance(receiver, Located) and name not in api.METADATA_METHODS:  # (= located, for the type checker)
        if name in api.HOST_CONVERSION_METHODS:  # `.data.cpu().numpy()` of a model's output: numpy's, on the host
            return HostArray(why=receiver.why + ((site.node, "a numpy array, on the host"),))
        if name in api.TENSOR_ONLY_ATTRS:
            return Tensor(why=receiver.why, where=receiver.where, derived=True)  # only a tensor has this method
        if name in api.REDUCTIONS and not args.positional and not args.keywords and receiver.where is not None \
                and receiver.where.concrete:
            # `u.norm()` of a value moved to a device: 0-dim there (as a cpu one, it combines with any device)
            return Tensor(why=receiver.why, where=receiver.where, derived=True, scalar=True)
        if not api.is_tensor_method(name) and (_host_data_only(args) or hasattr(dict, name)):
            # `agent.get_qvalues(obs)` of an agent moved to the GPU, given numpy: it may return numpy; a mapping's
            # method (`enc_hparams.get(key, default)` of a parameter annotated `dict`) reads a setting
            return UNKNOWN
        if not api.is_tensor_method(name) and _no_tensor_given(args):
            # `sbert.encode(sentence)` of a model moved there (no tensor has the method): its own API, given no
            # tensor, places its inputs and may hand back numpy (`convert_to_numpy=True`): a tensor if used as one
            return Tensor(why=receiver.why + ((site.node, f"`{name}(...)` of the model (inferred)"),),
                          where=receiver.where, derived=True, inferred=True, maybe_object=True)
        return Located(where=receiver.where)
    handed = [v for _, v in args.all() if isinstance(v, Module) and not v.stateless]
    if len(handed) == 1 and _no_tensor_given(args):
        # `args.compile_model(model)`, `engine.wrap(model)`: what it gives back runs the module (itself, compiled
        # or wrapped)
        return _runs(site, handed[0])
    return UNKNOWN


def _no_tensor_given(args: Args) -> bool:
    values = [v for _, v in args.all()]
    return bool(values) and not any(isinstance(v, (Tensor, Located)) for v in values)


def _host_data_only(args: Args) -> bool:
    return any(isinstance(v, HostArray) for _, v in args.all()) and _no_tensor_given(args)


def _chain_root(site: CallSite) -> Optional[Value]:
    """The value a chain of attributes, subscripts and method calls starts from (`out` of
    `out.logits[:, 0].sum()`), where the chain's own value is unknown: a model output's fields live where it does."""
    node = site.receiver_node
    while type(node) in (cst.Attribute, cst.Subscript) or type(node) is cst.Call and type(node.func) is cst.Attribute:
        node = cast(Union[cst.Attribute, cst.Subscript], node.func if type(node) is cst.Call else node).value
    if type(node) is not cst.Name or node is site.receiver_node:
        return None
    value = site.state.env.get(node.value)
    return value if isinstance(value, (Located, Tensor)) else None


def _computed(receiver: Optional[cst.CSTNode]) -> bool:
    """A chain of attributes and subscripts over a call's result (`decode(p).logits`), not a stored object."""
    while type(receiver) in (cst.Attribute, cst.Subscript):
        receiver = cast(Union[cst.Attribute, cst.Subscript], receiver).value
    return type(receiver) is cst.Call


def _host_chain(receiver: Optional[cst.CSTNode]) -> bool:
    """The receiver is a chain of method calls of which one brings a tensor to the host (`x.cpu()` of
    `x.cpu().numpy()`, of `x.cpu().detach().numpy()`)."""
    while type(receiver) is cst.Call and type(receiver.func) is cst.Attribute:
        if receiver.func.attr.value in api.TO_HOST_METHODS:
            return True
        receiver = receiver.func.value
    return False
