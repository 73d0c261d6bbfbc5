#!/usr/bin/python3
"""How long a parameter-server job takes to initialise a model's keys: `kv.init(keys, values)`
of --keys keys (161 by default, ResNet-50's parameter count) of --size floats each, under
`braid launch -n N -s 1`, for each N of --workers. Worker 0 sends every value, then all workers
meet at one barrier for the list; each worker prints its time, and the slowest is reported.

Usage: /usr/bin/python3 bench/kvstore_init.py --braid build/bin/braid [--workers 2,4] [--keys 161]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

WORKER = """
import time
import mxnet as mx
kv = mx.kv.create("dist_sync")
values = [mx.nd.ones(({size},)) for _ in range({keys})]
kv.barrier()
start = time.perf_counter()
kv.init(list(range({keys})), values)
kv.barrier()
print("init_ms %.2f" % ((time.perf_counter() - start) * 1e3))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--braid", required=True)
    parser.add_argument("--workers", default="2,4")
    parser.add_argument("--keys", type=int, default=161)
    parser.add_argument("--size", type=int, default=64)
    args = parser.parse_args()
    python_dir = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(args.braid))), "python")
    env = dict(os.environ, PYTHONPATH=python_dir, OMP_NUM_THREADS="1")
    with tempfile.TemporaryDirectory() as tmp:
        script = os.path.join(tmp, "init_worker.py")
        with open(script, "w") as f:
            f.write(WORKER.format(keys=args.keys, size=args.size))
        print("workers  init of %d keys (ms, slowest worker)" % args.keys)
        for n in [int(w) for w in args.workers.split(",")]:
            out = subprocess.run([args.braid, "launch", "-n", str(n), "-s", "1", "--", sys.executable, script],
                                 env=env, capture_output=True, text=True, timeout=300, check=True).stdout
            times = [float(t) for t in re.findall(r"init_ms ([0-9.]+)", out)]
            assert len(times) == n, out
            print("%7d  %.1f" % (n, max(times)))


if __name__ == "__main__":
    main()
