"""What a file shows of the machine it runs on, found by reading public code devlint had not seen (survey 4:
NVIDIA/apex, huggingface/trl's notebooks, fairseq's examples), and what a private method of a tensor gives.

- A compiled CUDA extension (`import fused_adam_cuda`, apex's `amp_C`, `from . import fused_dense_cuda`) is
  imported only where CUDA is: what follows runs with a GPU, as after `import triton`
  (apex/contrib/optimizers/distributed_fused_adam.py had 8 DEV201/DEV203 warnings of this kind).
- `try: import <that> / except ImportError: SKIP_TEST = e` sets a flag that says whether it imported:
  `@unittest.skipIf(SKIP_TEST)` runs the class with CUDA only (apex/contrib/test/transducer/...).
- An extension built when the code runs from CUDA sources (`cpp_extension.load(sources=["f.cu", ...])`), imported
  from the module that builds it, or one its package's own setup.py builds with `CUDAExtension` alone, is a CUDA
  build too (torch-ngp's encoders, survey 69).
- A model quantized by bitsandbytes (`load_in_4bit=True`) runs on a CUDA GPU (trl's QLoRA notebooks).
- `getattr(args, "gpu", False)` is `args.gpu`, the user's `--gpu` option: a switch the user sets, which the
  GPU rules take as a guard (fairseq's simultaneous translation agent).
- A private method of a tensor (`storage()._share_cuda_()`) is torch's internals: its result is no tensor on
  the receiver's device (apex/contrib/groupbn/batch_norm.py: a tuple of host handles given to numpy).

Each case's `# expect:` markers are exactly what devlint must report (none: it must stay silent)."""

from __future__ import annotations

import textwrap

import pytest

from tests.conftest import expected_findings
from tests.lint_helpers import found

# a file that means to run without a GPU too (a device chosen at run time), with CUDA stream bookkeeping
STREAMS = """
class Fused:
    def __init__(self, params, device=None):
        self.device = torch.device(device) if device is not None else params[0].device
        self.bufs = [torch.zeros(p.numel(), device=self.device) for p in params]

    def step(self):
        main = torch.cuda.current_stream(){mark}
        main.synchronize()
"""

TEST_CLASS = """
@unittest.{decorator}
class JointTest(unittest.TestCase):
    def test_joint(self):
        device = "cuda"{mark}
        a = torch.randn(4, 8, device=device)
        torch.testing.assert_close(a + a, 2 * a)
"""

QUANTIZED = """
import torch
from transformers import AutoModelForCausalLM, BitsAndBytesConfig
config = BitsAndBytesConfig(load_in_4bit={flag}, bnb_4bit_compute_dtype=torch.float16)
model = AutoModelForCausalLM.from_pretrained("org/model", quantization_config=config, device_map="auto")
stats = torch.cuda.get_device_properties(0){mark}
inputs = torch.ones(1, 4, dtype=torch.long).to(model.device)
"""

AGENT = """
import argparse
import torch
class Agent:
    def __init__(self, args):
        self.gpu = {flag}
    def to_device(self, tensor):
        if self.gpu:
            return tensor.cuda(){mark}
        return tensor.cpu()
if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--gpu", action="store_true")
    print(Agent(parser.parse_args()).to_device(torch.randn(1, 4)))
"""

STORAGE = """
import numpy as np
import torch
device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
buf = torch.zeros(64, dtype=torch.uint8, device=device)
handle = buf.{call}
raw = np.asarray(handle[1]){mark}
"""

EXPECT_203 = "  # expect: DEV203"
EXPECT_201 = "  # expect: DEV201"
EXPECT_401 = "  # expect: DEV401"

