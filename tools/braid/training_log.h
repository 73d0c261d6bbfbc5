#pragma once
// braid train's --json-log: one JSON object per epoch and a final one, the whole file rewritten
// atomically after each. A resumed run keeps the history before its checkpoint: the records of
// the epochs that finished before it, in the order they were written.
#include <nlohmann/json.hpp>
#include <string>

namespace braid::cli {

class TrainingLog {
 public:
  /// No file when `path` is empty. `resume_epoch` > 1: the file's records of the epochs before it
  /// are kept (and lines that are not such records, so that nothing is lost); the others, which
  /// the run writes again, are dropped.
  TrainingLog(std::string path, int resume_epoch);
  /// Adds `record` and rewrites the file.
  void append(const nlohmann::json& record);
  /// How many records came from the file before this run.
  int kept() const { return kept_; }

 private:
  std::string path_, text_;
  int kept_ = 0;
};

}  // namespace braid::cli
