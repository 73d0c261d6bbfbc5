#include "imperative/tracer.h"

namespace braid::imperative {
namespace {
thread_local Tracer* t_tracer = nullptr;
}  // namespace

Tracer* tracer() { return t_tracer; }

Tracer* set_tracer(Tracer* t) {
  Tracer* prev = t_tracer;
  t_tracer = t;
  return prev;
}

}  // namespace braid::imperative
