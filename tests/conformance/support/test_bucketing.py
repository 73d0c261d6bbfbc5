"""What MXNet's test_module.py imports from MXNet's tests/python/train/test_bucketing.py (not part
of the shared unit-test folder): random sentences in buckets, and a bucketed LSTM language model
trained on them. Written for Braid."""
import logging
import random

import mxnet as mx


def prepare_bucketing_data(buckets, len_vocab, batch_size, invalid_label, num_sentence):
    """(train, validation) BucketSentenceIters over random sentences of 6 to max(buckets)-1 words."""
    def sentences():
        return [[random.randint(1, len_vocab) for _ in range(random.randint(6, max(buckets) - 1))]
                for _ in range(num_sentence)]
    train = mx.rnn.BucketSentenceIter(sentences(), batch_size, buckets=buckets, invalid_label=invalid_label)
    val = mx.rnn.BucketSentenceIter(sentences(), batch_size, buckets=buckets, invalid_label=invalid_label)
    return train, val


def train_model(context=mx.cpu()):
    """A two-layer LSTM BucketingModule fitted for 5 epochs on random sentences."""
    batch_size, num_epochs, num_hidden, num_embed, num_layers, len_vocab = 128, 5, 25, 25, 2, 50
    buckets = [5, 10, 20, 30, 40]
    invalid_label = -1
    data_train, data_val = prepare_bucketing_data(buckets, len_vocab, batch_size, invalid_label, 1000)

    stack = mx.rnn.SequentialRNNCell()
    for i in range(num_layers):
        stack.add(mx.rnn.LSTMCell(num_hidden=num_hidden, prefix="lstm_l%d_" % i))

    def sym_gen(seq_len):
        data = mx.sym.Variable("data")
        label = mx.sym.Variable("softmax_label")
        embed = mx.sym.Embedding(data=data, input_dim=len_vocab, output_dim=num_embed, name="embed")
        stack.reset()
        outputs, _ = stack.unroll(seq_len, inputs=embed, merge_outputs=True)
        pred = mx.sym.Reshape(outputs, shape=(-1, num_hidden))
        pred = mx.sym.FullyConnected(data=pred, num_hidden=len_vocab, name="pred")
        label = mx.sym.Reshape(label, shape=(-1,))
        return mx.sym.SoftmaxOutput(data=pred, label=label, name="softmax"), ("data",), ("softmax_label",)

    model = mx.mod.BucketingModule(sym_gen=sym_gen, default_bucket_key=data_train.default_bucket_key,
                                   context=context)
    logging.info("Begin fit...")
    model.fit(train_data=data_train, eval_data=data_val, eval_metric=mx.metric.Perplexity(invalid_label),
              kvstore="device", optimizer="sgd",
              optimizer_params={"learning_rate": 0.01, "momentum": 0, "wd": 0.00001},
              initializer=mx.init.Xavier(factor_type="in", magnitude=2.34), num_epoch=num_epochs,
              batch_end_callback=mx.callback.Speedometer(batch_size, 50))
    return model
