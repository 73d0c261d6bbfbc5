// broadcast_to, broadcast_like, broadcast_axis and where.
#include <algorithm>

#include "axis_util.h"
#include "broadcast.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct BroadcastToParam {
  Shape shape;  // 0 keeps the input's dimension
};

void forward_broadcast(const ForwardArgs& a, const char* name) {
  const TBlob &x = a.inputs[0], &o = a.outputs[0];
  BRAID_VALUE_TYPE_SWITCH(o.dtype, T, name, {
    const T* xp = x.ptr<T>();
    T* op = o.ptr<T>();
    BroadcastWalker(o.shape, x.shape, x.shape).for_each([&](int64_t k, int64_t i, int64_t) {
      assign(op[k], a.req[0], xp[i]);
    });
  });
}

// The gradient of a broadcast sums the output gradient over the broadcast dimensions.
void backward_broadcast(const BackwardArgs& a, const char* name) {
  if (a.req[0] == OpReq::Null) return;
  const TBlob &g = a.out_grads[0], &dx = a.in_grads[0];
  BRAID_REAL_TYPE_SWITCH(g.dtype, T, name, {
    const T* gp = g.ptr<T>();
    T* d = dx.ptr<T>();
    if (a.req[0] == OpReq::Write) std::fill(d, d + dx.size(), T(0));
    BroadcastWalker(g.shape, dx.shape, dx.shape).for_each([&](int64_t k, int64_t i, int64_t) { d[i] += gp[k]; });
  });
}

Shape broadcast_target(const std::string& op, const Shape& in, const Shape& target) {
  BRAID_CHECK(target.ndim() >= in.ndim(), "operator ", op, ": cannot broadcast ", in, " to ", target,
              " (fewer dimensions)");
  Shape out = target;
  int off = target.ndim() - in.ndim();
  for (int i = 0; i < target.ndim(); ++i) {
    int64_t d = i >= off ? in[i - off] : 1;
    if (out[i] == 0) out[i] = d;
    BRAID_CHECK(d == out[i] || d == 1, "operator ", op, ": cannot broadcast ", in, " to ", target);
  }
  return out;
}

struct BroadcastLikeParam {
  std::optional<std::vector<int64_t>> lhs_axes, rhs_axes;  // absent: broadcast to all of rhs's shape
};

Shape broadcast_like_target(const BroadcastLikeParam& p, const Shape& lhs, const Shape& rhs) {
  if (!p.lhs_axes) return broadcast_target("broadcast_like", lhs, rhs);
  Shape out = lhs;
  for (size_t i = 0; i < p.lhs_axes->size(); ++i) {
    const int l = checked_axis("broadcast_like", lhs, (*p.lhs_axes)[i]);
    const int r = checked_axis("broadcast_like", rhs, (*p.rhs_axes)[i]);
    BRAID_CHECK(lhs[l] == 1 || lhs[l] == rhs[r], "operator broadcast_like: lhs axis ", l, " has size ", lhs[l],
                "; only size-1 axes broadcast (to rhs axis ", r, "'s ", rhs[r], ")");
    out[l] = rhs[r];
  }
  return out;
}

void add_broadcast_to(Registry& r) {
  OpDef d;
  d.name = "broadcast_to";
  d.doc = "Repeats size-1 dimensions to reach `shape` (0 keeps a dimension).";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "broadcast_to");
    BroadcastToParam p{rd.get<Shape>("shape")};
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known()) return false;
    merge_shape(out[0], broadcast_target("broadcast_to", in[0], param<BroadcastToParam>(p).shape), "broadcast_to",
                "output");
    return out[0].fully_known();
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) { forward_broadcast(a, "broadcast_to"); };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    backward_broadcast(a, "broadcast_to");
  };
  r.add(std::move(d));

  OpDef like;
  like.name = "broadcast_like";
  like.doc =
      "Broadcasts lhs to the shape of rhs; with lhs_axes and rhs_axes, only lhs's size-1 axes lhs_axes[i] take "
      "the sizes of rhs's axes rhs_axes[i].";
  like.parse = [](const AttrMap& a) {
    ParamReader rd(a, "broadcast_like");
    BroadcastLikeParam p{rd.get_optional<std::vector<int64_t>>("lhs_axes"),
                         rd.get_optional<std::vector<int64_t>>("rhs_axes")};
    rd.finish();
    BRAID_CHECK(
        p.lhs_axes.has_value() == p.rhs_axes.has_value() && (!p.lhs_axes || p.lhs_axes->size() == p.rhs_axes->size()),
        "operator broadcast_like: lhs_axes and rhs_axes must be given together and be as long as each other");
    BRAID_CHECK(!p.lhs_axes || !p.lhs_axes->empty(),
                "operator broadcast_like: lhs_axes and rhs_axes are empty; name at least one axis, or give neither");
    return std::any(p);
  };
  like.list_arguments = args({"lhs", "rhs"});
  like.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known() || !in[1].known()) return false;
    merge_shape(out[0], broadcast_like_target(param<BroadcastLikeParam>(p), in[0], in[1]), "broadcast_like", "output");
    return out[0].fully_known();
  };
  like.infer_type = shape_only_second_input;
  like.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    forward_broadcast(a, "broadcast_like");
  };
  like.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    backward_broadcast(a, "broadcast_like");
    if (a.req[1] == OpReq::Write)
      BRAID_TYPE_SWITCH(a.in_grads[1].dtype, T, "broadcast_like",
                        { std::fill(a.in_grads[1].ptr<T>(), a.in_grads[1].ptr<T>() + a.in_grads[1].size(), T(0)); });
  };
  r.add(std::move(like));
}

