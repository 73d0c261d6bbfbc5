#!/usr/bin/python3
"""How long a parameter-server job takes to initialise a model's keys: `kv.init(keys, values)`
of --keys keys (161 by default, ResNet-50's parameter count) of --size floats each, under
`braid launch -n N -s 1`, for each N of --workers. Worker 0 sends every value, then all workers
meet at one barrier for the list; each worker prints its time, and the slowest is reported.

Usage: /usr/bin/python3 bench/kvstore_init.py --braid build/bin/braid [--workers 2,4] [--keys 161]
"""
import argparse
import re

import ps_job

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
    print("workers  init of %d keys (ms, slowest worker)" % args.keys)
    for n in [int(w) for w in args.workers.split(",")]:
        out = ps_job.launch(args.braid, n, WORKER.format(keys=args.keys, size=args.size), timeout=300)
        times = [float(t) for t in re.findall(r"init_ms ([0-9.]+)", out)]
        assert len(times) == n, out
        print("%7d  %.1f" % (n, max(times)))

if __name__ == "__main__":
    main()
