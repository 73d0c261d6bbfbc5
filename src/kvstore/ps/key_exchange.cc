#include "key_exchange.h"

#include <memory>
#include <utility>

#include "braid/profiler/profiler.h"

namespace braid::kv::ps {

size_t width(const KeyState& ks) { return dtype_size(ks.dtype); }
int64_t row_elements(const KeyState& ks) { return ks.row_width > 0 ? ks.row_width : 1; }
size_t row_bytes(const KeyState& ks) { return static_cast<size_t>(row_elements(ks)) * width(ks); }
Shape rows_shape(const KeyState& ks, int64_t n) {
  std::vector<int64_t> dims = ks.shape.dims();
  dims.at(0) = n;
  return Shape(dims);
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
