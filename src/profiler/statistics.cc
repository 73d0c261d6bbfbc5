#include "profiler/statistics.h"

#include <algorithm>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <vector>

#include "braid/base/error.h"

namespace braid::profiler::detail {
namespace {

const char* const kSortKeys[] = {"total", "avg", "min", "max", "count"};

}  // namespace

void Statistics::Stat::add(double value) {
  min = count ? std::min(min, value) : value;
  max = count ? std::max(max, value) : value;
  total += value;
  ++count;
}

void Statistics::add_time(const std::string& domain, const std::string& name, double ms) {
  time_[domain][name].add(ms);
}

void Statistics::add_memory(const std::string& domain, const std::string& name, double kb) {
  memory_[domain][name].add(kb);
}

void Statistics::clear() {
  time_.clear();
  memory_.clear();
}

std::string Statistics::render(const std::string& format, const std::string& sort_by, bool ascending) const {
  BRAID_CHECK(format == "table" || format == "json", "profiler.dumps: format '", format,
              "' is not one of 'table', 'json'");
  BRAID_CHECK(std::find(std::begin(kSortKeys), std::end(kSortKeys), sort_by) != std::end(kSortKeys),
              "profiler.dumps: sort_by '", sort_by, "' is not one of 'total', 'avg', 'min', 'max', 'count'");
  auto key = [&](const Stat& s, bool is_memory) -> double {
    if (sort_by == "total") return is_memory ? 0 : s.total;
    if (sort_by == "avg") return s.avg();
    if (sort_by == "min") return s.min;
    if (sort_by == "max") return s.max;
    return static_cast<double>(s.count);
  };
  auto sorted = [&](const std::map<std::string, Stat>& items, bool is_memory) {
    std::vector<std::pair<std::string, Stat>> v(items.begin(), items.end());
    std::stable_sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
      return ascending ? key(a.second, is_memory) < key(b.second, is_memory)
                       : key(a.second, is_memory) > key(b.second, is_memory);
    });
    return v;
  };

  if (format == "json") {
    nlohmann::ordered_json out{{"Memory", nlohmann::ordered_json::object()},
                               {"Time", nlohmann::ordered_json::object()},
                               {"Unit", {{"Time", "ms"}, {"Memory", "kB"}}}};
    for (const auto& [domain, items] : memory_)
      for (const auto& [name, s] : sorted(items, true))
        out["Memory"][domain][name] = {{"Count", s.count}, {"Min", s.min}, {"Max", s.max}, {"Avg", s.avg()}};
    for (const auto& [domain, items] : time_)
      for (const auto& [name, s] : sorted(items, false))
        out["Time"][domain][name] = {
            {"Count", s.count}, {"Total", s.total}, {"Min", s.min}, {"Max", s.max}, {"Avg", s.avg()}};
    return out.dump(4);
  }

  std::string out = "\nProfile Statistics:\n\tNote the difference in units for different entries.\n";
  char line[256];
  for (const auto& [domain, items] : memory_) {
    out += cat(domain, "\n=================\n");
    std::snprintf(line, sizeof line, "%-40s %12s %16s %16s %16s\n", "Name", "Total Count", "Min Use  (kB)",
                  "Max Use  (kB)", "Avg Use  (kB)");
    out += line;
    for (const auto& [name, s] : sorted(items, true)) {
      std::snprintf(line, sizeof line, "%-40s %12ld %16.4f %16.4f %16.4f\n", name.c_str(), s.count, s.min, s.max,
                    s.avg());
      out += line;
    }
    out += "\n";
  }
  for (const auto& [domain, items] : time_) {
    out += cat(domain, "\n=================\n");
    std::snprintf(line, sizeof line, "%-40s %12s %16s %16s %16s %16s\n", "Name", "Total Count", "Time (ms)",
                  "Min Time (ms)", "Max Time (ms)", "Avg Time (ms)");
    out += line;
    for (const auto& [name, s] : sorted(items, false)) {
      std::snprintf(line, sizeof line, "%-40s %12ld %16.4f %16.4f %16.4f %16.4f\n", name.c_str(), s.count, s.total,
                    s.min, s.max, s.avg());
      out += line;
    }
    out += "\n";
  }
  return out;
}

}  // namespace braid::profiler::detail
