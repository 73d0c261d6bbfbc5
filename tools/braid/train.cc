// braid train: trains a small network on (Fashion-)MNIST with Gluon, with a progress bar, a JSON
// log (one object per epoch, then {"final": true, ...}) and the trained parameters.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/device/cpu_share.h"
#include "braid/gluon/data/dataloader.h"
#include "braid/gluon/data/vision/datasets.h"
#include "braid/gluon/data/vision/transforms.h"
#include "braid/gluon/loss.h"
#include "braid/gluon/model_zoo/simple.h"
#include "braid/gluon/nn.h"
#include "braid/gluon/trainer.h"
#include "braid/gluon/utils.h"
#include "braid/io/file.h"
#include "braid/io/idx.h"
#include "braid/kvstore/kvstore.h"
#include "braid/kvstore/store_types.h"
#include "braid/metric/classification.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/random.h"
#include "braid/ndarray/reduce.h"
#include "braid/op/param_reader.h"
#include "braid/util/progress_bar.h"
#include "checkpoints.h"
#include "commands.h"
#include "training_log.h"

namespace braid::cli {
namespace {

using namespace gluon;
using Clock = std::chrono::steady_clock;

data::DatasetPtr load_dataset(const TrainOptions& o, bool train) {
  data::DatasetPtr ds;
  if (o.dataset == "fashion-mnist") {
    ds = std::make_shared<data::vision::FashionMNIST>(o.data_dir.empty() ? io::fashion_mnist_dir() : o.data_dir, train);
  } else if (o.dataset == "mnist") {
    BRAID_CHECK(!o.data_dir.empty(), "--dataset mnist needs --data-dir (the folder of the MNIST idx files)");
    ds = std::make_shared<data::vision::MNIST>(o.data_dir, train);
  } else {
    throw Error(cat("unknown dataset '", o.dataset, "'; valid: fashion-mnist, mnist"));
  }
  ds = ds->transform_first(data::vision::transforms::ToTensor());
  const int64_t limit = train ? o.limit : o.test_limit;
  return limit > 0 && limit < ds->size() ? ds->take(limit) : ds;
}

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

double evaluate(Block& net, data::DataLoader& loader, Context ctx) {
  metric::Accuracy acc;
  autograd::PauseScope predict;
  for (const auto& batch : loader) acc.update({batch[1]}, {net(batch[0].as_in_context(ctx))});
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
  auto* t = app.add_subcommand("train", "train a network on Fashion-MNIST (or MNIST) with Gluon");
  t->add_option("--model", o.model, "mlp, lenet or resnet-mini")->capture_default_str();
  t->add_option("--dataset", o.dataset, "fashion-mnist or mnist")->capture_default_str();
  t->add_option("--data-dir", o.data_dir, "folder of the idx files (default: Debian's dataset-fashion-mnist)");
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
  t->add_option("--save", o.save,
                "write PREFIX-symbol.json and PREFIX-0000.params (MXNet's export, for braid serve, eval and predict), "
                "PREFIX.params (save_parameters) and PREFIX.states (the optimizer's)");
  t->add_option("--checkpoint-every", o.checkpoint_every,
                "write a checkpoint (weights, optimizer states, position) "
                "every N batches")
      ->check(kNonNegative);
  t->add_option("--checkpoint", o.checkpoint, "prefix of the checkpoint files")->capture_default_str();
  t->add_flag("--resume", o.resume, "start from the checkpoint at --checkpoint when there is one");
  return t;
}

int train(const TrainOptions& o) {
  if (!o.save.empty()) make_save_folder(o.save);
  // The compute threads chosen for this machine's load (nothing when OMP_NUM_THREADS chose).
  if (cpu_share::current().measured) cpu_share::announce(stdout);
  const std::vector<Context> contexts = parse_contexts(o.ctx);
  const Context ctx = contexts[0];
  nd::seed(o.seed);
  // A parameter-server worker (under braid launch) trains on its own shard of the data, all
  // shards of one size so that every worker runs the same number of batches (a worker with one
  // batch more would wait for the others' pushes forever, MXNet issue 7888).
  const bool no_store = o.kvstore.empty() || o.kvstore == "None";
  const kv::StoreType* kind = no_store ? nullptr : &kv::store_type(o.kvstore);
  std::shared_ptr<kv::KVStore> dist_store;  // parameter server (dist_*) or allreduce over MPI (horovod)
  if (kind && kind->distributed) dist_store = kind->make(*kind);
  const int rank = dist_store ? dist_store->rank() : 0, workers = dist_store ? dist_store->num_workers() : 1;
  const bool sync_rounds = dist_store && !kind->asynchronous;
  auto train_set = load_dataset(o, true), test_set = load_dataset(o, false);
  if (workers > 1) train_set = train_set->shard(workers, rank)->take(train_set->size() / workers);
  data::DataLoader train_loader(train_set, {.batch_size = o.batch_size,
                                            .shuffle = true,
                                            .last_batch = data::LastBatch::Discard,
                                            .num_workers = o.num_workers});
  data::DataLoader test_loader(test_set, {.batch_size = 1000, .num_workers = o.num_workers});
  BRAID_CHECK(train_loader.size() > 0, "--batch-size ", o.batch_size, " is larger than the ", train_set->size(),
              " training images");

  const bool model_parallel = o.model_parallel > 1;
  BRAID_CHECK(!model_parallel || contexts.size() == 1, "--model-parallel and a --ctx list cannot be combined");
  BlockPtr model = model_zoo::get_simple_model(o.model), net = model;
  if (model_parallel)
    net = split_into_stages(model, o.model_parallel);
  else
    net->initialize(std::make_shared<init::Xavier>(), contexts);
  Trainer trainer(net->collect_params(), o.optimizer, optimizer_params(o),
                  dist_store ? KVStoreChoice(dist_store) : KVStoreChoice(o.kvstore));
  Checkpoints checkpoints(o, rank, workers);
  Position start_at = o.resume ? checkpoints.restore(*model, trainer, contexts) : Position{};
  if (start_at.batch >= train_loader.size()) start_at = {start_at.epoch + 1, 0};  // saved at an epoch's end
  if (dist_store) {  // shapes known, then the store set up: every worker starts from worker 0's weights
    autograd::PauseScope predict;
    (*net)(train_set->get(0)[0].expand_dims(0).as_in_context(ctx));
    trainer.kvstore();
  }
  loss::SoftmaxCrossEntropyLoss loss_fn;

  std::FILE* out = stdout;
  std::fprintf(
      out, "%s on %s: %lld training and %lld test images, batch %lld, %s lr %g, %s\n", o.model.c_str(),
      o.dataset.c_str(), static_cast<long long>(train_set->size()), static_cast<long long>(test_set->size()),
      static_cast<long long>(o.batch_size), o.optimizer.c_str(), o.lr,
      (model_parallel ? cat("model parallel over ", o.model_parallel, " contexts, ", o.micro_batches, " micro-batches")
       : contexts.size() == 1 && !dist_store ? ctx.str()
                                             : o.ctx + ", kvstore " + o.kvstore)
          .c_str());
  if (dist_store)
    std::fprintf(out, "worker %d of %d: a shard of %lld training images\n", rank, workers,
                 static_cast<long long>(train_set->size()));
  std::fflush(out);  // before the progress bar on stderr
  // Workers other than worker 0 of a distributed job log next to it: PATH.worker<rank>.
  TrainingLog log(o.json_log.empty() || rank == 0 ? o.json_log : cat(o.json_log, ".worker", rank), start_at.epoch);
  if (log.kept() > 0)
    std::fprintf(out, "%s: kept the %d record(s) of the epochs before epoch %d\n", o.json_log.c_str(), log.kept(),
                 start_at.epoch);
  util::ProgressBar bar(o.epochs, train_loader.size(), stderr);
  const auto start = Clock::now();
  double test_acc = 0, last_loss = 0, total_samples = 0;
  for (int epoch = start_at.epoch; epoch <= o.epochs; ++epoch) {
    nd::seed(o.seed + static_cast<uint64_t>(epoch));  // the epoch's order, the same when it resumes
    bar.start_epoch(epoch);
    const auto epoch_start = Clock::now();
    metric::Accuracy train_acc;
    NDArray loss_sum;  // summed on the device; read when the bar is drawn
    int64_t samples = 0, done = 0;
    for (const auto& batch : train_loader) {
      if (epoch == start_at.epoch && done < start_at.batch) {  // done before the checkpoint
        ++done;
        continue;
      }
      // One slice of the batch per context (split_and_load; one context gets it whole), or with
      // model parallelism micro-batches that the engine pipelines over the stages.
      const int micro = std::min<int64_t>(o.micro_batches, batch[0].shape()[0]);
      auto xs = model_parallel ? utils::split_data(batch[0], micro, 0, false)
                               : utils::split_and_load(batch[0], contexts, 0, false);
      auto ys = model_parallel ? utils::split_data(batch[1], micro, 0, false)
                               : utils::split_and_load(batch[1], contexts, 0, false);
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
      trainer.step(batch[0].shape()[0] * (sync_rounds ? workers : 1));
      for (size_t c = 0; c < xs.size(); ++c) {
        NDArray s = nd::sum(losses[c]).as_in_context(ctx);
        loss_sum = loss_sum.is_none() ? s : loss_sum + s;
        train_acc.update({ys[c]}, {preds[c]});
      }
      samples += batch[0].shape()[0];
      ++done;
      if (o.checkpoint_every > 0 && ((epoch - 1) * train_loader.size() + done) % o.checkpoint_every == 0)
        checkpoints.save(*model, trainer, {epoch, done});
      if (done % 10 == 0 || done == train_loader.size())
        bar.update(done, samples, loss_sum.scalar<float>() / static_cast<double>(samples), train_acc.get().value());
    }
    const double secs = std::chrono::duration<double>(Clock::now() - epoch_start).count();
    last_loss = samples > 0 ? loss_sum.scalar<float>() / static_cast<double>(samples) : 0;
    test_acc = evaluate(*net, test_loader, ctx);
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
      export_for_serving(model, test_set->get(0)[0].expand_dims(0).as_in_context(ctx), o.save, out);
  }
  std::fprintf(out, "test accuracy %.4f after %d epoch(s), %s\n", test_acc, o.epochs,
               util::format_duration(total).c_str());
  return 0;
}

}  // namespace braid::cli
