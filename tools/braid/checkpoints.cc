#include "checkpoints.h"

#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/io/json_limits.h"
#include "braid/ndarray/invoke.h"

namespace braid::cli {
namespace {

// What a resume must keep: with another value the saved position or states mean something else.
constexpr const char* kFixed[] = {"model", "dataset", "limit", "batch_size", "optimizer", "seed", "workers"};

// The options a checkpoint of this run records, by their command-line names (without the dashes).
nlohmann::json setup_of(const TrainOptions& o, int workers) {
  return {{"model", o.model},         {"dataset", o.dataset}, {"limit", o.limit},    {"batch_size", o.batch_size},
          {"optimizer", o.optimizer}, {"seed", o.seed},       {"workers", workers},  {"lr", o.lr},
          {"momentum", o.momentum},   {"wd", o.wd},           {"kvstore", o.kvstore}};
}

std::string option_name(const std::string& key) {
  if (key == "workers") return "number of workers (braid launch -n)";
  std::string flag = "--" + key;
  for (char& c : flag)
    if (c == '_') c = '-';
  return flag;
}

// Refuses a resume whose fixed options differ from the checkpoint's; says which others changed.
void check_setup(const nlohmann::json& saved, const nlohmann::json& now, const std::string& path) {
  if (!saved.is_object()) {
    std::printf("%s does not record the setup it was written with: not checked\n", path.c_str());
    return;
  }
  for (const char* key : kFixed)
    BRAID_CHECK(!saved.contains(key) || saved[key] == now[key], "cannot resume from ", path, ": it was written with ",
                option_name(key), " ", saved[key].dump(), ", this run has ", now[key].dump(),
                "; the saved position and optimizer states only fit that setup. Resume with ", option_name(key), " ",
                saved[key].dump(), ", or start afresh (without --resume, or with another --checkpoint)");
  for (const auto& [key, value] : now.items())
    if (saved.contains(key) && saved[key] != value)
      std::printf("resuming with %s %s (the checkpoint was written with %s)\n", option_name(key).c_str(),
                  value.dump().c_str(), saved[key].dump().c_str());
}

}  // namespace

Checkpoints::Checkpoints(const TrainOptions& o, int rank, int workers)
    : prefix_(o.checkpoint), writer_(rank == 0), setup_(setup_of(o, workers)) {}

void Checkpoints::save(gluon::Block& model, gluon::Trainer& trainer, Position at) {
  if (!writer_) return;
  nd::waitall();  // the weights of this step
  const std::string stem = cat(prefix_, "-", at.epoch, "-", at.batch);
  model.save_parameters(stem + ".params");
  trainer.save_states(stem + ".states");
  const nlohmann::json index{{"epoch", at.epoch},
                             {"batch", at.batch},
                             {"params", stem + ".params"},
                             {"states", stem + ".states"},
                             {"setup", setup_}};
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
    check_setup(index.value("setup", nlohmann::json()), setup_, path);
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
