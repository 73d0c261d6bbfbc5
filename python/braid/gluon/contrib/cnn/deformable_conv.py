"""Deformable convolution layers of MXNet's gluon.contrib.cnn: DeformableConvolution (Dai et al.,
arXiv:1703.06211) and ModulatedDeformableConvolution (deformable ConvNets v2, Zhu et al.,
arXiv:1811.11168), 2D.

Each layer holds two convolutions: an ordinary one on the input that predicts, for every output
position, an (x, y) offset per kernel tap and deformable group (and, for the modulated form, a
weight per tap), and the deformable convolution that samples the input at the shifted taps.
The offset convolution starts at zero (its default initializers), so a fresh layer computes an
ordinary convolution. Parameter names are MXNet's: ``<prefix>offset_weight``,
``<prefix>offset_bias``, ``<prefix>deformable_conv_weight``, ``<prefix>deformable_conv_bias``."""
from .... import ndarray as _nd
from ...block import HybridBlock
from ... import nn

__all__ = ["DeformableConvolution", "ModulatedDeformableConvolution"]


def _pair(value):
    return tuple(int(v) for v in value) if isinstance(value, (list, tuple)) else (int(value),) * 2


class _Deformable(HybridBlock):
    """The parameters and the offset convolution; subclasses say how many offset channels there
    are per tap (2: x and y; 3: x, y and a modulation weight) and call their operator."""
    _per_tap = 2

    def __init__(self, channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1,
                 num_deformable_group=1, layout="NCHW", use_bias=True, in_channels=0, activation=None,
                 weight_initializer=None, bias_initializer="zeros", offset_weight_initializer="zeros",
                 offset_bias_initializer="zeros", offset_use_bias=True, op_name=None, adj=None, prefix=None,
                 params=None):
        super().__init__(prefix=prefix, params=params)
        assert layout in ("NCHW", "NHWC"), "Only supports 'NCHW' and 'NHWC' layout for now"
        kernel = _pair(kernel_size)
        self._channels, self._in_channels, self._layout = channels, in_channels, layout
        self._op_name = op_name or type(self).__name__
        # The offset convolution's outputs: the taps' offsets (x, y) per deformable group, then,
        # for the modulated form, the taps' modulation weights.
        taps = kernel[0] * kernel[1] * num_deformable_group
        self._offset_split = 2 * taps
        common = {"kernel": kernel, "stride": _pair(strides), "dilate": _pair(dilation), "pad": _pair(padding),
                  "num_group": groups, "layout": layout}
        if adj:
            common["adj"] = adj
        self._kwargs_offset = dict(common, num_filter=self._per_tap * taps, no_bias=not offset_use_bias)
        self._kwargs_deformable_conv = dict(common, num_filter=channels, num_deformable_group=num_deformable_group,
                                            no_bias=not use_bias)

        with self.name_scope():
            self.offset_weight = self.params.get("offset_weight", shape=self._weight_shape(self._per_tap * taps),
                                                 init=offset_weight_initializer, allow_deferred_init=True)
            self.offset_bias = (self.params.get("offset_bias", shape=(self._per_tap * taps,),
                                                init=offset_bias_initializer, allow_deferred_init=True)
                                if offset_use_bias else None)
            self.deformable_conv_weight = self.params.get("deformable_conv_weight",
                                                          shape=self._weight_shape(channels),
                                                          init=weight_initializer, allow_deferred_init=True)
            self.deformable_conv_bias = (self.params.get("deformable_conv_bias", shape=(channels,),
                                                         init=bias_initializer, allow_deferred_init=True)
                                         if use_bias else None)
            self.act = nn.Activation(activation, prefix=activation + "_") if activation else None

    def _weight_shape(self, out_channels, in_channels=None):
        """A convolution weight's shape in this layout; input channels 0 until known."""
        kernel = self._kwargs_offset["kernel"]
        if in_channels is None:
            in_channels = self._in_channels
        per_group = in_channels // self._kwargs_offset["num_group"]
        if self._layout == "NCHW":
            return (out_channels, per_group) + kernel
        return (out_channels,) + kernel + (per_group,)

    def forward(self, x, *args):
        # in_channels=0: the weights' input channels come from the first input.
        if isinstance(x, _nd.NDArray):
            in_channels = x.shape[self._layout.find("C")]
            for weight in (self.offset_weight, self.deformable_conv_weight):
                if weight._deferred:
                    weight._finish_deferred_init(self._weight_shape(weight.shape[0], in_channels))
        return super().forward(x, *args)

    def _offset(self, F, x, offset_weight, offset_bias):
        if offset_bias is None:
            return F.Convolution(x, offset_weight, cudnn_off=True, **self._kwargs_offset)
        return F.Convolution(x, offset_weight, offset_bias, cudnn_off=True, **self._kwargs_offset)

    def _activate(self, y):
        return self.act(y) if self.act is not None else y

    def __repr__(self):
        kw = self._kwargs_deformable_conv
        shape = self.deformable_conv_weight.shape
        in_channels = shape[1] if self._layout == "NCHW" else shape[-1]
        s = "{}({} -> {}, kernel_size={}, stride={}".format(type(self).__name__, in_channels or None, shape[0],
                                                            kw["kernel"], kw["stride"])
        if kw["pad"] != (0, 0):
            s += ", padding={}".format(kw["pad"])
        if kw["dilate"] != (1, 1):
            s += ", dilation={}".format(kw["dilate"])
        if kw["num_group"] != 1:
            s += ", groups={}".format(kw["num_group"])
        if self.deformable_conv_bias is None:
            s += ", bias=False"
        if self.act is not None:
            s += ", {}".format(self.act)
        return s + ")"


