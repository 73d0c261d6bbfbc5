"""mxnet.test_utils: consistency checks, a symbol across contexts and dtypes, a Gluon network
imperative and hybridized."""
import numbers

import numpy as _np

from ..ndarray import array
from ._comparison import assert_almost_equal


def check_consistency(sym, ctx_list, scale=1.0, grad_req="write", arg_params=None, aux_params=None, tol=None,
                      raise_on_err=True, ground_truth=None, equal_nan=False, use_uniform=False, rand_type=_np.float64):
    """Runs sym forward and backward on every context of ctx_list (each a dict with 'ctx', the input
    shapes and optionally 'type_dict') from the same random inputs, and compares the outputs and
    gradients with those of the most precise one. Returns the NumPy outputs and gradients of each."""
    if tol is None:
        tol = {_np.dtype(_np.float16): 1e-1, _np.dtype(_np.float32): 1e-3, _np.dtype(_np.float64): 1e-5,
               _np.dtype(_np.uint8): 0, _np.dtype(_np.int32): 0, _np.dtype(_np.int64): 0}
    elif isinstance(tol, numbers.Number):
        tol = {_np.dtype(t): tol for t in (_np.float16, _np.float32, _np.float64, _np.uint8, _np.int32, _np.int64)}
    assert len(ctx_list) > 1
    syms = sym if isinstance(sym, list) else [sym] * len(ctx_list)
    output_names = syms[0].list_outputs()
    arg_names = syms[0].list_arguments()
    exe_list = []
    for s, ctx in zip(syms, ctx_list):
        spec = dict(ctx)
        context = spec.pop("ctx")
        type_dict = spec.pop("type_dict", {})
        exe_list.append(s.simple_bind(context, grad_req=grad_req, type_dict=type_dict, **spec))
    arg_params = {} if arg_params is None else dict(arg_params)
    aux_params = {} if aux_params is None else dict(aux_params)
    for n, arr in exe_list[0].arg_dict.items():
        if n not in arg_params:
            if use_uniform:
                arg_params[n] = _np.random.uniform(low=-0.92 * scale, high=0.92 * scale,
                                                   size=arr.shape).astype(rand_type)
            else:
                arg_params[n] = _np.random.normal(size=arr.shape, scale=scale).astype(rand_type)
    for n in exe_list[0].aux_dict:
        if n not in aux_params:
            aux_params[n] = 0
    for exe in exe_list:
        for name, arr in exe.arg_dict.items():
            arr[:] = arg_params[name]
        for name, arr in exe.aux_dict.items():
            arr[:] = aux_params[name]
    dtypes = [_np.dtype(exe.outputs[0].dtype) for exe in exe_list]
    max_idx = _np.argmax([d.itemsize if d.kind == "f" else 0 for d in dtypes])
    gt = ground_truth
    for exe in exe_list:
        exe.forward(is_train=False)
    if gt is None:
        gt = {n: o.asnumpy() for n, o in zip(output_names, exe_list[max_idx].outputs)}
    for i, exe in enumerate(exe_list):
        if i == max_idx:
            continue
        rtol = atol = tol[dtypes[i]]
        for name, arr in zip(output_names, exe.outputs):
            gtarr = gt[name].astype(dtypes[i])
            try:
                assert_almost_equal(arr.asnumpy(), gtarr, rtol=rtol, atol=atol, equal_nan=equal_nan)
            except AssertionError as e:
                print("Predict Err: ctx %d vs ctx %d at %s" % (i, max_idx, name))
                if raise_on_err:
                    raise e
    if grad_req != "null":
        for exe in exe_list:
            exe.forward(is_train=True)
            exe.backward([array(o.asnumpy(), ctx=o.context, dtype=o.dtype) for o in exe.outputs])
        if ground_truth is None:
            gt = {n: o.asnumpy() for n, o in zip(output_names, exe_list[max_idx].outputs)}
            gt.update({n: g.asnumpy() for n, g in exe_list[max_idx].grad_dict.items() if g is not None})
        for i, exe in enumerate(exe_list):
            if i == max_idx:
                continue
            rtol = atol = tol[dtypes[i]]
            curr = list(zip(output_names, exe.outputs)) + [(n, g) for n, g in exe.grad_dict.items() if g is not None]
            for name, arr in curr:
                if name not in gt or gt[name] is None:
                    continue
                try:
                    assert_almost_equal(arr.asnumpy(), gt[name].astype(dtypes[i]), rtol=rtol, atol=atol,
                                        equal_nan=equal_nan)
                except AssertionError as e:
                    print("Train Err: ctx %d vs ctx %d at %s" % (i, max_idx, name))
                    if raise_on_err:
                        raise e
    return gt


def _values_initializer(values):
    """An initializer setting each parameter to the NumPy value saved under its name."""
    from .. import init

    class _ValuesInit(init.Initializer):
        def _init_weight(self, name, arr):
            arr[()] = values[name]
    return _ValuesInit()


def check_gluon_hybridize_consistency(net_builder, data_l, numpy_func=None, test_grad=True, rtol=1e-4, atol=1e-4):
    """Runs the network built by ``net_builder(prefix='net_')`` imperatively and hybridized, with
    and without autograd, every net starting from the first one's parameter values, and compares
    the outputs (and the inputs' gradients of ``out.backward(out)``); with numpy_func, also
    against it."""
    from .. import autograd
    saved_out_np = None
    saved_grad_np_l = None
    params_init = None
    use_autograd_flags = [False, True] if test_grad else [False]
    for hybridize in [False, True]:
        for use_autograd in use_autograd_flags:
            net = net_builder(prefix='net_')
            net.initialize(params_init)
            if hybridize:
                net.hybridize()
            in_data_l = [ele.copy() for ele in data_l]
            if use_autograd:
                for ele in in_data_l:
                    ele.attach_grad()
                with autograd.record():
                    out = net(*in_data_l)
                out.backward(out)
            else:
                out = net(*in_data_l)
            if params_init is None:
                params_init = _values_initializer({k: v.data().asnumpy() for k, v in net.collect_params().items()})
            out_np = out.asnumpy()
            if saved_out_np is None:
                saved_out_np = out_np
            else:
                assert_almost_equal(out_np, saved_out_np, rtol=rtol, atol=atol)
            if use_autograd:
                grad_np_l = [ele.grad.asnumpy() for ele in in_data_l]
                if saved_grad_np_l is None:
                    saved_grad_np_l = grad_np_l
                else:
                    for data, saved_data in zip(grad_np_l, saved_grad_np_l):
                        assert_almost_equal(data, saved_data, rtol=rtol, atol=atol)
    if numpy_func is not None:
        numpy_out = numpy_func(*[ele.asnumpy() for ele in data_l])
        assert_almost_equal(saved_out_np, numpy_out, rtol=rtol, atol=atol)
