#include "braid/engine/engine.h"

#include "braid/base/env.h"
#include "braid/base/error.h"
#include "naive_engine.h"
#include "threaded_engine.h"

namespace braid::engine {

EngineType engine_type_from_name(const std::string& name) {
  if (name == "NaiveEngine") return EngineType::Naive;
  if (name == "ThreadedEnginePerDevice" || name == "ThreadedEngine") return EngineType::ThreadedPerDevice;
  throw Error(cat("unknown engine type '", name,
                  "' in BRAID_ENGINE_TYPE/MXNET_ENGINE_TYPE; valid: NaiveEngine, "
                  "ThreadedEnginePerDevice, ThreadedEngine"));
}

std::unique_ptr<Engine> create_engine(EngineType type, int cpu_workers, int64_t max_pending) {
  if (type == EngineType::Naive) return std::make_unique<detail::NaiveEngine>();
  return std::make_unique<detail::ThreadedEngine>(cpu_workers, max_pending);
}

Engine& Engine::get() {
  // Destroyed at exit after waiting for every pending operation.
  static std::unique_ptr<Engine> engine = [] {
    auto name = env_str({"BRAID_ENGINE_TYPE", "MXNET_ENGINE_TYPE"});
    return create_engine(name ? engine_type_from_name(*name) : EngineType::ThreadedPerDevice);
  }();
  return *engine;
}

}  // namespace braid::engine
