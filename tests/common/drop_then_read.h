#pragma once
// The drop-then-read pattern of MXNet programs: a helper makes an executor, module, block, trainer
// or store, runs it, returns the arrays it handed out, and the caller reads them after the
// producer is gone. MXNet needs no wait in between; neither may Braid.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "common/engine_gate.h"

namespace braid::test {

/// What a producer handed out, and the producer itself (the only owner: resetting it destroys it).
struct Produced {
  std::vector<NDArray> results;
  std::shared_ptr<void> producer;
};
/// Makes a producer and gives it `input`.
using Produce = std::function<Produced(const NDArray& input)>;

/// Runs of the pattern per test: BRAID_DROP_RUNS, default 25.
inline int drop_runs() {
  const char* v = std::getenv("BRAID_DROP_RUNS");
  return v ? std::max(1, std::atoi(v)) : 25;
}

/// Each run holds the producer's work behind a gate on `input` until the producer is destroyed,
/// then reads the results: they must equal the reference run's bit for bit, and destroying the
/// producer must not have waited for the held work.
inline void expect_results_outlive_producer(const Produce& produce, const std::function<NDArray()>& make_input) {
  std::vector<std::vector<float>> want;
  {
    Produced reference = produce(make_input());
    nd::waitall();
    reference.producer.reset();
    for (const NDArray& a : reference.results) want.push_back(a.to_vector<float>());
  }
  ASSERT_FALSE(want.empty());
  const int runs = drop_runs();
  for (int run = 0; run < runs; ++run) {
    NDArray input = make_input();
    input.wait_to_read();
    EngineGate gate(input);
    Produced p = produce(input);
    p.producer.reset();
    gate.open();
    const std::vector<NDArray>& got = p.results;
    ASSERT_EQ(got.size(), want.size()) << "run " << run;
    for (size_t i = 0; i < got.size(); ++i)
      ASSERT_EQ(got[i].to_vector<float>(), want[i]) << "run " << run << ", result " << i;
    ASSERT_FALSE(gate.timed_out()) << "run " << run << ": something waited for the queued work before the gate opened";
  }
}

}  // namespace braid::test