class DeformableConvolution(_Deformable):
    """2D deformable convolution: each kernel tap samples the input at a learned offset
    (bilinearly), the offsets predicted from the input by an ordinary convolution.

    ``DeformableConvolution(channels, kernel_size=(1, 1), strides=(1, 1), padding=(0, 0),
    dilation=(1, 1), groups=1, num_deformable_group=1, layout='NCHW', use_bias=True,
    in_channels=0, activation=None, weight_initializer=None, bias_initializer='zeros',
    offset_weight_initializer='zeros', offset_bias_initializer='zeros', offset_use_bias=True)``.
    Input (N, C, H, W) -> output (N, channels, H', W') with a convolution's H' and W'. Each of
    the ``num_deformable_group`` channel groups has offsets of its own."""

    def _alias(self):
        return "deformable_conv"

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        offset = self._offset(F, x, offset_weight, offset_bias)
        inputs = {"data": x, "offset": offset, "weight": deformable_conv_weight}
        if deformable_conv_bias is not None:
            inputs["bias"] = deformable_conv_bias
        y = F.contrib.DeformableConvolution(name="fwd", **inputs, **self._kwargs_deformable_conv)
        return self._activate(y)


class ModulatedDeformableConvolution(_Deformable):
    """2D modulated deformable convolution (deformable ConvNets v2): as DeformableConvolution,
    and each tap's sample is also scaled by a learned weight in (0, 2) (2 * sigmoid of the
    offset convolution's last ``kernel taps * num_deformable_group`` channels; 1 at the start).
    Same arguments as DeformableConvolution."""
    _per_tap = 3

    def _alias(self):
        return "modulated_deformable_conv"

    def hybrid_forward(self, F, x, offset_weight, deformable_conv_weight, offset_bias=None,
                       deformable_conv_bias=None):
        predicted = self._offset(F, x, offset_weight, offset_bias)
        channel = self._layout.find("C")
        offset = F.slice_axis(predicted, axis=channel, begin=0, end=self._offset_split)
        mask = F.sigmoid(F.slice_axis(predicted, axis=channel, begin=self._offset_split, end=None)) * 2
        inputs = {"data": x, "offset": offset, "mask": mask, "weight": deformable_conv_weight}
        if deformable_conv_bias is not None:
            inputs["bias"] = deformable_conv_bias
        y = F.contrib.ModulatedDeformableConvolution(name="fwd", **inputs, **self._kwargs_deformable_conv)
        return self._activate(y)