CASES = {
    "a_compiled_cuda_extension_runs_with_a_gpu": "import torch\nimport fused_adam_cuda\n"
    + STREAMS.format(mark=""),
    "a_compiled_cuda_extension_imported_from_runs_with_a_gpu": "import torch\nfrom fused_ops_cuda import adam\n"
    + STREAMS.format(mark=""),
    "apex_amp_C_runs_with_a_gpu": "import torch\nimport amp_C\n" + STREAMS.format(mark=""),
    "twin_a_module_of_no_cuda_name": "import torch\nimport fused_adam\n" + STREAMS.format(mark=EXPECT_203),
    "twin_a_helper_named_for_cuda_is_no_extension": "import torch\nfrom utils import move_to_cuda\n"
    + STREAMS.format(mark=EXPECT_203),
    "twin_a_packages_own_C_may_have_cpu_kernels": "import torch\nfrom detectron import _C\n"
    + STREAMS.format(mark=EXPECT_203),
    "a_test_class_skipped_when_the_extension_does_not_import": """
import unittest
import torch
SKIP_TEST = None
try:
    from fused_kernels_cuda import fused_joint
except ImportError as e:
    SKIP_TEST = e
""" + TEST_CLASS.format(decorator='skipIf(SKIP_TEST, f"{SKIP_TEST}")', mark=""),
    "a_test_class_run_when_the_extension_imports": """
import unittest
import torch
try:
    import transducer_joint_cuda
    HAS_EXT = True
except (ImportError, OSError):
    HAS_EXT = False
""" + TEST_CLASS.format(decorator='skipUnless(HAS_EXT, "needs the extension")', mark=""),
    "twin_the_flag_of_an_import_that_needs_no_gpu": """
import unittest
import torch
SKIP_TEST = None
try:
    from fused_kernels import fused_joint
except ImportError as e:
    SKIP_TEST = e
""" + TEST_CLASS.format(decorator='skipIf(SKIP_TEST, f"{SKIP_TEST}")', mark=EXPECT_201),
    "twin_a_flag_set_by_another_error": """
import unittest
import torch
SKIP_TEST = None
try:
    from fused_kernels_cuda import fused_joint
except KeyError as e:
    SKIP_TEST = e
""" + TEST_CLASS.format(decorator='skipIf(SKIP_TEST, f"{SKIP_TEST}")', mark=EXPECT_201),
    # huggingface/nanotron tests/fp8/test_tensor.py: Transformer Engine's FP8 layers are CUDA only
    "a_test_file_that_imports_transformer_engine_runs_with_a_gpu": """
import torch
import transformer_engine as te
""" + STREAMS.format(mark=""),
    "twin_a_library_that_runs_anywhere": """
import torch
import transformers as te
""" + STREAMS.format(mark=EXPECT_203),
    "a_model_quantized_to_4_bits_runs_on_a_gpu": QUANTIZED.format(flag="True", mark=""),
    "twin_a_model_not_quantized": QUANTIZED.format(flag="False", mark=EXPECT_203),
    "a_model_loaded_in_8_bits_runs_on_a_gpu": QUANTIZED.replace("quantization_config=config", "load_in_8bit=True")
    .format(flag="False", mark=""),
    "getattr_of_a_user_option_is_the_option": AGENT.format(flag='getattr(args, "gpu", False)', mark=""),
    "twin_a_constant_switch_is_no_users_choice": AGENT.format(flag="True", mark=EXPECT_201),
    "a_private_method_of_a_tensor_gives_no_tensor": STORAGE.format(call="storage()._share_cuda_()", mark=""),
    "twin_a_public_method_computes_on_the_receiver": STORAGE.format(call="nan_to_num()", mark=EXPECT_401),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_case(name):
    source = CASES[name]
    assert found(source) == expected_findings(source)


def _write(root, files):
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


def test_a_compiled_extension_beside_the_packages_modules(tmp_path):
    """`from . import fused_dense_cuda` where the package has no such Python module (its `.so` is built by
    setup.py) runs with a GPU; a Python module of that name is read like any other and proves nothing."""
    from tests.lint_helpers import file_found as codes

    body = "import torch\nfrom . import fused_dense_cuda\n" + STREAMS.format(mark="")
    _write(tmp_path, {"pyproject.toml": "", "pkg/__init__.py": "", "pkg/dense.py": body,
                      "other/__init__.py": "", "other/fused_dense_cuda.py": "def run(x):\n    return x\n",
                      "other/dense.py": body})
    assert not {code for _, code in codes(tmp_path / "pkg" / "dense.py") if code.startswith("DEV2")}
    assert (10, "DEV203") in codes(tmp_path / "other" / "dense.py")


@pytest.mark.parametrize("module, compiled", [
    ("fused_adam_cuda", True), ("apex.contrib.xentropy_cuda", True), ("amp_C", True),
    ("torch._C", False), ("_C", False), ("detectron2._C", False), ("numba.cuda", False), ("cuda", False),
    ("_cuda", False), ("utils", False),
])
def test_what_names_a_compiled_cuda_extension(module, compiled):
    from devlint.core.torch_catalogue import views as api

    assert api.is_cuda_extension(module) is compiled


JIT_KERNEL = """
import os
import torch
from torch.autograd import Function
from torch.utils.cpp_extension import load

_src = os.path.dirname(os.path.abspath(__file__))
_backend = load(name="_freq", sources=[os.path.join(_src, "src", f) for f in [{sources}]])


class _FreqEncode(Function):
    @staticmethod
    def forward(ctx, inputs, degree):
        if not inputs.is_cuda:
            inputs = inputs.cuda(){mark}
        out = torch.empty(inputs.shape[0], degree * 2, dtype=inputs.dtype, device=inputs.device)
        _backend.freq_encode_forward(inputs.contiguous(), degree, out)
        return out
"""


@pytest.mark.parametrize("sources, mark", [
    ('"freq.cu", "bindings.cpp"', ""),  # built from CUDA sources: what follows has a GPU
    ('"freq.cpp"', "  # expect: DEV201"),  # a cpu build
])
def test_an_extension_built_from_cuda_sources_at_run_time_is_a_cuda_build(sources, mark):
    """torch-ngp's freqencoder: `_backend = load(name=..., sources=[... 'freqencoder.cu', 'bindings.cpp'])`, then
    an autograd Function that sends its input to the GPU for the kernel (survey 69, a false DEV201)."""
    source = JIT_KERNEL.format(sources=sources, mark=mark)
    assert found(source) == expected_findings(source)


@pytest.mark.parametrize("backend, setup, reported", [
    # the wrapper imports the kernel built by its neighbour module
    ("from torch.utils.cpp_extension import load\n_backend = load(name='_f', sources=['f.cu', 'b.cpp'])\n", "", False),
    ("from torch.utils.cpp_extension import load\n_backend = load(name='_f', sources=['f.cpp'])\n", "", True),
    # or its package's own setup.py builds it with CUDAExtension alone (the project's root has none)
    ("", "from torch.utils.cpp_extension import CUDAExtension\nsetup(ext_modules=[CUDAExtension('_f', ['f.cu'])])\n",
     False),
    ("", "from torch.utils.cpp_extension import CppExtension\nsetup(ext_modules=[CppExtension('_f', ['f.cpp'])])\n",
     True),
])
def test_a_package_whose_kernel_is_a_cuda_build_is_gpu_only(tmp_path, backend, setup, reported):
    """torch-ngp: `freqencoder/freq.py` imports `_backend` from `freqencoder/backend.py` (a run-time build of
    `freqencoder.cu`), and `freqencoder/setup.py` builds the same kernel with `CUDAExtension`."""
    from tests.lint_helpers import lint_in_run

    wrapper = JIT_KERNEL.split("_src = ")[0] + "from .backend import _backend\n" + JIT_KERNEL.split(
        "for f in [{sources}]])\n")[1].format(mark="")
    files = {"freqencoder/__init__.py": "", "freqencoder/freq.py": wrapper,
             "freqencoder/backend.py": backend or "_backend = None\n", "train.py": "import torch\n"}
    if setup:
        files["freqencoder/setup.py"] = setup
    findings = lint_in_run(tmp_path, files, "freqencoder/freq.py")
    assert any(f.code in ("DEV201", "DEV204") for f in findings) is reported
