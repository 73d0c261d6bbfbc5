#pragma once
// Internal: Horovod's response cache. A tensor that every rank has run before with the same
// operation, dtype, shape and settings gets a cache id, the same on every rank (ids are given in
// the order responses run, which is one order everywhere). In the steady state of a training loop
// every gradient hits the cache: each cycle the ranks then only AND a bit vector of the ids they
// have ready (one small MPI_Allreduce) instead of sending rank 0 their requests and waiting for
// its answer. HOROVOD_CACHE_CAPACITY bounds the ids (default 1024; 0 turns the cache off).
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "messages.h"

namespace braid::collective::detail {

class ResponseCache {
 public:
  explicit ResponseCache(size_t capacity = 1024) : capacity_(capacity) {}
  void set_capacity(size_t capacity) { capacity_ = capacity; }

  /// The id of a tensor cached with exactly this request's settings.
  std::optional<int> lookup(const Request& r) const;
  /// Remembers `r` (run successfully on every rank) under its name: a new id, or its old one
  /// with the new settings. Nothing beyond the capacity.
  void insert(const Request& r);
  const Request& request(int id) const { return entries_[static_cast<size_t>(id)]; }
  size_t size() const { return entries_.size(); }

 private:
  size_t capacity_;
  std::vector<Request> entries_;    // by id
  std::map<std::string, int> ids_;  // by name
};

/// The same operation on the same data: kind, dtype, shape and the kind's settings.
bool same_settings(const Request& a, const Request& b);

}  // namespace braid::collective::detail
