// MXNet's NDArray handles in Python: code written for MXNet receives a raw handle in monitor
// callbacks and wraps it back, `NDArray(ctypes.cast(arr, NDArrayHandle))`. An NDArray passed to
// ctypes gives, through `_as_parameter_`, a handle to a new reference to its array, and
// `NDArray(handle)` takes that reference over: a handle serves one NDArray, as in MXNet, and any
// other number is refused rather than read as memory.
#include <cstdint>
#include <memory>
#include <mutex>
#include <unordered_map>

#include "bindings.h"
#include "braid/base/error.h"

namespace braid::python {
namespace {

class HandleTable {
 public:
  uintptr_t issue(const NDArray& a) {
    std::lock_guard<std::mutex> lock(mu_);
    auto held = std::make_unique<NDArray>(a);
    const auto handle = reinterpret_cast<uintptr_t>(held.get());
    arrays_.emplace(handle, std::move(held));
    return handle;
  }
  NDArray take(uintptr_t handle) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = arrays_.find(handle);
    BRAID_CHECK(it != arrays_.end(), "NDArray(handle): ", handle,
                " is not an unused NDArray handle; a handle comes from ctypes.cast(array, NDArrayHandle) and "
                "makes one NDArray");
    NDArray a = *it->second;
    arrays_.erase(it);
    return a;
  }

 private:
  std::mutex mu_;
  std::unordered_map<uintptr_t, std::unique_ptr<NDArray>> arrays_;
};

HandleTable& handles() {
  static HandleTable* table = new HandleTable();  // outlives the interpreter's last arrays
  return *table;
}

uintptr_t handle_value(const py::object& handle) {
  py::object value = py::hasattr(handle, "value") ? handle.attr("value") : handle;  // ctypes.c_void_p or int
  BRAID_CHECK(!value.is_none() && py::isinstance<py::int_>(value),
              "NDArray(handle): expected an NDArrayHandle (ctypes.c_void_p) or an int, got ",
              py::str(handle.get_type()).cast<std::string>());
  return value.cast<uintptr_t>();
}

}  // namespace

void bind_ndarray_handles(py::module_& m) {
  auto cls = py::reinterpret_borrow<py::class_<NDArray>>(m.attr("NDArray"));
  cls.def(py::init([](const py::object& handle, bool) { return handles().take(handle_value(handle)); }),
          py::arg("handle"), py::arg("writable") = true)
      .def_property_readonly("_as_parameter_", [](const NDArray& a) { return handles().issue(a); });
}

}  // namespace braid::python
