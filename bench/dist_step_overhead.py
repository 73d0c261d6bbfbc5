#!/usr/bin/python3
"""A dist_sync LeNet step's overhead over a local step (issue 6).

Trains LeNet on Fashion-MNIST at batch 64 for one epoch over --limit images with `braid train`,
once as a plain process (no kvstore: the optimizer runs in place) and once as the only worker of
a parameter-server job (`braid launch -n 1 -s 1`, kvstore dist_sync: every step pushes the
gradients to the server, which runs the optimizer, and pulls the weights back). Both report
samples/s in their JSON log; the runs alternate and the best of --rounds is kept for each, so
that other load on the shared host hurts both alike.

Usage: /usr/bin/python3 bench/dist_step_overhead.py --braid build/bin/braid [--rounds 3]
"""
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_runs import arguments, lenet_command, samples_per_sec  # noqa: E402


def main():
    args = arguments(__doc__)
    train = lenet_command(args.braid, args.limit)
    braid = train[0]
    local, dist = [], []
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log.json")
        for _ in range(args.rounds):
            local.append(samples_per_sec(train + ["--json-log", log], log))
            dist.append(samples_per_sec([braid, "launch", "-n", "1", "-s", "1", "--"] + train +
                                        ["--kvstore", "dist_sync", "--json-log", log], log))
    a, b = max(local), max(dist)
    print(f"LeNet, batch 64, {args.limit} images, best of {args.rounds}")
    print(f"  local step     {64e3 / a:7.2f} ms  ({a:.0f} samples/s)")
    print(f"  dist_sync step {64e3 / b:7.2f} ms  ({b:.0f} samples/s)")
    print(f"  overhead       {64e3 / b - 64e3 / a:7.2f} ms per step ({100 * (a / b - 1):.1f}%)")


if __name__ == "__main__":
    main()
