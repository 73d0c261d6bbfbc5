"""Convolutional recurrent cells of MXNet's gluon.contrib.rnn (ConvLSTM, Shi et al.,
arXiv:1506.04214, and its plain-RNN and GRU forms), in 1, 2 and 3 dimensions.

They are the cells of gluon.rnn with the matrix products replaced by convolutions: the input
projection is a convolution of the step's input (``i2h_kernel``, ``i2h_pad``, ``i2h_dilate``,
stride 1), the recurrent one a "same"-padded convolution of the previous hidden state
(``h2h_kernel``, odd sizes only, so that the state keeps its size). The states are feature maps
(batch, hidden_channels, *spatial) for channel-first layouts. Parameters and graph nodes carry
MXNet's names (``<prefix>i2h_weight``, ``<prefix>t0_out``...), so saved parameters load in both."""
from .... import ndarray as _nd
from ...rnn.rnn_cell import HybridRecurrentCell

__all__ = ["Conv1DRNNCell", "Conv2DRNNCell", "Conv3DRNNCell",
           "Conv1DLSTMCell", "Conv2DLSTMCell", "Conv3DLSTMCell",
           "Conv1DGRUCell", "Conv2DGRUCell", "Conv3DGRUCell"]

_DEFAULT_LAYOUT = {1: "NCW", 2: "NCHW", 3: "NCDHW"}


def _tuple(value, dims, what):
    """An int or ``dims`` ints as a tuple of ``dims`` ints."""
    if isinstance(value, (list, tuple)):
        if len(value) != dims:
            raise ValueError("For %dD convolution, %s must be an int or %d ints; got %r" % (dims, what, dims, value))
        return tuple(int(v) for v in value)
    return (int(value),) * dims


