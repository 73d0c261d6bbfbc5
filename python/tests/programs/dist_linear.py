"""A data-parallel training script as MXNet users write it, run by the distributed tests with
`braid launch -n 2 -s 1 python3 dist_linear.py dist_sync` or `mpirun -np 2 python3 dist_linear.py
horovod`: a linear model, each worker taking its share of every global batch of 16, SGD through a
gluon Trainer on the store. With a second argument `float16` the model and data are float16 and
SGD keeps float32 master copies (multi_precision; on the servers with dist_*). Prints one JSON
line with the final weights."""
import json
import sys

import numpy as np

import braid as mx
from braid import autograd, gluon

print("script body runs", flush=True)  # never in the scheduler or a server: their roles run at import
kv = mx.kv.create(sys.argv[1])
dtype = sys.argv[2] if len(sys.argv) > 2 else "float32"
rank, workers = kv.rank, kv.num_workers
rs = np.random.RandomState(0)
X = rs.randn(64, 5).astype(np.float32)
Y = (X @ np.arange(1, 6, dtype=np.float32) + 0.5).reshape(-1, 1)
X, Y = X.astype(dtype), Y.astype(dtype)

net = gluon.nn.Dense(1, in_units=5)
net.initialize(mx.init.Zero())
net.cast(dtype)
trainer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1, "multi_precision": dtype == "float16"},
                        kvstore=kv)
loss_fn = gluon.loss.L2Loss()
share = 16 // workers
for epoch in range(3):
    for b in range(0, 64, 16):
        lo = b + rank * share
        x, y = mx.nd.array(X[lo:lo + share], dtype=dtype), mx.nd.array(Y[lo:lo + share], dtype=dtype)
        with autograd.record():
            loss = loss_fn(net(x), y)
        loss.backward()
        trainer.step(16)  # the global batch: every worker's gradients are summed
result = {"rank": rank, "workers": workers, "weight": net.weight.data().asnumpy().astype(float).ravel().tolist(),
          "bias": float(net.bias.data().asscalar()), "dtype": str(net.weight.data().dtype.__name__)}
sys.stdout.write(json.dumps(result) + "\n")  # one write: print() writes the newline apart when unbuffered
sys.stdout.flush()
