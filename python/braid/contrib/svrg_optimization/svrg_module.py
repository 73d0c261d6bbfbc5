"""SVRGModule: a Module trained by stochastic variance-reduced gradient descent.

A second module of the same symbol (``_mod_aux``) holds the snapshot of the weights. Every
``update_freq`` epochs ``update_full_grads`` copies the weights into it and averages its gradient
over the whole training set (summed over devices and workers through the KVStore keys
``<name>_full``). Each backward then replaces a weight's gradient g(w) by
``g(w) - g(snapshot) + full gradient`` (both gradients of the same batch) before the update."""
import logging

from ... import ndarray as nd
from ...context import cpu
from ...module import Module
from .svrg_optimizer import _SVRGOptimizer

__all__ = ["SVRGModule"]


class SVRGModule(Module):
    """Module's arguments, and ``update_freq``: every how many epochs the snapshot and full
    gradient are taken (a positive int)."""

    def __init__(self, symbol, data_names=("data",), label_names=("softmax_label",), logger=logging, context=None,
                 work_load_list=None, fixed_param_names=None, state_names=None, group2ctxs=None,
                 compression_params=None, update_freq=None):
        if not isinstance(update_freq, int) or isinstance(update_freq, bool):
            raise TypeError("update_freq in SVRGModule must be an integer (every how many epochs the full "
                            "gradient is computed), got %r" % (update_freq,))
        if update_freq <= 0:
            raise ValueError("update_freq in SVRGModule must be a positive integer, got %d" % update_freq)
        context = [cpu()] if context is None else context
        super().__init__(symbol, data_names=data_names, label_names=label_names, logger=logger, context=context,
                         work_load_list=work_load_list, fixed_param_names=fixed_param_names,
                         state_names=state_names, group2ctxs=group2ctxs, compression_params=compression_params)
        self.update_freq = update_freq
        self._mod_aux = Module(symbol, data_names=data_names, label_names=label_names, logger=logger,
                               context=context, work_load_list=work_load_list, fixed_param_names=fixed_param_names,
                               state_names=state_names, group2ctxs=group2ctxs, compression_params=compression_params)
        self._ctx_len = len(self._context)
        self._param_dict = None  # per device: the full gradient of each parameter

    def _reset_bind(self):
        super()._reset_bind()
        self._mod_aux._reset_bind()

    def reshape(self, data_shapes, label_shapes=None):
        super().reshape(data_shapes, label_shapes=label_shapes)
        self._mod_aux.reshape(data_shapes, label_shapes=label_shapes)

    def bind(self, data_shapes, label_shapes=None, for_training=True, inputs_need_grad=False, force_rebind=False,
             shared_module=None, grad_req="write"):
        """Binds this module and the snapshot's for the same shapes."""
        super().bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind, shared_module,
                     grad_req)
        if for_training:
            self._mod_aux.bind(data_shapes, label_shapes, for_training, inputs_need_grad, force_rebind, None,
                               grad_req)
            if self.params_initialized:  # loaded from a checkpoint
                self._give_snapshot_the_params()

    def _give_snapshot_the_params(self, allow_missing=False, allow_extra=False):
        arg, aux = self.get_params()
        self._mod_aux.init_params(initializer=None, arg_params=arg, aux_params=aux, allow_missing=allow_missing,
                                  force_init=True, allow_extra=allow_extra)

    def init_params(self, initializer=None, arg_params=None, aux_params=None, allow_missing=False,
                    force_init=False, allow_extra=False):
        """Module.init_params; the snapshot starts from the same values (later calls, such as
        fit's set_params at the end of each epoch, leave it alone: it changes only in
        update_full_grads, with the full gradient that goes with it)."""
        kwargs = {} if initializer is None else {"initializer": initializer}
        super().init_params(arg_params=arg_params, aux_params=aux_params, allow_missing=allow_missing,
                            force_init=force_init, allow_extra=allow_extra, **kwargs)
        if self._mod_aux.binded and not self._mod_aux.params_initialized:
            self._give_snapshot_the_params(allow_missing, allow_extra)

    def init_optimizer(self, kvstore="local", optimizer="sgd", optimizer_params=(("learning_rate", 0.01),),
                       force_init=False):
        """``optimizer`` wrapped in an _SVRGOptimizer, and the KVStore keys ``<name>_full``."""
        if self.optimizer_initialized and not force_init:
            self.logger.warning("optimizer already initialized, ignoring...")
            return
        self._param_dict = [{name: nd.zeros(arr.shape, ctx=ctx, dtype=arr.dtype)
                             for name, arr in self.get_params()[0].items()} for ctx in self._context]
        params = dict(optimizer_params)
        if "rescale_grad" not in params:
            params["rescale_grad"] = 1.0 / self._exec_group.batch_size
        names = self._exec_group.param_names
        params["param_idx2name"] = dict(enumerate(names + [n + "_full" for n in names]))
        super().init_optimizer(kvstore=kvstore, optimizer=_SVRGOptimizer(optimizer, **params),
                               optimizer_params=optimizer_params, force_init=force_init)
        if self._kvstore:
            for name in names:
                self._kvstore.init(name + "_full", nd.zeros(self._arg_params[name].shape))

    def forward(self, data_batch, is_train=None):
        """Runs the batch on the weights, and in training on the snapshot too."""
        super().forward(data_batch, is_train)
        if (self.for_training if is_train is None else is_train) and self._mod_aux.binded:
            self._mod_aux.forward(data_batch, is_train=True)

    def backward(self, out_grads=None):
        """Back-propagates the batch on the weights and on the snapshot."""
        super().backward(out_grads)
        if self._mod_aux.binded:
            self._mod_aux.backward(out_grads)

    def update(self):
        """One step of the optimizer along g(w) - g(snapshot) + full gradient."""
        self._update_svrg_gradients()
        super().update()

    def _update_svrg_gradients(self):
        own, snapshot = self._exec_group, self._mod_aux._exec_group
        for index, name in enumerate(own.param_names):
            for k, g in enumerate(own.grad_arrays[index]):
                if g is not None:
                    g[:] = g - snapshot.grad_arrays[index][k] + self._param_dict[k][name]

    def update_full_grads(self, train_data):
        """Takes the snapshot of the weights and the mean gradient there over ``train_data``
        (a batch's padding counted out), summed over devices and workers; resets ``train_data``."""
        arg, aux = self.get_params()
        self._mod_aux.set_params(arg_params=arg, aux_params=aux)
        names = self._exec_group.param_names
        sums = [{name: nd.zeros(self._param_dict[k][name].shape, ctx=ctx) for name in names}
                for k, ctx in enumerate(self._context)]
        batches, padding = 0, 0
        train_data.reset()
        for batch in train_data:
            self._mod_aux.forward(batch, is_train=True)
            self._mod_aux.backward()
            for index, name in enumerate(names):
                for k, g in enumerate(self._mod_aux._exec_group.grad_arrays[index]):
                    sums[k][name] += g
            batches += 1
            padding = batch.pad or 0
        train_data.reset()
        if batches == 0:
            raise ValueError("update_full_grads: the training data gave no batch")
        effective = batches - padding / float(train_data.batch_size)
        for name in names:
            grads = [sums[k][name] / effective for k in range(self._ctx_len)]
            if self._kvstore:
                self._accumulate_kvstore(name, grads)
            else:
                for k in range(self._ctx_len):
                    self._param_dict[k][name] = grads[k]

    def _accumulate_kvstore(self, key, value):
        """Every device's (and worker's) full gradient of ``key`` summed through the store, each
        device given the mean."""
        self._kvstore.push(key + "_full", value)
        self._kvstore.pull(key + "_full", value)
        count = self._ctx_len * self._kvstore.num_workers
        for k in range(self._ctx_len):
            self._param_dict[k][key] = value[k] / count

    def _begin_epoch(self, epoch, train_data):
        if epoch % self.update_freq == 0:
            self.update_full_grads(train_data)
