#!/usr/bin/python3
"""One exchange of a model's gradients through the parameter server, key by key against one list
pushpull (which sends each run of adjacent small keys as one batch per server), in one run:
ResNet-50 v1's 193 gradients (sizes divided by --scale), SGD on the servers, `braid launch
-n N -s 1`, one thread per process. Every worker alternates the two ways step by step and prints
their median step times; the slowest worker's are reported.

Usage: /usr/bin/python3 bench/ps_fusion.py --braid build/bin/braid [--workers 1,2,4] [--scale 16]
"""
import argparse
import re

import ps_job

WORKER = """
import statistics
import time
import mxnet as mx
net = mx.gluon.model_zoo.vision.resnet50_v1()
net.initialize()
net(mx.nd.zeros((1, 3, 32, 32)))
sizes = [max(1, p.data().size // {scale}) for p in net.collect_params().values() if p.grad_req != "null"]
kv = mx.kv.create("dist_sync")
keys = list(range(len(sizes)))
weights = [mx.nd.zeros((n,)) for n in sizes]
grads = [mx.nd.ones((n,)) for n in sizes]
kv.init(keys, weights)
kv.set_optimizer(mx.optimizer.create("sgd", learning_rate=0.001))
times = {{"key by key": [], "one list": []}}
for step in range({steps} + 2):
    for way in times:
        start = time.perf_counter()
        if way == "key by key":
            for k in reversed(keys):
                kv.pushpull(k, grads[k], out=weights[k], priority=-k)
        else:
            kv.pushpull(keys, grads, out=weights)
        mx.nd.waitall()
        if step >= 2:
            times[way].append((time.perf_counter() - start) * 1e3)
print("keys %d floats %d" % (len(sizes), sum(sizes)))
for way, t in times.items():
    print("%s_ms %.3f" % (way.replace(" ", "_"), statistics.median(t)))
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--braid", required=True)
    parser.add_argument("--workers", default="1,2,4")
    parser.add_argument("--scale", type=int, default=16)
    parser.add_argument("--steps", type=int, default=20)
    args = parser.parse_args()
    print("workers  key by key (ms)  one list (ms)  speed-up   (median step, slowest worker)")
    for n in [int(w) for w in args.workers.split(",")]:
        out = ps_job.launch(args.braid, n, WORKER.format(scale=args.scale, steps=args.steps))
        per_key = [float(t) for t in re.findall(r"key_by_key_ms ([0-9.]+)", out)]
        fused = [float(t) for t in re.findall(r"one_list_ms ([0-9.]+)", out)]
        assert len(per_key) == n and len(fused) == n, out
        print("%7d  %15.2f  %13.2f  %8.2f" % (n, max(per_key), max(fused), max(per_key) / max(fused)))
    print(re.search(r"keys \d+ floats \d+", out).group(0))

if __name__ == "__main__":
    main()
