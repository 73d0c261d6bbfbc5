"""mxnet.module.executor_group: DataParallelExecutorGroup, one executor per context, each running a
slice of the batch (the work load list says how big), sharing parameter arrays with another
group when asked (BucketingModule's buckets)."""
import logging
from collections import OrderedDict

import numpy as _np

from .. import ndarray as nd
from ..context import Context
from ..io import DataDesc

__all__ = ["DataParallelExecutorGroup"]


def _batch_axis(layout):
    """Where the batch (N) is in a layout; 0 without one, -1 when the layout has no N."""
    return 0 if layout is None else layout.find("N")


def _split_input_slice(batch_size, work_load_list):
    """Slices of the batch, one per device, sized by the work loads."""
    total = float(sum(work_load_list))
    sizes = [round(w * batch_size / total) for w in work_load_list]
    sizes[-1] = batch_size - sum(sizes[:-1])
    slices, start = [], 0
    for size in sizes:
        end = min(start + int(size), batch_size)
        if start >= end:
            raise ValueError("Too many slices: the batch of %d cannot be split over %d devices (work loads %s)"
                             % (batch_size, len(work_load_list), work_load_list))
        slices.append(slice(start, end))
        start = end
    return slices


def _prepare_group2ctxs(group2ctxs, ctx_len):
    """One ctx_group -> Context dict per device, from a list of them or one dict (a value: a
    Context for every device, or one Context per device)."""
    if group2ctxs is None:
        return [None] * ctx_len
    if isinstance(group2ctxs, list):
        if len(group2ctxs) != ctx_len:
            raise ValueError("group2ctxs has %d entries for %d contexts" % (len(group2ctxs), ctx_len))
        return group2ctxs
    per_device = [{} for _ in range(ctx_len)]
    for group, ctxs in group2ctxs.items():
        if isinstance(ctxs, Context):
            ctxs = [ctxs] * ctx_len
        elif len(ctxs) == 1:
            ctxs = list(ctxs) * ctx_len
        elif len(ctxs) != ctx_len:
            raise ValueError("group2ctxs['%s'] has %d contexts for %d devices" % (group, len(ctxs), ctx_len))
        for i in range(ctx_len):
            per_device[i][group] = ctxs[i]
    return per_device


def _slice_axis(array, axis, islice):
    if axis == 0:
        return array[islice.start:islice.stop]
    return nd.slice_axis(array, axis=axis, begin=islice.start, end=islice.stop)


def _as_descs(shapes):
    """DataDescs from DataDescs or (name, shape) pairs (None stays None)."""
    if shapes is None:
        return None
    return [x if isinstance(x, DataDesc) else DataDesc(*x) for x in shapes]


def _allocated_bytes(executor):
    """What an executor allocated, from its debug_str's ``Total <n> MB allocated`` line (MXNet's
    Module._total_exec_bytes counts the same)."""
    for line in reversed(executor.debug_str().split("\n")):
        words = line.split()
        if len(words) >= 4 and words[0] == "Total" and words[2] == "MB" and words[3] == "allocated":
            try:
                return int(float(words[1]))
            except ValueError:
                return 0
    return 0


def _merge_multi_context(outputs, major_axis):
    """Each output's per-device parts joined along its batch axis on the first device."""
    merged = []
    for parts, axis in zip(outputs, major_axis):
        if axis >= 0 and len(parts) > 1:
            ctx = parts[0].context
            merged.append(nd.concat(*[p.as_in_context(ctx) for p in parts], dim=axis))
        else:
            merged.append(parts[0])
    return merged


