"""Braid's own optimizers, given as Python objects with settings off their defaults, on the
parameter server's servers and in a local store: one worker pushes the same gradients to both
and prints the weights each gives, as JSON. Run as a worker of `braid launch` (the servers run
the core's optimizer of the same name, with the object's settings)."""
import json

import numpy as np
import mxnet as mx

OPTIMIZERS = {
    "SGD(momentum=0.9)": lambda: mx.optimizer.SGD(learning_rate=0.1, momentum=0.9),
    "create('sgd', momentum=0.9)": lambda: mx.optimizer.create("sgd", learning_rate=0.1, momentum=0.9),
    "NAG(momentum=0.5)": lambda: mx.optimizer.NAG(learning_rate=0.1, momentum=0.5),
    "Adam(beta1=0.5, epsilon=1e-3)": lambda: mx.optimizer.Adam(learning_rate=0.1, beta1=0.5, epsilon=1e-3),
    "RMSProp(centered=True, gamma1=0.5)": lambda: mx.optimizer.RMSProp(learning_rate=0.1, centered=True, gamma1=0.5),
    "AdaGrad(eps=0.5)": lambda: mx.optimizer.AdaGrad(learning_rate=0.1, eps=0.5),
    "AdaDelta(rho=0.5)": lambda: mx.optimizer.AdaDelta(rho=0.5),
}

dist = mx.kv.create("dist_sync")
results = {}
for key, (label, make) in enumerate(OPTIMIZERS.items()):
    weights = {}
    for store in (dist, mx.kv.create("local")):
        store.set_optimizer(make())
        store.init(key, mx.nd.ones((4,)))
        for step in range(3):
            store.push(key, mx.nd.array(np.arange(4) * 0.5 - 0.7 + step))
        out = mx.nd.zeros((4,))
        store.pull(key, out=out)
        weights[store.type] = out.asnumpy().tolist()
    results[label] = weights
print(json.dumps({"optimizers": results}))
