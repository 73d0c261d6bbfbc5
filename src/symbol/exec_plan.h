#pragma once
// Internal: what an Executor runs. A plan is built once per bind from the symbol and the shapes,
// dtypes and contexts of the bound arrays; running it (run_state.h) needs only arrays.
//
// Every array the plan touches is a *value*: a bound argument, aux state or argument gradient,
// or a planned buffer (intermediate results and their gradients) living in a *slot* that values
// with disjoint lifetimes share.
#include <any>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "braid/base/context.h"
#include "braid/base/grad_req.h"
#include "braid/base/shape.h"
#include "braid/op/op_def.h"
#include "braid/symbol/executor.h"
#include "braid/symbol/node.h"

namespace braid::symbol::detail {

constexpr uint32_t kNoValue = UINT32_MAX;

struct Value {
  enum class Kind { Arg, Aux, ArgGrad, Planned };
  Kind kind = Kind::Planned;
  int index = -1;  // argument / aux index, or slot for Planned
  Shape shape;
  DType dtype = DType::Float32;
  Context ctx;
};

/// One link of a fused chain of element-wise ops.
struct FusedOp {
  const op::OpDef* def;
  std::any param;
};
/// Shared with the kernels that run it, which may outlive the plan (a queued kernel of an
/// executor that is destroyed before the kernel runs).
using FusedChain = std::shared_ptr<const std::vector<FusedOp>>;

/// One kernel of the forward pass and, when `backward`, its gradient.
struct Step {
  const op::OpDef* def = nullptr;  // null for a fused chain
  std::any param;
  op::AttrMap attrs;  // what `param` was parsed from
  FusedChain chain;   // a fused chain, applied in order
  std::string name;
  Context ctx;
  std::vector<uint32_t> inputs;  // values: arguments, then aux states
  size_t num_args = 0;
  std::vector<uint32_t> outputs;  // values: every output, hidden ones too
  size_t num_visible = 1;

  bool backward = false;
  std::vector<uint32_t> out_grads;  // per visible output: its gradient value
  std::vector<uint32_t> in_grads;   // per argument: its gradient value, or kNoValue
  std::vector<op::OpReq> in_grad_req;
};

struct Slot {
  int64_t elements = 0;
  DType dtype = DType::Float32;
  Context ctx;
};

struct Plan {
  std::vector<Value> values;
  std::vector<Step> steps;  // forward order; backward runs those with `backward` in reverse
  std::vector<Slot> slots;
  std::vector<uint32_t> outputs;     // values of the symbol's outputs
  std::vector<uint32_t> head_grads;  // per output: its gradient value, or kNoValue
  /// Per output: whether a backward reads its gradient (not where a zero-gradient operator such
  /// as argmax made it; MXNet then takes a head gradient of any shape and ignores it).
  std::vector<bool> head_grad_read;
  std::vector<uint32_t> zero_grads;  // gradient values no kernel writes: zeros before backward
  bool has_backward = false;
  bool bulk = false;                   // forward and backward each run as one engine operation
  std::vector<bool> arg_grad_written;  // per argument: backward overwrites its gradient entirely
  PlanStats stats;
};

/// Everything about the bound arrays the plan depends on.
struct BindInfo {
  std::vector<Shape> arg_shapes, aux_shapes;
  std::vector<DType> arg_types, aux_types;
  std::vector<Context> arg_ctx, aux_ctx;
  std::vector<GradReq> grad_req;  // per argument
  Context ctx;
  std::map<std::string, Context> group2ctx;
  ExecutorOptions options;
};

/// Builds the plan; throws braid::Error naming the node when shapes or dtypes cannot be
/// completed or conflict.
Plan make_plan(const std::vector<Entry>& outputs, const BindInfo& info);

/// Assigns slots to the planned values of `plan` (memory_plan.cc).
void plan_memory(Plan& plan, bool reuse);

/// Folds relus into the convolutions before them, and their gradients into the max poolings
/// after them (fuse_relu.cc). Runs before element-wise fusion.
void fuse_relu(Plan& plan);

/// Folds chains of element-wise steps into fused steps (fuse.cc).
void fuse_elementwise(Plan& plan);

/// Moves float32 2-D Convolution and Pooling steps, and the element-wise steps fed by them, to
/// channels-last data, inserting transposes at the borders (channels_last.cc). Runs before
/// fusion and the backward pass, which see the transposes as ordinary steps.
void use_channels_last(Plan& plan);

}  // namespace braid::symbol::detail
