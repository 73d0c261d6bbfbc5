"""mx.callback with Module.fit: Speedometer's log lines (speed, metric, local reset), ProgressBar,
log_train_metric, module_checkpoint."""
import logging
import os

import numpy as np

import braid as mx


def _fit(tmp_path, **callbacks):
    x = mx.sym.var("data")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(x, num_hidden=2, name="fc"), name="softmax")
    rng = np.random.RandomState(0)
    it = mx.io.NDArrayIter(rng.rand(40, 3).astype("f"), rng.randint(0, 2, 40).astype("f"), batch_size=10)
    mod = mx.mod.Module(net)
    mod.fit(it, num_epoch=2, **callbacks)
    return mod


def test_speedometer_logs_every_frequent_batches(tmp_path, caplog):
    caplog.set_level(logging.INFO)
    _fit(tmp_path, batch_end_callback=mx.callback.Speedometer(10, frequent=2))
    lines = [r.getMessage() for r in caplog.records if "Speed:" in r.getMessage()]
    # Batches 0..3 per epoch: a report at batch 2 of each epoch (batch 0 starts the clock).
    assert len(lines) == 2, lines
    assert lines[0].startswith("Epoch[0] Batch [0-2]\tSpeed: ") and "samples/sec\taccuracy=" in lines[0]
    assert lines[1].startswith("Epoch[1] Batch [0-2]")


def test_log_train_metric_progress_bar_and_module_checkpoint(tmp_path, caplog, capsys):
    caplog.set_level(logging.INFO)
    prefix = str(tmp_path / "net")
    holder = {}

    def checkpoint(epoch, sym, arg, aux):
        mx.callback.module_checkpoint(holder["mod"], prefix, period=2)(epoch, sym, arg, aux)

    x = mx.sym.var("data")
    net = mx.sym.SoftmaxOutput(mx.sym.FullyConnected(x, num_hidden=2, name="fc"), name="softmax")
    it = mx.io.NDArrayIter(np.ones((20, 3), "f"), np.zeros(20, "f"), batch_size=10)
    holder["mod"] = mod = mx.mod.Module(net)
    mod.fit(it, num_epoch=2, batch_end_callback=[mx.callback.log_train_metric(1), mx.callback.ProgressBar(1)],
            epoch_end_callback=checkpoint)
    assert any("Train-accuracy=" in r.getMessage() for r in caplog.records)
    assert "[" + "=" * 80 + "] 100%" in capsys.readouterr().err  # nbatch counts from 0, as in MXNet
    assert os.path.exists(prefix + "-0002.params") and not os.path.exists(prefix + "-0001.params")
