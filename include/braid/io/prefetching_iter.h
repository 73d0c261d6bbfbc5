#pragma once
/// PrefetchingIter (MXNet's mx.io.PrefetchingIter): a background thread fetches the next batch
/// of the inner iterators while the consumer works on the current one (one batch ahead).
///
///   io::PrefetchingIter it({images_iter, extra_iter}, {{}, {{"data", "extra"}}});
///
/// With several inner iterators a batch joins theirs: data (and label) lists concatenated in
/// iterator order, pad and index taken from the first. They must yield the same number of
/// batches, with equal batch_size and pad. The thread waits for the batch's arrays to be
/// computed before handing it over, so an error of the inner next() or of computing its arrays
/// is re-thrown by the next() that would have returned that batch.
///
/// Shares ownership of the inner iterators; nobody else may touch them while this one lives.
/// reset() and the destructor stop and join the thread (after the fetch under way, if any,
/// ends); the thread calls only next() of the inner iterators, the caller's thread the rest.
#include <condition_variable>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "braid/io/data_iter.h"

namespace braid::io {

class PrefetchingIter : public DataIter {
 public:
  /// One map per inner iterator (or none at all): old name -> new name, for the names of its
  /// provide_data (rename_data) or provide_label (rename_label). Unlisted names stay.
  using Renaming = std::vector<std::map<std::string, std::string>>;

  /// Starts fetching the first batch at once. Names must be unique after renaming.
  explicit PrefetchingIter(std::vector<std::shared_ptr<DataIter>> iters, Renaming rename_data = {},
                           Renaming rename_label = {});
  ~PrefetchingIter() override;
  PrefetchingIter(const PrefetchingIter&) = delete;
  PrefetchingIter& operator=(const PrefetchingIter&) = delete;

  /// Waits for the prefetched batch and starts fetching the one after. At the end of the epoch
  /// returns nullopt (and keeps doing so) without asking the inner iterators again.
  std::optional<DataBatch> next() override;
  /// Stops the thread, resets every inner iterator, starts prefetching the new epoch.
  void reset() override;
  std::vector<DataDesc> provide_data() const override { return data_desc_; }
  std::vector<DataDesc> provide_label() const override { return label_desc_; }
  int64_t batch_size() const override { return batch_size_; }

 private:
  // The outcome of one fetch: a batch, the end of the epoch (no batch), or an error.
  struct Fetched {
    std::optional<DataBatch> batch;
    std::exception_ptr error;
  };

  Fetched fetch();
  void produce();
  void start();
  void stop();

  std::vector<std::shared_ptr<DataIter>> iters_;
  std::vector<DataDesc> data_desc_, label_desc_;
  int64_t batch_size_ = 0;
  int64_t fetched_ = 0;  // batches fetched this epoch (for error messages); the thread's own

  std::mutex mu_;
  std::condition_variable cv_;
  bool wanted_ = false;           // the thread should fetch the next batch
  bool stopping_ = false;         // the thread should exit
  std::optional<Fetched> ready_;  // fetched, not yet taken
  std::thread thread_;
};

}  // namespace braid::io
