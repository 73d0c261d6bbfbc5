// mx.random: seeding one context's generator (the global seed is braid._core.seed).
#include "braid/ndarray/random.h"
#include "bindings.h"

namespace braid::python {

void bind_random(py::module_& m) {
  m.def(
      "seed_context", [](uint64_t seed, Context ctx) { nd::seed(seed, ctx); }, py::arg("seed"), py::arg("ctx"),
      "Reseeds the generator of ctx only (mx.random.seed(seed, ctx=ctx)).");
}

}  // namespace braid::python
