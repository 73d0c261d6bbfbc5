// DLPack capsules (to_dlpack_for_read/write, from_dlpack, NDArray.__dlpack__) and NumPy arrays
// shared without a copy (from_numpy). Memory another framework lent is given back on Python's
// main thread: the array is freed on an engine worker, which must not wait for the GIL (the main
// thread may hold it while it waits for that worker), so the release goes through
// Py_AddPendingCall.
#include <Python.h>

#include <functional>
#include <mutex>
#include <vector>

#include "bindings.h"
#include "braid/base/error.h"
#include "braid/ndarray/dlpack.h"

namespace braid::python {
namespace {

constexpr const char* kCapsule = "dltensor";
constexpr const char* kUsedCapsule = "used_dltensor";

std::mutex g_release_mu;
std::vector<std::function<void()>> g_releases;  // run on the main thread, GIL held
bool g_drain_scheduled = false;

int drain_releases(void*) {
  std::vector<std::function<void()>> todo;
  {
    std::lock_guard<std::mutex> lock(g_release_mu);
    todo.swap(g_releases);
    g_drain_scheduled = false;
  }
  for (auto& release : todo) release();
  return 0;
}

void release_on_main_thread(std::function<void()> release) {
  std::lock_guard<std::mutex> lock(g_release_mu);
  g_releases.push_back(std::move(release));
  // When Python's queue of pending calls is full, the next release (or import) tries again.
  if (!g_drain_scheduled && Py_IsInitialized()) g_drain_scheduled = Py_AddPendingCall(drain_releases, nullptr) == 0;
}

void delete_unused_capsule(PyObject* capsule) {
  if (!PyCapsule_IsValid(capsule, kCapsule)) return;  // consumed: the consumer owns the tensor
  auto* t = static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(capsule, kCapsule));
  if (t && t->deleter) t->deleter(t);
}

py::object capsule_of(const NDArray& a, bool for_write) {
  dlpack::DLManagedTensor* t = nullptr;
  {
    py::gil_scoped_release release;  // waits for the array's pending operations
    t = dlpack::to_dlpack(a, for_write);
  }
  PyObject* capsule = PyCapsule_New(t, kCapsule, delete_unused_capsule);
  if (!capsule) {
    t->deleter(t);
    throw py::error_already_set();
  }
  return py::reinterpret_steal<py::object>(capsule);
}

NDArray array_of_capsule(py::object source) {
  drain_releases(nullptr);
  py::object capsule = py::hasattr(source, "__dlpack__") ? source.attr("__dlpack__")() : source;
  BRAID_CHECK(PyCapsule_IsValid(capsule.ptr(), kCapsule),
              "from_dlpack: expected a DLPack capsule named 'dltensor' (from to_dlpack_for_read/write or "
              "torch.utils.dlpack.to_dlpack) or an object with __dlpack__; got ",
              py::repr(source).cast<std::string>(),
              PyCapsule_IsValid(capsule.ptr(), kUsedCapsule) ? " (already used: a capsule can be taken once)" : "");
  auto* t = static_cast<dlpack::DLManagedTensor*>(PyCapsule_GetPointer(capsule.ptr(), kCapsule));
  NDArray a = dlpack::from_dlpack(t, [](dlpack::DLManagedTensor* m) {
    release_on_main_thread([m] {
      if (m->deleter) m->deleter(m);
    });
  });
  PyCapsule_SetName(capsule.ptr(), kUsedCapsule);
  return a;
}

// MXNet's from_numpy with zero_copy: the array's memory, kept alive by the array object.
NDArray borrow_numpy(py::array source) {
  drain_releases(nullptr);
  BRAID_CHECK(source.flags() & py::array::c_style, "from_numpy: only C-contiguous arrays can be shared");
  const DType dtype = dtype_from_name(py::str(source.dtype().attr("name")).cast<std::string>());
  std::vector<int64_t> dims(source.shape(), source.shape() + source.ndim());
  auto* keep = new py::object(source);
  std::shared_ptr<void> owner(keep,
                              [](void* p) { release_on_main_thread([p] { delete static_cast<py::object*>(p); }); });
  return NDArray::borrowed(const_cast<void*>(source.data()), Shape(dims), dtype, cpu(), std::move(owner));
}

}  // namespace

void bind_dlpack(py::module_& m) {
  m.def("to_dlpack", &capsule_of, py::arg("data"), py::arg("for_write"));
  m.def("from_dlpack", &array_of_capsule, py::arg("dlpack"));
  m.def("borrow_numpy", &borrow_numpy, py::arg("array"));
  m.def("dlpack_device", [](const NDArray& a) {
    dlpack::DLDevice d = dlpack::device_of(a.ctx());
    return py::make_tuple(d.device_type, d.device_id);
  });
}

}  // namespace braid::python
