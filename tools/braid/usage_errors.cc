#include "usage_errors.h"

#include <algorithm>

#include "braid/base/error.h"
#include "braid/device/gpu.h"

namespace braid::cli {
namespace {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

std::string joined(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

const char* yes_no(bool b) { return b ? "yes" : "no"; }

// A check that the value is a number above `floor` (or at `floor` too, when `inclusive`).
CLI::Validator number_above(double floor, bool inclusive, const std::string& words) {
  return CLI::Validator(
      [=](std::string& value) -> std::string {
        double v = 0;
        size_t used = 0;
        try {
          v = std::stod(value, &used);
        } catch (const std::exception&) {
          used = 0;
        }
        if (used != value.size() || value.empty()) return cat("must be a number, got '", value, "'");
        return v > floor || (inclusive && v == floor) ? std::string() : cat("must be ", words, ", got ", value);
      },
      inclusive ? "NONNEGATIVE" : "POSITIVE");
}

}  // namespace

const CLI::Validator kPositive = number_above(0, false, "greater than 0");
const CLI::Validator kNonNegative = number_above(0, true, "0 or more");

std::optional<std::string> nearest(const std::string& word, const std::vector<std::string>& choices) {
  std::vector<std::string> longer;  // an abbreviation of one choice: that one
  for (const auto& c : choices)
    if (c.size() > word.size() && c.starts_with(word)) longer.push_back(c);
  if (longer.size() == 1) return longer[0];
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(2, word.size() / 3) + 1;  // beyond: not a typo
  for (const auto& c : choices) {
    const size_t d = edit_distance(word, c);
    if (d < best_distance) best = c, best_distance = d;
  }
  return best;
}

std::string unknown_command(const CLI::App& app, int argc, char** argv) {
  const CLI::App* command = &app;
  std::string path = "braid";
  for (int i = 1; i < argc && argv[i][0] != '-'; ++i) {
    const std::string word = argv[i];
    std::vector<std::string> names;
    for (const CLI::App* sub : command->get_subcommands({})) names.push_back(sub->get_name());
    if (names.empty() || command->get_require_subcommand_min() == 0) return {};  // a positional argument
    const auto it = std::find(names.begin(), names.end(), word);
    if (it == names.end()) {
      const auto guess = nearest(word, names);
      return cat("unknown command '", word, "' of ", path, guess ? cat("; did you mean '", *guess, "'?") : "",
                 " The commands: ", joined(names), " (", path, " --help)");
    }
    command = command->get_subcommand(word);
    path += " " + word;
  }
  return {};
}

std::string unknown_options(CLI::App& command, int argc, char** argv) {
  std::vector<std::string> known;
  for (const CLI::Option* o : command.get_options())
    for (const auto& name : o->get_lnames()) known.push_back("--" + name);
  std::string path = command.get_name();
  for (const CLI::App* up = command.get_parent(); up && up->get_parent(); up = up->get_parent())
    path = up->get_name() + " " + path;
  std::string report;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--") break;
    if (!arg.starts_with("--")) continue;
    arg = arg.substr(0, arg.find('='));
    if (std::find(known.begin(), known.end(), arg) != known.end()) continue;
    const auto guess = nearest(arg, known);
    report += cat(report.empty() ? "" : "\n", "unknown option '", arg, "' of braid ", path,
                  guess ? cat("; did you mean '", *guess, "'?") : std::string(), " (braid ", path, " --help)");
  }
  return report;
}

std::string version_text() {
  const bool cuda = gpu_runtime::built_with_cuda();
  const std::string gpus = gpu_runtime::unavailable_reason();
  return cat("braid ", BRAID_VERSION, " (MXNet 1.9.1's API and file formats)\n", "features: CUDA ",
             cuda ? (gpus.empty() ? "yes (a GPU is here)" : "yes (no GPU usable here)") : "no", ", MPI ",
             yes_no(BRAID_FEATURE_MPI), ", ZeroMQ parameter server ", yes_no(BRAID_FEATURE_ZMQ), ", serving ",
             yes_no(BRAID_FEATURE_SERVING), ", oneDNN yes, OpenBLAS yes\n");
}

}  // namespace braid::cli
