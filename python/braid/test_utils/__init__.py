"""mxnet.test_utils: what tests of MXNet programs use to compare arrays, check gradients, draw
random inputs and set the environment, with MXNet's names, arguments and tolerances.

The helpers live in private modules by idea (_comparison, _symbolic, _consistency,
_random_inputs, _distributions, _environment) and are all names of this package, so that
`from mxnet.test_utils import *` gives what MXNet's does.
"""
# MXNet's test_utils has these module names at top level, and tests get them with
# `from mxnet.test_utils import *`.
import bz2  # noqa: F401
import contextlib  # noqa: F401
import errno  # noqa: F401
import functools  # noqa: F401
import gzip  # noqa: F401
import json  # noqa: F401
import logging  # noqa: F401
import numbers  # noqa: F401
import os  # noqa: F401
import platform  # noqa: F401
import struct  # noqa: F401
import sys
import time  # noqa: F401
import traceback  # noqa: F401
import zipfile  # noqa: F401
from collections import OrderedDict  # noqa: F401
from contextlib import contextmanager  # noqa: F401

import numpy as np  # noqa: F401
import numpy as _np  # noqa: F401
import numpy.random as rnd  # noqa: F401
import numpy.testing as npt  # noqa: F401

from .. import _core  # noqa: F401
from .._core import NDArray  # noqa: F401
from ..context import Context, current_context, _set_current_context  # noqa: F401
from ..ndarray import array  # noqa: F401 (MXNet's test_utils imports it at top level)

from ._environment import (  # noqa: F401
    default_context, set_default_context, default_dtype, list_gpus, is_cd_run, is_aarch64_run, environment, _set_env, set_env_var,
    retry, discard_stderr, download, download_model, DummyIter, is_op_runnable, has_tvm_ops)
from ._comparison import (  # noqa: F401
    default_rtols, default_atols, default_numeric_eps, effective_dtype, _dtype_of, get_tolerance, get_tols,
    get_rtol, get_atol, get_etol, _as_numpy, same, same_array, reldiff, almost_equal, find_max_violation,
    _mismatch_report, assert_almost_equal, assert_almost_equal_with_err, _zero_nans, almost_equal_ignore_nan,
    assert_almost_equal_ignore_nan, assert_allclose, assert_exception, compare_ndarray_tuple, compare_optimizer)
from ._random_inputs import (  # noqa: F401
    random_arrays, random_sample, random_uniform_arrays, rand_shape_2d, rand_shape_3d, rand_shape_nd, rand_coord_2d,
    rand_ndarray, rand_sparse_ndarray, np_reduce, collapse_sum_like, assign_each, assign_each2,
    shuffle_csr_column_indices, create_sparse_array, create_sparse_array_zd)
from ._symbolic import (  # noqa: F401
    _parse_location, _parse_aux_states, _bind, simple_forward, check_symbolic_forward, check_symbolic_backward,
    numeric_grad, check_numeric_gradient, same_symbol_structure)
from ._matrices import (  # noqa: F401
    new_matrix_with_real_eigvals_2d, new_matrix_with_real_eigvals_nd, new_orthonormal_matrix_2d,
    new_sym_matrix_with_real_eigvals_2d, new_sym_matrix_with_real_eigvals_nd)
from ..util import use_np, getenv, setenv  # noqa: F401
from ..runtime import Features  # noqa: F401
from ..symbol import Symbol  # noqa: F401
from ._consistency import check_consistency, check_gluon_hybridize_consistency  # noqa: F401
from ._distributions import (  # noqa: F401
    gen_buckets_probs_with_ppf, mean_check, var_check, chi_square_check, verify_generator)

mx = sys.modules[__name__.rpartition(".")[0]]  # the braid package, which `import mxnet as mx` also names
