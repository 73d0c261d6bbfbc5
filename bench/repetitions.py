"""Timing shared by the Python benchmarks: a step repeated in short repetitions."""
import time


def time_repetitions(step, repetitions, min_time, warmup=2, after_each=None):
    """Microseconds per call of `step` in each of `repetitions` repetitions, each lasting about
    `min_time` seconds (after `warmup` calls); `after_each` runs between repetitions."""
    for _ in range(warmup):
        step()
    t0 = time.perf_counter()
    step()
    iters = max(1, int(min_time / max(time.perf_counter() - t0, 1e-7)))
    per_rep = []
    for _ in range(repetitions):
        t0 = time.perf_counter()
        for _ in range(iters):
            step()
        per_rep.append((time.perf_counter() - t0) / iters * 1e6)
        if after_each:
            after_each()
    return per_rep
