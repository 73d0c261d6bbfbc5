#pragma once
// The recorded graph (autograd's tape). Each array handle holds a Slot (shared by its copies) naming the
// node that produced it; nodes hold their parents, so the tape lives exactly as long as the
// arrays that can still back-propagate through it. Saved arrays are stripped of their slots,
// which keeps the graph free of reference cycles.
#include <any>
#include <functional>
#include <memory>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/op/op_def.h"

namespace braid::imperative {

struct Node;

/// One output of a node.
struct Entry {
  std::shared_ptr<Node> node;
  int index = 0;
  explicit operator bool() const { return node != nullptr; }
};

struct Slot {
  Entry entry;
};

enum class NodeKind {
  Variable,  // a leaf with attach_grad: its gradient goes into `grad` per `req`
  Op,        // a registered operator
  View,      // a reshape or slice of the parent: the same elements, or a contiguous range of them
  Function,  // a compiled graph (hybridized block): its own backward function
};

/// The backward of a Function node: from the gradients of its visible outputs (zeros where no
/// gradient arrived), the gradient of each input that `wanted` marks (None elsewhere). `into`
/// (one per input, None where not) offers arrays to write a gradient into: the grad() buffer of
/// a variable that gets its gradient from this input only, saving a copy.
using BackwardFn = std::function<std::vector<NDArray>(
    const std::vector<NDArray>& out_grads, const std::vector<bool>& wanted, const std::vector<NDArray>& into)>;

struct Node {
  NodeKind kind = NodeKind::Op;
  bool freed = false;  // released by a backward without retain_graph

  // Variable
  NDArray grad;
  GradReq req = GradReq::Write;
  bool fresh_grad = false;  // written by a backward since last cleared

  // Op: what the backward of `def` needs.
  const op::OpDef* def = nullptr;
  std::any param;
  op::AttrMap attrs;  // as the call gave them (autograd::get_symbol)
  bool training = false;
  std::vector<NDArray> inputs;   // arguments then aux states
  std::vector<NDArray> outputs;  // every output, hidden ones included
  int num_visible = 0;

  // Function
  BackwardFn backward_fn;

  // Op, View and Function: where the gradient of each argument goes (empty Entry: no gradient wanted).
  std::vector<Entry> parents;

  // View: element offset into the parent, the view's shape and the parent's shape, dtype and context.
  int64_t view_offset = 0;
  Shape view_shape;
  Shape parent_shape;
  DType parent_dtype = DType::Float32;
  Context parent_ctx;
};

/// NDArray's autograd internals.
struct Access {
  static Slot& slot(const NDArray& a);
  static Entry& entry(const NDArray& a) { return slot(a).entry; }
  /// A handle to the same data without autograd state, for saving in nodes.
  static NDArray stripped(const NDArray& a);
  /// A handle to the same data as an array of the graph at `e` (a saved array put back in the
  /// graph, for gradients that are themselves recorded).
  static NDArray attached(const NDArray& a, const Entry& e);
  static int64_t offset(const NDArray& a) { return a.offset_; }
};

/// Whether `a` is a variable or computed from one in the recorded graph.
bool needs_grad(const NDArray& a);

}  // namespace braid::imperative
