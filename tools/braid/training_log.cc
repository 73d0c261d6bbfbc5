#include "training_log.h"

#include <filesystem>
#include <sstream>

#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/io/json_limits.h"

namespace braid::cli {

TrainingLog::TrainingLog(std::string path, int resume_epoch) : path_(std::move(path)) {
  if (path_.empty() || resume_epoch <= 1 || !std::filesystem::exists(path_)) return;
  std::istringstream lines(io::read_file(path_, io::kMaxTextFileBytes));
  for (std::string line; std::getline(lines, line);) {
    nlohmann::json record;  // stays null for a line that is not JSON: kept as it is
    try {
      record = io::parse_json(line, path_);
    } catch (const Error&) {
    }
    const bool redone = record.is_object() && (record.value("final", false) ||
                                               (record.contains("epoch") && record["epoch"].is_number_integer() &&
                                                record["epoch"].get<int>() >= resume_epoch));
    if (redone) continue;
    text_ += line + "\n";
    ++kept_;
  }
}

void TrainingLog::append(const nlohmann::json& record) {
  text_ += record.dump() + "\n";
  if (!path_.empty()) io::write_file_atomically(path_, text_);
}

}  // namespace braid::cli
