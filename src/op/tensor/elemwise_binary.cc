// Binary arithmetic and comparisons: same-shape (elemwise_add, _power, _greater, ...) and NumPy
// broadcasting (broadcast_add, ...), which share one kernel.
#include <cmath>

#include "broadcast.h"
#include "op/common/elementwise_loop.h"
#include "op/math/binary_functions.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

template <class Fn>
void add_binary(Registry& r, const std::string& name, bool broadcast) {
  OpDef d;
  d.name = name;
  d.doc = broadcast ? "Binary operation with NumPy broadcasting." : "Binary operation on equal shapes.";
  d.parse = no_params(name);
  d.list_arguments = args({"lhs", "rhs"});
  d.infer_shape = [name, broadcast](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out,
                                    std::vector<Shape>&) {
    if (!broadcast) return infer_same_shape(name, in, out);
    if (!in[0].known() || !in[1].known()) return false;
    merge_shape(out[0], broadcast_shapes(name, in[0], in[1]), name, "output");
    return out[0].fully_known() || out[0].size() == 0;
  };
  d.cpu.forward = [name](const OpContext&, const std::any&, const ForwardArgs& a) {
    const TBlob &l = a.inputs[0], &rb = a.inputs[1], &o = a.outputs[0];
    BRAID_TYPE_SWITCH(o.dtype, T, name.c_str(), {
      const T* x = l.ptr<T>();
      const T* y = rb.ptr<T>();
      T* z = o.ptr<T>();
      const OpReq req = a.req[0];
      if (l.shape == rb.shape) {
        write_all(z, req, o.size(), [=](int64_t i) { return Fn::f(x[i], y[i]); });
      } else {
        BroadcastWalker(o.shape, l.shape, rb.shape).for_each([&](int64_t k, int64_t i, int64_t j) {
          assign(z[k], req, Fn::f(x[i], y[j]));
        });
      }
    });
  };
  if constexpr (Fn::differentiable) {
    d.cpu.backward = [name](const OpContext&, const std::any&, const BackwardArgs& a) {
      const TBlob &l = a.inputs[0], &rb = a.inputs[1], &o = a.outputs[0];
      // Integer arrays get integer gradients, as in MXNet (an int32 head gradient is truncated).
      BRAID_TYPE_SWITCH(o.dtype, T, name.c_str(), {
        const T* x = l.ptr<T>();
        const T* y = rb.ptr<T>();
        const T* z = o.ptr<T>();
        const T* g = a.out_grads[0].ptr<T>();
        T* dx = a.req[0] == OpReq::Null ? nullptr : a.in_grads[0].ptr<T>();
        T* dy = a.req[1] == OpReq::Null ? nullptr : a.in_grads[1].ptr<T>();
        if (l.shape == rb.shape) {
          write_all(dx, a.req[0], l.size(), [=](int64_t i) { return static_cast<T>(g[i] * Fn::dl(x[i], y[i], z[i])); });
          write_all(dy, a.req[1], l.size(), [=](int64_t i) { return static_cast<T>(g[i] * Fn::dr(x[i], y[i], z[i])); });
        } else {
          if (dx && a.req[0] == OpReq::Write) std::fill(dx, dx + l.size(), T(0));
          if (dy && a.req[1] == OpReq::Write) std::fill(dy, dy + rb.size(), T(0));
          // Accumulating over the output sums the gradient over broadcast dimensions.
          BroadcastWalker(o.shape, l.shape, rb.shape).for_each([&](int64_t k, int64_t i, int64_t j) {
            if (dx) dx[i] += static_cast<T>(g[k] * Fn::dl(x[i], y[j], z[k]));
            if (dy) dy[j] += static_cast<T>(g[k] * Fn::dr(x[i], y[j], z[k]));
          });
        }
      });
    };
  } else {
    d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
      for (size_t i = 0; i < 2; ++i)
        if (a.req[i] == OpReq::Write)
          BRAID_TYPE_SWITCH(a.in_grads[i].dtype, T, "comparison", {
            std::fill(a.in_grads[i].ptr<T>(), a.in_grads[i].ptr<T>() + a.in_grads[i].size(), T(0));
          });
    };
    d.zero_gradient = true;
  }
  r.add(std::move(d));
}

}  // namespace

void register_elemwise_binary_ops(Registry& r) {
  math::for_each_binary_op([&r](const char* name, const char* stem, auto fn) {
    add_binary<decltype(fn)>(r, name, false);
    add_binary<decltype(fn)>(r, cat("broadcast_", stem), true);
  });
  // _grad_add: MXNet's elemwise_add as its gradient aggregation inserts it (never in place).
  for (const char* alias : {"_plus", "_add", "_Plus", "_grad_add"}) r.add_alias(alias, "elemwise_add");
  for (const char* alias : {"_minus", "_sub", "_Minus"}) r.add_alias(alias, "elemwise_sub");
  for (const char* alias : {"_mul", "_Mul"}) r.add_alias(alias, "elemwise_mul");
  for (const char* alias : {"_div", "_Div"}) r.add_alias(alias, "elemwise_div");
  r.add_alias("_Power", "_power");
  r.add_alias("_Maximum", "_maximum");
  r.add_alias("_Minimum", "_minimum");
  r.add_alias("_Mod", "_mod");
  // MXNet's legacy capitalized names of the comparisons.
  for (const auto& [alias, name] : {std::pair{"_Equal", "_equal"},
                                    {"_Not_Equal", "_not_equal"},
                                    {"_Greater", "_greater"},
                                    {"_Greater_Equal", "_greater_equal"},
                                    {"_Lesser", "_lesser"},
                                    {"_Lesser_Equal", "_lesser_equal"},
                                    {"_Logical_And", "_logical_and"},
                                    {"_Logical_Or", "_logical_or"},
                                    {"_Logical_Xor", "_logical_xor"},
                                    {"_Hypot", "_hypot"}})
    r.add_alias(alias, name);
  r.add_alias("broadcast_plus", "broadcast_add");
  r.add_alias("broadcast_minus", "broadcast_sub");
}

}  // namespace braid::op::detail
