// braid eval and braid predict: a symbol file and its parameters over an idx image set.
#include <cstdio>
#include <iostream>

#include "braid/base/error.h"
#include "braid/io/idx.h"
#include "braid/io/npy.h"
#include "braid/ndarray/matrix.h"
#include "braid/ndarray/reduce.h"
#include "commands.h"
#include "model_runner.h"

namespace braid::cli {
namespace {

/// Runs every batch of `images` and calls fn(first row, outputs).
template <class Fn>
void for_each_batch(const ModelOptions& o, const NDArray& images, Fn fn) {
  BRAID_CHECK(o.batch_size > 0, "--batch-size must be positive");
  ModelRunner runner(o.symbol, o.params, o.data_name);
  const int64_t n = images.shape()[0];
  for (int64_t b = 0; b < n; b += o.batch_size) fn(b, runner.run(images.slice(b, std::min(n, b + o.batch_size))));
}

}  // namespace

CLI::App* add_model_commands(CLI::App& app, ModelOptions& o, CLI::App** predict) {
  auto add_common = [&](CLI::App* c) {
    c->add_option("--symbol", o.symbol, "the *-symbol.json file")->required();
    c->add_option("--params", o.params, "the .params file (arg:/aux: names or bare ones)")->required();
    c->add_option("--images", o.images,
                  "the inputs: an idx file (gzip or not) or a NumPy .npy; (N, H, W) gains a channel axis, "
                  "(N, H, W, C) becomes (N, C, H, W) (see --layout)")
        ->required();
    c->add_option("--scale", o.input.scale, "multiplies the inputs first (default: 1/255 for uint8 pixels, else 1)");
    c->add_option("--mean", o.input.mean, "subtracted after scaling: one value or one per channel (a,b,c)")
        ->delimiter(',')
        ->capture_default_str();
    c->add_option("--std", o.input.std, "divides after subtracting the mean: one value or one per channel")
        ->delimiter(',')
        ->capture_default_str();
    c->add_option("--layout", o.input.layout,
                  "of 4-D inputs: NCHW, NHWC, or auto (NHWC when only the last axis has 1, 3 or 4 entries)")
        ->capture_default_str();
    c->add_option("--batch-size", o.batch_size)->capture_default_str();
    c->add_option("--data-name", o.data_name, "the symbol's input variable")->capture_default_str();
  };
  auto* eval = app.add_subcommand("eval", "accuracy of a model file on an idx data set: prints accuracy=0.xxxx");
  add_common(eval);
  eval->add_option("--labels", o.labels, "the idx label file")->required();
  *predict = app.add_subcommand("predict", "raw outputs of a model file on idx or .npy inputs, as a NumPy .npy file");
  add_common(*predict);
  (*predict)->add_option("--output", o.output, "the .npy file to write")->required();
  return eval;
}

int eval(const ModelOptions& o, std::ostream& out) {
  NDArray images = load_inputs(o.images, o.input);
  NDArray labels = io::load_idx_labels(o.labels);
  BRAID_CHECK(labels.shape()[0] == images.shape()[0], o.images, " has ", images.shape()[0], " images but ", o.labels,
              " has ", labels.shape()[0], " labels");
  double correct = 0;
  for_each_batch(o, images, [&](int64_t b, const NDArray& scores) {
    BRAID_CHECK(scores.ndim() == 2, "output 0 of the model has shape ", scores.shape(),
                "; eval needs (batch, classes) scores");
    NDArray pred = nd::argmax(scores, 1);
    NDArray truth = labels.slice(b, b + scores.shape()[0]);
    auto p = pred.to_vector<float>(), t = truth.to_vector<float>();
    for (size_t i = 0; i < p.size(); ++i) correct += p[i] == t[i] ? 1 : 0;
  });
  char line[64];
  std::snprintf(line, sizeof line, "accuracy=%.4f\n", correct / static_cast<double>(images.shape()[0]));
  out << line;
  return 0;
}

int predict(const ModelOptions& o) {
  BRAID_CHECK(!o.output.empty(), "predict needs --output FILE.npy");
  NDArray images = load_inputs(o.images, o.input);
  std::vector<NDArray> parts;
  for_each_batch(o, images, [&](int64_t, const NDArray& out) { parts.push_back(out.copy()); });
  io::save_npy(o.output, parts.size() == 1 ? parts[0] : nd::concat(parts, 0));
  return 0;
}

}  // namespace braid::cli
