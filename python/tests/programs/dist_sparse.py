"""A sparse model as MXNet users write it, run by the distributed tests with `braid launch -n 2
-s 2 python3 dist_sparse.py dist_sync` (every key split by rows over the two servers when
MXNET_KVSTORE_BIGARRAY_BOUND is small) and as `python3 dist_sparse.py local` for the reference:
an Embedding with sparse_grad and a row_sparse Parameter read through row_sparse_data, trained by
a Gluon Trainer with an optimizer of the user's (custom_optimizers.py), which runs on the
servers. Each worker takes its share of every global batch of 8. Prints one JSON line per worker
with the final weights."""
import json
import sys

import numpy as np

import mxnet as mx
from mxnet import autograd, gluon

import custom_optimizers  # noqa: F401 (registers ScaledSGD)

kv = mx.kv.create(sys.argv[1])
rank, workers = kv.rank, kv.num_workers
rs = np.random.RandomState(1)
TOKENS = rs.randint(0, 60, size=(32, 3)).astype(np.float32)
ROWS = rs.randint(0, 30, size=(32,)).astype(np.float32)
Y = rs.randn(32, 1).astype(np.float32)


class SparseModel(gluon.Block):
    def __init__(self, **kwargs):
        super(SparseModel, self).__init__(**kwargs)
        with self.name_scope():
            self.emb = gluon.nn.Embedding(60, 4, sparse_grad=True)
            self.bias_rows = self.params.get("bias_rows", shape=(30, 4), stype="row_sparse",
                                             grad_stype="row_sparse", init=mx.init.Uniform(0.1))
            self.out = gluon.nn.Dense(1, in_units=4)

    def forward(self, tokens, rows):
        table = self.bias_rows.row_sparse_data(rows)  # only the batch's rows come from the servers
        hidden = self.emb(tokens).sum(axis=1) + mx.nd.take(table, rows)
        return self.out(hidden)


mx.random.seed(7)
net = SparseModel()
net.initialize(mx.init.Uniform(0.1))
trainer = gluon.Trainer(net.collect_params(), "scaledsgd", {"learning_rate": 0.2, "scale": 0.5},
                        kvstore=kv)
loss_fn = gluon.loss.L2Loss()
every_row = mx.nd.arange(30)
start = {"emb_start": net.emb.weight.data().asnumpy().ravel().tolist(),
         "bias_rows_start": net.bias_rows.row_sparse_data(every_row).asnumpy().ravel().tolist(),
         "out_start": net.out.weight.data().asnumpy().ravel().tolist()}
share = 8 // workers
for epoch in range(2):
    for b in range(0, 32, 8):
        lo = b + rank * share
        x, r, y = mx.nd.array(TOKENS[lo:lo + share]), mx.nd.array(ROWS[lo:lo + share]), mx.nd.array(Y[lo:lo + share])
        with autograd.record():
            loss = loss_fn(net(x, r), y)
        loss.backward()
        trainer.step(8)  # the global batch: every worker's gradients are summed

result = {"rank": rank, "workers": workers,
          "emb": net.emb.weight.data().asnumpy().ravel().tolist(),
          "bias_rows": net.bias_rows.row_sparse_data(every_row).asnumpy().ravel().tolist(),
          "out": net.out.weight.data().asnumpy().ravel().tolist(), **start}
sys.stdout.write(json.dumps(result) + "\n")
sys.stdout.flush()
