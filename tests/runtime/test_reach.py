"""Every way code reaches a tensor without a torch function call keeps its simulated device.

`.data`, `.grad`, `.T`, optimizer state, state dicts, `nn.Parameter`, `torch.nn.utils`,
in-place ops and `out=`, gradients made by autograd (hooks, custom backward functions,
`torch.autograd.grad`), `no_grad` and `inference_mode`: each is a real idiom that a
simulated GPU must not turn into a false alarm.
"""

from __future__ import annotations

import copy

import pytest

torch = pytest.importorskip("torch")
from torch import nn  # noqa: E402

from devlint.runtime import DeviceMismatchError, check  # noqa: E402

CUDA = torch.device("cuda", 0)


def simulated(function):
    """Run `function` on a simulated GPU; its result, and whether the checker stayed quiet."""
    with check(simulate_gpu=True) as report:
        result = function()
    assert report.clean, report.problems
    return result


def trained_linear():
    model = nn.Linear(4, 2).to("cuda")
    model(torch.randn(3, 4, device="cuda")).sum().backward()
    return model


def test_manual_sgd_through_data():
    """The word-language-model idiom: `p.data.add_(p.grad, alpha=-lr)`."""
    def sgd():
        model = trained_linear()
        for p in model.parameters():
            p.data.add_(p.grad, alpha=-0.1)
        return model.weight.data.device, model.weight.grad.device

    assert simulated(sgd) == (CUDA, CUDA)


def test_aliases_made_in_cpp_keep_the_device():
    def aliases():
        w = trained_linear().weight
        return {w.data.device, w.T.device, w.mT.device, w.detach().device, w[0].device, w.view(-1).device,
                w.unbind(0)[0].device, w.chunk(2)[1].device, w.real.device}

    assert simulated(aliases) == {CUDA}


def test_deepcopy_and_clone_keep_the_device():
    def copies():
        model = trained_linear()
        twin = copy.deepcopy(model)
        x = torch.randn(2, 4, device="cuda")
        return {twin.weight.device, copy.deepcopy(x).device, x.clone().device, twin(x).device}

    assert simulated(copies) == {CUDA}


def test_optimizer_state_and_state_dicts():
    def state():
        model = trained_linear()
        optimizer = torch.optim.Adam(model.parameters())
        optimizer.step()
        saved = optimizer.state_dict()
        optimizer.load_state_dict(saved)
        weights = model.state_dict()
        on_gpu, on_cpu = nn.Linear(4, 2).to("cuda"), nn.Linear(4, 2)
        on_gpu.load_state_dict(weights)
        on_cpu.load_state_dict(weights)  # copy_ into a cpu module: its parameters stay on the cpu
        return (optimizer.state[model.weight]["exp_avg"].device, weights["weight"].device,
                on_gpu.weight.device, on_cpu.weight.device)

    assert simulated(state) == (CUDA, CUDA, CUDA, torch.device("cpu"))


def test_nn_utils_and_parameters():
    def utils():
        model = trained_linear()
        norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        vector = torch.nn.utils.parameters_to_vector(model.parameters())
        torch.nn.utils.vector_to_parameters(vector * 2, model.parameters())
        param = nn.Parameter(torch.ones(2, device="cuda"))
        model.register_buffer("scale", torch.ones(2, device="cuda"))
        return {norm.device, vector.device, model.weight.device, param.device, model.scale.device,
                (model.weight + vector[:8].view(2, 4)).device}

    assert simulated(utils) == {CUDA}


def test_in_place_and_out_arguments():
    def in_place():
        a = torch.ones(3, device="cuda")
        out = torch.empty(3, device="cuda")
        torch.add(a, a, out=out)
        a.mul_(2).add_(out)
        cpu = torch.zeros(3)
        cpu.copy_(a)  # crosses devices by design; the destination stays where it is
        return a.device, out.device, cpu.device

    assert simulated(in_place) == (CUDA, CUDA, torch.device("cpu"))


def test_gradients_made_by_autograd():
    class Square(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x, w):
            ctx.save_for_backward(x, w)
            return x * x * w

        @staticmethod
        def backward(ctx, grad):
            x, w = ctx.saved_tensors
            return grad * 2 * x * w, None  # a gradient made in C++ meets a GPU tensor

    def gradients():
        x = torch.ones(3, device="cuda", requires_grad=True)
        mask = torch.ones(3, device="cuda")
        saved = []
        x.register_hook(lambda g: saved.append(g) or g * mask)
        Square.apply(x, mask).sum().backward()
        g, = torch.autograd.grad((x * mask).sum(), [x], create_graph=True)
        return {x.grad.device, g.device, (g * mask).device, (saved[0] * mask).device}

    assert simulated(gradients) == {CUDA}


def test_module_backward_hook_keeps_gradients_for_later():
    """The Grad-CAM idiom: a backward hook saves a gradient that later meets GPU activations."""
    def grad_cam():
        conv = nn.Conv2d(1, 2, 3).to("cuda")
        saved = {}
        conv.register_full_backward_hook(lambda module, grad_in, grad_out: saved.update(grad=grad_out[0]))
        activations = conv(torch.randn(1, 1, 5, 5, device="cuda"))
        activations.sum().backward()
        weights = saved["grad"].mean(dim=(2, 3), keepdim=True)
        return (weights * activations).device

    assert simulated(grad_cam) == CUDA


def test_no_grad_and_inference_mode():
    def modes():
        with torch.no_grad():
            a = torch.ones(2, device="cuda") * 2
        with torch.inference_mode():
            b = torch.ones(2, device="cuda") * 2
        return {a.device, b.device, (a + b).device}

    assert simulated(modes) == {CUDA}


def test_a_gradient_assigned_from_another_device_is_caught():
    with pytest.raises(DeviceMismatchError):
        with check(simulate_gpu=True):
            model = trained_linear()
            model.weight.grad = torch.zeros(2, 4)
