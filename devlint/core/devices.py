"""Abstract devices: `cpu`, `cuda:N`, `selected` (chosen at run time), `param` (a parameter's device),
other accelerators; when two of them conflict, and where two paths meet. None is unknown, and unknown
never conflicts."""

from __future__ import annotations

from typing import Optional

from devlint.core.record import field, record, replace


@record
class Device:
    """An abstract device.

    kind: "cpu", "cuda", "selected" (chosen at run time, cuda where there is
    one), "param" (inside a function: the device of parameter `param`), or
    another accelerator name ("mps", "xpu", "meta").
    """

    kind: str
    index: Optional[int] = None  # cuda only; None: the current device
    param: Optional[str] = None  # "param" only
    # cpu only because a factory was given no device= (the DEV104/DEV105 story)
    implicit: bool = False
    # "selected": the variable that holds it (`args.device`); ranked "cuda": its index's code (`args.gpu`). For
    # messages, never compared
    name: Optional[str] = field(default=None, compare=False)
    # "cuda" only: an index chosen at run time (`f"cuda:{rank}"`): a GPU of its own, not the current one
    ranked: bool = field(default=False, compare=False)

    def __str__(self) -> str:
        if self.kind == "cuda":
            if self.ranked and self.name:
                return f"`cuda:{{{self.name}}}`"
            return "cuda" if self.index is None else f"cuda:{self.index}"
        if self.kind == "selected":
            return f"`{self.name}`" if self.name else "the selected device"
        if self.kind == "param":
            return "the module's device" if self.param == "self" else f"the device of `{self.param}`"
        return self.kind

    def same_place(self, other: "Device") -> bool:
        return (self.kind, self.index, self.param) == (other.kind, other.index, other.param)

    @property
    def is_gpu(self) -> bool:
        """Is (or may be, on a machine with a GPU) a CUDA device."""
        return self.kind in ("cuda", "selected")

    @property
    def concrete(self) -> bool:
        return self.kind != "param"


# Device kinds that are an accelerator (or may be one, for "selected").
ACCELERATORS = frozenset({"cuda", "selected", "mps", "xpu", "hpu", "npu", "xla"})

CPU = Device("cpu")
IMPLICIT_CPU = Device("cpu", implicit=True)
SELECTED = Device("selected")


def cuda(index: Optional[int] = None) -> Device:
    return Device("cuda", index=index)


RANKED_CUDA = replace(cuda(), ranked=True)  # `f"cuda:{local_rank}"`, `torch.device("cuda", rank)`


def ranked_cuda(index_code: Optional[str]) -> Device:
    """A GPU whose index is chosen at run time, named by the code that chooses it (`args.gpu`)."""
    return replace(RANKED_CUDA, name=index_code) if index_code else RANKED_CUDA


def conflict(a: Optional[Device], b: Optional[Device]) -> bool:
    """Would an operation on both crash on a machine with GPUs?

    Only concrete devices conflict: unknown, and devices that come from a
    parameter, never do (the rules that need them look at provenance).
    """
    if a is None or b is None or not a.concrete or not b.concrete:
        return False
    if a.kind == b.kind:
        if a.kind != "cuda":
            return False
        if a.ranked and b.index is not None or b.ranked and a.index is not None:
            return True  # `cuda:{args.gpu}` beside `cuda:0`: a crash whenever the index chosen is another GPU
        return a.index is not None and b.index is not None and a.index != b.index
    kinds = {a.kind, b.kind}
    if kinds == {"cuda", "selected"}:
        return False  # selected is cuda wherever cuda works at all
    return True


def join_device(a: Optional[Device], b: Optional[Device], availability_split: bool = False) -> Optional[Device]:
    """The device a value has after two paths meet."""
    if a is None or b is None:
        return None
    if a.same_place(b):
        return a if a.implicit and b.implicit else replace(a, implicit=False)
    if {a.kind, b.kind} <= {"cuda", "selected"}:
        return SELECTED if "selected" in (a.kind, b.kind) else cuda(None)
    kinds = {a.kind, b.kind}
    if availability_split and kinds & ACCELERATORS:
        # `x.cuda() if torch.cuda.is_available() else x`: the selected-device idiom
        return SELECTED
    if "selected" in kinds and a.concrete and b.concrete and "cpu" not in kinds:
        return SELECTED  # mps on one path, the selected device on the other
    return None


def on_cpu(device: Optional[Device]) -> bool:
    return device is not None and device.kind == "cpu"


def join_choice(a: Optional[Device], b: Optional[Device], availability_split: bool = False) -> Optional[Device]:
    """The device a device *variable* holds after two paths meet: a choice between two devices
    (`"mps"` on one path, `"cpu"` on the other) is the device the script selects at run time."""
    where = join_device(a, b, availability_split)
    if where is None and a is not None and b is not None and a.concrete and b.concrete:
        return SELECTED
    return where


def parse_device_string(text: str) -> Optional[Device]:
    text = text.strip()
    kind, _, index = text.partition(":")
    if kind == "cuda":
        return cuda(int(index)) if index.isdigit() else cuda(None)
    if kind in ("cpu", "mps", "xpu", "meta", "hpu", "npu", "xla"):
        return Device(kind)
    return None


def cuda_and_cpu_types(a: str, b: str) -> bool:
    """`torch.cuda.FloatTensor` and `torch.FloatTensor` (in either order)."""
    cuda_type, cpu_type = (a, b) if a.startswith("torch.cuda.") else (b, a)
    return cuda_type.startswith("torch.cuda.") and cuda_type.endswith("Tensor") \
        and cpu_type == "torch." + cuda_type[len("torch.cuda."):]
