#include "key_exchange.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <memory>
#include <utility>

#include "batch.h"
#include "braid/base/error.h"
#include "braid/ndarray/sparse.h"
#include "braid/profiler/profiler.h"

namespace braid::kv::ps {

KeyState new_key_state(const std::string& name, const NDArray& value) {
  BRAID_CHECK(!value.is_none(), "KVStore init: the value of key ", name, " is None");
  BRAID_CHECK(value.stype() != StorageType::CSR, "KVStore init: key ", name, " has a csr value; the ",
              "parameter server holds dense and row_sparse values");
  KeyState ks;
  ks.shape = value.shape();
  ks.dtype = value.dtype();
  if (ks.shape.ndim() >= 2) ks.row_width = ks.shape.size() / ks.shape[0];
  BRAID_CHECK(ks.row_width <= UINT32_MAX, "KVStore init: key ", name, " has rows of ", ks.row_width,
              " elements, more than the parameter server's limit of ", UINT32_MAX);
  return ks;
}

void lay_out(KeyState& ks, int num_servers, int64_t bound) {
  const int64_t rows = ks.shape.ndim() >= 2 ? ks.shape[0] : ks.shape.size();
  ks.slices = slices_of(ks.index, rows, row_elements(ks), num_servers, bound);
  ks.servers.clear();
  for (const Slice& s : ks.slices) ks.servers.push_back(s.server);
}

size_t width(const KeyState& ks) { return dtype_size(ks.dtype); }
int64_t row_elements(const KeyState& ks) { return ks.row_width > 0 ? ks.row_width : 1; }
size_t row_bytes(const KeyState& ks) { return static_cast<size_t>(row_elements(ks)) * width(ks); }
Shape rows_shape(const KeyState& ks, int64_t n) {
  std::vector<int64_t> dims = ks.shape.dims();
  dims.at(0) = n;
  return Shape(dims);
}

void check_key_arrays(const KeyState& ks, const Key& key, const std::vector<NDArray>& arrays, const char* what) {
  BRAID_CHECK(!arrays.empty(), "KVStore ", what, ": no arrays for key ", key_str(key));
  for (const NDArray& a : arrays) {
    BRAID_CHECK(!a.is_none() && a.shape() == ks.shape && a.dtype() == ks.dtype, "KVStore ", what, ": key ",
                key_str(key), " holds ", dtype_name(ks.dtype), " ", ks.shape.str(), " but an array is ",
                a.is_none() ? std::string("None") : cat(dtype_name(a.dtype()), " ", a.shape().str()));
  }
}

size_t fusable_bytes(const KeyState& ks, const std::vector<NDArray>& values, const std::vector<NDArray>& outs) {
  if (values.empty() || outs.empty() || ks.slices.size() != 1) return 0;
  auto sparse_array = [](const NDArray& a) { return a.is_none() || a.is_sparse(); };
  if (std::any_of(values.begin(), values.end(), sparse_array) || std::any_of(outs.begin(), outs.end(), sparse_array) ||
      !outs[0].ctx().is_cpu_family())
    return 0;
  const size_t bytes = static_cast<size_t>(ks.shape.size()) * width(ks);
  return bytes <= kMaxBatchedPayload ? std::max<size_t>(bytes, 1) : 0;
}

Payload payload_of(const NDArray& a, const KeyState& ks, const Slice& s) {
  auto owner = std::make_shared<NDArray>(a);
  return {static_cast<const char*>(a.raw_data()) + s.begin * width(ks), static_cast<size_t>(s.size()) * width(ks),
          owner};
}

Message data_message(Command command, const KeyState& ks, const Slice& s) {
  Message m;
  m.head.command = static_cast<uint16_t>(command);
  m.head.key = ks.index;
  m.head.offset = s.begin;
  m.head.total = ks.shape.size();
  m.head.dtype = static_cast<int32_t>(ks.dtype);
  m.head.row_width = static_cast<uint32_t>(ks.row_width);
  if (profiler::running()) m.head.flags |= kFlagTimed;
  return m;
}

void record_exchange(const char* name, const KeyState& ks, int64_t start_us, uint64_t sent_bytes,
                     const std::vector<Message>& replies) {
  if (!profiler::running()) return;
  profiler::Exchange x{name, ks.index, sent_bytes, start_us, profiler::now_us()};
  for (const Message& r : replies) {
    x.bytes += r.payload.size;
    const ServerTiming t = parse_timing(r.body);
    if (t.work_us + t.wait_us > x.server_work_us + x.server_wait_us) {
      x.server_work_us = t.work_us;
      x.server_wait_us = t.wait_us;
    }
  }
  if (x.server_work_us >= 0) profiler::record_exchange(x);  // else sent before the profiler ran
}

std::exception_ptr copy_replies(const KeyState& ks, std::vector<Message>& replies, const NDArray& target) {
  for (size_t i = 0; i < replies.size(); ++i) {
    const Slice& s = ks.slices[i];
    const size_t bytes = static_cast<size_t>(s.size()) * width(ks);
    if (replies[i].payload.size != bytes)
      return std::make_exception_ptr(Error(cat("KVStore pull: server ", s.server, " answered ", replies[i].payload.size,
                                               " bytes for key ", ks.index, ", expected ", bytes)));
    std::memcpy(static_cast<char*>(target.raw_data()) + s.begin * width(ks), replies[i].payload.data, bytes);
  }
  return nullptr;
}

std::pair<size_t, size_t> ids_in(const KeyState& ks, const Slice& s, const std::vector<int64_t>& ids) {
  const int64_t w = row_elements(ks);
  const auto lo = std::lower_bound(ids.begin(), ids.end(), s.begin / w);
  const auto hi = std::lower_bound(lo, ids.end(), s.end / w);
  return {static_cast<size_t>(lo - ids.begin()), static_cast<size_t>(hi - ids.begin())};
}

uint64_t payload_bytes(const std::vector<Message>& parts) {
  uint64_t n = 0;
  for (const Message& m : parts) n += m.payload.size;
  return n;
}

Message server_command(ServerCommand which, std::string body) {
  Message m;
  m.head.command = static_cast<uint16_t>(Command::kServerCommand);
  m.head.key = static_cast<int64_t>(which);
  m.body = std::move(body);
  return m;
}

std::string lines_of(const std::map<std::string, std::string>& params) {
  std::string out;
  for (const auto& [name, value] : params) out += name + "=" + value + "\n";
  return out;
}

}  // namespace braid::kv::ps
