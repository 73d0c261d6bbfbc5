#pragma once
/// Module (MXNet's mx.mod.Module): a Symbol trained and run with an Executor, fed by DataIters.
///
///   mod::Module m(net, {"data"}, {"softmax_label"});
///   m.fit(train_iter, {.eval_data = &val_iter, .optimizer_params = {{"learning_rate", "0.1"}},
///                      .num_epoch = 10});
///   double acc = m.score(val_iter, *metric::create("acc"));
///   m.save_checkpoint("mnist", 10);   // mnist-symbol.json, mnist-0010.params
///
/// With several contexts (data parallelism, MXNet's DataParallelExecutorGroup) each batch is
/// split along its first axis into one slice per context (as even as possible, the last taking
/// the remainder), each context runs an executor on its slice with its own copy of the
/// parameters, and update() sums the gradients through the KVStore of init_optimizer — which
/// also runs the optimizer when update_on_kvstore (MXNet's rules, as in gluon::Trainer). Outputs
/// and input gradients are the slices' concatenated on the first context.
/// Parameters are the arguments other than data and labels, plus the auxiliary states.
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "braid/init/init.h"
#include "braid/io/data_iter.h"
#include "braid/kvstore/kvstore.h"
#include "braid/metric/metric.h"
#include "braid/optim/optimizer.h"
#include "braid/symbol/executor.h"

namespace braid::mod {

using ParamMap = std::map<std::string, NDArray>;

/// What a batch-end callback sees (MXNet's BatchEndParam).
struct BatchEndParam {
  int epoch = 0;
  int nbatch = 0;
  metric::EvalMetric* eval_metric = nullptr;
};
using BatchEndCallback = std::function<void(const BatchEndParam&)>;
/// Called after each epoch with the symbol and (copies of) the parameters.
using EpochEndCallback = std::function<void(int epoch, const Symbol&, const ParamMap& arg, const ParamMap& aux)>;

struct FitOptions {
  io::DataIter* eval_data = nullptr;
  /// A metric's name (a new one for training, another for validation), or a metric object, used for
  /// both as MXNet does (score resets it).
  std::variant<std::string, metric::MetricPtr> eval_metric = "acc";
  std::vector<EpochEndCallback> epoch_end_callback;
  std::vector<BatchEndCallback> batch_end_callback;
  std::string kvstore = "local";
  std::string optimizer = "sgd";
  std::map<std::string, std::string> optimizer_params = {{"learning_rate", "0.01"}};
  init::InitializerPtr initializer = std::make_shared<init::Uniform>(0.01);
  ParamMap arg_params, aux_params;
  bool allow_missing = false;
  bool force_rebind = false;
  bool force_init = false;
  int begin_epoch = 0;
  int num_epoch = 1;
};

class Module {
 public:
  Module(Symbol symbol, std::vector<std::string> data_names = {"data"},
         std::vector<std::string> label_names = {"softmax_label"}, std::vector<Context> contexts = {cpu()},
         std::vector<std::string> fixed_param_names = {});

  const Symbol& symbol() const { return symbol_; }
  bool binded() const { return !execs_.empty(); }
  const std::vector<Context>& contexts() const { return contexts_; }
  bool params_initialized() const { return params_initialized_; }

  void bind(const std::vector<io::DataDesc>& data_shapes, const std::vector<io::DataDesc>& label_shapes = {},
            bool for_training = true, bool inputs_need_grad = false, bool force_rebind = false);
  /// Parameters from arg_params/aux_params where given, else from `initializer` by name.
  void init_params(const init::InitializerPtr& initializer = std::make_shared<init::Uniform>(0.01),
                   const ParamMap& arg_params = {}, const ParamMap& aux_params = {}, bool allow_missing = false,
                   bool force_init = false);
  /// Copies of the parameters on the CPU.
  std::pair<ParamMap, ParamMap> get_params() const;
  void set_params(const ParamMap& arg_params, const ParamMap& aux_params, bool allow_missing = false);
  /// `kvstore`: "local", "device" or "" / "None" (none; with one context none is used anyway).
  /// rescale_grad defaults to 1 / batch size, as in MXNet.
  void init_optimizer(const std::string& kvstore = "local", const std::string& optimizer = "sgd",
                      const std::map<std::string, std::string>& optimizer_params = {{"learning_rate", "0.01"}},
                      bool force_init = false);

