"""mx.name, mx.attribute, Symbol's MXNet Python behaviour and the Python mx.mod package
(Module over several contexts, BucketingModule sharing parameters)."""
import pickle
import threading

import numpy as np

import braid as mx
from braid import nd
from braid.module.executor_group import DataParallelExecutorGroup


def test_name_manager_counts_per_hint_and_prefix_applies_to_every_name():
    with mx.name.NameManager():
        a = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2)
        b = mx.sym.FullyConnected(mx.sym.var('x'), num_hidden=2)
        assert (a.name, b.name) == ('fullyconnected0', 'fullyconnected1')
        with mx.name.Prefix('net_'):
            c = mx.sym.Activation(a, act_type='relu', name='act')
            d = mx.sym.Activation(a, act_type='relu')
        assert (c.name, d.name) == ('net_act', 'net_activation0')
        assert (a + b).name == '_plus0'


def test_name_manager_is_per_thread():
    seen = []
    with mx.name.NameManager():
        mx.sym.Activation(mx.sym.var('x'), act_type='relu')

        def other():
            seen.append(mx.sym.Activation(mx.sym.var('x'), act_type='relu').name)
        t = threading.Thread(target=other)
        t.start()
        t.join()
    assert seen == ['activation0']


def test_attr_scope_and_hidden_keys():
    with mx.AttrScope(ctx_group='dev1', __group__='4'):
        v = mx.sym.var('v', lr_mult=2)
        fc = mx.sym.FullyConnected(v, num_hidden=3, name='fc', wd_mult=0.5)
    assert v.attr('__group__') == '4' and v.attr('ctx_group') == 'dev1'
    assert v.attr('__lr_mult__') == '2' and v.attr('lr_mult') == '2'
    attrs = fc.attr_dict()
    # variables made for missing inputs copy the node's attributes, as MXNet's
    assert attrs['fc_weight']['__wd_mult__'] == '0.5' and attrs['fc']['wd_mult'] == '0.5'
    assert attrs['fc_weight']['num_hidden'] == '3'


def test_compose_pickle_and_partial_shapes():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=4, name='fc')
    head = mx.sym.Activation(mx.sym.var('in'), act_type='relu', name='act')
    composed = head(**{'in': net})
    assert composed.list_arguments() == ['data', 'fc_weight', 'fc_bias']
    assert head.list_arguments() == ['in']  # the called symbol is unchanged
    copy = pickle.loads(pickle.dumps(composed))
    assert copy.tojson() == composed.tojson()
    arg, out, _ = net.infer_shape_partial(data=(0, 5))
    assert arg == [(0, 5), (4, 5), (4,)] and out == [(0, 4)]
    assert net.infer_shape() == (None, None, None)


def _data(n=8):
    x = np.arange(n * 3, dtype=np.float32).reshape(n, 3) / 10
    return mx.io.NDArrayIter(x, np.zeros(n, dtype=np.float32), batch_size=4)


def test_module_on_two_contexts_updates_shared_average():
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=1, name='fc')
    net = mx.sym.LinearRegressionOutput(net, mx.sym.var('softmax_label'), name='out')
    mod = mx.mod.Module(net, context=[mx.cpu(0), mx.cpu(1)])
    it = _data()
    mod.bind(it.provide_data, it.provide_label)
    assert isinstance(mod._exec_group, DataParallelExecutorGroup) and len(mod._exec_group.execs) == 2
    assert [s.stop - s.start for s in mod._exec_group.slices] == [2, 2]
    mod.init_params(mx.init.Zero())
    batch = next(iter(it))
    mod.forward(batch)
    assert mod.get_outputs()[0].shape == (4, 1)
    assert all(o.shape == (2, 1) for o in mod.get_outputs(merge_multi_context=False)[0])
    mod.init_optimizer(optimizer_params={'learning_rate': 1.0})
    mod.backward()
    mod.update()
    w = mod.get_params()[0]['fc_bias'].asnumpy()
    np.testing.assert_allclose(w, np.zeros(1))  # outputs 0 = labels 0: no change
    pred = mod.predict(_data())
    assert pred.shape == (8, 1)


def test_bucketing_module_shares_parameters_between_buckets():
    def sym_gen(key):
        data = mx.sym.var('data')
        out = mx.sym.FullyConnected(data, num_hidden=2, name='fc')
        return mx.sym.sum(out, axis=1) * float(key), ('data',), None
    mod = mx.mod.BucketingModule(sym_gen, default_bucket_key=1)
    mod.bind([('data', (3, 4))], None, for_training=False)
    mod.init_params(mx.init.One())
    mod.switch_bucket(2, [('data', (3, 4))])
    bucket = mod._buckets[2]
    bucket.forward(mx.io.DataBatch([nd.ones((3, 4))]))
    # bucket 2 reads the default bucket's weights (ones; biases zero, as initializers set them):
    # each fc output 4, two summed, times 2
    np.testing.assert_allclose(bucket.get_outputs()[0].asnumpy(), np.full(3, 2 * (2 * 4)))
