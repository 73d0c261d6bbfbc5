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
import os
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_runs import arguments, lenet_command, samples_per_sec  # noqa: E402


def main():
    args = arguments(__doc__)
    train = lenet_command(args.braid, args.limit)
    mpirun = ["mpirun", "--oversubscribe", "--bind-to", "none"] + (["--allow-run-as-root"] if os.geteuid() == 0 else [])
    local, one, two = [], [], []
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "log.json")
        for _ in range(args.rounds):
            local.append(samples_per_sec(train + ["--json-log", log], log))
            one.append(samples_per_sec(mpirun + ["-np", "1"] + train + ["--kvstore", "horovod", "--json-log", log], log))
            two.append(samples_per_sec(mpirun + ["-np", "2", "-x", "OMP_NUM_THREADS=1"] + train +
                           ["--kvstore", "horovod", "--json-log", log], log, ranks=2))
    a, b, c = max(local), max(one), max(two)
    print(f"LeNet, batch 64 per rank, {args.limit} images, best of {args.rounds}")
    print(f"  local (no store)        {64e3 / a:7.2f} ms per step  ({a:.0f} samples/s)")
    print(f"  horovod, 1 rank         {64e3 / b:7.2f} ms per step  ({b:.0f} samples/s): "
          f"coordination + fusion {64e3 / b - 64e3 / a:+.2f} ms ({100 * (a / b - 1):+.1f}%)")
    print(f"  horovod, 2 ranks        {c:.0f} samples/s together: {c / a:.2f}x one process")


if __name__ == "__main__":
    main()
