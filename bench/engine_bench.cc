// Engine overhead: empty operations pushed through the naive and the threaded engine. Reported
// per op (amortized: a batch of pushes, then one wait_for_all).
#include <benchmark/benchmark.h>

#include <vector>

#include "braid/engine/engine.h"

namespace {

using braid::engine::EngineType;
using braid::engine::VarHandle;

constexpr int kBatch = 10000;

// Each op writes one of `num_vars` variables round-robin (0: no variables at all).
void push_empty_ops(benchmark::State& state, EngineType type) {
  auto engine = braid::engine::create_engine(type);
  const int num_vars = static_cast<int>(state.range(0));
  std::vector<VarHandle> vars;
  for (int i = 0; i < num_vars; ++i) vars.push_back(engine->new_var());
  for (auto _ : state) {
    for (int i = 0; i < kBatch; ++i) {
      std::span<const VarHandle> writes;
      if (num_vars) writes = std::span<const VarHandle>(&vars[static_cast<size_t>(i % num_vars)], 1);
      engine->push([] {}, braid::cpu(), {}, writes, 0, "empty");
    }
    engine->wait_for_all();
  }
  state.SetItemsProcessed(state.iterations() * kBatch);
  state.counters["ns_per_op"] = benchmark::Counter(static_cast<double>(state.iterations() * kBatch),
                                                   benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  for (VarHandle v : vars) engine->delete_var(nullptr, braid::cpu(), v);
  engine->wait_for_all();
}

void BM_NaiveEngineEmptyOp(benchmark::State& state) { push_empty_ops(state, EngineType::Naive); }
void BM_ThreadedEngineEmptyOp(benchmark::State& state) { push_empty_ops(state, EngineType::ThreadedPerDevice); }

BENCHMARK(BM_NaiveEngineEmptyOp)->Arg(0)->Arg(1)->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThreadedEngineEmptyOp)->Arg(0)->Arg(1)->Arg(64)->UseRealTime()->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
