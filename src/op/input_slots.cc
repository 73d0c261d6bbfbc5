#include "braid/op/input_slots.h"

#include <algorithm>

#include "braid/base/error.h"

namespace braid::op {

std::vector<size_t> input_slots(const std::string& op, const std::vector<std::string>& slots,
                                const std::vector<std::string>& names, const std::string& where) {
  std::vector<bool> taken(slots.size(), false);
  std::vector<size_t> result;
  size_t next = 0;
  for (const auto& name : names) {
    size_t slot;
    if (name.empty()) {
      while (next < slots.size() && taken[next]) ++next;
      BRAID_CHECK(next < slots.size(), "operator ", op, where, " takes ", slots.size(), " inputs but more were given");
      slot = next;
    } else {
      auto it = std::find(slots.begin(), slots.end(), name);
      if (it == slots.end()) {
        std::string known;
        for (const auto& a : slots) known += cat(known.empty() ? "" : ", ", a);
        throw Error(cat("operator ", op, where, " has no input named '", name,
                        "'; its inputs are: ", known.empty() ? "none" : known));
      }
      slot = static_cast<size_t>(it - slots.begin());
    }
    BRAID_CHECK(!taken[slot], "operator ", op, where, ": input ", slots[slot], " is given twice");
    taken[slot] = true;
    result.push_back(slot);
  }
  return result;
}

}  // namespace braid::op
