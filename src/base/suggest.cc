#include "braid/base/suggest.h"

#include <algorithm>
#include <cctype>

#include "braid/base/error.h"

namespace braid {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min(
          {prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (std::tolower(a[i - 1]) == std::tolower(b[j - 1]) ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  std::vector<std::pair<size_t, std::string>> close;
  for (const auto& c : candidates) close.emplace_back(edit_distance(name, c), c);
  std::sort(close.begin(), close.end());
  std::string hint;
  for (size_t i = 0; i < close.size() && i < 3 && close[i].first <= 3; ++i)
    hint += cat(hint.empty() ? "; did you mean " : ", ", close[i].second);
  return hint;
}

std::string comma_list(const std::vector<std::string>& names, const std::string& if_empty) {
  std::string out;
  for (const auto& n : names) out += cat(out.empty() ? "" : ", ", n);
  return out.empty() ? if_empty : out;
}

}  // namespace braid
