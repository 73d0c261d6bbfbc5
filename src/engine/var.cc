#include "var.h"

#include <algorithm>

namespace braid::engine::detail {

void normalize_deps(std::span<const VarHandle> reads, std::span<const VarHandle> writes, std::vector<Var*>& out_reads,
                    std::vector<Var*>& out_writes) {
  out_writes.assign(writes.begin(), writes.end());
  std::sort(out_writes.begin(), out_writes.end());
  out_writes.erase(std::unique(out_writes.begin(), out_writes.end()), out_writes.end());
  out_reads.clear();
  for (Var* v : reads)
    if (!std::binary_search(out_writes.begin(), out_writes.end(), v)) out_reads.push_back(v);
  std::sort(out_reads.begin(), out_reads.end());
  out_reads.erase(std::unique(out_reads.begin(), out_reads.end()), out_reads.end());
}

ErrorRef ErrorList::add(std::exception_ptr e, bool writes_nothing) {
  auto ref = std::make_shared<std::exception_ptr>(std::move(e));
  std::lock_guard<std::mutex> lock(mu_);
  std::erase_if(errors_, [](const auto& weak) { return weak.expired(); });
  errors_.push_back(ref);
  if (writes_nothing) unwritten_.push_back(ref);
  return ref;
}

void ErrorList::rethrow_and_clear() {
  std::exception_ptr first;
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& weak : errors_) {
      ErrorRef ref = weak.lock();
      if (!ref) continue;
      if (!first && *ref) first = *ref;
      *ref = nullptr;
    }
    errors_.clear();
    unwritten_.clear();
  }
  if (first) std::rethrow_exception(first);
}

ErrorRef inherited_error(const std::vector<Var*>& reads) {
  for (Var* v : reads) {
    std::lock_guard<std::mutex> lock(v->mu);
    if (v->live_error()) return v->error;
  }
  return nullptr;
}

void mark_writes(const std::vector<Var*>& writes, const ErrorRef& error) {
  for (Var* v : writes) {
    std::lock_guard<std::mutex> lock(v->mu);
    v->error = error;
  }
}

void execute(const Fn& fn, const std::vector<Var*>& reads, const std::vector<Var*>& writes, bool always_run,
             ErrorList& errors) {
  ErrorRef error = always_run ? nullptr : inherited_error(reads);
  if (!error) {
    try {
      if (fn) fn();
    } catch (...) {
      error = errors.add(std::current_exception(), writes.empty());
    }
  }
  if (always_run) return;  // waits and deletions leave the variables' state alone
  mark_writes(writes, error);
}

}  // namespace braid::engine::detail
