#pragma once
// Internal: what a worker's dist store keeps per key (key_value.h's slices, its engine variable)
// and the messages of the key's exchanges with the servers.
#include <cstdint>
#include <exception>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "braid/engine/engine.h"
#include "braid/kvstore/kvstore.h"
#include "braid/ndarray/ndarray.h"
#include "key_value.h"
#include "message.h"

namespace braid::kv::ps {

struct KeyState {
  int index = 0;
  Shape shape;
  DType dtype = DType::Float32;
  int64_t row_width = 0;  // elements per row (the first axis's); 0 for a value of one axis
  std::vector<Slice> slices;
  std::vector<int> servers;         // slices[i].server
  engine::VarHandle var = nullptr;  // orders the key's exchanges; guards `residual`
  NDArray merged;                   // on the CPU: a push's local sum, or a pull's landing place
  std::vector<float> residual;      // 2-bit: what the codes have not carried yet
  std::exception_ptr push_error;    // why the last push failed, raised by the next pull
};

/// The state of a new key (`name` in errors) holding values like `value`, before its index and
/// slices; throws for a value the servers cannot hold.
KeyState new_key_state(const std::string& name, const NDArray& value);
/// Lays the key's slices out over `num_servers` servers (slices_of, `bound` elements).
void lay_out(KeyState& ks, int num_servers, int64_t bound);

/// Bytes per element, elements per row (1 for a value of one axis), bytes per row.
size_t width(const KeyState& ks);
int64_t row_elements(const KeyState& ks);
size_t row_bytes(const KeyState& ks);
/// `n` rows of the key's value.
Shape rows_shape(const KeyState& ks, int64_t n);

/// Throws unless `arrays` are some arrays of the key's shape and dtype (`what`: the operation).
void check_key_arrays(const KeyState& ks, const Key& key, const std::vector<NDArray>& arrays, const char* what);
/// The bytes of a key whose pushpull may travel in a batch with others' (dense values and
/// outputs, the key whole on one server, at most kMaxBatchedPayload bytes, pulled into a CPU
/// array), else 0.
size_t fusable_bytes(const KeyState& ks, const std::vector<NDArray>& values, const std::vector<NDArray>& outs);
/// The bytes of `a` in slice `s`, kept alive by a handle on its storage.
Payload payload_of(const NDArray& a, const KeyState& ks, const Slice& s);
/// A data message of `command` for slice `s` of the key (asking the server's timing while the
/// profiler runs).
Message data_message(Command command, const KeyState& ks, const Slice& s);
/// Copies the replies to a pull of every slice (replies[i] for ks.slices[i]) into `target`; the
/// error when one has the wrong size.
std::exception_ptr copy_replies(const KeyState& ks, std::vector<Message>& replies, const NDArray& target);
/// The positions [lo, hi) of the ascending row ids `ids` that lie in slice `s`.
std::pair<size_t, size_t> ids_in(const KeyState& ks, const Slice& s, const std::vector<int64_t>& ids);
/// The payload bytes of `parts`.
uint64_t payload_bytes(const std::vector<Message>& parts);
/// Tells a running profiler about an exchange of `ks` that began at `start_us` and ends now: its
/// bytes both ways, and the servers' time on the part that took them longest. An exchange whose
/// requests went out before the profiler ran (no timing asked, none answered) is left out.
void record_exchange(const char* name, const KeyState& ks, int64_t start_us, uint64_t sent_bytes,
                     const std::vector<Message>& replies);

/// A kServerCommand message setting `which` to `body`.
Message server_command(ServerCommand which, std::string body);
/// `params` as "name=value" lines (a push's body).
std::string lines_of(const std::map<std::string, std::string>& params);

}  // namespace braid::kv::ps
