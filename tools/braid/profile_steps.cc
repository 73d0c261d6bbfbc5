// braid profile steps: where the steps of a `braid train --profile` run went. The trace's time
// from the first operator or exchange to the last splits into three parts that add up: operators
// running (compute), no operator running while a KVStore request was in flight (waiting for the
// store), and neither (waiting for data or the program). The requests are then broken down by
// kind into the wire and queues, the servers' work, and the servers' wait for the other workers of
// a synchronous round (their skew), as the servers reported them (a collective's, having no
// server, only by their count, bytes and time in flight).
#include <algorithm>
#include <cstdio>
#include <map>
#include <utility>
#include <vector>

#include "braid/base/error.h"
#include "braid/io/json_limits.h"
#include "commands.h"

namespace braid::cli {
namespace {

using Interval = std::pair<int64_t, int64_t>;  // [start, end) in microseconds

// Sorted, disjoint intervals covering the same time as `spans`.
std::vector<Interval> merged(std::vector<Interval> spans) {
  std::sort(spans.begin(), spans.end());
  std::vector<Interval> out;
  for (const Interval& s : spans) {
    if (!out.empty() && s.first <= out.back().second)
      out.back().second = std::max(out.back().second, s.second);
    else
      out.push_back(s);
  }
  return out;
}

int64_t length(const std::vector<Interval>& spans) {
  int64_t n = 0;
  for (const auto& [a, b] : spans) n += b - a;
  return n;
}

// The time two merged lists share.
int64_t overlap(const std::vector<Interval>& x, const std::vector<Interval>& y) {
  int64_t n = 0;
  for (size_t i = 0, j = 0; i < x.size() && j < y.size();) {
    n += std::max<int64_t>(0, std::min(x[i].second, y[j].second) - std::max(x[i].first, y[j].first));
    x[i].second < y[j].second ? ++i : ++j;
  }
  return n;
}

struct Requests {
  int64_t count = 0, total_us = 0, work_us = 0, wait_us = 0, reported = 0;  // reported: with the servers' figures
  uint64_t bytes = 0;
};

int64_t number(const nlohmann::json& event, const char* field) {
  const auto it = event.find(field);
  return it != event.end() && it->is_number() ? it->get<int64_t>() : 0;
}

void print_steps(const std::string& path, std::ostream& out) {
  const nlohmann::json trace = io::read_json_file(path);
  BRAID_CHECK(trace.is_object() && trace.contains("traceEvents") && trace["traceEvents"].is_array(), path,
              " is not a profiler trace (a JSON object with a traceEvents array)");
  std::vector<Interval> ops, requests;
  std::map<std::string, Requests> kinds;
  int64_t steps = 0, first = INT64_MAX, last = INT64_MIN;
  for (const nlohmann::json& e : trace["traceEvents"]) {
    if (!e.is_object() || !e.contains("name") || !e["name"].is_string()) continue;
    const std::string cat = e.value("cat", ""), ph = e.value("ph", "");
    if (ph == "i" && cat == "braid train" && e["name"] == "step") ++steps;
    if (ph != "X" || (cat != "operator" && cat != "kvstore")) continue;
    const int64_t start = number(e, "ts"), end = start + std::max<int64_t>(0, number(e, "dur"));
    first = std::min(first, start);
    last = std::max(last, end);
    if (cat == "operator") {
      ops.emplace_back(start, end);
      continue;
    }
    requests.emplace_back(start, end);
    Requests& k = kinds[e["name"].get<std::string>()];
    ++k.count;
    k.total_us += end - start;
    const nlohmann::json args = e.value("args", nlohmann::json::object());
    k.reported += args.contains("server_work_us") ? 1 : 0;
    k.work_us += std::max<int64_t>(0, number(args, "server_work_us"));
    k.wait_us += std::max<int64_t>(0, number(args, "server_wait_us"));
    k.bytes += static_cast<uint64_t>(std::max<int64_t>(0, number(args, "bytes")));
  }
  BRAID_CHECK(steps > 0 && first < last, path, " holds no training steps: write it with braid train --profile ", path);
  const std::vector<Interval> busy = merged(std::move(ops)), in_flight = merged(std::move(requests));
  const double n = static_cast<double>(steps), window = static_cast<double>(last - first);
  const double compute = static_cast<double>(length(busy));
  const double waiting_store = static_cast<double>(length(in_flight) - overlap(in_flight, busy));
  auto ms = [n](double us) { return us / n / 1000.0; };
  auto row = [&](const char* what, double us) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-46s %9.3f ms %5.1f%%\n", what, ms(us), 100.0 * us / window);
    out << line;
  };
  char head[200];
  std::snprintf(head, sizeof head, "%s: %lld steps, %.3f ms per step\n", path.c_str(), static_cast<long long>(steps),
                ms(window));
  out << head;
  row("operators running (compute)", compute);
  row("waiting for the kvstore (requests in flight)", waiting_store);
  row("waiting for data or the program", window - compute - waiting_store);
  for (const auto& [name, k] : kinds) {
    char line[320];
    int used = std::snprintf(line, sizeof line,
                             "  %s: %.1f per step, %.1f KB per step, %.3f ms in flight per step "
                             "(summed over keys)",
                             name.c_str(), static_cast<double>(k.count) / n, static_cast<double>(k.bytes) / n / 1024.0,
                             ms(static_cast<double>(k.total_us)));
    if (k.reported > 0)  // a parameter server's exchanges (a collective has no server to ask)
      std::snprintf(line + used, sizeof line - static_cast<size_t>(used),
                    ": wire and queues %.3f, server work %.3f, server waiting for other workers %.3f",
                    ms(static_cast<double>(k.total_us - k.work_us - k.wait_us)), ms(static_cast<double>(k.work_us)),
                    ms(static_cast<double>(k.wait_us)));
    out << line << "\n";
  }
}

}  // namespace

int profile_steps(const std::vector<std::string>& traces, std::ostream& out) {
  for (const std::string& path : traces) print_steps(path, out);
  return 0;
}

}  // namespace braid::cli
