"""gluon.utils: splitting batches over contexts, clipping gradients, downloading files, and the
handles of forward hooks."""
import hashlib
import math
import os
import uuid
import warnings
import weakref
from collections import OrderedDict

from .._core.gluon import utils as _u

__all__ = ["split_data", "split_and_load", "clip_global_norm", "check_sha1", "download", "HookHandle",
           "shape_is_known", "replace_file"]


def _check_split(data, num_slice, batch_axis, even_split):
    size = data.shape[batch_axis]
    if even_split and size % num_slice != 0:
        raise ValueError("data with shape %s cannot be evenly split into %d slices along axis %d. Use a batch size "
                         "that's multiple of %d or set even_split=False to allow uneven partitioning of data."
                         % (str(data.shape), num_slice, batch_axis, num_slice))
    if size < num_slice:
        raise ValueError("Too many slices for data with shape %s. Arguments are num_slice=%d and batch_axis=%d."
                         % (str(data.shape), num_slice, batch_axis))


def split_data(data, num_slice, batch_axis=0, even_split=True):
    """``data`` cut into ``num_slice`` slices along ``batch_axis``; with ``even_split=False`` the
    first slices take one sample more when the size does not divide."""
    _check_split(data, num_slice, batch_axis, even_split)
    return _u.split_data(data, num_slice, batch_axis, even_split)


def split_and_load(data, ctx_list, batch_axis=0, even_split=True):
    """``data`` (an NDArray or anything NumPy reads) split into one slice per context of
    ``ctx_list``, each slice copied to its context."""
    if not isinstance(ctx_list, (list, tuple)):
        ctx_list = [ctx_list]
    if hasattr(data, "shape") and len(ctx_list) > 1:
        _check_split(data, len(ctx_list), batch_axis, even_split)
    return _u.split_and_load(data, list(ctx_list), batch_axis, even_split)


def clip_global_norm(arrays, max_norm, check_isfinite=True):
    """Scales ``arrays`` in place so that their joint 2-norm is at most ``max_norm``; returns the
    norm before scaling: with ``check_isfinite`` as a float (a NaN or infinite norm is warned
    about), otherwise as MXNet does, as an NDArray of shape (1,) on the first array's context."""
    arrays = list(arrays)
    norm = _u.clip_global_norm(arrays, max_norm, check_isfinite)
    if not check_isfinite:
        from ..ndarray import array
        return array([norm], ctx=arrays[0].context, dtype=arrays[0].dtype)
    if not math.isfinite(norm):
        warnings.warn(UserWarning("nan or inf is detected. Clipping results will be undefined."), stacklevel=2)
    return norm


def check_sha1(filename, sha1_hash):
    """Whether the SHA-1 of the file's content is ``sha1_hash`` (hex)."""
    sha1 = hashlib.sha1()
    with open(filename, "rb") as f:
        for chunk in iter(lambda: f.read(1048576), b""):
            sha1.update(chunk)
    return sha1.hexdigest() == sha1_hash


def replace_file(src, dst):
    """Moves ``src`` over ``dst`` in one step (both in one file system)."""
    os.replace(src, dst)


def download(url, path=None, overwrite=False, sha1_hash=None, retries=5, verify_ssl=True):
    """Downloads ``url`` (with ``requests``) to ``path`` (a file, a folder, or by default the
    URL's last component) unless it is there with the right ``sha1_hash``; returns the file name.
    The content goes to a temporary file first and replaces the target in one step, so that
    processes downloading the same file at once leave one whole file. Failures are retried
    ``retries`` times."""
    if path is None:
        fname = url.split("/")[-1]
        assert fname, "Can't construct file-name from this URL. Please set the `path` option manually."
    else:
        path = os.path.expanduser(path)
        fname = os.path.join(path, url.split("/")[-1]) if os.path.isdir(path) else path
    assert retries >= 0, "Number of retries should be at least 0, currently it's {}".format(retries)
    if not verify_ssl:
        warnings.warn("Unverified HTTPS request is being made (verify_ssl=False). "
                      "Adding certificate verification is strongly advised.")
    if not (overwrite or not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash))):
        return fname
    import requests
    dirname = os.path.dirname(os.path.abspath(os.path.expanduser(fname)))
    os.makedirs(dirname, exist_ok=True)
    while retries + 1 > 0:
        try:
            print("Downloading {} from {}...".format(fname, url))
            r = requests.get(url, stream=True, verify=verify_ssl)
            if r.status_code != 200:
                raise RuntimeError("Failed downloading url {}".format(url))
            temp = "{}.{}".format(fname, uuid.uuid4())
            with open(temp, "wb") as f:
                for chunk in r.iter_content(chunk_size=1024):
                    if chunk:
                        f.write(chunk)
            if not os.path.exists(fname) or (sha1_hash and not check_sha1(fname, sha1_hash)):
                replace_file(temp, fname)
            else:  # another process finished it first
                os.remove(temp)
                warnings.warn("File {} exists in file system so the downloaded file is deleted".format(fname))
            if sha1_hash and not check_sha1(fname, sha1_hash):
                raise UserWarning("File {} is downloaded but the content hash does not match. The repo may be "
                                  "outdated or download may be incomplete.".format(fname))
            break
        except Exception as e:
            retries -= 1
            if retries <= 0:
                raise e
            print("download failed due to {}, retrying, {} attempt{} left".format(
                repr(e), retries, "s" if retries > 1 else ""))
    return fname


def shape_is_known(shape):
    """Whether every dimension of ``shape`` is known (none is 0 or -1)."""
    if shape is None:
        return False
    return all(d > 0 for d in shape)


class HookHandle(object):
    """Returned by register_forward_hook and friends: ``detach()`` removes the hook (also as a
    context manager)."""

    def __init__(self):
        self._hooks_dict_ref = None
        self._id = None

    def attach(self, hooks_dict, hook):
        assert not self._hooks_dict_ref, "The same handle cannot be attached twice."
        self._id = id(hook)
        hooks_dict[self._id] = hook
        self._hooks_dict_ref = weakref.ref(hooks_dict)

    def detach(self):
        hooks_dict = self._hooks_dict_ref() if self._hooks_dict_ref else None
        if hooks_dict is not None and self._id in hooks_dict:
            del hooks_dict[self._id]

    def __getstate__(self):
        return (self._hooks_dict_ref() if self._hooks_dict_ref else None, self._id)

    def __setstate__(self, state):
        self._hooks_dict_ref = weakref.ref(state[0] if state[0] is not None else OrderedDict())
        self._id = state[1]

    def __enter__(self):
        return self

    def __exit__(self, ptype, value, trace):
        self.detach()
