#pragma once
// Internal: the key-value protocol between workers and servers, on top of message.h. A key's
// value travels flat, in its dtype's bytes, in slices of whole rows (its first axis): a small
// value whole on server (key * 9973) % S; a value of at least MXNET_KVSTORE_BIGARRAY_BOUND
// elements split over all servers by rows, evenly, as MXNet's KVStoreDist does for row_sparse
// keys, and each server's part cut further into slices of at most max(bound, kMinSliceElements)
// elements. Each slice is its own round on its server (summed, updated and answered on its own),
// so a big key's slices pipeline: the first is answered while the last still travels.
//
// Row messages (kPushRows, kPullRows) carry some rows of a slice: the payload is n row
// numbers (int64, ascending, of the whole value's rows), then for a push the n rows' values
// (n * row_width elements). The reply to a pull carries the rows' values in the order asked.
#include <cstdint>
#include <string>
#include <vector>

#include "braid/base/dtype.h"

namespace braid::kv::ps {

/// Header.flags of data messages.
inline constexpr int32_t kFlagError = 1;  // a reply whose body says what went wrong
inline constexpr int32_t kFlag2Bit = 2;   // a push of 2-bit codes (two_bit.h), at the job's threshold
// A request whose reply's body reports the server's time on it (a worker's profiler runs):
// "WORK_US WAIT_US", its own work and, for a synchronous push, the wait for the round's other
// pushes (server_timing).
inline constexpr int32_t kFlagTimed = 4;
// A push whose reply carries the key's slice after the round, as a pull's would (pushpull).
inline constexpr int32_t kFlagReplyValue = 8;
// A push's body: "name=value" lines, the optimizer's hyper-parameters when they changed since
// this worker's last push to the server (rescale_grad at a short batch, learning_rate, ...).

/// What a reply to a kFlagTimed request reports.
struct ServerTiming {
  int64_t work_us = -1, wait_us = -1;  // -1: not reported
};
std::string format_timing(ServerTiming t);
/// The timing in a reply's body; -1s when the body holds none.
ServerTiming parse_timing(const std::string& body);

/// Header.key of a kServerCommand: what the body (or payload) sets.
enum class ServerCommand : int64_t {
  kSyncMode = 1,          // body "sync" or "async": the job's mode, sent by every worker at start
  kOptimizer = 2,         // body: Optimizer::serialize(); the servers update the values from now on
  kCompression = 3,       // body: the 2-bit threshold
  kGetStates = 4,         // reply payload: the optimizer's save_states() for this server's part of
                          // each key (its slices' states joined, named by the key's index)
  kSetStates = 5,         // payload: such an image of this server's parts
  kWorkersLeft = 6,       // scheduler -> servers, unanswered: body, how many workers still run
                          // (a sync round needs the pushes of those only)
  kForeignOptimizer = 7,  // body: Optimizer::foreign_image(), rebuilt by the OptimizerLoader
};

/// The smallest slice a server's part of a big key is cut into (1 MB of float32), so that a
/// small MXNET_KVSTORE_BIGARRAY_BOUND spreads keys over the servers without a message per row.
inline constexpr int64_t kMinSliceElements = int64_t{1} << 18;

/// A slice of a key's value on one server: elements [begin, end) of the flat value.
struct Slice {
  int server = 0;  // rank
  int64_t begin = 0, end = 0;
  int64_t size() const { return end - begin; }
};

/// MXNET_KVSTORE_BIGARRAY_BOUND (default 1,000,000).
int64_t bigarray_bound();
/// Where the elements of key `key`, `rows` rows of `row_width` elements, live on `num_servers`
/// servers, in ascending order (slices of no rows are left out; a server's slices are adjacent).
std::vector<Slice> slices_of(int64_t key, int64_t rows, int64_t row_width, int num_servers, int64_t bound);

/// dst[i] += src[i] for `n` elements of `dtype` (float16 summed through float); throws for a
/// dtype without addition (bool).
void add_elements(DType dtype, void* dst, const void* src, int64_t n);

}  // namespace braid::kv::ps
