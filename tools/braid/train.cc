// braid train: trains a small network on (Fashion-)MNIST with Gluon, with a progress bar, a JSON
// log (one object per epoch, then {"final": true, ...}) and the trained parameters.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <optional>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/device/cpu_share.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/loss_watch.h"
#include "braid/gluon/nn.h"
#include "braid/gluon/trainer.h"
#include "braid/gluon/utils.h"
#include "braid/io/file.h"
#include "braid/kvstore/kvstore.h"
#include "braid/kvstore/store_types.h"
#include "braid/metric/classification.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"
#include "braid/op/param_reader.h"
#include "braid/util/progress_bar.h"
#include "checkpoints.h"
#include "commands.h"
#include "models.h"
#include "train_data.h"
#include "training_log.h"
#include "training_profile.h"

namespace braid::cli {
namespace {

using namespace gluon;
using Clock = std::chrono::steady_clock;

// MXNet's export of the trained model (PREFIX-symbol.json, PREFIX-0000.params), what braid serve,
// eval and predict load: the model traced on one sample.
void export_for_serving(const BlockPtr& model, const NDArray& sample, const std::string& prefix, std::FILE* out) {
  auto* hybrid = dynamic_cast<HybridBlock*>(model.get());
  BRAID_CHECK(hybrid, "braid train --save: the model is not a HybridBlock, so it has no graph to export");
  hybrid->hybridize();
  {
    autograd::PauseScope predict;
    (*model)(sample).wait_to_read();
  }
  hybrid->export_model(prefix, 0);
  std::fprintf(out,
               "saved %s-symbol.json and %s-0000.params (for braid serve, eval, predict), %s.params and %s.states\n",
               prefix.c_str(), prefix.c_str(), prefix.c_str(), prefix.c_str());
}

std::map<std::string, std::string> optimizer_params(const TrainOptions& o) {
  std::map<std::string, std::string> p{{"learning_rate", op::format_number(o.lr)}, {"wd", op::format_number(o.wd)}};
  if (o.optimizer == "sgd" || o.optimizer == "nag") p["momentum"] = op::format_number(o.momentum);
  return p;
}

// "cpu(0),cpu(1)" -> {cpu(0), cpu(1)}.
std::vector<Context> parse_contexts(const std::string& list) {
  std::vector<Context> out;
  size_t begin = 0;
  while (begin <= list.size()) {
    const size_t comma = list.find(',', begin);
    const std::string one = list.substr(begin, comma == std::string::npos ? std::string::npos : comma - begin);
    BRAID_CHECK(!one.empty(), "--ctx '", list, "': an empty context; give e.g. cpu(0),cpu(1)");
    out.push_back(Context::parse(one));
    if (comma == std::string::npos) break;
    begin = comma + 1;
  }
  return out;
}

// The model's layers in `stages` contiguous groups of nearly equal length, group k on cpu(k): an
// nn::Sequential moves each group's input to its context (model parallelism).
BlockPtr split_into_stages(const BlockPtr& model, int stages) {
  const auto& layers = model->children();
  BRAID_CHECK(static_cast<size_t>(stages) <= layers.size(), "--model-parallel ", stages, ": the model has only ",
              layers.size(), " layers to place");
  auto net = std::make_shared<nn::Sequential>();
  size_t next = 0;
  for (int k = 0; k < stages; ++k) {
    auto stage = std::make_shared<nn::Sequential>();
    const size_t end = layers.size() * static_cast<size_t>(k + 1) / static_cast<size_t>(stages);
    for (; next < end; ++next) stage->add(layers[next].second);
    stage->initialize(std::make_shared<init::Xavier>(), {cpu(k)});
    net->add(stage);
  }
  return net;
}

double evaluate(Block& net, TrainData& test, int epoch, Context ctx) {
  metric::Accuracy acc;
  autograd::PauseScope predict;
  test.start_epoch(epoch);
  while (auto batch = test.next()) acc.update({batch->label}, {net(batch->data.as_in_context(ctx))});
  return acc.get().value();
}

// The folder of --save's prefix, made before training rather than failing after it.
void make_save_folder(const std::string& prefix) {
  const std::filesystem::path folder = std::filesystem::path(prefix).parent_path();
  std::error_code failed;
  if (!folder.empty()) std::filesystem::create_directories(folder, failed);
  BRAID_CHECK(!failed, "--save ", prefix, ": cannot create the folder ", folder.string(), ": ", failed.message());
}

}  // namespace

CLI::App* add_train_command(CLI::App& app, TrainOptions& o) {
  auto* t = app.add_subcommand("train", "train a network on Fashion-MNIST, MNIST or your images with Gluon");
  t->add_option("--model", o.model,
                "mlp, lenet, resnet-mini, or a model zoo name: resnet18_v1 .. resnet152_v2, vgg11 .. vgg19_bn, "
                "alexnet, densenet121 .. densenet201, squeezenet1.0/1.1, inceptionv3, mobilenet1.0 .. 0.25, "
                "mobilenetv2_1.0 .. mobilenetv2_0.25")
      ->capture_default_str();
  t->add_option("--dataset", o.dataset, "fashion-mnist or mnist (without --data-train)")->capture_default_str();
  t->add_option("--data-dir", o.data_dir, "folder of the idx files (default: Debian's dataset-fashion-mnist)");
  t->add_option("--data-train", o.data_train,
                "training images: a folder with one sub-folder of .jpg/.png images per class, or a .rec file made "
                "by braid im2rec (its .idx beside it is used)");
  t->add_option("--data-val", o.data_val, "test images, as --data-train");
  t->add_option("--image-shape", o.image_shape,
                "C,H,W the images are cropped to (default: 3,224,224; 3,299,299 for inceptionv3)");
  t->add_option("--classes", o.classes, "number of classes (default: the class folders; required for .rec files)")
      ->check(kPositive);
  t->add_option("--epochs", o.epochs)->capture_default_str()->check(kPositive);
  t->add_option("--batch-size", o.batch_size)->capture_default_str()->check(kPositive);
  t->add_option("--lr", o.lr, "learning rate")->capture_default_str();
  t->add_option("--optimizer", o.optimizer, "sgd, nag, adam, ... (optim::create)")->capture_default_str();
  t->add_option("--momentum", o.momentum, "for sgd and nag")->capture_default_str();
  t->add_option("--wd", o.wd, "weight decay")->capture_default_str();
  t->add_option("--ctx", o.ctx, "context, or a list for data parallelism, e.g. cpu(0),cpu(1)")->capture_default_str();
  t->add_option("--kvstore", o.kvstore,
                "with several contexts: device or local; under braid launch: dist_sync, "
                "dist_async, dist_sync_device, dist_async_device; under mpirun: horovod (each worker trains on its "
                "shard of the data)")
      ->capture_default_str();
  t->add_option("--model-parallel", o.model_parallel, "split the model's layers over cpu(0) .. cpu(N-1)")
      ->capture_default_str()
      ->check(kPositive);
  t->add_option("--micro-batches", o.micro_batches, "with --model-parallel: slices of each batch, pipelined")
      ->capture_default_str()
      ->check(kPositive);
  t->add_option("--seed", o.seed)->capture_default_str();
  t->add_option("--num-workers", o.num_workers, "data loader threads")->capture_default_str();
  t->add_option("--limit", o.limit, "train on the first N images only (0: all)");
  t->add_option("--test-limit", o.test_limit, "test on the first N images only (0: all)");
  t->add_option("--json-log", o.json_log, "write one JSON object per epoch to this file");
  t->add_option("--profile", o.profile,
                "write a profiler trace of the training batches to this file (Chrome trace format; `braid profile "
                "steps FILE` breaks the steps down); workers other than worker 0 write FILE.worker<rank>");
  t->add_option("--save", o.save,
                "write PREFIX-symbol.json and PREFIX-0000.params (MXNet's export, for braid serve, eval and predict), "
                "PREFIX.params (save_parameters) and PREFIX.states (the optimizer's)");
  t->add_option("--checkpoint-every", o.checkpoint_every,
                "write a checkpoint (weights, optimizer states, position) "
                "every N batches")
      ->check(kNonNegative);
  t->add_option("--checkpoint", o.checkpoint, "prefix of the checkpoint files")->capture_default_str();
  t->add_flag("--resume", o.resume, "start from the checkpoint at --checkpoint when there is one");
  t->add_flag("--ignore-divergence", o.ignore_divergence,
              "train on when the loss becomes NaN or stays at chance level (by default training stops with "
              "the likely cause and the learning rate to try)");
  return t;
}

int train(const TrainOptions& o) {
  if (!o.save.empty()) make_save_folder(o.save);
  // The compute threads chosen for this machine's load (nothing when OMP_NUM_THREADS chose).
  if (cpu_share::current().measured) cpu_share::announce(stdout);
  const std::vector<Context> contexts = parse_contexts(o.ctx);
  const Context ctx = contexts[0];
  nd::seed(o.seed);
  const bool no_store = o.kvstore.empty() || o.kvstore == "None";
  const kv::StoreType* kind = no_store ? nullptr : &kv::store_type(o.kvstore);
  std::shared_ptr<kv::KVStore> dist_store;  // parameter server (dist_*) or allreduce over MPI (horovod)
  if (kind && kind->distributed) dist_store = kind->make(*kind);
  const int rank = dist_store ? dist_store->rank() : 0, workers = dist_store ? dist_store->num_workers() : 1;
  const bool sync_rounds = dist_store && !kind->asynchronous;
  // Each worker of a distributed job (under braid launch or mpirun) trains on its own share.
  auto train_data = open_train_data(o, true, rank, workers), test_data = open_train_data(o, false);
  BRAID_CHECK(train_data->batches() > 0, "--batch-size ", o.batch_size, " is larger than the ", train_data->images(),
              " training images");
  const int64_t num_batches = train_data->batches();
  // One image of zeros: the shapes for deferred initialization and the export.
  const Shape image = train_data->image_shape();
  const NDArray sample = nd::zeros(Shape({1, image[0], image[1], image[2]}), ctx);

  const bool model_parallel = o.model_parallel > 1;
  BRAID_CHECK(!model_parallel || contexts.size() == 1, "--model-parallel and a --ctx list cannot be combined");
  BlockPtr model = make_model(o.model, train_data->classes()), net = model;
  if (model_parallel)
    net = split_into_stages(model, o.model_parallel);
  else
    net->initialize(std::make_shared<init::Xavier>(), contexts);
  Trainer trainer(net->collect_params(), o.optimizer, optimizer_params(o),
                  dist_store ? KVStoreChoice(dist_store) : KVStoreChoice(o.kvstore));
  Checkpoints checkpoints(o, rank, workers);
  Position start_at = o.resume ? checkpoints.restore(*model, trainer, contexts) : Position{};
  if (start_at.batch >= num_batches) start_at = {start_at.epoch + 1, 0};  // saved at an epoch's end
  if (dist_store) {  // shapes known, then the store set up: every worker starts from worker 0's weights
    autograd::PauseScope predict;
    (*net)(sample);
    trainer.kvstore();
  }
  loss::SoftmaxCrossEntropyLoss loss_fn;
  // Stops a run whose loss is NaN or stays at chance level, saying which learning rate to try.
  std::optional<LossWatch> watch;
  if (!o.ignore_divergence)
    watch.emplace(LossWatch::Options{.classes = train_data->classes(),
                                     .learning_rate = o.lr,
                                     .kvstore = dist_store ? o.kvstore : "",
                                     .workers = workers});

  std::FILE* out = stdout;
  std::fprintf(
      out, "%s on %s: %lld training and %lld test images, batch %lld, %s lr %g, %s\n", o.model.c_str(),
      train_data->describe().c_str(), static_cast<long long>(train_data->images()),
      static_cast<long long>(test_data->images()), static_cast<long long>(o.batch_size), o.optimizer.c_str(), o.lr,
      (model_parallel ? cat("model parallel over ", o.model_parallel, " contexts, ", o.micro_batches, " micro-batches")
       : contexts.size() == 1 && !dist_store ? ctx.str()
                                             : o.ctx + ", kvstore " + o.kvstore)
          .c_str());
  if (dist_store)
    std::fprintf(out, "worker %d of %d: a shard of %lld training images\n", rank, workers,
                 static_cast<long long>(train_data->images()));
  std::fflush(out);  // before the progress bar on stderr
  // Workers other than worker 0 of a distributed job log next to it: PATH.worker<rank>.
  TrainingLog log(o.json_log.empty() || rank == 0 ? o.json_log : cat(o.json_log, ".worker", rank), start_at.epoch);
  if (log.kept() > 0)
    std::fprintf(out, "%s: kept the %d record(s) of the epochs before epoch %d\n", o.json_log.c_str(), log.kept(),
                 start_at.epoch);
  TrainingProfile profile(o.profile.empty() || rank == 0 ? o.profile : cat(o.profile, ".worker", rank));
  util::ProgressBar bar(o.epochs, num_batches, stderr);
  const auto start = Clock::now();
  double test_acc = 0, last_loss = 0, total_samples = 0;
  for (int epoch = start_at.epoch; epoch <= o.epochs; ++epoch) {
    nd::seed(o.seed + static_cast<uint64_t>(epoch));  // the epoch's order, the same when it resumes
    train_data->start_epoch(epoch);
    bar.start_epoch(epoch);
    const auto epoch_start = Clock::now();
    metric::Accuracy train_acc;
    NDArray loss_sum;  // summed on the device; read when the bar is drawn
    int64_t samples = 0, done = 0;
    while (auto batch = train_data->next()) {
      if (epoch == start_at.epoch && done < start_at.batch) {  // done before the checkpoint
        ++done;
        continue;
      }
      // One slice of the batch per context (split_and_load; one context gets it whole), or with
      // model parallelism micro-batches that the engine pipelines over the stages.
      const int micro = std::min<int64_t>(o.micro_batches, batch->data.shape()[0]);
      auto xs = model_parallel ? utils::split_data(batch->data, micro, 0, false)
                               : utils::split_and_load(batch->data, contexts, 0, false);
      auto ys = model_parallel ? utils::split_data(batch->label, micro, 0, false)
                               : utils::split_and_load(batch->label, contexts, 0, false);
      std::vector<NDArray> preds, losses;
      {
        autograd::RecordScope record;
        for (size_t c = 0; c < xs.size(); ++c) {
          preds.push_back((*net)(xs[c]));
          ys[c] = ys[c].as_in_context(preds.back().ctx());  // the last stage's context
          losses.push_back(loss_fn(preds.back(), ys[c]));
        }
      }
      autograd::backward(losses);
      // dist_sync: the servers sum the gradients of every worker's batch.
      trainer.step(batch->data.shape()[0] * (sync_rounds ? workers : 1));
      profile.step();
      NDArray batch_loss;  // summed over the contexts' slices
      for (size_t c = 0; c < xs.size(); ++c) {
        NDArray s = nd::sum(losses[c]).as_in_context(ctx);
        batch_loss = batch_loss.is_none() ? s : batch_loss + s;
        train_acc.update({ys[c]}, {preds[c]});
      }
      loss_sum = loss_sum.is_none() ? batch_loss : loss_sum + batch_loss;
      if (watch) watch->add(batch_loss, batch->data.shape()[0]);
      samples += batch->data.shape()[0];
      ++done;
      if (o.checkpoint_every > 0 && ((epoch - 1) * num_batches + done) % o.checkpoint_every == 0)
        checkpoints.save(*model, trainer, {epoch, done});
      if (done % 10 == 0 || done == num_batches) {
        if (watch) watch->check_finite(epoch, done);
        bar.update(done, samples, loss_sum.scalar<float>() / static_cast<double>(samples), train_acc.get().value());
      }
    }
    if (watch) watch->end_epoch(epoch);
    const double secs = std::chrono::duration<double>(Clock::now() - epoch_start).count();
    last_loss = samples > 0 ? loss_sum.scalar<float>() / static_cast<double>(samples) : 0;
    profile.pause(true);
    test_acc = evaluate(*net, *test_data, epoch, ctx);
    profile.pause(false);
    total_samples += static_cast<double>(samples);
    bar.finish_epoch(cat("test acc ", op::format_number(test_acc)));
    nlohmann::json rec{{"epoch", epoch},
                       {"train_loss", last_loss},
                       {"train_acc", train_acc.get().value()},
                       {"test_acc", test_acc},
                       {"samples_per_sec", static_cast<double>(samples) / secs},
                       {"seconds", secs}};
    log.append(rec);
  }
  if (const std::string trace = profile.finish(); !trace.empty())
    std::fprintf(out, "profile of the training batches: %s\n", trace.c_str());
  const double total = std::chrono::duration<double>(Clock::now() - start).count();
  nlohmann::json final_rec{{"final", true},
                           {"model", o.model},
                           {"epochs", o.epochs},
                           {"test_acc", test_acc},
                           {"train_loss", last_loss},
                           {"seconds", total},
                           {"samples_per_sec", total_samples / total}};
  log.append(final_rec);
  if (!o.save.empty() && rank == 0) {
    model->save_parameters(o.save + ".params");
    trainer.save_states(o.save + ".states");
    if (model_parallel)
      std::fprintf(out, "saved %s.params and %s.states (no model export with --model-parallel)\n", o.save.c_str(),
                   o.save.c_str());
    else
      export_for_serving(model, sample, o.save, out);
  }
  std::fprintf(out, "test accuracy %.4f after %d epoch(s), %s\n", test_acc, o.epochs,
               util::format_duration(total).c_str());
  return 0;
}

}  // namespace braid::cli
