#pragma once
// Internal: dynamic batching for one model version. Requests queue up; each of the model's
// instances (a thread with its own copy of the model) takes the oldest request and every queued
// request of the same input shapes, up to max_batch_size rows, waiting up to max_queue_delay_us
// for more to come; runs them as one batch; and hands each request its rows of the outputs. The
// queue is bounded: a request beyond max_queue_size is refused at once (503), rather than waiting
// without limit.
#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "braid/serving/histogram.h"
#include "braid/serving/model.h"

namespace braid::serving {

struct BatchingOptions {
  int64_t max_batch_size = 0;      // rows; 0: no merging
  int64_t max_queue_delay_us = 0;  // how long a batch waits to fill
  size_t max_queue_size = 256;     // requests waiting
  int instances = 1;
};

class Batcher {
 public:
  /// `load(i)` makes instance i's copy of the model.
  Batcher(const std::function<std::unique_ptr<Model>(int instance)>& load, BatchingOptions options);
  ~Batcher();
  /// The outputs for `inputs` (a batch of its own); throws RequestError(503) when the queue is full,
  /// or the model's error.
  std::vector<NDArray> run(std::map<std::string, NDArray> inputs);
  /// Batches run so far and their rows (for /metrics).
  struct Stats {
    Histogram batch_rows{{1, 2, 4, 8, 16, 32, 64, 128, 256}};  // per batch
    Histogram queue_seconds;                                   // per request: from arrival to its batch's start
    Histogram compute_seconds;                                 // per batch: the model's run
    size_t queued = 0;                                         // requests waiting now
    size_t batched = 0;                                        // requests in a batch forming or running now
  };
  Stats stats() const;

 private:
  struct Pending {
    std::map<std::string, NDArray> inputs;
    int64_t rows = 0;
    std::string key;  // the inputs' shapes beyond the batch axis: which requests can merge
    std::chrono::steady_clock::time_point arrived = std::chrono::steady_clock::now();
    std::promise<std::vector<NDArray>> result;
  };
  void instance(Model& model);

  BatchingOptions options_;
  std::vector<std::unique_ptr<Model>> models_;
  mutable std::mutex mu_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Pending>> queue_;
  bool stopping_ = false;
  Stats stats_;
  std::vector<std::thread> threads_;
};

}  // namespace braid::serving
