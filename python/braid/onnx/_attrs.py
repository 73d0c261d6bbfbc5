"""MXNet's attribute strings ("(3, 3)", "True", "0.5") as Python values, and the onnx package."""
import ast

from ..base import MXNetError


def onnx_package():
    try:
        import onnx
    except ImportError:
        raise MXNetError("mx.onnx needs the onnx Python package: install Debian's python3-onnx "
                         "(scripts/install-deps.sh installs it)") from None
    return onnx


def value(text):
    """'(1, 2)' -> (1, 2), 'True' -> True, '0.5' -> 0.5, 'relu' -> 'relu'."""
    if not isinstance(text, str):
        return text
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        return text


def ints(text, n=None):
    """An attribute holding a number or a tuple as a list of ints (a number repeated n times)."""
    v = value(text)
    if isinstance(v, (int, float)):
        return [int(v)] * (n or 1)
    return [int(x) for x in v]


def flag(attrs, name, default):
    v = value(attrs.get(name, default))
    return v if isinstance(v, bool) else str(v).lower() in ("true", "1")
