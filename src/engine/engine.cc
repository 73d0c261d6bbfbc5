#include "braid/engine/engine.h"

#include <unistd.h>

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

namespace {

detail::ThreadedEngine* g_threaded = nullptr;  // the process-wide engine, when threaded

// Operations still running when the program exits must finish before the static state of the
// libraries they use is destroyed (oneDNN's JIT kernels, caches). Those libraries create their
// statics lazily, inside operations, so exit() would destroy them before the engine. But exit()
// runs the exiting thread's thread_local destructors before any static one: this guard, made on
// the main thread by its first use of the engine, drains the engine there.
struct DrainOnMainThreadExit {
  bool is_main_thread = gettid() == getpid();
  ~DrainOnMainThreadExit() {
    if (is_main_thread && g_threaded) g_threaded->wait_idle();
  }
};

}  // namespace

Engine& Engine::get() {
  // Destroyed at exit after waiting for every pending operation.
  static std::unique_ptr<Engine> engine = [] {
    auto name = env_str({"BRAID_ENGINE_TYPE", "MXNET_ENGINE_TYPE"});
    std::unique_ptr<Engine> e = create_engine(name ? engine_type_from_name(*name) : EngineType::ThreadedPerDevice);
    g_threaded = dynamic_cast<detail::ThreadedEngine*>(e.get());
    return e;
  }();
  thread_local DrainOnMainThreadExit drain;
  (void)drain;
  return *engine;
}

}  // namespace braid::engine
