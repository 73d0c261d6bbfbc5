// braid plot: loss and accuracy curves of one or more --json-log files, drawn by gnuplot.
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/io/json_limits.h"
#include "commands.h"

namespace braid::cli {
namespace {

namespace fs = std::filesystem;

struct Series {
  std::string title;
  fs::path data;  // columns: epoch train_loss train_acc test_acc
  double first_epoch = 0, last_epoch = 0;
};

double number_or_nan(const nlohmann::json& j, const char* key) {
  return j.contains(key) && j[key].is_number() ? j[key].get<double>() : std::nan("");
}

/// Writes the per-epoch figures of `log` as a gnuplot data file.
Series read_log(const std::string& log, const fs::path& dir, size_t index) {
  std::istringstream in(io::read_file(log, io::kMaxTextFileBytes));
  Series s{fs::path(log).stem().string(), dir / ("series" + std::to_string(index) + ".dat")};
  std::ofstream out(s.data);
  std::string line;
  int rows = 0, lineno = 0;
  while (std::getline(in, line)) {
    ++lineno;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    const nlohmann::json j = io::parse_json(
        line, cat("braid plot: ", log, " line ", lineno, " (expected the output of braid train --json-log)"));
    if (j.value("final", false) || !j.contains("epoch")) continue;
    const double epoch = number_or_nan(j, "epoch");
    BRAID_CHECK(!std::isnan(epoch), "braid plot: ", log, " line ", lineno, ": \"epoch\" is not a number");
    s.first_epoch = rows == 0 ? epoch : std::min(s.first_epoch, epoch);
    s.last_epoch = rows == 0 ? epoch : std::max(s.last_epoch, epoch);
    out << epoch << " " << number_or_nan(j, "train_loss") << " " << number_or_nan(j, "train_acc") << " "
        << number_or_nan(j, "test_acc") << "\n";
    ++rows;
  }
  BRAID_CHECK(rows > 0, "braid plot: ", log, " has no per-epoch records (\"epoch\": N)");
  return s;
}

std::string quoted(const std::string& s) {
  std::string q = "\"";
  for (char c : s) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
  return q + "\"";
}

}  // namespace

int plot(const std::vector<std::string>& logs, const std::string& output) {
  BRAID_CHECK(!logs.empty(), "braid plot: give at least one --json-log file");
  fs::path dir = fs::temp_directory_path() / ("braid_plot_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::vector<Series> series;
  for (size_t i = 0; i < logs.size(); ++i) series.push_back(read_log(logs[i], dir, i));

  // The epochs every log covers, half an epoch of margin: a one-epoch log is a visible point.
  double first = series[0].first_epoch, last = series[0].last_epoch;
  for (const auto& s : series) first = std::min(first, s.first_epoch), last = std::max(last, s.last_epoch);
  const fs::path tmp_png = fs::path(output).string() + ".tmp.png";
  std::string script =
      cat("set terminal pngcairo size 1200,450 font ',10'\nset output ", quoted(tmp_png.string()),
          "\nset multiplot layout 1,2\nset grid\nset xlabel 'epoch'\nset key right top\n", "set xrange [", first - 0.5,
          ":", last + 0.5, "]\n", last - first <= 20 ? "set xtics 1\n" : "", "set title 'training loss'\nplot ");
  for (size_t i = 0; i < series.size(); ++i)
    script += cat(i ? ", " : "", quoted(series[i].data.string()), " using 1:2 with linespoints title ",
                  quoted(series[i].title));
  script += "\nset title 'accuracy'\nset key right bottom\nplot ";
  for (size_t i = 0; i < series.size(); ++i)
    script += cat(i ? ", " : "", quoted(series[i].data.string()), " using 1:4 with linespoints title ",
                  quoted(series[i].title + " test"), ", ", quoted(series[i].data.string()),
                  " using 1:3 with linespoints dashtype 2 pointtype 6 title ", quoted(series[i].title + " train"));
  script += "\nunset multiplot\n";

  // gnuplot's own messages go to a file, shown only when it fails.
  const fs::path messages = dir / "gnuplot.log";
  FILE* gp = ::popen(cat("gnuplot > ", quoted(messages.string()), " 2>&1").c_str(), "w");
  BRAID_CHECK(gp, "braid plot: cannot start gnuplot; install Debian's gnuplot-nox (scripts/install-deps.sh)");
  std::fputs(script.c_str(), gp);
  int status = ::pclose(gp);
  std::string said;
  if (fs::exists(messages)) said = io::read_file(messages.string(), io::kMaxTextFileBytes);
  fs::remove_all(dir);
  BRAID_CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0 && fs::exists(tmp_png),
              "braid plot: gnuplot failed (exit status ", status, ")",
              said.empty() ? "; is Debian's gnuplot-nox installed? (scripts/install-deps.sh)" : ": " + said);
  fs::rename(tmp_png, output);  // atomic: the old plot or the complete new one
  return 0;
}

}  // namespace braid::cli
