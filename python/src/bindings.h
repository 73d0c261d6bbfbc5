#pragma once
// Shared by the binding files of braid._core: the bind_* entry points and the conversions
// between Python values and Braid's (MXNet attribute strings, contexts, arrays).
#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "braid/gluon/block.h"
#include "braid/init/init.h"
#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace py = pybind11;

namespace braid::python {

/// The Python classes of compressed arrays (mx.nd.sparse.BaseSparseNDArray, CSRNDArray,
/// RowSparseNDArray): NDArray handles, which Python sees as these subclasses of NDArray by their
/// storage type (the hook below). They add no members.
struct BaseSparseHandle : NDArray {};
struct CSRHandle : BaseSparseHandle {};
struct RowSparseHandle : BaseSparseHandle {};
/// Their instances are NDArrays that pybind11 made: deleted as such.
struct DeleteAsNDArray {
  void operator()(NDArray* a) const { delete a; }
};

}  // namespace braid::python

template <>
struct pybind11::polymorphic_type_hook<braid::NDArray> {
  static const void* get(const braid::NDArray* src, const std::type_info*& type) {
    type = nullptr;
    if (src && src->stype() == braid::StorageType::CSR) type = &typeid(braid::python::CSRHandle);
    if (src && src->stype() == braid::StorageType::RowSparse) type = &typeid(braid::python::RowSparseHandle);
    return src;
  }
};

namespace braid::python {

void bind_context(py::module_& m);
void bind_ndarray(py::module_& m);
void bind_indexing(py::module_& m);
void bind_sparse(py::module_& m);           // sparse.cc
void bind_ndarray_handles(py::module_& m);  // ndarray_handle.cc
void bind_custom_op(py::module_& m);        // custom_op.cc
void bind_autograd(py::module_& m);
void bind_init(py::module_& m);
void bind_gluon_block(py::module_& m);
void bind_gluon_nn(py::module_& m);
void bind_gluon_model_zoo(py::module_& m);  // gluon_model_zoo.cc (after bind_gluon_nn)
void bind_gluon_loss(py::module_& m);
void bind_optim(py::module_& m);
void bind_gluon_data(py::module_& m);
void bind_symbol(py::module_& m);
void bind_io(py::module_& m);
void bind_module(py::module_& m);
void bind_kvstore(py::module_& m);
void bind_runtime(py::module_& m);
void bind_profiler(py::module_& m);
void bind_random(py::module_& m);
void bind_amp(py::module_& m);
void bind_dlpack(py::module_& m);
void bind_image(py::module_& m);  // image.cc

/// A Python callable that C++ code may copy and drop without the GIL: it is released with the
/// GIL held, whoever drops the last copy.
std::shared_ptr<py::object> held_with_gil(py::object fn);

/// A Python value as MXNet writes it into an operator attribute: True/False, ints, floats as
/// Python's repr, tuples and lists as "(1, 2)", dtypes by name, contexts as "cpu(0)".
std::string attr_string(py::handle value);
/// Keyword arguments that are not None, as attributes.
op::AttrMap attr_map(const py::dict& kwargs);
/// A dtype from "float32", numpy.float32 or numpy.dtype('float32').
DType to_dtype(py::handle value);
/// The NumPy scalar type of `dtype` (numpy.float32), what MXNet's NDArray.dtype returns.
py::object dtype_type(DType dtype);
/// A shape from an int or a sequence of ints.
Shape to_shape(py::handle value);
py::tuple shape_tuple(const Shape& shape);
/// A context from a Context, "cpu(0)", or None (the current default, braid.context).
Context to_context(py::handle value);
Context current_context();
/// A list of contexts from one context, a list of them, or None (the current default).
std::vector<Context> contexts(py::handle ctx);
/// An initializer from an Initializer, MXNet's name ("xavier", "zeros") or None (nullptr).
init::InitializerPtr init_of(py::handle value);

/// MXNet's `params=` of a block's constructor: while the result lives, the next block created takes
/// its parameters from that ParameterDict (nothing for None).
std::unique_ptr<gluon::ShareParameters> sharing(py::handle params);

/// A Python callable for C++ std::functions that may run, and be destroyed, where the GIL is not
/// held (worker threads, a backward walk): release it with the GIL held; call it after taking the GIL.
std::shared_ptr<py::function> hold(py::function fn);

/// An array holding `source` (anything numpy.asarray takes) as `dtype` (default float32) on `ctx`
/// (default: the current context).
NDArray from_numpy(py::handle source, std::optional<Context> ctx, std::optional<DType> dtype);
/// A NumPy copy of `a`, once pending writes are done.
pybind11::array to_numpy(const NDArray& a);

}  // namespace braid::python
