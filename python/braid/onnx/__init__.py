"""mxnet.onnx: MXNet models to and from ONNX (MXNet 1.9's ``mx.onnx.export_model``; the importer
of ``mx.contrib.onnx``), for the operators of convolutional networks and MLPs. Needs Debian's
python3-onnx (imported on first use).

    mx.onnx.export_model('net-symbol.json', 'net-0000.params', [(1, 1, 28, 28)], np.float32, 'net.onnx')
    sym, arg_params, aux_params = mx.onnx.import_model('net.onnx')
"""
from ._export import export_model, SUPPORTED_OPERATORS
from ._import import import_model, get_model_metadata

__all__ = ["export_model", "import_model", "get_model_metadata", "SUPPORTED_OPERATORS"]
