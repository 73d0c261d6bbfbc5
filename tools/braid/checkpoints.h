#pragma once
// braid train's checkpoints (--checkpoint-every N, --resume): the weights, the optimizer states
// (for a parameter-server job, those of every server) and where training stands. Each save
// writes PREFIX-<epoch>-<batch>.params and .states, then commits by replacing PREFIX.json, which
// names them; a job killed at any moment resumes from the last committed checkpoint, losing at
// most N batches. In a distributed job worker 0 writes them and every worker reads them.
// PREFIX.json also records the run's setup; a resume whose model, data, batch size, optimizer,
// seed or number of workers differ is refused (its position would count other batches, or its
// states belong to another optimizer), while other hyper-parameters may change, with a note.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "braid/gluon/block.h"
#include "braid/gluon/trainer.h"
#include "commands.h"

namespace braid::cli {

/// Where training stands: `batch` batches of epoch `epoch` are done.
struct Position {
  int epoch = 1;
  int64_t batch = 0;
};

class Checkpoints {
 public:
  Checkpoints(const TrainOptions& o, int rank, int workers);
  /// Worker 0: writes a checkpoint at `at` and removes the one before.
  void save(gluon::Block& model, gluon::Trainer& trainer, Position at);
  /// Loads the checkpoint of PREFIX.json into `model` and `trainer` and returns its position;
  /// without one, says so and returns the start.
  Position restore(gluon::Block& model, gluon::Trainer& trainer, const std::vector<Context>& contexts);

 private:
  std::string prefix_;
  bool writer_;
  nlohmann::json setup_;  // what this run was started with
  std::string last_params_, last_states_;
};

}  // namespace braid::cli
