#!/usr/bin/python3
"""Braid vs PyTorch, forward + backward of LeNet's layers (batch 64, float32) and of 1-D, 3-D,
depthwise and transposed convolutions, same thread count.

Runs the Braid benchmark binary (bench/ops_bench.cc) with OMP_NUM_THREADS set, times the same ops
in PyTorch with torch.set_num_threads, and prints per-op times and the Braid/PyTorch ratio.
The two are measured in alternating rounds of short repetitions, and the table shows the best
repetition of each (the least disturbed by other load) and the ratio of the medians.
Usage: /usr/bin/python3 bench/ops_vs_torch.py --braid build/bin/ops_bench [--threads N]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

from repetitions import time_repetitions

# name -> (inputs' shapes, PyTorch function of the inputs); names match bench/ops_bench.cc.
CASES = {
    "conv1": ([(64, 1, 28, 28), (20, 1, 5, 5), (20,)], lambda F, a: F.conv2d(a[0], a[1], a[2])),
    "pool1": ([(64, 20, 24, 24)], lambda F, a: F.max_pool2d(a[0], 2, 2)),
    "conv2": ([(64, 20, 12, 12), (50, 20, 5, 5), (50,)], lambda F, a: F.conv2d(a[0], a[1], a[2])),
    "pool2": ([(64, 50, 8, 8)], lambda F, a: F.max_pool2d(a[0], 2, 2)),
    "fc1": ([(64, 800), (128, 800), (128,)], lambda F, a: F.linear(a[0], a[1], a[2])),
    "fc2": ([(64, 128), (10, 128), (10,)], lambda F, a: F.linear(a[0], a[1], a[2])),
    "conv1d": ([(64, 16, 128), (32, 16, 5), (32,)], lambda F, a: F.conv1d(a[0], a[1], a[2])),
    "conv3d": ([(8, 4, 16, 16, 16), (8, 4, 3, 3, 3), (8,)], lambda F, a: F.conv3d(a[0], a[1], a[2])),
    "depthwise": ([(64, 32, 28, 28), (32, 1, 3, 3), (32,)],
                  lambda F, a: F.conv2d(a[0], a[1], a[2], padding=1, groups=32)),
    "deconv": ([(64, 20, 12, 12), (20, 10, 5, 5)], lambda F, a: F.conv_transpose2d(a[0], a[1])),
}
LABELS = {
    "conv1": "Convolution 1->20 5x5 on 28x28",
    "pool1": "Pooling max 2x2/2 on 20x24x24",
    "conv2": "Convolution 20->50 5x5 on 12x12",
    "pool2": "Pooling max 2x2/2 on 50x8x8",
    "fc1": "FullyConnected 800->128",
    "fc2": "FullyConnected 128->10",
    "conv1d": "Convolution 1-D 16->32 k5 on 128",
    "conv3d": "Convolution 3-D 4->8 3^3 on 16^3 (N=8)",
    "depthwise": "Depthwise 3x3 32 ch on 28x28",
    "deconv": "Deconvolution 20->10 5x5 on 12x12",
}


def braid_times(binary, threads, repetitions, min_time):
    """Seconds per iteration of each repetition, in microseconds, by op name."""
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OPENBLAS_NUM_THREADS=str(threads))
    out = subprocess.run(
        [binary, "--benchmark_format=json", f"--benchmark_repetitions={repetitions}",
         f"--benchmark_min_time={min_time}"],
        env=env, check=True, capture_output=True, text=True).stdout
    runs = {}
    for b in json.loads(out)["benchmarks"]:
        if b.get("run_type", "iteration") != "iteration":
            continue
        name = b["run_name"].split("/")[0]
        scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b["time_unit"]]
        runs.setdefault(name, []).append(b["real_time"] * scale)
    return runs


def torch_times(threads, repetitions, min_time):
    """Like braid_times, for PyTorch in this process."""
    import torch
    import torch.nn.functional as F
    torch.set_num_threads(threads)
    torch.manual_seed(0)
    result = {}
    for name, (shapes, fn) in CASES.items():
        a = [(torch.rand(s) * 2 - 1).requires_grad_() for s in shapes]
        dy = torch.rand(fn(F, a).shape) * 2 - 1

        def step():
            fn(F, a).backward(dy)

        def clear_grads():
            for t in a:
                t.grad = None

        per_rep = time_repetitions(step, repetitions, min_time, warmup=3, after_each=clear_grads)
        result[name] = per_rep
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--braid", required=True, help="path of the ops_bench binary")
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="threads for both (default: all cores)")
    ap.add_argument("--rounds", type=int, default=4, help="alternating Braid / PyTorch rounds")
    ap.add_argument("--repetitions", type=int, default=5, help="repetitions per round")
    ap.add_argument("--min-time", type=float, default=0.1, help="seconds per repetition")
    ap.add_argument("--omp-wait-policy", choices=["active", "passive"],
                    help="OMP_WAIT_POLICY for both (default: the OpenMP runtime's); 'passive' "
                         "suits a machine shared with other busy processes")
    args = ap.parse_args()
    # Set before torch is imported: the OpenMP runtime reads its environment when it loads.
    os.environ["OMP_NUM_THREADS"] = str(args.threads)
    if args.omp_wait_policy:
        os.environ["OMP_WAIT_POLICY"] = args.omp_wait_policy.upper()

    braid, torch = {}, {}
    for _ in range(args.rounds):
        for times, more in ((braid, braid_times(args.braid, args.threads, args.repetitions, args.min_time)),
                            (torch, torch_times(args.threads, args.repetitions, args.min_time))):
            for name, t in more.items():
                times.setdefault(name, []).extend(t)
    n = args.rounds * args.repetitions
    policy = args.omp_wait_policy or "default"
    print(f"forward + backward, float32, {args.threads} threads, OMP_WAIT_POLICY {policy}, "
          f"{n} repetitions each")
    print(f"{'op':40} {'Braid us':>10} {'PyTorch us':>11} {'ratio':>7} {'ratio of medians':>17}")
    worst = 0.0
    for name in CASES:
        b, t = min(braid[name]), min(torch[name])
        ratio = b / t
        worst = max(worst, ratio)
        med = statistics.median(braid[name]) / statistics.median(torch[name])
        print(f"{LABELS[name]:40} {b:10.1f} {t:11.1f} {ratio:7.2f} {med:17.2f}")
    print(f"worst ratio {worst:.2f} (target <= 1.2; times are the best repetition)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
