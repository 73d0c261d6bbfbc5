// braid infer's command line (the client itself is infer.cc).
#include "commands.h"

namespace braid::cli {

CLI::App* add_infer_command(CLI::App& app, InferOptions& o) {
  auto* c = app.add_subcommand("infer", "send idx images to an inference server; accuracy, latency, throughput");
  c->add_option("--url", o.url, "the server")->capture_default_str();
  c->add_option("--model", o.model, "the model's name")->required();
  c->add_option("--model-version", o.version, "a version (default: the server's newest)");
  c->add_option("--images", o.images, "idx images (pixels scaled to [0, 1]) or a .npy array")->required();
  c->add_option("--labels", o.labels, "idx labels: print the accuracy of output 0's argmax");
  c->add_option("--input-name", o.input, "the model's input")->capture_default_str();
  c->add_option("--batch-size", o.batch_size)->capture_default_str()->check(kPositive);
  c->add_option("--concurrency", o.concurrency, "requests in flight at once")->capture_default_str()->check(kPositive);
  c->add_option("--limit", o.limit, "the first N images only (0: all)");
  c->add_option("--passes", o.passes, "times over the images (timed)")->capture_default_str()->check(kPositive);
  c->add_option("--warmup", o.warmup, "untimed requests per connection first")
      ->capture_default_str()
      ->check(kNonNegative);
  return c;
}

}  // namespace braid::cli
