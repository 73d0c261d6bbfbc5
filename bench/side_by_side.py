"""The driver shared by the Braid-vs-PyTorch operator benchmarks: each side measures every case
in a process of its own (both load OpenBLAS and an OpenMP runtime), in alternating rounds, and
the table shows each case's best repetition and the Braid/PyTorch ratio."""
import argparse
import json
import os
import subprocess
import sys


def run(script, doc, labels, measure, target=1.2, what="forward + backward, float32"):
    """`labels`: case name -> table label; `measure(side, threads, repetitions, min_time)` gives
    microseconds per step of each repetition, by case name. `script` is the benchmark's file: it
    is run again as the child of each side."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="threads for both (default: all cores)")
    ap.add_argument("--rounds", type=int, default=3, help="alternating Braid / PyTorch rounds")
    ap.add_argument("--repetitions", type=int, default=3, help="repetitions per round")
    ap.add_argument("--min-time", type=float, default=0.2, help="seconds per repetition")
    ap.add_argument("--side", choices=["braid", "torch"], help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.side:
        print(json.dumps(measure(args.side, args.threads, args.repetitions, args.min_time)))
        return 0
    env = dict(os.environ, OMP_NUM_THREADS=str(args.threads))
    times = {"braid": {}, "torch": {}}
    for _ in range(args.rounds):
        for side in times:
            out = subprocess.run([sys.executable, script, "--side", side, f"--threads={args.threads}",
                                  f"--repetitions={args.repetitions}", f"--min-time={args.min_time}"],
                                 env=env, check=True, capture_output=True, text=True).stdout
            for name, t in json.loads(out).items():
                times[side].setdefault(name, []).extend(t)
    print(f"{what}, {args.threads} threads, best of {args.rounds * args.repetitions}")
    width = max(len(label) for label in labels.values()) + 2
    print(f"{'op':{width}} {'Braid us':>10} {'PyTorch us':>11} {'ratio':>7}")
    worst = 0.0
    for name, label in labels.items():
        b, t = min(times["braid"][name]), min(times["torch"][name])
        worst = max(worst, b / t)
        print(f"{label:{width}} {b:10.0f} {t:11.0f} {b / t:7.2f}")
    print(f"worst ratio {worst:.2f} (target <= {target})")
    return 0
