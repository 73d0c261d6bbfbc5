#include "worker_states.h"

#include <algorithm>
#include <map>
#include <set>
#include <utility>

#include "braid/base/error.h"
#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/optim/optimizer.h"

namespace braid::kv::ps {
namespace {

// The elements of the key on `server`: its slices there, which are adjacent.
Slice part_of(const KeyState& ks, int server) {
  Slice part{server, -1, -1};
  for (const Slice& s : ks.slices)
    if (s.server == server) {
      if (part.begin < 0) part.begin = s.begin;
      part.end = s.end;
    }
  BRAID_CHECK(part.begin >= 0, "server ", server, " sent optimizer states of key ", ks.index,
              ", which it does not hold");
  return part;
}

// A key's state from its servers' parts (begin, array), in the key's shape.
NDArray joined(const KeyState& ks, std::vector<std::pair<int64_t, NDArray>>& parts) {
  std::sort(parts.begin(), parts.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<NDArray> flat;
  int64_t at = 0;
  for (const auto& [begin, part] : parts) {
    BRAID_CHECK(begin == at && part.dtype() == parts[0].second.dtype(), "the servers' optimizer states of key ",
                ks.index, " do not fit together");
    flat.push_back(part.reshape({-1}));
    at += part.size();
  }
  BRAID_CHECK(at == ks.shape.size(), "the servers' optimizer states of key ", ks.index, " lack parts");
  return nd::invoke1("Concat", flat, {{"dim", "0"}, {"num_args", std::to_string(flat.size())}})
      .reshape(ks.shape.dims());
}

}  // namespace

std::string join_server_states(const std::vector<Message>& replies, const KeyOfState& key_of_state) {
  std::map<std::string, std::vector<std::pair<int64_t, NDArray>>> parts;  // name -> (begin, part)
  std::map<int64_t, int64_t> counts;
  int64_t num_update = 0;
  for (size_t server = 0; server < replies.size(); ++server) {
    const Payload& p = replies[server].payload;
    io::NamedArrays image = io::load_from_bytes(std::string_view(static_cast<const char*>(p.data), p.size),
                                                cat("the optimizer states of server ", server));
    for (size_t i = 0; i < image.names.size(); ++i) {
      const std::string& name = image.names[i];
      if (name == optim::Optimizer::kNumUpdateEntry) {
        num_update = std::max(num_update, image.arrays[i].scalar<int64_t>());
      } else if (name == optim::Optimizer::kUpdateCountsEntry) {
        const std::vector<int64_t> rows = image.arrays[i].to_vector<int64_t>();
        for (size_t r = 0; r + 1 < rows.size(); r += 2) counts[rows[r]] = std::max(counts[rows[r]], rows[r + 1]);
      } else {
        parts[name].emplace_back(part_of(key_of_state(name), static_cast<int>(server)).begin, image.arrays[i]);
      }
    }
  }
  std::vector<std::pair<std::string, NDArray>> named;
  for (auto& [name, pieces] : parts) named.emplace_back(name, joined(key_of_state(name), pieces));
  std::vector<int64_t> rows;
  for (const auto& [index, n] : counts) rows.insert(rows.end(), {index, n});
  if (!rows.empty())
    named.emplace_back(optim::Optimizer::kUpdateCountsEntry,
                       nd::array(rows, Shape({static_cast<int64_t>(rows.size() / 2), 2}), cpu(), DType::Int64));
  named.emplace_back(optim::Optimizer::kNumUpdateEntry,
                     nd::array(std::vector<int64_t>{num_update}, Shape({1}), cpu(), DType::Int64));
  return io::save_to_bytes(named);
}

std::vector<std::string> split_states_by_server(const std::string& bytes, int num_servers,
                                                const KeyOfState& key_of_state) {
  io::NamedArrays image = io::load_from_bytes(bytes, "optimizer states");
  std::vector<std::vector<std::pair<std::string, NDArray>>> per_server(static_cast<size_t>(num_servers));
  for (size_t i = 0; i < image.names.size(); ++i) {
    const std::string& name = image.names[i];
    if (name == optim::Optimizer::kNumUpdateEntry || name == optim::Optimizer::kUpdateCountsEntry) {
      for (auto& server : per_server) server.emplace_back(name, image.arrays[i]);
      continue;
    }
    const KeyState& ks = key_of_state(name);
    BRAID_CHECK(image.arrays[i].size() == ks.shape.size(), "optimizer state '", name, "' has ", image.arrays[i].size(),
                " elements but its key holds ", ks.shape.size());
    const NDArray flat = image.arrays[i].reshape({-1});
    for (int server : std::set<int>(ks.servers.begin(), ks.servers.end())) {
      const Slice s = part_of(ks, server);
      const std::vector<int64_t> part = ks.row_width > 0 ? std::vector<int64_t>{s.size() / ks.row_width, ks.row_width}
                                                         : std::vector<int64_t>{s.size()};
      per_server[static_cast<size_t>(server)].emplace_back(name, flat.slice(s.begin, s.end).copy().reshape(part));
    }
  }
  std::vector<std::string> images;
  for (const auto& states : per_server) images.push_back(io::save_to_bytes(states));
  return images;
}

}  // namespace braid::kv::ps