struct BroadcastAxisParam {
  std::vector<int64_t> axis, size;
};

Shape broadcast_axis_target(const BroadcastAxisParam& p, const Shape& in) {
  Shape out = in;
  for (size_t i = 0; i < p.axis.size(); ++i) {
    const int k = checked_axis("broadcast_axis", in, p.axis[i]);
    BRAID_CHECK(in[k] == 1 || in[k] == p.size[i], "operator broadcast_axis: axis ", k, " of input shape ", in,
                " has size ", in[k], "; only size-1 axes broadcast (to ", p.size[i], ")");
    out[k] = p.size[i];
  }
  return out;
}

void add_broadcast_axis(Registry& r) {
  OpDef d;
  d.name = "broadcast_axis";
  d.doc = "Repeats the size-1 axes `axis` to the sizes `size`.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "broadcast_axis");
    BroadcastAxisParam p{rd.get<std::vector<int64_t>>("axis", {}), rd.get<std::vector<int64_t>>("size", {})};
    rd.finish();
    BRAID_CHECK(p.axis.size() == p.size.size(), "operator broadcast_axis: axis ", Shape(p.axis), " and size ",
                Shape(p.size), " must have one entry per axis");
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known()) return false;
    merge_shape(out[0], broadcast_axis_target(param<BroadcastAxisParam>(p), in[0]), "broadcast_axis", "output");
    return out[0].fully_known();
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    forward_broadcast(a, "broadcast_axis");
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    backward_broadcast(a, "broadcast_axis");
  };
  r.add(std::move(d));
  r.add_alias("broadcast_axes", "broadcast_axis");
}

// where's condition has x's shape, or is 1-D and picks whole rows: (x.shape[0],).
bool infer_where_shape(std::vector<Shape>& in, std::vector<Shape>& out) {
  const Shape& cond = in[0];
  if (!cond.fully_known()) return false;  // as MXNet: nothing is inferred before the condition's shape
  std::vector<Shape> values{in[1], in[2]};
  if (cond.ndim() != 1) values.push_back(cond);
  const bool known = infer_same_shape("where", values, out);
  in[1] = values[0];
  in[2] = values[1];
  if (cond.ndim() == 1 && out[0].known() && out[0].ndim() > 0)
    BRAID_CHECK(out[0].ndim() == 1 ? cond == out[0] : cond[0] == out[0][0], "operator where: condition of shape ", cond,
                " must have the shape of x, ", out[0], ", or be 1-D of x's first dimension (", out[0][0], ",)");
  return known;
}

// Each value of the condition covers `inner` consecutive elements of x: 1, or a row's size.
int64_t where_inner(const ForwardArgs& a) { return a.outputs[0].size() / std::max<int64_t>(a.inputs[0].size(), 1); }

void add_where(Registry& r) {
  OpDef d;
  d.name = "where";
  d.doc =
      "x where condition is non-zero, else y (x and y of one shape; condition of that shape, or 1-D of its first "
      "dimension to pick whole rows).";
  d.parse = no_params("where");
  d.list_arguments = args({"condition", "x", "y"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_where_shape(in, out);
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    BRAID_CHECK(in[1] == in[2], "operator where: x and y have different dtypes ", dtype_name(in[1]), " and ",
                dtype_name(in[2]));
    out[0] = in[1];
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_VALUE_TYPE_SWITCH(a.inputs[0].dtype, C, "where condition", {
      const C* c = a.inputs[0].ptr<C>();
      BRAID_VALUE_TYPE_SWITCH(a.outputs[0].dtype, T, "where", {
        const T* x = a.inputs[1].ptr<T>();
        const T* y = a.inputs[2].ptr<T>();
        T* o = a.outputs[0].ptr<T>();
        const int64_t inner = where_inner(a);
        for (int64_t i = 0, end = a.outputs[0].size(); i < end; ++i)
          assign(o[i], a.req[0], c[i / inner] != C(0) ? x[i] : y[i]);
      });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    BRAID_VALUE_TYPE_SWITCH(a.inputs[0].dtype, C, "where condition", {
      const C* c = a.inputs[0].ptr<C>();
      if (a.req[0] != OpReq::Null)  // the condition has no gradient
        for (int64_t i = 0, end = a.inputs[0].size(); i < end; ++i) assign(a.in_grads[0].ptr<C>()[i], a.req[0], C(0));
      BRAID_REAL_TYPE_SWITCH(a.out_grads[0].dtype, T, "where", {
        const T* g = a.out_grads[0].ptr<T>();
        const int64_t inner = a.out_grads[0].size() / std::max<int64_t>(a.inputs[0].size(), 1);
        for (int64_t i = 0, end = a.out_grads[0].size(); i < end; ++i) {
          const bool pick_x = c[i / inner] != C(0);
          if (a.req[1] != OpReq::Null) assign(a.in_grads[1].ptr<T>()[i], a.req[1], pick_x ? g[i] : T(0));
          if (a.req[2] != OpReq::Null) assign(a.in_grads[2].ptr<T>()[i], a.req[2], pick_x ? T(0) : g[i]);
        }
      });
    });
  };
  r.add(std::move(d));
}

}  // namespace

void register_broadcast_ops(Registry& r) {
  add_broadcast_to(r);
  add_broadcast_axis(r);
  add_where(r);
}

}  // namespace braid::op::detail
