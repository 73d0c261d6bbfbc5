"""An independent NumPy implementation of MXNet 1.x's optimizer update rules (the kernels of
src/operator/optimizer_op-inl.h as the Python optimizers call them, and the Python-side
bookkeeping of update counts, lr/wd multipliers and FactorScheduler), in float64, used as the
golden reference by optimizer_reference_test.cc. AdamW follows torch.optim.AdamW.

usage: mxnet_reference.py cases.json results.json
Each case: optimizer, params (MXNet spellings, as strings), idx2name, lr_mult / wd_mult (by
name), optional factor_scheduler, weights (one list per parameter), grads (steps x parameters).
Result per case: weights after every step (steps x parameters).
"""
import math

import numpy as np

from reference_driver import main, trajectory

DEFAULT_LR = {"sgd": 0.01, "nag": 0.01, "adam": 0.001, "adamw": 0.001, "rmsprop": 0.001,
              "adagrad": 0.01, "adadelta": 0.01}


def boolean(s):
    return s in ("True", "true", "1")


def clip(x, bound):
    # The Python optimizers pass clip_gradient only when truthy; the kernels clip for bound >= 0.
    return np.clip(x, -bound, bound) if bound else x


class FactorScheduler:
    def __init__(self, step, factor, stop_factor_lr, base_lr):
        self.step, self.factor, self.stop, self.base_lr, self.count = step, factor, stop_factor_lr, base_lr, 0

    def __call__(self, num_update):
        while num_update > self.count + self.step:
            self.count += self.step
            self.base_lr = max(self.base_lr * self.factor, self.stop)
        return self.base_lr


class Reference:
    def __init__(self, case):
        p = case["params"]
        self.kind = case["optimizer"].lower()
        f = lambda k, d: float(p[k]) if k in p else d
        self.lr = f("learning_rate", DEFAULT_LR[self.kind])
        self.wd = f("wd", 0.01 if self.kind == "adamw" else 0.0)
        self.rescale = f("rescale_grad", 1.0)
        self.clip = None if p.get("clip_gradient", "None") == "None" else float(p["clip_gradient"])
        self.momentum = f("momentum", 0.0)
        self.beta1, self.beta2 = f("beta1", 0.9), f("beta2", 0.999)
        self.epsilon = f("epsilon", {"adadelta": 1e-5}.get(self.kind, 1e-8))
        self.eps = f("eps", 1e-7)
        self.gamma1, self.gamma2 = f("gamma1", 0.9), f("gamma2", 0.9)
        self.centered = boolean(p.get("centered", "False"))
        self.clip_weights = None if p.get("clip_weights", "None") == "None" else float(p["clip_weights"])
        self.rho = f("rho", 0.9)
        self.begin = int(p.get("begin_num_update", "0"))
        self.num_update = self.begin
        self.counts, self.states = {}, {}
        self.idx2name = {int(k): v for k, v in case["idx2name"].items()}
        self.lr_mult, self.wd_mult = case["lr_mult"], case["wd_mult"]
        s = case.get("factor_scheduler")
        self.sched = None
        if s:
            base = self.lr if "learning_rate" in p else s["base_lr"]
            self.sched = FactorScheduler(s["step"], s["factor"], s["stop_factor_lr"], base)

    def lr_wd(self, i):
        lr = self.sched(self.num_update) if self.sched else self.lr
        wd = self.wd
        name = self.idx2name.get(i)
        if name is not None:
            lr *= self.lr_mult.get(name, 1.0)
            wd *= self.wd_mult.get(name, 1.0 if name.endswith(("_weight", "_gamma")) else 0.0)
        return lr, wd

    def update(self, i, w, g):
        self.counts[i] = self.counts.get(i, self.begin) + 1
        self.num_update = max(self.num_update, self.counts[i])
        t = self.counts[i]
        lr, wd = self.lr_wd(i)
        st = self.states.setdefault(i, {})
        zeros = lambda: np.zeros_like(w)
        k = self.kind
        if k == "sgd" or (k == "nag" and self.momentum == 0):
            d = clip(self.rescale * g, self.clip)
            if self.momentum == 0:
                return (1 - lr * wd) * w - lr * d
            mom = st.setdefault("mom", zeros())
            mom[:] = self.momentum * mom - lr * wd * w - lr * d
            return w + mom
        if k == "nag":
            d = clip(self.rescale * g, self.clip) + wd * w
            mom = st.setdefault("mom", zeros())
            mom[:] = self.momentum * mom - lr * d
            return w + self.momentum * mom - lr * d
        if k == "adam":
            lr *= math.sqrt(1 - self.beta2 ** t) / (1 - self.beta1 ** t)
            d = clip(self.rescale * g + wd * w, self.clip)
            m, v = st.setdefault("m", zeros()), st.setdefault("v", zeros())
            m[:] = self.beta1 * m + (1 - self.beta1) * d
            v[:] = self.beta2 * v + (1 - self.beta2) * d * d
            return w - lr * m / (np.sqrt(v) + self.epsilon)
        if k == "adamw":
            d = clip(self.rescale * g, self.clip)
            w = w * (1 - lr * wd)
            m, v = st.setdefault("m", zeros()), st.setdefault("v", zeros())
            m[:] = self.beta1 * m + (1 - self.beta1) * d
            v[:] = self.beta2 * v + (1 - self.beta2) * d * d
            denom = np.sqrt(v) / math.sqrt(1 - self.beta2 ** t) + self.epsilon
            return w - lr / (1 - self.beta1 ** t) * m / denom
        if k == "rmsprop":
            d = clip(self.rescale * g + wd * w, self.clip)
            n = st.setdefault("n", zeros())
            n[:] = (1 - self.gamma1) * d * d + self.gamma1 * n
            if not self.centered:
                out = w - lr * d / np.sqrt(n + self.epsilon)
            else:
                gm, delta = st.setdefault("g", zeros()), st.setdefault("delta", zeros())
                gm[:] = (1 - self.gamma1) * d + self.gamma1 * gm
                delta[:] = self.gamma2 * delta - lr * d / np.sqrt(n - gm * gm + self.epsilon)
                out = w + delta
            return clip(out, self.clip_weights)
        if k == "adagrad":
            d = clip(self.rescale * g, self.clip)
            h = st.setdefault("history", zeros())
            h += d * d
            return w - lr * (d / np.sqrt(h + self.eps) + wd * w)
        if k == "adadelta":
            d = clip(self.rescale * g, self.clip)
            acc_g, acc_d = st.setdefault("acc_g", zeros()), st.setdefault("acc_delta", zeros())
            acc_g[:] = self.rho * acc_g + (1 - self.rho) * d * d
            delta = np.sqrt(acc_d + self.epsilon) / np.sqrt(acc_g + self.epsilon) * d
            acc_d[:] = self.rho * acc_d + (1 - self.rho) * delta * delta
            return w - (delta + wd * w)
        raise ValueError("no reference for optimizer " + k)


def run(case):
    ref = Reference(case)
    weights = [np.array(w, dtype=np.float64) for w in case["weights"]]

    def step(grads):
        for i, g in enumerate(grads):
            weights[i] = ref.update(i, weights[i], np.array(g, dtype=np.float64))
        return [w.tolist() for w in weights]

    return trajectory(case, step)


if __name__ == "__main__":
    main(run)
