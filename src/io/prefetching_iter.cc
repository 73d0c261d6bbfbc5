#include "braid/io/prefetching_iter.h"

#include <set>

#include "braid/base/error.h"

namespace braid::io {
namespace {

// The descriptions of every inner iterator's data (or label) in order, renamed.
std::vector<DataDesc> joined_descs(const std::vector<std::shared_ptr<DataIter>>& iters,
                                   const PrefetchingIter::Renaming& rename, bool label) {
  const char* what = label ? "rename_label" : "rename_data";
  BRAID_CHECK(rename.empty() || rename.size() == iters.size(), "PrefetchingIter: ", what, " has ", rename.size(),
              " maps for ", iters.size(), " iterators; give one per iterator (or none)");
  std::vector<DataDesc> out;
  for (size_t i = 0; i < iters.size(); ++i) {
    std::vector<DataDesc> descs = label ? iters[i]->provide_label() : iters[i]->provide_data();
    if (!rename.empty()) {
      for (const auto& [from, to] : rename[i]) {
        bool found = false;
        for (auto& d : descs) {
          if (d.name != from) continue;
          d.name = to;
          found = true;
        }
        BRAID_CHECK(found, "PrefetchingIter: ", what, "[", i, "] renames '", from, "', which iterator ", i,
                    " does not provide; check the name against its provide_", label ? "label" : "data", "()");
      }
    }
    out.insert(out.end(), descs.begin(), descs.end());
  }
  return out;
}

void append(std::vector<NDArray>& to, const std::vector<NDArray>& from) {
  to.insert(to.end(), from.begin(), from.end());
}

void wait_all(const std::vector<NDArray>& arrays) {
  for (const NDArray& a : arrays)
    if (!a.is_none()) a.wait_to_read();
}

}  // namespace

PrefetchingIter::PrefetchingIter(std::vector<std::shared_ptr<DataIter>> iters, Renaming rename_data,
                                 Renaming rename_label)
    : iters_(std::move(iters)) {
  BRAID_CHECK(!iters_.empty(), "PrefetchingIter: no inner iterators given");
  for (size_t i = 0; i < iters_.size(); ++i) {
    BRAID_CHECK(iters_[i], "PrefetchingIter: inner iterator ", i, " is null");
    BRAID_CHECK(iters_[i]->batch_size() == iters_[0]->batch_size(), "PrefetchingIter: inner iterator ", i,
                " has batch_size ", iters_[i]->batch_size(), " but iterator 0 has ", iters_[0]->batch_size(),
                "; their batches are joined, so the sizes must be equal");
  }
  batch_size_ = iters_[0]->batch_size();
  data_desc_ = joined_descs(iters_, rename_data, false);
  label_desc_ = joined_descs(iters_, rename_label, true);
  std::set<std::string> names;
  for (const auto* descs : {&data_desc_, &label_desc_})
    for (const DataDesc& d : *descs)
      BRAID_CHECK(names.insert(d.name).second, "PrefetchingIter: the name '", d.name,
                  "' is provided twice by the inner iterators; make the names unique with rename_data / "
                  "rename_label");
  start();
}

PrefetchingIter::~PrefetchingIter() { stop(); }

PrefetchingIter::Fetched PrefetchingIter::fetch() {
  Fetched f;
  try {
    std::vector<std::optional<DataBatch>> parts;
    for (auto& it : iters_) parts.push_back(it->next());
    for (size_t i = 1; i < parts.size(); ++i)
      BRAID_CHECK(parts[i].has_value() == parts[0].has_value(), "PrefetchingIter: inner iterator ", parts[0] ? i : 0,
                  " ended after ", fetched_, " batches while iterator ", parts[0] ? 0 : i,
                  " yields another; all inner iterators must yield the same number of batches per epoch");
    if (!parts[0]) return f;
    DataBatch batch = std::move(*parts[0]);
    for (size_t i = 1; i < parts.size(); ++i) {
      BRAID_CHECK(parts[i]->pad == batch.pad, "PrefetchingIter: batch ", fetched_, " of inner iterator ", i,
                  " has pad ", parts[i]->pad, " but that of iterator 0 has pad ", batch.pad,
                  "; the inner iterators must pad alike");
      append(batch.data, parts[i]->data);
      append(batch.label, parts[i]->label);
    }
    wait_all(batch.data);
    wait_all(batch.label);
    ++fetched_;
    f.batch = std::move(batch);
  } catch (...) {
    f.error = std::current_exception();
  }
  return f;
}

void PrefetchingIter::produce() {
  std::unique_lock<std::mutex> lock(mu_);
  while (true) {
    cv_.wait(lock, [this] { return stopping_ || wanted_; });
    if (stopping_) return;
    wanted_ = false;
    lock.unlock();
    Fetched f = fetch();
    lock.lock();
    ready_ = std::move(f);
    cv_.notify_all();
  }
}

std::optional<DataBatch> PrefetchingIter::next() {
  BRAID_CHECK(thread_.joinable(),
              "PrefetchingIter: not running since an inner iterator's reset() failed; "
              "call reset() again");
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return ready_.has_value(); });
  if (!ready_->batch && !ready_->error) return std::nullopt;  // the end of the epoch stays until reset()
  Fetched f = std::move(*ready_);
  ready_.reset();
  wanted_ = true;
  cv_.notify_all();
  lock.unlock();
  if (f.error) std::rethrow_exception(f.error);
  return std::move(f.batch);
}

void PrefetchingIter::reset() {
  stop();
  for (auto& it : iters_) it->reset();
  start();
}

void PrefetchingIter::start() {
  fetched_ = 0;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = false;
    wanted_ = true;
    ready_.reset();
  }
  thread_ = std::thread([this] { produce(); });
}

void PrefetchingIter::stop() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace braid::io
