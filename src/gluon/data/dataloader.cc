#include "braid/gluon/data/dataloader.h"

#include <condition_variable>
#include <exception>
#include <map>
#include <mutex>
#include <thread>

#include "braid/base/error.h"
#include "braid/gluon/data/random.h"

namespace braid::gluon::data {

// One pass over the data: its batches of indices, its random seed and, with workers, the threads
// that make batches ahead. Worker threads only use `this`; the destructor stops and joins them.
struct DataLoader::Epoch {
  DatasetPtr dataset;
  BatchifyFn batchify;
  std::vector<std::vector<int64_t>> batches;
  uint64_t seed = 0;

  struct Made {
    Batch batch;
    std::exception_ptr error;
  };
  std::mutex mu;
  std::condition_variable work_cv, ready_cv;
  int64_t next_task = 0;  // the next batch a worker starts
  int64_t handed = 0;     // batches handed to the consumer
  int64_t window = 0;     // batches a worker may start beyond `handed`
  bool stop = false;
  std::map<int64_t, Made> ready;
  std::vector<std::thread> workers;

  int64_t size() const { return static_cast<int64_t>(batches.size()); }

  // Batch k, the same on any thread: its random draws come from a scope seeded by (seed, k).
  Batch make(int64_t k) const {
    RandomScope scope(mix_seed(seed, static_cast<uint64_t>(k)));
    const auto& idx = batches[static_cast<size_t>(k)];
    if (!batchify) return dataset->get_batch(idx);
    std::vector<Sample> samples;
    samples.reserve(idx.size());
    for (int64_t i : idx) samples.push_back(dataset->get(i));
    return batchify(samples);
  }

  void start(int num_workers, int prefetch) {
    window = std::max(prefetch, 1);
    for (int w = 0; w < num_workers; ++w) workers.emplace_back([this] { work(); });
  }

  void work() {
    std::unique_lock<std::mutex> lock(mu);
    while (true) {
      work_cv.wait(lock, [this] { return stop || next_task >= size() || next_task < handed + window; });
      if (stop || next_task >= size()) return;
      const int64_t k = next_task++;
      lock.unlock();
      Made m;
      try {
        m.batch = make(k);
        for (const NDArray& a : m.batch) a.wait_to_read();  // handed over computed; errors surface here
      } catch (...) {
        m.error = std::current_exception();
      }
      lock.lock();
      ready.emplace(k, std::move(m));
      ready_cv.notify_all();
    }
  }

  // Batch k for the consumer (batches are taken in order).
  Batch take(int64_t k) {
    if (workers.empty()) return make(k);
    std::unique_lock<std::mutex> lock(mu);
    ready_cv.wait(lock, [&] { return ready.count(k) > 0; });
    Made m = std::move(ready.at(k));
    ready.erase(k);
    handed = k + 1;
    work_cv.notify_all();
    lock.unlock();
    if (m.error) std::rethrow_exception(m.error);
    return std::move(m.batch);
  }

  ~Epoch() {
    {
      std::lock_guard<std::mutex> lock(mu);
      stop = true;
    }
    work_cv.notify_all();
    for (auto& t : workers) t.join();
  }
};

DataLoader::DataLoader(DatasetPtr dataset, DataLoaderOptions o)
    : dataset_(std::move(dataset)), batchify_(std::move(o.batchify_fn)) {
  BRAID_CHECK(dataset_, "DataLoader: the dataset is null");
  if (o.batch_sampler) {
    BRAID_CHECK(o.batch_size == 0 && !o.shuffle && !o.sampler && !o.last_batch,
                "DataLoader: batch_size, shuffle, sampler and last_batch must not be given with a batch_sampler "
                "(it decides the batches)");
    batch_sampler_ = std::move(o.batch_sampler);
  } else {
    BRAID_CHECK(o.batch_size > 0, "DataLoader: batch_size must be positive unless a batch_sampler is given, got ",
                o.batch_size);
    BRAID_CHECK(!(o.shuffle && o.sampler),
                "DataLoader: shuffle must not be set when a sampler is given "
                "(use a RandomSampler for a shuffled order)");
    std::shared_ptr<Sampler> sampler = o.sampler;
    if (!sampler && o.shuffle) sampler = std::make_shared<RandomSampler>(dataset_->size());
    if (!sampler) sampler = std::make_shared<SequentialSampler>(dataset_->size());
    batch_sampler_ = std::make_shared<BatchSampler>(sampler, o.batch_size, o.last_batch.value_or(LastBatch::Keep));
  }
  num_workers_ = std::max(o.num_workers, 0);
  prefetch_ = std::max(o.prefetch.value_or(2 * num_workers_), 0);
}

DataLoader::Iterator DataLoader::begin() {
  auto e = std::make_shared<Epoch>();
  e->dataset = dataset_;
  e->batchify = batchify_;
  e->batches = batch_sampler_->next_epoch();
  e->seed = random_u64();
  if (num_workers_ > 0 && !e->batches.empty()) e->start(num_workers_, prefetch_);
  return Iterator(std::move(e));
}

DataLoader::Iterator::Iterator(std::shared_ptr<Epoch> epoch) : epoch_(std::move(epoch)) { load(); }

DataLoader::Iterator::~Iterator() = default;

void DataLoader::Iterator::load() {
  current_.clear();
  if (index_ < epoch_->size()) current_ = epoch_->take(index_);
}

DataLoader::Iterator& DataLoader::Iterator::operator++() {
  BRAID_CHECK(epoch_ && index_ < epoch_->size(), "DataLoader iterator advanced past the end of the epoch");
  ++index_;
  load();
  return *this;
}

bool DataLoader::Iterator::operator==(std::default_sentinel_t) const { return !epoch_ || index_ >= epoch_->size(); }

}  // namespace braid::gluon::data
