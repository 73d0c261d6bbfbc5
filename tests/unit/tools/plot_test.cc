// braid plot draws the curves of --json-log files into a PNG, and names bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "common/cli_runner.h"

namespace braid::test {
namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  fs::path dir = fs::path(::testing::TempDir()) / "braid_plot_test";
  fs::create_directories(dir);
  return dir / name;
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

TEST(Plot, DrawsAPngFromTwoLogs) {
  auto a = scratch("lenet.json"), b = scratch("mlp.json"), png = scratch("curves.png");
  fs::remove(png);
  write(a,
        R"({"epoch": 1, "train_loss": 0.6, "train_acc": 0.78, "test_acc": 0.84, "samples_per_sec": 3000, "seconds": 20}
{"epoch": 2, "train_loss": 0.4, "train_acc": 0.86, "test_acc": 0.87, "samples_per_sec": 3100, "seconds": 19}
{"final": true, "test_acc": 0.87}
)");
  write(b, R"({"epoch": 1, "train_loss": 0.7, "train_acc": 0.75, "test_acc": 0.8}
)");
  auto r = braid_cli("plot '" + a.string() + "' '" + b.string() + "' -o '" + png.string() + "'");
  ASSERT_EQ(r.code, 0) << r.err;
  std::string bytes = slurp(png);
  ASSERT_GT(bytes.size(), 1000u);
  EXPECT_EQ(bytes.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
}

TEST(Plot, NamesTheBadLine) {
  auto a = scratch("bad.json");
  write(a, "{\"epoch\": 1, \"train_loss\": 0.5}\nnot json\n");
  auto r = braid_cli("plot '" + a.string() + "' -o '" + scratch("bad.png").string() + "'");
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("line 2"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(scratch("bad.png")));
}

TEST(Plot, MissingFileIsAnError) {
  auto r = braid_cli("plot /nonexistent/log.json -o " + scratch("x.png").string());
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/log.json"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace braid::test
