#!/usr/bin/python3
"""Training on a busy machine, Braid vs PyTorch: each with the threads it chooses by itself.

Trains LeNet and the MLP of bench/train_vs_torch.py (batch 64, Fashion-MNIST) on an idle machine,
then with --busy processes spinning beside them (a list: one run per count) (started here and killed by PID), and reports
samples per second and the Braid/PyTorch ratio under each load: Braid should keep its ratio when
the machine gets busy (docs/performance.md, "Busy machines"). Neither side is given
OMP_NUM_THREADS; the column "Braid, N threads fixed" is Braid told OMP_NUM_THREADS=<cores>, as
without its choice. The median of --rounds alternating runs is kept (a busy machine is noisy).

Usage: /usr/bin/python3 bench/busy_machine.py --braid build/bin/train_bench [--busy 1,2]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CHOOSING = ("OMP_NUM_THREADS", "OMP_WAIT_POLICY", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BRAID_CPU_SHARE")


def measure(cmd, env):
    out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])


def start_spinners(count):
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]


def stop(processes):
    for p in processes:
        p.kill()
    for p in processes:
        p.wait()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--braid", required=True, help="path of build/bin/train_bench")
    ap.add_argument("--busy", default="1,2", help="spinning processes for the busy runs (comma-separated counts)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--batches", type=int, default=150)
    ap.add_argument("--models", default="lenet,mlp")
    args = ap.parse_args()
    env = {k: v for k, v in os.environ.items() if k not in CHOOSING}
    cores = len(os.sched_getaffinity(0))
    fixed_env = dict(env, OMP_NUM_THREADS=str(cores))
    loads = [0] + [int(n) for n in args.busy.split(",")]
    print(f"{cores} cores; busy runs beside {args.busy} spinning processes; batch 64, {args.batches} timed "
          f"batches, median of {args.rounds}")
    print(f"{'model':6} {'load':>5} {'Braid':>9} {'PyTorch':>9} {'ratio':>6} {'Braid, ' + str(cores) + ' threads fixed':>24}"
          f"  Braid's choice")
    for model in args.models.split(","):
        ratios = {}
        for busy in loads:
            spinners = start_spinners(busy)
            try:
                common = ["--warmup", "20", "--batches", str(args.batches)]
                sides = {
                    "braid": ([args.braid, "--model", model, "--batch", "64"] + common, env),
                    "fixed": ([args.braid, "--model", model, "--batch", "64"] + common, fixed_env),
                    "torch": ([sys.executable, os.path.join(HERE, "train_vs_torch.py"), "--torch-worker", model, "64",
                               "--threads", "0"] + common, env),
                }
                runs = {side: [] for side in sides}
                for _ in range(args.rounds):
                    for side, (cmd, side_env) in sides.items():
                        runs[side].append(measure(cmd, side_env))
            finally:
                stop(spinners)
            rate = {side: statistics.median(r["samples_per_sec"] for r in results) for side, results in runs.items()}
            ratios[busy] = rate["braid"] / rate["torch"]
            print(f"{model:6} {busy:>5} {rate['braid']:>9.0f} {rate['torch']:>9.0f} {ratios[busy]:>6.2f} "
                  f"{rate['fixed']:>24.0f}  {runs['braid'][-1].get('cpu_share', '')}", flush=True)
        for busy in loads[1:]:
            print(f"{model:6} ratio with {busy} busy / ratio idle: {ratios[busy] / ratios[0]:.2f}")


if __name__ == "__main__":
    main()
