#pragma once
// The braid CLI's commands; each returns the process exit code and throws braid::Error on failure.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

namespace braid::cli {

int ops_list(std::ostream& out);
/// One line per array: `NAME DTYPE (d0, d1, ...)`.
int params_show(const std::string& path, std::ostream& out);
/// Draws loss and accuracy per epoch of `logs` (braid train --json-log files) into a PNG.
int plot(const std::vector<std::string>& logs, const std::string& output);

/// braid train's options (see add_train_command for their meaning).
struct TrainOptions {
  std::string model = "lenet", dataset = "fashion-mnist", data_dir, optimizer = "sgd", ctx = "cpu(0)";
  int epochs = 10, num_workers = 1;
  int64_t batch_size = 64, limit = 0, test_limit = 0;
  double lr = 0.05, momentum = 0.9, wd = 0.0;
  uint64_t seed = 42;
  std::string json_log, save;
};
CLI::App* add_train_command(CLI::App& app, TrainOptions& o);
int train(const TrainOptions& o);

}  // namespace braid::cli
