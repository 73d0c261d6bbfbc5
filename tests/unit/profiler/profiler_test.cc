// The profiler: operators the engine runs show in the Chrome trace and the statistics with their
// names and counts, nothing is recorded while stopped or paused, declared spans, counters and
// markers are written, and bad arguments get errors naming them.
#include "braid/profiler/profiler.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/ndarray.h"

namespace braid {
namespace {

namespace fs = std::filesystem;

class ProfilerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = fs::temp_directory_path() / ("braid_profile_" + std::to_string(::getpid()) + ".json");
    profiler::Config c;
    c.filename = path_.string();
    c.aggregate_stats = true;
    profiler::set_config(c);
    profiler::dumps(/*reset=*/true, "json", "total", false);
    profiler::dump(/*finished=*/true);  // drops what earlier tests recorded
  }
  void TearDown() override {
    profiler::set_state(false);
    profiler::set_paused(false);
    fs::remove(path_);
  }
  nlohmann::json trace() { return nlohmann::json::parse(io::read_file(path_.string(), 1 << 26)); }
  nlohmann::json stats() { return nlohmann::json::parse(profiler::dumps(false, "json", "total", false)); }
  static int count_named(const nlohmann::json& t, const std::string& name, const std::string& ph) {
    int n = 0;
    for (const auto& e : t["traceEvents"]) n += e["name"] == name && e["ph"] == ph;
    return n;
  }
  fs::path path_;
};

TEST_F(ProfilerTest, RecordsOperatorsWithNamesAndCounts) {
  NDArray x(Shape({100, 100}));
  x.fill(4);
  nd::waitall();
  nd::invoke1("sqrt", {x});  // not running yet: not recorded
  nd::waitall();
  profiler::set_state(true);
  NDArray y = nd::invoke1("sqrt", {x});
  NDArray z = nd::invoke1("_plus_scalar", {x}, {{"scalar", "1"}});
  z = nd::invoke1("_plus_scalar", {z}, {{"scalar", "1"}});
  nd::waitall();
  profiler::set_state(false);
  nd::invoke1("sqrt", {x});  // stopped again
  nd::waitall();
  EXPECT_EQ(y.to_vector<float>()[0], 2.0f);

  profiler::dump(/*finished=*/false);
  const nlohmann::json t = trace();
  EXPECT_EQ(count_named(t, "sqrt", "X"), 1);
  EXPECT_EQ(count_named(t, "_plus_scalar", "X"), 2);
  for (const auto& e : t["traceEvents"]) {
    if (e["ph"] == "X") {
      EXPECT_GE(e["dur"].get<int64_t>(), 0);
    }
  }
  const nlohmann::json s = stats();
  EXPECT_EQ(s["Time"]["operator"]["sqrt"]["Count"], 1);
  EXPECT_EQ(s["Time"]["operator"]["_plus_scalar"]["Count"], 2);
  EXPECT_EQ(s["Unit"]["Time"], "ms");
  EXPECT_TRUE(s["Memory"].contains("Device Storage"));  // the arrays' allocations
}

TEST_F(ProfilerTest, OperatorsPushedInAScopeAreNamedByIt) {
  NDArray x(Shape({4}));
  x.fill(1);
  profiler::set_state(true);
  std::string previous = profiler::set_scope("MySigmoid");
  nd::invoke1("exp", {x});
  EXPECT_EQ(profiler::set_scope(previous), "MySigmoid");
  nd::invoke1("exp", {x});
  nd::waitall();
  const nlohmann::json s = stats();
  EXPECT_EQ(s["Time"]["Custom Operator"]["MySigmoid::exp"]["Count"], 1);
  EXPECT_EQ(s["Time"]["operator"]["exp"]["Count"], 1);
}

TEST_F(ProfilerTest, PausedRecordsNothingAndDumpWithoutContinuousStartsOver) {
  NDArray x(Shape({10}));
  x.fill(1);
  profiler::set_state(true);
  profiler::set_paused(true);
  nd::invoke1("exp", {x});
  nd::waitall();
  profiler::set_paused(false);
  nd::invoke1("exp", {x});
  nd::waitall();
  profiler::dump(false);
  EXPECT_EQ(count_named(trace(), "exp", "X"), 1);
  profiler::dump(false);  // without continuous_dump each dump holds what came after the last one
  EXPECT_EQ(count_named(trace(), "exp", "X"), 0);
  profiler::set_paused(true);
  profiler::set_state(true);  // starting again ends the pause
  nd::invoke1("exp", {x});
  nd::waitall();
  profiler::dump(false);
  EXPECT_EQ(count_named(trace(), "exp", "X"), 1);
}

TEST_F(ProfilerTest, DeclaredSpansCountersAndMarkers) {
  profiler::set_state(true);
  profiler::record_span("PythonDomain", "load", "task", 10, 30);
  profiler::record_counter("PythonDomain", "items", 5);
  profiler::record_marker("PythonDomain", "epoch", "process");
  EXPECT_THROW(profiler::record_marker("PythonDomain", "epoch", "galaxy"), Error);
  profiler::dump(true);
  const nlohmann::json t = trace();
  EXPECT_EQ(count_named(t, "load", "X"), 1);
  EXPECT_EQ(count_named(t, "items", "C"), 1);
  EXPECT_EQ(count_named(t, "epoch", "i"), 1);
  EXPECT_EQ(stats()["Time"]["PythonDomain"]["load"]["Total"], 0.02);
}

TEST_F(ProfilerTest, StatisticsSortAndReject) {
  profiler::set_state(true);
  profiler::record_span("D", "short", "event", 0, 1000);
  profiler::record_span("D", "long", "event", 0, 5000);
  profiler::record_span("D", "long", "event", 0, 5000);
  const auto order = [](const std::string& sort_by, bool ascending) {
    auto s = nlohmann::ordered_json::parse(profiler::dumps(false, "json", sort_by, ascending));
    std::vector<std::string> names;
    for (const auto& [name, v] : s["Time"]["D"].items()) names.push_back(name);
    return names;
  };
  EXPECT_EQ(order("total", false), (std::vector<std::string>{"long", "short"}));
  EXPECT_EQ(order("count", true), (std::vector<std::string>{"short", "long"}));
  EXPECT_EQ(order("max", true), (std::vector<std::string>{"short", "long"}));
  const std::string table = profiler::dumps(false, "table", "avg", false);
  EXPECT_NE(table.find("Profile Statistics"), std::string::npos);
  EXPECT_LT(table.find("long"), table.find("short"));
  EXPECT_THROW(profiler::dumps(false, "xml", "total", false), Error);
  EXPECT_THROW(profiler::dumps(false, "json", "median", false), Error);
  profiler::dumps(true, "json", "total", false);  // reset
  EXPECT_TRUE(stats()["Time"].empty());
}

}  // namespace
}  // namespace braid
