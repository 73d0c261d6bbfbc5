"""Runs torch.optim on the cases of optimizer_torch_test.cc in float64: each case names a
torch.optim class and its keyword arguments; the result is the parameters after every step.

usage: torch_reference.py cases.json results.json
"""
import torch

from reference_driver import main, trajectory


def run(case):
    params = [torch.tensor(w, dtype=torch.float64, requires_grad=True) for w in case["weights"]]
    spec = case["torch"]
    opt = getattr(torch.optim, spec["class"])(params, **spec["kwargs"])

    def step(grads):
        for p, g in zip(params, grads):
            p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        return [p.detach().numpy().tolist() for p in params]

    return trajectory(case, step)


if __name__ == "__main__":
    main(run)
