#pragma once
// Internal: the profiler's per-name statistics (count, total, min, max, average) and their table
// and JSON forms, as MXNet's profiler.dumps() prints them.
#include <map>
#include <string>

namespace braid::profiler::detail {

class Statistics {
 public:
  /// One timed run of `name` in `domain` ("operator", a program's domain), in milliseconds.
  void add_time(const std::string& domain, const std::string& name, double ms);
  /// One observation of a memory figure, in kB.
  void add_memory(const std::string& domain, const std::string& name, double kb);
  /// format "table" or "json"; sort_by "total", "avg", "min", "max" or "count". Memory figures
  /// have no total: sorted by "total" they keep their name order.
  std::string render(const std::string& format, const std::string& sort_by, bool ascending) const;
  void clear();

 private:
  struct Stat {
    long count = 0;
    double total = 0, min = 0, max = 0;
    void add(double value);
    double avg() const { return count ? total / static_cast<double>(count) : 0; }
  };
  using Domains = std::map<std::string, std::map<std::string, Stat>>;
  Domains time_, memory_;
};

}  // namespace braid::profiler::detail
