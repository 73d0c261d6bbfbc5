"""Runs torch.optim on the cases of optimizer_torch_test.cc in float64: each case names a
torch.optim class and its keyword arguments; the result is the parameters after every step.

usage: torch_reference.py cases.json results.json
"""
import json
import sys

import torch


def run(case):
    params = [torch.tensor(w, dtype=torch.float64, requires_grad=True) for w in case["weights"]]
    spec = case["torch"]
    opt = getattr(torch.optim, spec["class"])(params, **spec["kwargs"])
    trajectory = []
    for step_grads in case["grads"]:
        for p, g in zip(params, step_grads):
            p.grad = torch.tensor(g, dtype=torch.float64)
        opt.step()
        trajectory.append([p.detach().numpy().tolist() for p in params])
    return trajectory


if __name__ == "__main__":
    with open(sys.argv[1]) as f:
        cases = json.load(f)
    with open(sys.argv[2], "w") as f:
        json.dump({c["name"]: run(c) for c in cases}, f)
