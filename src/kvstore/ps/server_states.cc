#include "server_states.h"

#include <algorithm>
#include <map>
#include <utility>

#include "braid/base/error.h"
#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"
#include "braid/op/param_reader.h"
#include "braid/optim/optimizer.h"

namespace braid::kv::ps {
namespace {

using optim::Optimizer;

// An image's entries: the counts, the update count, and the states by (index, state name).
struct Entries {
  std::map<int64_t, int64_t> counts;  // index -> update count
  NDArray num_update;
  std::map<int64_t, std::map<std::string, NDArray>> states;
};

Entries read(const std::string& image) {
  io::NamedArrays saved = io::load_from_bytes(image, "optimizer states");
  BRAID_CHECK(saved.names.size() == saved.arrays.size(), "optimizer states: an unnamed list of arrays");
  Entries e;
  for (size_t i = 0; i < saved.names.size(); ++i) {
    const std::string& name = saved.names[i];
    if (name == Optimizer::kNumUpdateEntry) {
      e.num_update = saved.arrays[i];
    } else if (name == Optimizer::kUpdateCountsEntry) {
      const std::vector<int64_t> rows = saved.arrays[i].to_vector<int64_t>();
      for (size_t r = 0; r + 1 < rows.size(); r += 2) e.counts[rows[r]] = rows[r + 1];
    } else {
      const size_t sep = name.find('_');
      BRAID_CHECK(sep != std::string::npos && sep > 0, "optimizer state '", name, "' is not named <index>_<state>");
      e.states[op::parse_int(name.substr(0, sep))][name.substr(sep + 1)] = saved.arrays[i];
    }
  }
  return e;
}

std::string write(const Entries& e) {
  std::vector<std::pair<std::string, NDArray>> named;
  for (const auto& [index, states] : e.states)
    for (const auto& [state, array] : states) named.emplace_back(cat(index, "_", state), array);
  std::vector<int64_t> rows;
  for (const auto& [index, n] : e.counts) rows.insert(rows.end(), {index, n});
  if (!rows.empty())
    named.emplace_back(Optimizer::kUpdateCountsEntry,
                       nd::array(rows, Shape({static_cast<int64_t>(rows.size() / 2), 2}), cpu(), DType::Int64));
  if (!e.num_update.is_none()) named.emplace_back(Optimizer::kNumUpdateEntry, e.num_update);
  return io::save_to_bytes(named);
}

// The slices of each key, in order.
std::map<int64_t, std::vector<const SliceIndex*>> by_key(const std::vector<SliceIndex>& slices) {
  std::map<int64_t, std::vector<const SliceIndex*>> keys;
  for (const SliceIndex& s : slices) keys[s.key].push_back(&s);
  return keys;
}

// The slices' states of one key joined by rows, in order (each shaped like its slice).
NDArray join_rows(const std::vector<NDArray>& parts) {
  return nd::invoke1("Concat", parts, {{"dim", "0"}, {"num_args", std::to_string(parts.size())}});
}

}  // namespace

std::string states_by_key(const std::string& image, const std::vector<SliceIndex>& slices) {
  Entries in = read(image), out;
  out.num_update = in.num_update;
  for (const auto& [key, parts] : by_key(slices)) {
    std::map<std::string, std::vector<NDArray>> joined;  // state name -> the slices' arrays
    size_t with_states = 0;
    for (const SliceIndex* s : parts) {
      if (auto c = in.counts.find(s->index); c != in.counts.end()) {
        out.counts[key] = std::max(out.counts[key], c->second);
        in.counts.erase(c);
      }
      auto st = in.states.find(s->index);
      if (st == in.states.end()) continue;
      ++with_states;
      for (auto& [state, array] : st->second) {
        BRAID_CHECK(array.size() == s->shape.size(), "optimizer state '", state, "' of key ", key, " has ",
                    array.size(), " elements, its weight ", s->shape.size(), "; a server splits only states ",
                    "shaped like their weight");
        joined[state].push_back(array);
      }
      in.states.erase(st);
    }
    BRAID_CHECK(with_states == 0 || with_states == parts.size(), "the optimizer states of key ", key,
                " are incomplete: ", with_states, " of its ", parts.size(), " slices on this server have been ",
                "updated; save the states after a whole step");
    for (auto& [state, arrays] : joined) {
      BRAID_CHECK(arrays.size() == parts.size(), "optimizer state '", state, "' of key ", key,
                  " is missing in some of its slices");
      out.states[key][state] = join_rows(arrays);
    }
  }
  for (auto& [index, states] : in.states) out.states[index] = std::move(states);  // indices of no slice here
  for (auto& [index, n] : in.counts) out.counts[index] = n;
  return write(out);
}

std::string states_by_slice(const std::string& image, const std::vector<SliceIndex>& slices) {
  Entries in = read(image), out;
  out.num_update = in.num_update;
  for (const auto& [key, parts] : by_key(slices)) {
    if (auto c = in.counts.find(key); c != in.counts.end()) {
      for (const SliceIndex* s : parts) out.counts[s->index] = c->second;
      in.counts.erase(c);
    }
    auto st = in.states.find(key);
    if (st == in.states.end()) continue;
    int64_t total = 0;
    for (const SliceIndex* s : parts) total += s->shape.size();
    for (auto& [state, array] : st->second) {
      BRAID_CHECK(array.size() == total, "optimizer state '", key, "_", state, "' has ", array.size(),
                  " elements but this server holds ", total, " of key ", key);
      const NDArray flat = array.reshape({-1});
      int64_t at = 0;
      for (const SliceIndex* s : parts) {
        out.states[s->index][state] = flat.slice(at, at + s->shape.size()).copy().reshape(s->shape.dims());
        at += s->shape.size();
      }
    }
    in.states.erase(st);
  }
  for (auto& [index, states] : in.states) out.states[index] = std::move(states);
  for (auto& [index, n] : in.counts) out.counts[index] = n;
  return write(out);
}

}  // namespace braid::kv::ps
