// mx.profiler's core: recording state, declared spans, counters and markers, the trace dump and
// the statistics (python/braid/profiler.py arranges them under MXNet's names).
#include "braid/profiler/profiler.h"

#include "bindings.h"

namespace braid::python {

void bind_profiler(py::module_& m) {
  auto p = m.def_submodule("profiler", "Braid's profiler");
  p.def(
      "set_config",
      [](const std::string& filename, bool profile_imperative, bool profile_symbolic, bool profile_memory,
         bool profile_api, bool aggregate_stats, bool continuous_dump) {
        profiler::Config c;
        c.filename = filename;
        c.profile_imperative = profile_imperative;
        c.profile_symbolic = profile_symbolic;
        c.profile_memory = profile_memory;
        c.profile_api = profile_api;
        c.aggregate_stats = aggregate_stats;
        c.continuous_dump = continuous_dump;
        profiler::set_config(c);
      },
      py::arg("filename"), py::arg("profile_imperative"), py::arg("profile_symbolic"), py::arg("profile_memory"),
      py::arg("profile_api"), py::arg("aggregate_stats"), py::arg("continuous_dump"));
  p.def("set_state", &profiler::set_state);
  p.def("running", &profiler::running);
  p.def("set_paused", &profiler::set_paused);
  p.def("now_us", &profiler::now_us);
  p.def("record_span", &profiler::record_span);
  p.def("record_counter", &profiler::record_counter);
  p.def("record_marker", &profiler::record_marker);
  p.def("dump", &profiler::dump, py::call_guard<py::gil_scoped_release>());
  p.def("dumps", &profiler::dumps);
  p.def("set_scope", &profiler::set_scope);
}

}  // namespace braid::python
