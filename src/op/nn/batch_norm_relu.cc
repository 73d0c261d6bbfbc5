// _contrib_BatchNormWithReLU: relu(BatchNorm(data, ...)), the fused operator of MXNet's oneDNN
// builds, with BatchNorm's attributes, arguments, auxiliary states and outputs. It runs
// BatchNorm's kernels of the context and relu over the output in place; backward masks the
// output's gradient where the output is 0 before BatchNorm's backward.
#include "batch_norm.h"
#include "braid/storage/storage.h"
#include "op/op_util.h"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "_contrib_BatchNormWithReLU";

const Kernels& kernels_of(const char* op, Context ctx) { return Registry::get().find(op).kernels(ctx); }

void forward(const OpContext& oc, const std::any& pa, const ForwardArgs& a) {
  kernels_of("BatchNorm", oc.ctx).forward(oc, pa, a);
  if (a.req[0] == OpReq::Null) return;
  const TBlob& y = a.outputs[0];
  kernels_of("relu", oc.ctx).forward(oc, {}, ForwardArgs{{y}, {y}, {OpReq::Write}, {}});
}

void backward(const OpContext& oc, const std::any& pa, const BackwardArgs& a) {
  const TBlob &g = a.out_grads[0], &y = a.outputs[0];
  // relu's gradient at its output y: g where y > 0, into a scratch array of g's shape
  const StorageHandle scratch = Storage::get().alloc(static_cast<size_t>(g.size()) * dtype_size(g.dtype), oc.ctx);
  const TBlob masked{scratch.ptr, g.shape, g.dtype};
  kernels_of("relu", oc.ctx).backward(oc, {}, BackwardArgs{{g}, {y}, {y}, {}, {masked}, {OpReq::Write}});
  BackwardArgs bn = a;
  bn.out_grads[0] = masked;
  kernels_of("BatchNorm", oc.ctx).backward(oc, pa, bn);
  // On a GPU the block is handed out again only to work queued after these kernels.
  Storage::get().free(scratch);
}

}  // namespace

void add_batch_norm_relu(Registry& r, const OpDef& batch_norm) {
  OpDef d;
  d.name = kName;
  d.doc = "relu(BatchNorm(data, gamma, beta, moving_mean, moving_var)), with BatchNorm's attributes and outputs.";
  d.parse = batch_norm.parse;
  d.list_arguments = batch_norm.list_arguments;
  d.list_aux = batch_norm.list_aux;
  d.num_outputs = batch_norm.num_outputs;
  d.num_visible_outputs = batch_norm.num_visible_outputs;
  d.infer_shape = batch_norm.infer_shape;
  d.mutates_aux = true;
  d.cpu = Kernels{forward, backward};
#if BRAID_CUDA_KERNELS
  d.gpu = Kernels{forward, backward};
#endif
  r.add(std::move(d));
}

}  // namespace braid::op::detail
