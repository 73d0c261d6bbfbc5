#include "braid/gluon/distributed_trainer.h"

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/kvstore/collective.h"

namespace braid::gluon {

DistributedTrainer::DistributedTrainer(const ParameterDict& params, const std::string& optimizer,
                                       const std::map<std::string, std::string>& optimizer_params,
                                       double gradient_predivide_factor)
    : Trainer(params, optimizer, optimizer_params, KVStoreChoice("None"), false),
      predivide_(gradient_predivide_factor) {
  BRAID_CHECK(gradient_predivide_factor > 0, "DistributedTrainer: gradient_predivide_factor must be positive, got ",
              gradient_predivide_factor);
  collective::init();
  scale_ *= gradient_predivide_factor / collective::size();
}

void DistributedTrainer::allreduce_grads() {
  autograd::PauseScope pause;
  for (const auto& p : params()) {
    if (p->grad_req() == GradReq::Null) continue;
    BRAID_CHECK(p->initialized(), "DistributedTrainer: Parameter '", p->name(), "' has not been initialized");
    auto grads = p->list_grad();
    kv::sum_in_every_context(grads);
    collective::allreduce_async(grads[0], grads[0], "grad." + p->name(), collective::ReduceOp::Sum, 1.0 / predivide_);
    for (size_t c = 1; c < grads.size(); ++c) grads[0].copyto(grads[c]);
  }
}

void broadcast_parameters(const ParameterDict& params, int root_rank) {
  collective::init();
  std::vector<collective::Handle> handles;
  for (const auto& [name, p] : params) {
    BRAID_CHECK(p->initialized(), "broadcast_parameters: Parameter '", name, "' has not been initialized",
                p->deferred() ? " (its shape waits for the first forward: run the model once first)" : "");
    auto data = p->list_data();
    handles.push_back(collective::broadcast_async(data[0], data[0], root_rank, "param." + name));
    for (size_t c = 1; c < data.size(); ++c) data[0].copyto(data[c]);
  }
  for (const auto& h : handles) collective::synchronize(h);
}

}  // namespace braid::gluon
