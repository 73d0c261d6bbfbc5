"""python3 -m braid.onnx export SYMBOL PARAMS --shape 1,1,28,28 [-o model.onnx] [--dynamic]
python3 -m braid.onnx import MODEL.onnx PREFIX   (writes PREFIX-symbol.json and PREFIX-0000.params)"""
import argparse
import sys

import numpy as np

from .. import ndarray as _nd
from ..base import MXNetError
from . import export_model, import_model


def _shape(text):
    try:
        return tuple(int(d) for d in text.split(","))
    except ValueError:
        raise argparse.ArgumentTypeError("a shape is whole numbers separated by commas, e.g. 1,1,28,28; got %r"
                                         % text) from None


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python3 -m braid.onnx", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command", required=True)
    export = commands.add_parser("export", help="an MXNet model file pair to ONNX")
    export.add_argument("symbol", help="the -symbol.json file")
    export.add_argument("params", help="the .params file")
    export.add_argument("--shape", type=_shape, action="append", required=True,
                        help="the shape of an input (repeat for several, in the graph's order)")
    export.add_argument("-o", "--output", default="model.onnx")
    export.add_argument("--dynamic", action="store_true", help="a symbolic batch axis")
    back = commands.add_parser("import", help="an ONNX model to MXNet's files")
    back.add_argument("model", help="the .onnx file")
    back.add_argument("prefix", help="writes PREFIX-symbol.json and PREFIX-0000.params")
    args = parser.parse_args(argv)
    try:
        if args.command == "export":
            print(export_model(args.symbol, args.params, args.shape, np.float32, args.output, dynamic=args.dynamic))
        else:
            sym, arg_params, aux_params = import_model(args.model)
            sym.save(args.prefix + "-symbol.json")
            saved = {"arg:" + k: v for k, v in arg_params.items()}
            saved.update({"aux:" + k: v for k, v in aux_params.items()})
            _nd.save(args.prefix + "-0000.params", saved)
            print(args.prefix + "-symbol.json", args.prefix + "-0000.params")
    except (MXNetError, OSError) as e:
        print("braid.onnx: error: %s" % e, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
