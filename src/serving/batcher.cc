#include "batcher.h"

#include <algorithm>

#include "braid/ndarray/invoke.h"
#include "braid/serving/protocol.h"

namespace braid::serving {
namespace {

std::string merge_key(const std::map<std::string, NDArray>& inputs) {
  std::string key;
  for (const auto& [name, a] : inputs) {
    std::vector<int64_t> rest(a.shape().dims().begin() + 1, a.shape().dims().end());
    key += name + Shape(rest).str() + dtype_name(a.dtype()) + ";";
  }
  return key;
}

// The parts one after the other, on `ctx` (the instance's: the copy runs on its worker).
NDArray concat_rows(const std::vector<NDArray>& parts, Context ctx) {
  if (parts.size() == 1) return parts[0];  // the executor copies it in
  std::vector<int64_t> dims = parts[0].shape().dims();
  dims[0] = 0;
  for (const auto& p : parts) dims[0] += p.shape()[0];
  NDArray rows(Shape(dims), ctx, parts[0].dtype());
  nd::invoke("concat", parts, {{"dim", "0"}, {"num_args", std::to_string(parts.size())}}, {rows});
  return rows;
}

}  // namespace

Batcher::Batcher(const std::function<std::unique_ptr<Model>(int instance)>& load, BatchingOptions options)
    : options_(options) {
  for (int i = 0; i < std::max(1, options_.instances); ++i) models_.push_back(load(i));
  for (auto& m : models_) threads_.emplace_back([this, model = m.get()] { instance(*model); });
}

Batcher::~Batcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  for (auto& t : threads_) t.join();
}

std::vector<NDArray> Batcher::run(std::map<std::string, NDArray> inputs) {
  auto p = std::make_unique<Pending>();
  p->rows = inputs.begin()->second.shape()[0];
  p->key = merge_key(inputs);
  p->inputs = std::move(inputs);
  auto result = p->result.get_future();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (queue_.size() >= options_.max_queue_size)
      throw RequestError(503, cat("the model's queue is full (", options_.max_queue_size,
                                  " requests waiting, max_queue_size); retry later"));
    queue_.push_back(std::move(p));
  }
  changed_.notify_all();
  return result.get();
}

Batcher::Stats Batcher::stats() const {
  std::lock_guard<std::mutex> lock(mu_);
  Stats s = stats_;
  s.queued = queue_.size();
  return s;
}

void Batcher::instance(Model& model) {
  using Clock = std::chrono::steady_clock;
  while (true) {
    std::vector<std::unique_ptr<Pending>> batch;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(lock, [&] { return stopping_ || !queue_.empty(); });
      if (stopping_ && queue_.empty()) return;
      batch.push_back(std::move(queue_.front()));
      queue_.pop_front();
      ++stats_.batched;
      int64_t rows = batch[0]->rows;
      const std::string key = batch[0]->key;
      const auto deadline = Clock::now() + std::chrono::microseconds(options_.max_queue_delay_us);
      // Take the queued requests that merge with the first, waiting until the deadline for more.
      while (options_.max_batch_size > 0 && rows < options_.max_batch_size) {
        auto fits = std::find_if(queue_.begin(), queue_.end(), [&](const auto& q) {
          return q->key == key && rows + q->rows <= options_.max_batch_size;
        });
        if (fits != queue_.end()) {
          rows += (*fits)->rows;
          batch.push_back(std::move(*fits));
          queue_.erase(fits);
          ++stats_.batched;
          continue;
        }
        if (stopping_ || changed_.wait_until(lock, deadline) == std::cv_status::timeout) break;
      }
      stats_.batch_rows.add(static_cast<double>(rows));
      const auto now = Clock::now();
      for (const auto& p : batch) stats_.queue_seconds.add(std::chrono::duration<double>(now - p->arrived).count());
    }
    const auto started = Clock::now();
    try {
      std::map<std::string, NDArray> feed;
      for (const auto& [name, a] : batch[0]->inputs) {
        std::vector<NDArray> parts;
        for (const auto& p : batch) parts.push_back(p->inputs.at(name));
        feed[name] = concat_rows(parts, model.context());
      }
      const std::vector<NDArray> outputs = model.run(feed);
      {
        std::lock_guard<std::mutex> lock(mu_);
        stats_.compute_seconds.add(std::chrono::duration<double>(Clock::now() - started).count());
      }
      int64_t at = 0;
      for (auto& p : batch) {  // each request its rows
        std::vector<NDArray> mine;
        for (const auto& o : outputs) mine.push_back(batch.size() == 1 ? o : o.slice(at, at + p->rows).copy());
        at += p->rows;
        p->result.set_value(std::move(mine));
      }
    } catch (...) {
      for (auto& p : batch) p->result.set_exception(std::current_exception());
    }
    std::lock_guard<std::mutex> lock(mu_);
    stats_.batched -= batch.size();
  }
}

}  // namespace braid::serving
