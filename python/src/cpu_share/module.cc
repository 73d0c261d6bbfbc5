// braid._cpu_share: the busy-machine measurement alone, without OpenMP (braid/device/cpu_share.h).
// The braid package imports it before braid._core, whose libraries start OpenMP: while OpenMP is
// not loaded yet, OMP_WAIT_POLICY=PASSIVE can still be set for it.
#include <pybind11/pybind11.h>

#include <cstdlib>

#include "braid/device/cpu_share.h"

PYBIND11_MODULE(_cpu_share, m) {
  m.doc() = "How busy this process's cores are, measured before OpenMP starts (braid/device/cpu_share.h)";
  m.def(
      "prepare_wait_policy",
      [] {
        const bool chosen = std::getenv("OMP_WAIT_POLICY") != nullptr;
        const double busy = braid::cpu_share::prepare_wait_policy();
        return pybind11::make_tuple(busy, !chosen && std::getenv("OMP_WAIT_POLICY") != nullptr);
      },
      "Measures; sets OMP_WAIT_POLICY=PASSIVE when every core is busy and OpenMP has not started. Returns (the busy "
      "cores or -1 when nothing was measured, whether it set OMP_WAIT_POLICY)");
}
