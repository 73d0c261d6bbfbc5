#!/usr/bin/python3
"""Where a distributed step goes, for N workers (issue 30, parts 1 and 3).

Trains LeNet on Fashion-MNIST at batch 64 per worker for one epoch of --limit images per worker
with `braid train --profile`: once as a plain process (no kvstore), then as each of N workers of
`braid launch -n N -s S` with dist_sync. `braid profile steps` splits every worker's trace into
compute, waiting for the kvstore and waiting for data, and the kvstore's exchanges into wire and
queues, the servers' work and their wait for the other workers (the round's skew). With
--kvstore horovod the workers are MPI ranks (no servers): the exchanges are allreduces. The table
shows the workers' means, their samples/s from the JSON logs, and the weak-scaling efficiency
against one worker. Every process runs one OpenMP thread unless OMP_NUM_THREADS says otherwise.

Usage: /usr/bin/python3 bench/ps_step_breakdown.py --braid build/bin/braid --workers 1,2,4 [--servers 2]
           [--kvstore dist_sync|dist_async|horovod]
"""
import argparse
import json
import os
import re
import subprocess
import tempfile

ROW = re.compile(r"^  (operators running|waiting for the kvstore|waiting for data)[^0-9]*([0-9.]+) ms", re.M)
STEP = re.compile(r": (\d+) steps, ([0-9.]+) ms per step")
EXCHANGE = re.compile(r"^  kvstore (\w+): ([0-9.]+) per step, [0-9.]+ KB per step, ([0-9.]+) ms in flight per step "
                      r"\(summed over keys\)(?:: wire and queues ([0-9.]+), server work ([0-9.]+), server waiting for "
                      r"other workers ([0-9.]+))?", re.M)  # a collective's line has no servers' part


def breakdown(braid, traces):
    """The mean over `traces` of each figure of `braid profile steps`."""
    out = subprocess.run([braid, "profile", "steps"] + traces, check=True, capture_output=True, text=True).stdout
    figures = {}
    for part in re.split(r"\n(?=\S)", out.strip()):
        step = STEP.search(part)
        rows = dict(ROW.findall(part))
        one = {"step": float(step.group(2)), "compute": float(rows["operators running"]),
               "kvstore": float(rows["waiting for the kvstore"]), "data": float(rows["waiting for data"])}
        for kind, count, flight, wire, work, wait in EXCHANGE.findall(part):  # summed over kinds
            for k, v in (("flight", flight), ("wire", wire or flight), ("work", work or 0), ("skew", wait or 0)):
                one[k] = one.get(k, 0) + float(v)
        for k, v in one.items():
            figures[k] = figures.get(k, 0) + v / len(traces)
    return figures


def run(braid, workers, servers, limit, tmp, kvstore):
    trace, log = os.path.join(tmp, f"trace{workers}.json"), os.path.join(tmp, f"log{workers}.json")
    train = [braid, "train", "--model", "lenet", "--epochs", "1", "--batch-size", "64", "--limit",
             str(limit * max(workers, 1)), "--test-limit", "100", "--profile", trace, "--json-log", log]
    if workers and kvstore == "horovod":  # MPI ranks through braid launch's MPI launcher
        train = [braid, "launch", "--launcher", "mpi", "-n", str(workers), "-s", "0", "--"] + train + [
            "--kvstore", "horovod"]
    elif workers:
        train = [braid, "launch", "-n", str(workers), "-s", str(servers), "--"] + train + ["--kvstore", kvstore]
    env = dict(os.environ, OMP_NUM_THREADS=os.environ.get("OMP_NUM_THREADS", "1"))  # one thread per process
    subprocess.run(train, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    traces = [trace] + [f"{trace}.worker{r}" for r in range(1, workers)]
    logs = [log] + [f"{log}.worker{r}" for r in range(1, workers)]
    rates = [[json.loads(line) for line in open(f) if line.strip()][0]["samples_per_sec"] for f in logs]
    figures = breakdown(braid, traces)
    figures["rate"] = sum(rates) / len(rates)
    return figures


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--braid", default="build/bin/braid")
    ap.add_argument("--workers", default="1,2,4", help="comma-separated worker counts")
    ap.add_argument("--servers", type=int, default=2)
    ap.add_argument("--kvstore", default="dist_sync", help="dist_sync, dist_async or horovod (MPI ranks, no servers)")
    ap.add_argument("--limit", type=int, default=6400, help="training images per worker")
    args = ap.parse_args()
    braid = os.path.abspath(args.braid)
    with tempfile.TemporaryDirectory() as tmp:
        rows = [("local", run(braid, 0, 0, args.limit, tmp, args.kvstore))]
        rows += [(str(n), run(braid, n, args.servers, args.limit, tmp, args.kvstore))
                 for n in map(int, args.workers.split(","))]
    one = next((f["rate"] for name, f in rows if name == "1"), None)
    store = "horovod" if args.kvstore == "horovod" else f"{args.kvstore} with {args.servers} servers"
    print(f"LeNet, batch 64 per worker, {args.limit} images per worker, {store}; ms per step, workers' mean")
    print("| workers | step | compute | waiting for kvstore | waiting for data | exchanges in flight (sum) | wire "
          "and queues | server work | server wait (skew) | samples/s per worker | efficiency |")
    print("|---" * 11 + "|")
    for name, f in rows:
        eff = f"{f['rate'] / one:.2f}" if one and name != "local" else ""
        print(f"| {name} | {f['step']:.2f} | {f['compute']:.2f} | {f['kvstore']:.2f} | {f['data']:.2f} | "
              f"{f.get('flight', 0):.2f} | {f.get('wire', 0):.2f} | {f.get('work', 0):.2f} | {f.get('skew', 0):.2f} | "
              f"{f['rate']:.0f} | {eff} |")


if __name__ == "__main__":
    main()
