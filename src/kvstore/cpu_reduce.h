#pragma once
// Internal: sums and copies between CPU contexts. They share memory, so a kernel reads every
// array where it is instead of copying it over first; and each context has its own engine
// worker, so a sum split into one part per context runs on all of them at once (a
// reduce-scatter into `Shards`, then an all-gather into each output, as NCCL does on GPUs).
#include <vector>

#include "braid/ndarray/ndarray.h"

namespace braid::kv::detail {

/// Whether every array is on a CPU context and of `dtype`, float32 or float64 (what the kernels
/// here handle).
bool on_cpus(const std::vector<NDArray>& arrays, DType dtype);

/// `out` = the sum of `values`, one pass on out's context.
void sum_into(const std::vector<NDArray>& values, const NDArray& out);

/// A value split into consecutive ranges, one per context, each part kept on its context.
struct Shards {
  std::vector<NDArray> parts;
  std::vector<int64_t> begin;  // of each part in the flat value

  /// Whether `values` spread over enough contexts and elements for shards to pay.
  static bool worth_it(const std::vector<NDArray>& values);
  /// Parts for a value like values[0], one per distinct context of `values` (kept when they
  /// already match).
  void fit(const std::vector<NDArray>& values);
};

/// Part i of `shards` = the same range of the sum of `values`, on its own context.
void reduce_scatter(const std::vector<NDArray>& values, const Shards& shards);
/// `out` = the parts of `shards` laid end to end, on out's context.
void all_gather(const Shards& shards, const NDArray& out);
/// `out` = `from`, on out's context (the receiving device copies, so that copies to several
/// contexts run at once).
void copy_on_destination(const NDArray& from, const NDArray& out);

}  // namespace braid::kv::detail
