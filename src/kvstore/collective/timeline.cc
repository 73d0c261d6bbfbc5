#include "timeline.h"

#include <cerrno>
#include <cstring>
#include <nlohmann/json.hpp>

#include "braid/base/error.h"

namespace braid::collective::detail {

void Timeline::open(const std::string& path) {
  if (path.empty()) return;
  std::lock_guard<std::mutex> lock(mu_);
  file_ = std::fopen(path.c_str(), "w");
  BRAID_CHECK(file_, "collective: cannot write the timeline ", path, ": ", std::strerror(errno));
  std::fputs("[\n", file_);
  start_ = std::chrono::steady_clock::now();
}

void Timeline::close() {
  std::lock_guard<std::mutex> lock(mu_);
  if (!file_) return;
  std::fputs("{}]\n", file_);  // closes the array after the last event's comma
  std::fclose(file_);
  file_ = nullptr;
}

void Timeline::begin(const std::string& tensor, const char* phase) { event(tensor, phase, 'B'); }
void Timeline::end(const std::string& tensor, const char* phase, const char* note) { event(tensor, phase, 'E', note); }

void Timeline::event(const std::string& tensor, const char* phase, char type, const char* note) {
  std::lock_guard<std::mutex> lock(mu_);
  if (!file_) return;
  auto [row, added] = rows_.emplace(tensor, static_cast<int>(rows_.size()) + 1);
  if (added) {  // the row's title
    nlohmann::json meta{{"name", "process_name"}, {"ph", "M"}, {"pid", row->second}, {"args", {{"name", tensor}}}};
    std::fprintf(file_, "%s,\n", meta.dump().c_str());
  }
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(std::chrono::steady_clock::now() - start_);
  nlohmann::json e{{"name", phase}, {"ph", std::string(1, type)}, {"ts", us.count()}, {"pid", row->second}, {"tid", 1}};
  if (note) e["args"] = {{"note", note}};
  std::fprintf(file_, "%s,\n", e.dump().c_str());
  std::fflush(file_);
}

}  // namespace braid::collective::detail
