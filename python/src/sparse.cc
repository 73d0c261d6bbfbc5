// mx.nd.sparse's array classes (BaseSparseNDArray, CSRNDArray, RowSparseNDArray) and the C++
// functions behind mx.nd.sparse: making compressed arrays from their parts, converting, retain.
#include "braid/ndarray/sparse.h"
#include "bindings.h"

namespace braid::python {
namespace {

template <class Handle>
using SparseClass =
    py::class_<Handle, std::conditional_t<std::is_same_v<Handle, BaseSparseHandle>, NDArray, BaseSparseHandle>,
               std::unique_ptr<Handle, DeleteAsNDArray>>;

}  // namespace

void bind_sparse(py::module_& m) {
  SparseClass<BaseSparseHandle>(m, "BaseSparseNDArray")
      .def_property_readonly("data", [](const NDArray& a) { return sparse::data(a); })
      .def_property_readonly("indices", [](const NDArray& a) { return sparse::indices(a); })
      .def_property_readonly("_num_aux", [](const NDArray& a) { return sparse::aux(a).size(); })
      .def_property_readonly("_aux_types",
                             [](const NDArray& a) {
                               py::list types;
                               for (const auto& x : sparse::aux(a)) types.append(dtype_type(x.dtype()));
                               return types;
                             })
      .def("_data", [](const NDArray& a) { return sparse::data(a); })
      .def("_aux_data", [](const NDArray& a, size_t i) { return sparse::aux(a).at(i); })
      .def(
          "check_format", [](const NDArray& a, bool full_check) { sparse::check_format(a, full_check); },
          py::arg("full_check") = true, py::call_guard<py::gil_scoped_release>());
  SparseClass<CSRHandle>(m, "CSRNDArray").def_property_readonly("indptr", [](const NDArray& a) {
    return sparse::indptr(a);
  });
  SparseClass<RowSparseHandle>(m, "RowSparseNDArray");

  m.def(
      "sparse_csr",
      [](const NDArray& data, const NDArray& indptr, const NDArray& indices, py::handle shape) {
        return sparse::csr_matrix(data, indptr, indices, to_shape(shape));
      },
      py::arg("data"), py::arg("indptr"), py::arg("indices"), py::arg("shape"));
  m.def(
      "sparse_row_sparse",
      [](const NDArray& data, const NDArray& indices, py::handle shape) {
        return sparse::row_sparse_array(data, indices, to_shape(shape));
      },
      py::arg("data"), py::arg("indices"), py::arg("shape"));
  m.def(
      "sparse_zeros",
      [](const std::string& stype, py::handle shape, py::handle ctx, py::handle dtype) {
        return sparse::zeros(parse_storage_type(stype), to_shape(shape), to_context(ctx),
                             dtype.is_none() ? DType::Float32 : to_dtype(dtype));
      },
      py::arg("stype"), py::arg("shape"), py::arg("ctx") = py::none(), py::arg("dtype") = py::none());
  m.def(
      "sparse_retain", [](const NDArray& a, const NDArray& row_ids) { return sparse::retain(a, row_ids); },
      py::call_guard<py::gil_scoped_release>());
}

}  // namespace braid::python
