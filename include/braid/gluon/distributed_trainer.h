#pragma once
/// Horovod's training API for Gluon (`hvd.DistributedTrainer`, `hvd.broadcast_parameters`), on
/// the collective backend (include/braid/kvstore/collective.h), for programs run by
/// `mpirun -np N`:
///
///   collective::init();
///   net->initialize(...); net(x);                         // shapes known
///   gluon::broadcast_parameters(net->collect_params(), 0); // every rank starts from rank 0's
///   gluon::DistributedTrainer trainer(net->collect_params(), "sgd", {{"learning_rate", "0.1"}});
///   ... backward ...
///   trainer.step(batch_size);   // this rank's batch: gradients averaged over the ranks
#include <map>
#include <string>

#include "braid/gluon/trainer.h"

namespace braid::gluon {

class DistributedTrainer : public Trainer {
 public:
  /// A Trainer without a kvstore whose gradients are averaged over the ranks before each update:
  /// each is divided by `gradient_predivide_factor` before the sum and the sum by
  /// size() / gradient_predivide_factor after (Horovod's split of the average).
  DistributedTrainer(const ParameterDict& params, const std::string& optimizer,
                     const std::map<std::string, std::string>& optimizer_params = {},
                     double gradient_predivide_factor = 1.0);
  /// Sums each gradient over this rank's contexts, then allreduces it over the ranks (asynchronous:
  /// the engine runs it when backward has written it).
  void allreduce_grads() override;

 private:
  double predivide_;
};

/// Sets every parameter, on every context, to its value on `root_rank` (in the dict's order,
/// the same on every rank of one program).
/// Parameters must be initialized (run a forward pass first for deferred shapes).
void broadcast_parameters(const ParameterDict& params, int root_rank = 0);

}  // namespace braid::gluon