class DataParallelExecutorGroup(object):
    """Executors of ``symbol`` on ``contexts`` for data parallelism: a batch is cut into slices
    along its batch axis, each device runs one, outputs can be merged back."""

    def __init__(self, symbol, contexts, workload, data_shapes, label_shapes, param_names, for_training,
                 inputs_need_grad, shared_group=None, logger=logging, fixed_param_names=None, grad_req="write",
                 state_names=None, group2ctxs=None):
        self.param_names = param_names
        self.arg_names = symbol.list_arguments()
        self.aux_names = symbol.list_auxiliary_states()
        self.symbol = symbol
        self.contexts = contexts
        self.workload = workload
        self.group2ctxs = _prepare_group2ctxs(group2ctxs, len(contexts))
        self.for_training = for_training
        self.inputs_need_grad = inputs_need_grad
        self.logger = logger
        self.fixed_param_names = fixed_param_names or []
        self.state_names = state_names or []
        self._ctx_groups = {name: a.get("__ctx_group__") for name, a in symbol.attr_dict().items()}
        data_shapes = _as_descs(data_shapes)
        label_shapes = _as_descs(label_shapes)
        data_names = [d.name for d in data_shapes]
        self.grad_req = self._grad_reqs(grad_req, data_names)
        self.execs = []
        self._default_execs = None
        self.data_arrays = None
        self.label_arrays = None
        self.param_arrays = None
        self.state_arrays = None
        self.grad_arrays = None
        self.aux_arrays = None
        self.input_grad_arrays = None
        self.data_shapes = None
        self.label_shapes = None
        self.data_names = None
        self.label_names = None
        self.data_layouts = None
        self.label_layouts = None
        self.output_names = self.symbol.list_outputs()
        self.output_layouts = [_batch_axis(self.symbol[name].attr("__layout__")) for name in self.output_names]
        self.num_outputs = len(self.output_names)
        self.batch_size = None
        self.slices = None
        # per device, the arrays of the arguments that are not parameters (data, labels, states,
        # parameters of this group only), by name: a group bound with shared_group uses (and adds
        # to) the same dicts, so that the buckets of a BucketingModule share their input memory
        if shared_group is not None:
            self.shared_data_arrays = shared_group.shared_data_arrays
        else:
            self.shared_data_arrays = [{} for _ in contexts]
        self._total_exec_bytes = 0  # what the executors allocated (their debug_str's total)
        self.bind_exec(data_shapes, label_shapes, shared_group)

    def _grad_reqs(self, grad_req, data_names):
        """grad_req per argument: parameters (not fixed) get it, data only with inputs_need_grad."""
        if not self.for_training:
            return {name: "null" for name in self.arg_names}
        if isinstance(grad_req, str):
            reqs = {}
            for name in self.arg_names:
                if name in self.param_names:
                    reqs[name] = "null" if name in self.fixed_param_names else grad_req
                elif name in data_names:
                    reqs[name] = grad_req if self.inputs_need_grad else "null"
                else:
                    reqs[name] = "null"
            return reqs
        if isinstance(grad_req, (list, tuple)):
            if len(grad_req) != len(self.arg_names):
                raise ValueError("grad_req has %d entries for %d arguments" % (len(grad_req), len(self.arg_names)))
            return dict(zip(self.arg_names, grad_req))
        if isinstance(grad_req, dict):
            reqs = {}
            for name in self.arg_names:
                if name in self.param_names:
                    reqs[name] = "null" if name in self.fixed_param_names else "write"
                elif name in data_names:
                    reqs[name] = "write" if self.inputs_need_grad else "null"
                else:
                    reqs[name] = "null"
            reqs.update(grad_req)
            return reqs
        raise ValueError("grad_req must be a str, a list, a tuple or a dict, got %r" % (grad_req,))

    # --- binding --------------------------------------------------------------------------

    def decide_slices(self, data_shapes):
        """The batch size and each device's slice, from the data shapes' batch axes."""
        axes = [_batch_axis(d.layout) for d in data_shapes]
        for desc, axis in zip(data_shapes, axes):
            if axis == -1:
                continue
            size = desc.shape[axis]
            if self.batch_size is not None and size != self.batch_size:
                raise ValueError("all data must have the same batch size: batch_size = %d, but %s has shape %s"
                                 % (self.batch_size, desc.name, desc.shape))
            self.batch_size = size
            self.slices = _split_input_slice(self.batch_size, self.workload)
        return axes

    def _sliced_shape(self, shapes, i, major_axis):
        sliced = []
        for desc, axis in zip(shapes, major_axis):
            shape = list(desc.shape)
            if axis >= 0:
                shape[axis] = self.slices[i].stop - self.slices[i].start
            sliced.append(DataDesc(desc.name, tuple(shape), desc.dtype, desc.layout))
        return sliced

    def bind_exec(self, data_shapes, label_shapes, shared_group=None, reshape=False):
        """Makes (or, with reshape, reshapes) the executors for these data and label shapes."""
        assert reshape or not self.execs
        data_shapes, label_shapes = _as_descs(data_shapes), _as_descs(label_shapes)
        self.batch_size = None
        self.data_layouts = self.decide_slices(data_shapes)
        self.label_layouts = self.decide_slices(label_shapes) if label_shapes is not None else None
        for i in range(len(self.contexts)):
            data_i = self._sliced_shape(data_shapes, i, self.data_layouts)
            label_i = self._sliced_shape(label_shapes, i, self.label_layouts) if label_shapes is not None else None
            if reshape:
                shapes = {d.name: d.shape for d in data_i + (label_i or [])}
                self.execs[i] = self._default_execs[i].reshape(allow_up_sizing=True, **shapes)
            else:
                self.execs.append(self._bind_ith_exec(i, data_i, label_i, shared_group))
        self.data_shapes = data_shapes
        self.label_shapes = label_shapes
        self.data_names = [d.name for d in data_shapes]
        self.label_names = [d.name for d in label_shapes] if label_shapes is not None else []
        self._collect_arrays()

    def reshape(self, data_shapes, label_shapes):
        """Executors for new input shapes, sharing the parameters (and memory) with the first ones."""
        if data_shapes == self.data_shapes and label_shapes == self.label_shapes:
            return
        if self._default_execs is None:
            self._default_execs = list(self.execs)
        self.bind_exec(data_shapes, label_shapes, reshape=True)

    def _context_of(self, i, name):
        group = self._ctx_groups.get(name)
        groups = self.group2ctxs[i]
        if group is not None and groups and group in groups:
            return groups[group]
        return self.contexts[i]

    def _bind_ith_exec(self, i, data_shapes, label_shapes, shared_group):
        """Executor i over arrays of its own, or the shared group's parameters where shapes agree."""
        # inputs the symbol does not read (a label it has no use for) are left out
        inputs = [d for d in data_shapes + (label_shapes or []) if d.name in self.arg_names]
        shapes = {d.name: d.shape for d in inputs}
        types = {d.name: d.dtype for d in inputs}
        arg_shapes, _, aux_shapes = self.symbol.infer_shape(**shapes)
        if arg_shapes is None:
            raise ValueError("shape inference failed for the inputs %s" % (shapes,))
        arg_types, _, aux_types = self.symbol.infer_type_partial(**types)
        shared = shared_group.execs[i] if shared_group is not None else None
        shared_args = shared.arg_dict if shared is not None else {}
        shared_grads = shared.grad_dict if shared is not None else {}

        attrs = self.symbol.attr_dict()

        def stype_of(name):
            """A variable's storage type (Variable(stype=...): MXNet's code in __storage_type__)."""
            return {"1": "row_sparse", "2": "csr"}.get(attrs.get(name, {}).get("__storage_type__"), "default")

        def array(name, shape, dtype, pool, stype="default"):
            old = pool.get(name)
            if old is not None and old.shape == tuple(shape) and (dtype is None or old.dtype == dtype):
                return old
            return nd.zeros(shape, ctx=self._context_of(i, name), dtype=dtype if dtype is not None else "float32",
                            stype=stype)

        buffer = self.shared_data_arrays[i]

        def buffered(name, shape, dtype):
            """The shared buffer's array for ``name`` (a view of its first elements where it is
            larger), or a new one it keeps from now on."""
            shape = tuple(shape)
            dtype = dtype if dtype is not None else "float32"
            ctx = self._context_of(i, name)
            if stype_of(name) != "default":  # compressed inputs (csr data) are not views of a buffer
                return nd.zeros(shape, ctx=ctx, dtype=dtype, stype=stype_of(name))
            size = 1
            for dim in shape:
                size *= dim
            old = buffer.get(name)
            if old is not None and old.context == ctx and _np.dtype(old.dtype) == _np.dtype(dtype):
                if old.shape == shape:
                    return old
                if old.size >= size:
                    return old.reshape((-1,))[0:size].reshape(shape)
            new = nd.zeros(shape, ctx=ctx, dtype=dtype)
            buffer[name] = new
            return new

        args, grads = [], {}
        for name, shape, dtype in zip(self.arg_names, arg_shapes, arg_types):
            is_param = name in self.param_names
            args.append(array(name, shape, dtype, shared_args, stype_of(name)) if is_param
                        else buffered(name, shape, dtype))
            if self.grad_req[name] != "null":  # a row_sparse weight gets a row_sparse gradient
                grad_stype = "row_sparse" if stype_of(name) == "row_sparse" else "default"
                grads[name] = array(name, shape, dtype, shared_grads if is_param else {}, grad_stype)
        aux = [array(name, shape, dtype, shared.aux_dict if shared is not None else {})
               for name, shape, dtype in zip(self.aux_names, aux_shapes, aux_types)]
        executor = self.symbol.bind(self.contexts[i], args, args_grad=grads, grad_req=self.grad_req,
                                    aux_states=aux, group2ctx=self.group2ctxs[i])
        self._total_exec_bytes += _allocated_bytes(executor)
        return executor

    def _collect_arrays(self):
        """Per name, each device's array (data with the slice it takes)."""
        self.data_arrays = [[(self.slices[i], e.arg_dict[name]) for i, e in enumerate(self.execs)]
                            for name in self.data_names]
        self.state_arrays = [[e.arg_dict[name] for e in self.execs] for name in self.state_names]
        if self.label_shapes is not None:  # a label the symbol does not read gets no arrays
            self.label_arrays = [[(self.slices[i], e.arg_dict[name]) for i, e in enumerate(self.execs)]
                                 if name in self.arg_names else [] for name in self.label_names]
        else:
            self.label_arrays = None
        self.param_arrays = [[e.arg_arrays[i] for e in self.execs]
                             for i, name in enumerate(self.arg_names) if name in self.param_names]
        if self.for_training:
            self.grad_arrays = [[e.grad_arrays[i] for e in self.execs]
                                for i, name in enumerate(self.arg_names) if name in self.param_names]
        else:
            self.grad_arrays = None
        data_names = [name for name in self.data_names if name in self.arg_names]
        if self.inputs_need_grad:
            self.input_grad_arrays = [[e.grad_arrays[self.arg_names.index(name)] for e in self.execs]
                                      for name in data_names]
        else:
            self.input_grad_arrays = None
        self.aux_arrays = [[e.aux_arrays[i] for e in self.execs] for i in range(len(self.aux_names))]

    # --- parameters -----------------------------------------------------------------------

    def set_params(self, arg_params, aux_params, allow_extra=False):
        """Copies the given parameters into every executor."""
        for e in self.execs:
            e.copy_params_from(arg_params, aux_params, allow_extra_params=allow_extra)

    def get_params(self, arg_params, aux_params):
        """The devices' parameters averaged into ``arg_params`` and ``aux_params`` (in place)."""
        from ..context import cpu
        for name, block in zip(self.param_names, self.param_arrays):
            weight = sum(w.copyto(cpu()) for w in block) / len(block)
            weight.astype(arg_params[name].dtype).copyto(arg_params[name])
        for name, block in zip(self.aux_names, self.aux_arrays):
            weight = sum(w.copyto(cpu()) for w in block) / len(block)
            weight.astype(aux_params[name].dtype).copyto(aux_params[name])

    # --- running --------------------------------------------------------------------------

    def _load(self, arrays, targets, layouts):
        for array, parts, axis in zip(arrays, targets, layouts):
            for islice, target in parts:
                part = _slice_axis(array, axis, islice) if axis >= 0 and len(parts) > 1 else array
                if part.context != target.context or part.dtype != target.dtype:
                    part = part.astype(target.dtype).as_in_context(target.context)
                part.copyto(target)

    def forward(self, data_batch, is_train=None):
        """Loads the batch into the devices' slices and runs every executor."""
        self._load(data_batch.data, self.data_arrays, self.data_layouts)
        if is_train is None:
            is_train = self.for_training
        if self.label_arrays is not None and data_batch.label:
            self._load(data_batch.label, self.label_arrays, self.label_layouts)
        for e in self.execs:
            e.forward(is_train=is_train)

    def get_output_shapes(self):
        """(name, shape) of each output over the whole batch."""
        shapes = []
        for name, axis, out in zip(self.output_names, self.output_layouts, self.execs[0].outputs):
            shape = list(out.shape)
            if axis >= 0:
                shape[axis] = self.batch_size
            shapes.append((name, tuple(shape)))
        return shapes

    def get_outputs(self, merge_multi_context=True, begin=0, end=None):
        """Outputs [begin, end): merged over devices, or per output a list per device."""
        end = self.num_outputs if end is None else end
        outputs = [[e.outputs[i] for e in self.execs] for i in range(begin, end)]
        if merge_multi_context:
            outputs = _merge_multi_context(outputs, self.output_layouts[begin:end])
        return outputs

    def get_states(self, merge_multi_context=True):
        assert not merge_multi_context, "merge_multi_context=True is not supported for get_states yet."
        return self.state_arrays

    def set_states(self, states=None, value=None):
        """Sets the states from arrays (per state, per device) or to a value."""
        if states is not None:
            assert value is None, "Only one of states & value can be specified."
            for src_parts, dst_parts in zip(states, self.state_arrays):
                for src, dst in zip(src_parts, dst_parts):
                    src.copyto(dst)
        else:
            assert value is not None, "At least one of states & value must be specified."
            for parts in self.state_arrays:
                for dst in parts:
                    dst[:] = value

    def get_input_grads(self, merge_multi_context=True):
        assert self.inputs_need_grad, "bind with inputs_need_grad=True to get the inputs' gradients"
        if merge_multi_context:
            return _merge_multi_context(self.input_grad_arrays, self.data_layouts)
        return self.input_grad_arrays

    def backward(self, out_grads=None):
        """Back-propagates each device's slice of ``out_grads`` (ones where not given)."""
        assert self.for_training, "re-bind with for_training=True to run backward"
        if out_grads is None:
            out_grads = []
        elif isinstance(out_grads, nd.NDArray):
            out_grads = [out_grads]
        for i, (e, islice) in enumerate(zip(self.execs, self.slices)):
            parts = []
            for grad, axis in zip(out_grads, self.output_layouts):
                part = _slice_axis(grad, axis, islice) if axis >= 0 and len(self.execs) > 1 else grad
                parts.append(part.as_in_context(self.contexts[i]))
            e.backward(out_grads=parts)

    def update_metric(self, eval_metric, labels, pre_sliced=False):
        """Updates ``eval_metric`` with each device's outputs and its slice of the labels."""
        for k, (e, islice) in enumerate(zip(self.execs, self.slices)):
            if pre_sliced:
                labels_slice = labels[k]
            else:
                labels_slice = []
                for label, axis in zip(labels, self.label_layouts or [0] * len(labels)):
                    labels_slice.append(_slice_axis(label, axis, islice) if axis >= 0 and len(self.execs) > 1
                                        else label)
            if hasattr(eval_metric, "update_dict"):
                eval_metric.update_dict(OrderedDict(zip(self.label_names, labels_slice)),
                                        OrderedDict(zip(self.output_names, e.outputs)))
            else:
                eval_metric.update(labels_slice, e.outputs)

    def install_monitor(self, mon):
        for e in self.execs:
            mon.install(e)
