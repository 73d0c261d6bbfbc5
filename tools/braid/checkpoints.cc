#include "checkpoints.h"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/io/json_limits.h"
#include "braid/ndarray/invoke.h"

namespace braid::cli {

void Checkpoints::save(gluon::Block& model, gluon::Trainer& trainer, Position at) {
  if (!writer_) return;
  nd::waitall();  // the weights of this step
  const std::string stem = cat(prefix_, "-", at.epoch, "-", at.batch);
  model.save_parameters(stem + ".params");
  trainer.save_states(stem + ".states");
  const nlohmann::json index{
      {"epoch", at.epoch}, {"batch", at.batch}, {"params", stem + ".params"}, {"states", stem + ".states"}};
  io::write_file_atomically(prefix_ + ".json", index.dump() + "\n");  // the commit
  std::error_code ignored;
  if (!last_params_.empty() && last_params_ != stem + ".params") {
    std::filesystem::remove(last_params_, ignored);
    std::filesystem::remove(last_states_, ignored);
  }
  last_params_ = stem + ".params";
  last_states_ = stem + ".states";
}

Position Checkpoints::restore(gluon::Block& model, gluon::Trainer& trainer, const std::vector<Context>& contexts) {
  const std::string path = prefix_ + ".json";
  if (!std::filesystem::exists(path)) {
    std::printf("no checkpoint at %s: starting from the beginning\n", path.c_str());
    return {};
  }
  nlohmann::json index;
  try {
    index = io::read_json_file(path);
  } catch (const Error& e) {
    throw Error(cat(e.what(), "; remove ", path, " to start afresh"));
  }
  try {
    Position at{index.at("epoch").get<int>(), index.at("batch").get<int64_t>()};
    model.load_parameters(index.at("params").get<std::string>(), contexts);
    // Worker 0 gives the servers their states; every worker sets up its store (a collective step).
    if (writer_)
      trainer.load_states(index.at("states").get<std::string>());
    else
      trainer.kvstore();
    if (auto store = trainer.kvstore()) store->barrier();
    last_params_ = index.at("params").get<std::string>();
    last_states_ = index.at("states").get<std::string>();
    std::printf("resuming from %s: epoch %d, after batch %lld\n", path.c_str(), at.epoch,
                static_cast<long long>(at.batch));
    return at;
  } catch (const nlohmann::json::exception& e) {
    throw Error(cat("the checkpoint index ", path, " is malformed (", e.what(), "); remove it to start afresh"));
  }
}

}  // namespace braid::cli
