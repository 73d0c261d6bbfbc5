#include "training_log.h"

#include <filesystem>
#include <sstream>

#include "braid/io/file.h"

namespace braid::cli {

TrainingLog::TrainingLog(std::string path, int resume_epoch) : path_(std::move(path)) {
  if (path_.empty() || resume_epoch <= 1 || !std::filesystem::exists(path_)) return;
  std::istringstream lines(io::read_file(path_));
  for (std::string line; std::getline(lines, line);) {
    const auto record = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
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