  /// Runs the batch (reshaping the executor when its shapes differ from the bound ones).
  void forward(const io::DataBatch& batch, std::optional<bool> is_train = std::nullopt);
  void backward(const std::vector<NDArray>& out_grads = {});
  /// One optimizer step for every parameter with a gradient (gradients summed over contexts).
  void update();
  /// The store init_optimizer set up (null: none) and whether it runs the optimizer.
  std::shared_ptr<kv::KVStore> kvstore() const { return kvstore_; }
  bool update_on_kvstore() const { return update_on_kvstore_; }
  void update_metric(metric::EvalMetric& metric, const std::vector<NDArray>& labels) const;
  std::vector<NDArray> get_outputs() const;
  /// Gradients of the data inputs (bind with inputs_need_grad).
  std::vector<NDArray> get_input_grads() const;

  void fit(io::DataIter& train_data, const FitOptions& options = {});
  /// The metric over `eval_data` (padding samples excluded); num_batch 0: all batches.
  double score(io::DataIter& eval_data, metric::EvalMetric& metric, int num_batch = 0);
  /// Every output over `eval_data`, batches concatenated, padding dropped.
  std::vector<NDArray> predict(io::DataIter& eval_data, int num_batch = 0);

  /// prefix-symbol.json, prefix-%04d.params (arg:/aux: names) and with save_optimizer_states
  /// prefix-%04d.states; all written atomically.
  void save_checkpoint(const std::string& prefix, int epoch, bool save_optimizer_states = false) const;
  /// A module whose parameters (and optimizer states) come from a checkpoint; bind and
  /// init_optimizer then use them.
  static Module load(const std::string& prefix, int epoch, bool load_optimizer_states = false,
                     std::vector<std::string> data_names = {"data"},
                     std::vector<std::string> label_names = {"softmax_label"}, std::vector<Context> contexts = {cpu()});

 private:
  bool is_input(const std::string& name) const;
  // The input shapes of context k's slice of a batch of `shapes`.
  std::map<std::string, Shape> slice_shapes(const std::map<std::string, Shape>& shapes, size_t k) const;
  // [begin, end) of context k's slice of a batch of `batch` samples.
  std::pair<int64_t, int64_t> slice_of(int64_t batch, size_t k) const;
  // Context 0's arrays of `arrays` from each executor, concatenated along the first axis.
  NDArray merged(const std::vector<std::vector<NDArray>>& per_context, size_t i) const;
  void init_kvstore(const kv::TrainingStore& chosen);

  Symbol symbol_;
  std::vector<std::string> data_names_, label_names_, fixed_param_names_;
  std::vector<Context> contexts_;
  std::vector<std::string> param_names_;          // arguments that are parameters, in argument order
  std::vector<std::unique_ptr<Executor>> execs_;  // one per context
  bool for_training_ = false, inputs_need_grad_ = false, params_initialized_ = false;
  int64_t batch_size_ = 0;
  std::shared_ptr<optim::Optimizer> optimizer_;
  std::shared_ptr<kv::KVStore> kvstore_;
  bool update_on_kvstore_ = false;
  ParamMap preloaded_arg_, preloaded_aux_;
  std::string preloaded_states_;
  std::string preloaded_states_path_;  // its file, for a parameter server
};

/// MXNet's mx.model.save_checkpoint: prefix-symbol.json and prefix-%04d.params (arg:/aux:),
/// written atomically.
void save_checkpoint(const std::string& prefix, int epoch, const Symbol& symbol, const ParamMap& arg_params,
                     const ParamMap& aux_params);
/// (symbol, arg_params, aux_params) of prefix-symbol.json and prefix-%04d.params.
std::tuple<Symbol, ParamMap, ParamMap> load_checkpoint(const std::string& prefix, int epoch);

}  // namespace braid::mod
