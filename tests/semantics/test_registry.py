"""semantics/registry.py: one handler per path, namespaces in order, methods by receiver kind."""

import pytest

from devlint.static.semantics import registry, tensors
from devlint.core.torch_catalogue import views as api


def test_every_table_entry_has_one_handler():
    with pytest.raises(ValueError):
        registry._merge({"torch.zeros": tensors.factory}, {"torch.zeros": tensors.like_factory})
    assert registry.FUNCTIONS["torch.zeros"] is tensors.factory
    for path in api.FACTORIES:
        assert registry.FUNCTIONS[path] is tensors.factory


def test_namespaces():
    def handler_for(path):
        return next((h for matches, h in registry.NAMESPACES if matches(path)), None)

    assert handler_for("torch.cuda.synchronize").__name__ == "cuda_api"
    assert handler_for("torch.cuda.manual_seed") is None  # safe without a GPU: an ordinary call
    assert handler_for("torch.nn.Linear").__name__ == "torch_module"
    assert handler_for("numpy.asarray").__name__ == "host_library"
    assert handler_for("torch.nn.functional.relu").__name__ == "torch_function"
    assert handler_for("torch.save") is None
