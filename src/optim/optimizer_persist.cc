// Optimizer::serialize / deserialize (JSON) and save_states / load_states (.params image).
#include <nlohmann/json.hpp>

#include "braid/base/error.h"
#include "braid/base/suggest.h"
#include "braid/io/json_limits.h"
#include "braid/io/params.h"
#include "braid/ndarray/creation.h"
#include "braid/op/param_reader.h"
#include "braid/optim/optimizer.h"

namespace braid::optim {

using nlohmann::json;

namespace {

constexpr const char* kFormat = "braid.optimizer/1";
constexpr const char* kCounts = Optimizer::kUpdateCountsEntry;
constexpr const char* kNumUpdate = Optimizer::kNumUpdateEntry;
constexpr const char* kMaster = "weight32";

// Maps with int keys travel as [[key, value], ...] (JSON object keys are strings).
template <class V>
json pairs(const std::map<int, V>& m) {
  json out = json::array();
  for (const auto& [k, v] : m) out.push_back({k, v});
  return out;
}
template <class V>
std::map<int, V> from_pairs(const json& j) {
  std::map<int, V> out;
  for (const auto& p : j) out[p.at(0).get<int>()] = p.at(1).get<V>();
  return out;
}

}  // namespace

std::string Optimizer::serialize() const {
  CoreIdentity core = core_identity();
  std::map<std::string, std::string> all = params();
  all.insert(core.params.begin(), core.params.end());
  json j{{"format", kFormat},
         {"optimizer", core.name},
         {"params", all},
         {"learning_rate_given", learning_rate_given_},
         {"idx2name", pairs(idx2name_)},
         {"lr_mult", {{"by_name", lr_mult_.by_name}, {"by_index", pairs(lr_mult_.by_index)}}},
         {"wd_mult", {{"by_name", wd_mult_.by_name}, {"by_index", pairs(wd_mult_.by_index)}}},
         {"lr_scheduler", lr_scheduler_ ? json::parse(lr_scheduler_->serialize()) : json()}};
  return j.dump();
}

std::unique_ptr<Optimizer> Optimizer::deserialize(const std::string& text) {
  json j;
  try {
    j = io::parse_json(text, "serialized optimizer (the text Optimizer::serialize() writes)");
    BRAID_CHECK(j.value("format", "") == kFormat, "not a serialized optimizer (format '", j.value("format", ""),
                "', expected ", kFormat, ")");
    std::unique_ptr<Optimizer> opt =
        create(j.at("optimizer").get<std::string>(), j.at("params").get<std::map<std::string, std::string>>());
    opt->learning_rate_given_ = j.at("learning_rate_given").get<bool>();
    opt->idx2name_ = from_pairs<std::string>(j.at("idx2name"));
    for (auto [mult, key] : {std::pair{&opt->lr_mult_, "lr_mult"}, std::pair{&opt->wd_mult_, "wd_mult"}}) {
      mult->by_name = j.at(key).at("by_name").get<std::map<std::string, double>>();
      mult->by_index = from_pairs<double>(j.at(key).at("by_index"));
    }
    if (!j.at("lr_scheduler").is_null()) opt->lr_scheduler_ = LRScheduler::deserialize(j.at("lr_scheduler").dump());
    return opt;
  } catch (const json::exception& e) {
    throw Error(cat("cannot read a serialized optimizer (", e.what(), "); pass the text Optimizer::serialize() wrote"));
  }
}

std::string Optimizer::save_states() const {
  const std::vector<std::string> names = state_names();
  std::vector<std::pair<std::string, NDArray>> named;
  for (const auto& [index, st] : states_) {
    for (size_t k = 0; k < st.arrays.size(); ++k) named.emplace_back(cat(index, "_", names[k]), st.arrays[k]);
    if (!st.weight32.is_none()) named.emplace_back(cat(index, "_", kMaster), st.weight32);
  }
  std::vector<int64_t> counts;
  for (const auto& [index, n] : update_counts_) counts.insert(counts.end(), {index, n});
  if (!counts.empty())
    named.emplace_back(kCounts,
                       nd::array(counts, Shape({static_cast<int64_t>(counts.size() / 2), 2}), cpu(), DType::Int64));
  named.emplace_back(kNumUpdate, nd::array(std::vector<int64_t>{num_update_}, Shape({1}), cpu(), DType::Int64));
  return io::save_to_bytes(named);
}

void Optimizer::load_states(const std::string& bytes) {
  io::NamedArrays saved = io::load_from_bytes(bytes, "optimizer states");
  BRAID_CHECK(saved.names.size() == saved.arrays.size(), "optimizer ", name_,
              ": the saved states are an unnamed list; pass the bytes save_states() wrote");
  std::map<int, std::map<std::string, NDArray>> by_index;
  std::map<int, int> counts;
  int num_update = begin_num_update_;
  for (size_t i = 0; i < saved.names.size(); ++i) {
    const std::string& n = saved.names[i];
    const NDArray& a = saved.arrays[i];
    if (n == kNumUpdate) {
      num_update = static_cast<int>(a.scalar<int64_t>());
    } else if (n == kCounts) {
      std::vector<int64_t> v = a.to_vector<int64_t>();
      for (size_t r = 0; r + 1 < v.size(); r += 2) counts[static_cast<int>(v[r])] = static_cast<int>(v[r + 1]);
    } else {
      size_t sep = n.find('_');
      int index = 0;
      try {
        index = static_cast<int>(op::parse_int(n.substr(0, sep)));
      } catch (const Error&) {
        sep = std::string::npos;
      }
      BRAID_CHECK(sep != std::string::npos, "optimizer ", name_, ": saved state '", n,
                  "' is not named <index>_<state>; pass the bytes save_states() wrote");
      by_index[index][n.substr(sep + 1)] = a;
    }
  }
  const std::vector<std::string> names = state_names();
  std::map<int, State> states;
  for (auto& [index, arrays] : by_index) {
    State st;
    for (const auto& s : names) {
      auto it = arrays.find(s);
      BRAID_CHECK(it != arrays.end(), "optimizer ", name_, ": the saved states of index ", index, " lack '", s,
                  "'; they come from another optimizer or other settings");
      st.arrays.push_back(it->second);
      arrays.erase(it);
    }
    if (auto m = arrays.find(kMaster); m != arrays.end()) {
      st.weight32 = m->second;
      arrays.erase(m);
    }
    BRAID_CHECK(arrays.empty(), "optimizer ", name_, ": saved state '", index, "_", arrays.begin()->first,
                "' is not one of this optimizer's states (", comma_list(names), ")");
    states[index] = std::move(st);
  }
  states_ = std::move(states);
  update_counts_ = std::move(counts);
  num_update_ = num_update;
}

}  // namespace braid::optim