class _ConvCell(HybridRecurrentCell):
    """What the convolutional cells share: shapes, parameters and the two convolutions.

    ``ConvNDXCell(input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=0, i2h_dilate=1,
    h2h_dilate=1, i2h_weight_initializer=None, h2h_weight_initializer=None,
    i2h_bias_initializer='zeros', h2h_bias_initializer='zeros', conv_layout=<default>,
    activation='tanh', prefix=None, params=None)``. ``input_shape`` is one step's input without
    the batch axis, in conv_layout's order, e.g. (C, H, W) for 'NCHW'; C may be 0, taken from the
    first input. Kernels, pads and dilations are an int or one int per spatial axis; h2h_kernel
    sizes must be odd. ``activation`` is an activation name or a block."""
    _dims = 0
    _gates = 1
    _num_states = 1

    def __init__(self, input_shape, hidden_channels, i2h_kernel, h2h_kernel, i2h_pad=0, i2h_dilate=1,
                 h2h_dilate=1, i2h_weight_initializer=None, h2h_weight_initializer=None,
                 i2h_bias_initializer="zeros", h2h_bias_initializer="zeros", conv_layout=None, activation="tanh",
                 prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        dims = self._dims
        self._hidden_channels = hidden_channels
        self._input_shape = tuple(input_shape)
        self._conv_layout = conv_layout or _DEFAULT_LAYOUT[dims]
        self._activation = activation
        if len(self._conv_layout) != dims + 2 or len(self._input_shape) != dims + 1:
            raise ValueError("%s: conv_layout %r and input_shape %r must describe %dD data (input_shape has no batch "
                             "axis)" % (type(self).__name__, self._conv_layout, input_shape, dims))
        self._i2h_kernel = _tuple(i2h_kernel, dims, "i2h_kernel")
        self._i2h_pad = _tuple(i2h_pad, dims, "i2h_pad")
        self._i2h_dilate = _tuple(i2h_dilate, dims, "i2h_dilate")
        self._h2h_kernel = _tuple(h2h_kernel, dims, "h2h_kernel")
        self._h2h_dilate = _tuple(h2h_dilate, dims, "h2h_dilate")
        self._stride = (1,) * dims
        assert all(k % 2 == 1 for k in self._h2h_kernel), "Only support odd number, get h2h_kernel= %s" % (h2h_kernel,)
        # Padding that keeps the recurrent convolution's output the size of the state.
        self._h2h_pad = tuple(d * (k - 1) // 2 for d, k in zip(self._h2h_dilate, self._h2h_kernel))

        # input_shape is the layout without N: the channel axis there is one less.
        self._channel_axis = self._conv_layout.find("C")
        in_channels = self._input_shape[self._channel_axis - 1]
        spatial = self._input_shape[:self._channel_axis - 1] + self._input_shape[self._channel_axis:]
        out_spatial = tuple(x + 2 * p - d * (k - 1) if x else 0
                            for x, k, p, d in zip(spatial, self._i2h_kernel, self._i2h_pad, self._i2h_dilate))
        rows = hidden_channels * self._gates
        if self._channel_axis == 1:
            i2h_shape = (rows, in_channels) + self._i2h_kernel
            h2h_shape = (rows, hidden_channels) + self._h2h_kernel
            self._state_shape = (hidden_channels,) + out_spatial
        else:
            i2h_shape = (rows,) + self._i2h_kernel + (in_channels,)
            h2h_shape = (rows,) + self._h2h_kernel + (hidden_channels,)
            self._state_shape = out_spatial + (hidden_channels,)

        self.i2h_weight = self.params.get("i2h_weight", shape=i2h_shape, init=i2h_weight_initializer,
                                          allow_deferred_init=True)
        self.h2h_weight = self.params.get("h2h_weight", shape=h2h_shape, init=h2h_weight_initializer,
                                          allow_deferred_init=True)
        self.i2h_bias = self.params.get("i2h_bias", shape=(rows,), init=i2h_bias_initializer,
                                        allow_deferred_init=True)
        self.h2h_bias = self.params.get("h2h_bias", shape=(rows,), init=h2h_bias_initializer,
                                        allow_deferred_init=True)

    def state_info(self, batch_size=0):
        info = {"shape": (batch_size,) + self._state_shape, "__layout__": self._conv_layout}
        return [dict(info) for _ in range(self._num_states)]

    def forward(self, inputs, states):
        # input_shape may leave the channels 0: take them from the first step's input.
        weight = self.i2h_weight
        if isinstance(inputs, _nd.NDArray) and weight._deferred:
            channels = inputs.shape[self._channel_axis]
            at = 1 if self._channel_axis == 1 else len(weight.shape) - 1
            weight._finish_deferred_init(weight.shape[:at] + (channels,) + weight.shape[at + 1:])
        return super().forward(inputs, states)

    def _convolutions(self, F, inputs, state, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix):
        rows = self._hidden_channels * self._gates
        i2h = F.Convolution(data=inputs, weight=i2h_weight, bias=i2h_bias, num_filter=rows, kernel=self._i2h_kernel,
                            stride=self._stride, pad=self._i2h_pad, dilate=self._i2h_dilate,
                            layout=self._conv_layout, name=prefix + "i2h")
        h2h = F.Convolution(data=state, weight=h2h_weight, bias=h2h_bias, num_filter=rows, kernel=self._h2h_kernel,
                            stride=self._stride, pad=self._h2h_pad, dilate=self._h2h_dilate,
                            layout=self._conv_layout, name=prefix + "h2h")
        return i2h, h2h

    def _split(self, F, x, name):
        return F.SliceChannel(x, num_outputs=self._gates, axis=self._channel_axis, name=name)

    def __repr__(self):
        shape = self.i2h_weight.shape
        in_channels = shape[1 if self._channel_axis == 1 else -1]
        activation = self._activation if isinstance(self._activation, str) else repr(self._activation)
        return "{}({} -> {}, {}, {})".format(type(self).__name__, in_channels or None, shape[0], activation,
                                             self._conv_layout)


class _ConvRNN(_ConvCell):
    """h_t = activation(W_i * x_t + b_i + W_h * h_(t-1) + b_h); states [h]."""

    def _alias(self):
        return "conv_rnn"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._convolutions(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        output = self._get_activation(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"), self._activation,
                                      name=prefix + "out")
        return output, [output]


class _ConvLSTM(_ConvCell):
    """Gates i, f, c, o (MXNet's order) from the two convolutions; states [h, c]."""
    _gates = 4
    _num_states = 2

    def _alias(self):
        return "conv_lstm"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        i2h, h2h = self._convolutions(F, inputs, states[0], i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        gates = self._split(F, F.elemwise_add(i2h, h2h, name=prefix + "plus0"), prefix + "slice")
        in_gate = F.Activation(gates[0], act_type="sigmoid", name=prefix + "i")
        forget_gate = F.Activation(gates[1], act_type="sigmoid", name=prefix + "f")
        in_transform = self._get_activation(F, gates[2], self._activation, name=prefix + "c")
        out_gate = F.Activation(gates[3], act_type="sigmoid", name=prefix + "o")
        next_c = F.elemwise_add(F.elemwise_mul(forget_gate, states[1], name=prefix + "mul0"),
                                F.elemwise_mul(in_gate, in_transform, name=prefix + "mul1"), name=prefix + "state")
        next_h = F.elemwise_mul(out_gate, self._get_activation(F, next_c, self._activation,
                                                               name=prefix + "activation0"), name=prefix + "out")
        return next_h, [next_h, next_c]


class _ConvGRU(_ConvCell):
    """Gates r, z and the candidate n, as gluon.rnn.GRUCell computes them; states [h]."""
    _gates = 3

    def _alias(self):
        return "conv_gru"

    def hybrid_forward(self, F, inputs, states, i2h_weight, h2h_weight, i2h_bias, h2h_bias):
        prefix = "t%d_" % self._counter
        prev = states[0]
        i2h, h2h = self._convolutions(F, inputs, prev, i2h_weight, h2h_weight, i2h_bias, h2h_bias, prefix)
        i2h_r, i2h_z, i2h_n = self._split(F, i2h, prefix + "i2h_slice")
        h2h_r, h2h_z, h2h_n = self._split(F, h2h, prefix + "h2h_slice")
        reset = F.Activation(F.elemwise_add(i2h_r, h2h_r, name=prefix + "plus0"), act_type="sigmoid",
                             name=prefix + "r_act")
        update = F.Activation(F.elemwise_add(i2h_z, h2h_z, name=prefix + "plus1"), act_type="sigmoid",
                              name=prefix + "z_act")
        # The reset gate scales the recurrent part only (after its bias), as in GRUCell.
        candidate = self._get_activation(F, F.elemwise_add(i2h_n, F.elemwise_mul(reset, h2h_n, name=prefix + "mul0"),
                                                           name=prefix + "plus2"), self._activation,
                                         name=prefix + "h_act")
        keep = F.elemwise_sub(F.ones_like(update, name=prefix + "ones_like0"), update, name=prefix + "minus0")
        next_h = F.elemwise_add(F.elemwise_mul(keep, candidate, name=prefix + "mul1"),
                                F.elemwise_mul(update, prev, name=prefix + "mul2"), name=prefix + "out")
        return next_h, [next_h]


class Conv1DRNNCell(_ConvRNN):
    """1D convolutional RNN cell; input_shape (C, W), conv_layout 'NCW' by default."""
    _dims = 1


class Conv2DRNNCell(_ConvRNN):
    """2D convolutional RNN cell; input_shape (C, H, W), conv_layout 'NCHW' by default."""
    _dims = 2


class Conv3DRNNCell(_ConvRNN):
    """3D convolutional RNN cell; input_shape (C, D, H, W), conv_layout 'NCDHW' by default."""
    _dims = 3


class Conv1DLSTMCell(_ConvLSTM):
    """1D convolutional LSTM cell; input_shape (C, W), conv_layout 'NCW' by default."""
    _dims = 1


class Conv2DLSTMCell(_ConvLSTM):
    """2D convolutional LSTM cell; input_shape (C, H, W), conv_layout 'NCHW' by default."""
    _dims = 2


class Conv3DLSTMCell(_ConvLSTM):
    """3D convolutional LSTM cell; input_shape (C, D, H, W), conv_layout 'NCDHW' by default."""
    _dims = 3


class Conv1DGRUCell(_ConvGRU):
    """1D convolutional GRU cell; input_shape (C, W), conv_layout 'NCW' by default."""
    _dims = 1


class Conv2DGRUCell(_ConvGRU):
    """2D convolutional GRU cell; input_shape (C, H, W), conv_layout 'NCHW' by default."""
    _dims = 2


class Conv3DGRUCell(_ConvGRU):
    """3D convolutional GRU cell; input_shape (C, D, H, W), conv_layout 'NCDHW' by default."""
    _dims = 3
