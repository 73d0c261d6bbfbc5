// braid._core: the C++ library as seen from Python. Each bind_* function (one file per area)
// adds its classes and functions; the Python package (python/braid) arranges them under MXNet's
// module names.
#include "bindings.h"

#include "braid/base/error.h"
#include "braid/base/index_error.h"

PYBIND11_MODULE(_core, m) {
  m.doc() = "Braid's C++ core; use it through the braid package (import braid as mx)";
  // MXNet raises MXNetError (a RuntimeError subclass in later 1.x) with the backend's message.
  static py::exception<braid::Error> mxnet_error(m, "MXNetError", PyExc_RuntimeError);
  // An index out of its axis is also Python's IndexError, as MXNet's registered error types are.
  static py::object index_error = py::reinterpret_steal<py::object>(PyErr_NewException(
      "braid._core.MXNetIndexError", py::make_tuple(mxnet_error, py::handle(PyExc_IndexError)).ptr(), nullptr));
  m.attr("MXNetIndexError") = index_error;
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const braid::IndexError& e) {
      PyErr_SetString(index_error.ptr(), e.what());
    } catch (const braid::Error& e) {
      mxnet_error(e.what());
    }
  });
  braid::python::bind_context(m);
  braid::python::bind_ndarray(m);
  braid::python::bind_sparse(m);
  braid::python::bind_symbol(m);
  braid::python::bind_indexing(m);
  braid::python::bind_ndarray_handles(m);
  braid::python::bind_custom_op(m);
  braid::python::bind_autograd(m);
  braid::python::bind_init(m);
  braid::python::bind_optim(m);
  braid::python::bind_gluon_block(m);
  braid::python::bind_gluon_nn(m);
  braid::python::bind_gluon_model_zoo(m);
  braid::python::bind_gluon_loss(m);
  braid::python::bind_gluon_data(m);
  braid::python::bind_kvstore(m);  // after gluon (DistributedTrainer derives from Trainer)
  braid::python::bind_io(m);
  braid::python::bind_module(m);
  braid::python::bind_runtime(m);
  braid::python::bind_profiler(m);
  braid::python::bind_random(m);
  braid::python::bind_amp(m);
  braid::python::bind_dlpack(m);
  braid::python::bind_image(m);
}
