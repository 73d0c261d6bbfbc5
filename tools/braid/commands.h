#pragma once
// The braid CLI's commands; each returns the process exit code and throws braid::Error on failure.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "braid/serving/server.h"
#include "model_inputs.h"
#include "usage_errors.h"

namespace braid::cli {

int ops_list(std::ostream& out);
/// One line per array: `NAME DTYPE (d0, d1, ...)`.
int params_show(const std::string& path, std::ostream& out);
/// Where the steps of `braid train --profile` traces went: compute, waiting for the kvstore,
/// waiting for data; the kvstore's requests split into wire, server work and server wait.
int profile_steps(const std::vector<std::string>& traces, std::ostream& out);
/// Draws loss and accuracy per epoch of `logs` (braid train --json-log files) into a PNG.
int plot(const std::vector<std::string>& logs, const std::string& output);

/// braid train's options (see add_train_command for their meaning).
struct TrainOptions {
  std::string model = "lenet", dataset = "fashion-mnist", data_dir, optimizer = "sgd", ctx = "cpu(0)";
  std::string data_train, data_val, image_shape;  // images: folders or .rec files; "C,H,W" ("": the model's)
  int64_t classes = 0;                            // 0: the number of class folders
  std::string kvstore = "device";                 // with several contexts
  int model_parallel = 1, micro_batches = 4;      // stages on cpu(0) .. cpu(N-1), batch run in micro-batches
  int epochs = 10, num_workers = 1;
  int64_t batch_size = 64, limit = 0, test_limit = 0;
  double lr = 0.05, momentum = 0.9, wd = 0.0;
  uint64_t seed = 42;
  std::string json_log, save, profile;
  int64_t checkpoint_every = 0;                 // batches; 0: no checkpoints
  std::string checkpoint = "braid-checkpoint";  // prefix of the checkpoint files
  bool resume = false;
  bool ignore_divergence = false;  // train on when the loss is NaN or stays at chance
};
CLI::App* add_train_command(CLI::App& app, TrainOptions& o);
int train(const TrainOptions& o);

/// braid simulate's options (see add_simulate_command).
struct SimulateOptions {
  std::string model = "resnet50_v1", kvstore = "dist_sync", compression, json;
  double step_ms = 100, forward_share = 1.0 / 3;
  int steps = 20, warmup = 3;
  int keys_per_list = 24;  // parameter server: gradients per list pushpull (1: each on its own)
  int64_t scale = 1;
};
CLI::App* add_simulate_command(CLI::App& app, SimulateOptions& o);
/// A worker whose compute is a calibrated wait, exchanging the gradients of o.model's sizes
/// through the job's store; prints its weak-scaling efficiency.
int simulate(const SimulateOptions& o);

/// braid launch's options (see add_launch_command).
struct LaunchOptions {
  int workers = 1, servers = -1;  // servers < 0: as many as workers
  std::string launcher = "local", hostfile, sync_dst_dir;
  std::vector<std::string> env, command;
  bool dry_run = false;
};
CLI::App* add_launch_command(CLI::App& app, LaunchOptions& o);
/// Runs the job; `command` is the workers' command line. Returns 0
/// when every process succeeded, else the first failure's status (130 after Ctrl-C).
int launch(LaunchOptions o, std::vector<std::string> command);

/// braid im2rec's options, MXNet's tools/im2rec.py's (see add_im2rec_command).
struct Im2recOptions {
  std::string prefix, root;
  bool list = false, recursive = false, no_shuffle = false, pass_through = false, center_crop = false;
  bool pack_label = false;
  std::vector<std::string> exts{".jpeg", ".jpg", ".png"};
  int chunks = 1, resize = 0, quality = 95, num_thread = 1, color = 1;
  double train_ratio = 1.0, test_ratio = 0.0;
  std::string encoding = ".jpg";
};
CLI::App* add_im2rec_command(CLI::App& app, Im2recOptions& o);
/// With --list writes PREFIX.lst (or chunks and train/val/test splits) of the images under ROOT;
/// otherwise packs every PREFIX*.lst into a .rec and its .idx.
int im2rec(const Im2recOptions& o, std::ostream& out);

/// braid onnx's options (see add_onnx_command).
struct OnnxOptions {
  std::string symbol, params, output = "model.onnx", model, prefix;
  std::vector<std::string> shapes;
  bool dynamic = false;
};
CLI::App* add_onnx_command(CLI::App& app, OnnxOptions& o);
/// Runs Python's braid.onnx in place of this process (returns only by throwing).
int onnx(const CLI::App& command, const OnnxOptions& o);

/// braid serve's options (see add_serve_command).
struct ServeOptions {
  std::string repository, host = "127.0.0.1";
  int port = 8000;
  size_t max_body_mb = 64, threads = 64;
  bool access_log = false;
  serving::ServerOptions limits;  // timeouts and connection caps (their defaults)
};
CLI::App* add_serve_command(CLI::App& app, ServeOptions& o);
/// Serves until SIGTERM or SIGINT.
int serve(const ServeOptions& o);

/// braid infer's options (see add_infer_command).
struct InferOptions {
  std::string url = "http://127.0.0.1:8000", model, version, images, labels, input = "data";
  int64_t batch_size = 64, limit = 0, passes = 1, warmup = 0;
  int concurrency = 4;
};
CLI::App* add_infer_command(CLI::App& app, InferOptions& o);
int infer(const InferOptions& o);

/// braid eval / braid predict: a symbol file and its parameters over idx images.
struct ModelOptions {
  std::string symbol, params, images, labels, output, data_name = "data";
  InputOptions input;
  int64_t batch_size = 100;
};
CLI::App* add_model_commands(CLI::App& app, ModelOptions& o, CLI::App** predict);
/// Prints `accuracy=0.xxxx`: argmax of output 0 against the labels.
int eval(const ModelOptions& o, std::ostream& out);
/// Writes output 0 for every image as a .npy file.
int predict(const ModelOptions& o);
/// The nodes of a symbol file as a table; `shapes` ("data=1,1,28,28") add inferred shapes.
int symbol_show(const std::string& path, const std::vector<std::string>& shapes, std::ostream& out);

}  // namespace braid::cli
