#!/usr/bin/python3
"""LeNet training with allreduce over MPI (issue 7): the coordination overhead per step and the
throughput of 2 ranks against 1.

Runs `braid train` (LeNet, Fashion-MNIST, batch 64 per rank, one epoch over --limit images):
  local     a plain process, no store;
  1 rank    `mpirun -np 1 braid train --kvstore horovod`: every step's gradients go through the
            collective backend (negotiation, fusion buffer, MPI_Allreduce on one rank), so the
            difference to `local` is the coordination and fusion overhead;
  2 ranks   `mpirun -np 2 ... --kvstore horovod`, one OpenMP thread each, each rank on its half:
            samples/s of both together.
The runs alternate and the best of --rounds is kept for each (the host is shared and noisy).

Usage: /usr/bin/python3 bench/allreduce_train.py --braid build/bin/braid [--rounds 3]
"""
import argparse
import json
import os
import subprocess
import tempfile


def run(cmd, log, ranks=1):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(log) as f:
        return [json.loads(line) for line in f if line.strip()][0]["samples_per_sec"] * ranks


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--braid", default="build/bin/braid")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--limit", type=int, default=12800)
    args = ap.parse_args()
    braid = os.path.abspath(args.braid)
    train = [braid, "train", "--model", "lenet", "--epochs", "1", "--batch-size", "64", "--limit", str(args.limit),
             "--test-limit", "100"]
    mpirun = ["mpirun", "--oversubscribe", "--bind-to", "none"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    local, one, two = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log.json")
        for _ in range(args.rounds):
            local.append(run(train + ["--json-log", log], log))
            one.append(run(mpirun + ["-np", "1"] + train + ["--kvstore", "horovod", "--json-log", log], log))
            two.append(run(mpirun + ["-np", "2", "-x", "OMP_NUM_THREADS=1"] + train +
                           ["--kvstore", "horovod", "--json-log", log], log, ranks=2))
    a, b, c = max(local), max(one), max(two)
    print(f"LeNet, batch 64 per rank, {args.limit} images, best of {args.rounds}")
    print(f"  local (no store)        {64e3 / a:7.2f} ms per step  ({a:.0f} samples/s)")
    print(f"  horovod, 1 rank         {64e3 / b:7.2f} ms per step  ({b:.0f} samples/s): "
          f"coordination + fusion {64e3 / b - 64e3 / a:+.2f} ms ({100 * (a / b - 1):+.1f}%)")
    print(f"  horovod, 2 ranks        {c:.0f} samples/s together: {c / a:.2f}x one process")


if __name__ == "__main__":
    main()
