// Joining and splitting along an axis: concat, stack, split (SliceChannel), _split_v2. Each part is a
// block of rows of the joined array seen as (outer, total·inner).
#include "braid/base/dim_math.h"
#include "braid/base/np_shape.h"
#include "matrix_util.h"

namespace braid::op::detail {
namespace {

// The joined array is (outer, sum(lens), inner); part i is (outer, lens[i], inner).
struct JoinLayout {
  int64_t outer = 1, inner = 1;
  Dims lens;
};

// Copies every part into the whole (to_whole) or the whole into every part; req[i] says how
// part i (or its block of the whole) is written.
void copy_parts(const OpContext& oc, const JoinLayout& l, const std::vector<TBlob>& parts, const TBlob& whole,
                bool to_whole, const std::vector<OpReq>& req, const char* op) {
  const auto copy = data_mover(oc.ctx).copy;
  int64_t total = 0;
  for (int64_t n : l.lens) total += n;
  int64_t start = 0;
  for (size_t i = 0; i < parts.size(); ++i) {
    const Dims shape = {l.outer, l.lens[i] * l.inner};
    const Dims part_strides = {l.lens[i] * l.inner, 1}, whole_strides = {total * l.inner, 1};
    const int64_t offset = start * l.inner;
    if (to_whole) {
      copy(whole.dtype, parts[i].dptr, 0, part_strides, whole.dptr, offset, whole_strides, shape, req[i], op);
    } else {
      copy(whole.dtype, whole.dptr, offset, whole_strides, parts[i].dptr, 0, part_strides, shape, req[i], op);
    }
    start += l.lens[i];
  }
}

std::vector<std::string> numbered_args(int n) {
  std::vector<std::string> names;
  for (int i = 0; i < n; ++i) names.push_back(cat("arg", i));
  return names;
}

std::string shape_list(const std::vector<Shape>& shapes) {
  std::string s;
  for (const auto& sh : shapes) s += cat(s.empty() ? "" : ", ", sh);
  return s;
}

// ---- concat ----

struct ConcatParam {
  int num_args = 1;
  int64_t dim = 1;
};

JoinLayout concat_layout(const ConcatParam& p, const std::vector<TBlob>& parts) {
  const Shape& s = parts[0].shape;
  const int axis = normalize_axis("concat", "dim", p.dim, s.ndim(), s);
  JoinLayout l{s.prod(0, axis), s.prod(axis + 1, s.ndim()), {}};
  for (const auto& b : parts) l.lens.push_back(b.shape[axis]);
  return l;
}

// All shapes agree outside `dim`; the output's `dim` is the sum of the inputs'. One unknown
// input extent along `dim` is recovered from a known output.
bool infer_concat(const ConcatParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  int ndim = out[0].ndim();
  for (const auto& s : in)
    if (s.known()) ndim = s.ndim();
  if (ndim < 0) return false;
  auto bad_rank = [&] {
    return Error(cat("operator concat: inputs of shapes ", shape_list(in), " and output ", out[0],
                     " must all have the same rank"));
  };
  if (ndim == 0) throw Error(cat("operator concat: cannot concatenate 0-D arrays (shapes ", shape_list(in), ")"));
  const int axis = normalize_axis("concat", "dim", p.dim, ndim, in[0].known() ? in[0] : out[0]);
  Dims common(static_cast<size_t>(ndim), unknown_dim());
  auto merge_common = [&](const Shape& s) {
    if (!s.known()) return;
    if (s.ndim() != ndim) throw bad_rank();
    for (int k = 0; k < ndim; ++k) {
      auto& c = common[static_cast<size_t>(k)];
      if (k == axis || !dim_known(s[k])) continue;
      BRAID_CHECK(!dim_known(c) || c == s[k], "operator concat: input shapes ", shape_list(in), " (output ", out[0],
                  ") differ in dimension ", k, "; all dimensions except the concatenated one (dim=", p.dim,
                  ") must match");
      c = s[k];
    }
  };
  for (const auto& s : in) merge_common(s);
  merge_common(out[0]);

  int64_t sum = 0;
  int unknown = 0, unknown_at = -1;
  Dims lens(in.size(), unknown_dim());
  for (size_t i = 0; i < in.size(); ++i) {
    if (in[i].known()) lens[i] = in[i][axis];
    if (dim_known(lens[i])) {
      sum = add_dims(sum, lens[i], "concat");
    } else {
      unknown++;
      unknown_at = static_cast<int>(i);
    }
  }
  int64_t total = out[0].known() ? out[0][axis] : unknown_dim();
  if (unknown == 0) {
    BRAID_CHECK(!dim_known(total) || total == sum, "operator concat: output shape ", out[0],
                " does not match the concatenation of inputs ", shape_list(in));
    total = sum;
  } else if (unknown == 1 && dim_known(total)) {
    BRAID_CHECK(total > sum || (np_shape() && total == sum), "operator concat: output shape ", out[0],
                " is too small for the concatenation of inputs ", shape_list(in));
    lens[static_cast<size_t>(unknown_at)] = total - sum;
  }
  for (size_t i = 0; i < in.size(); ++i) {
    Dims s = common;
    s[static_cast<size_t>(axis)] = lens[i];
    in[i] = Shape(s);
  }
  common[static_cast<size_t>(axis)] = total;
  out[0] = Shape(common);
  return all_known(in) && out[0].fully_known();
}

void add_concat(Registry& r) {
  OpDef d;
  d.name = "Concat";  // MXNet's name, written in symbol files; concat is its alias
  d.doc = "Joins num_args arrays along axis dim; all other dimensions must match.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "concat");
    ConcatParam p;
    p.num_args = rd.get<int>("num_args");
    p.dim = rd.get<int64_t>("dim", 1);
    rd.finish();
    BRAID_CHECK(p.num_args >= 1, "operator concat: num_args=", p.num_args, " must be at least 1");
    return std::any(p);
  };
  d.list_arguments = [](const std::any& p) { return numbered_args(param<ConcatParam>(p).num_args); };
  d.key_var_num_args = "num_args";
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_concat(param<ConcatParam>(p), in, out);
  };
  d.cpu.forward = [](const OpContext& oc, const std::any& p, const ForwardArgs& a) {
    std::vector<OpReq> req(a.inputs.size(), a.req[0]);
    copy_parts(oc, concat_layout(param<ConcatParam>(p), a.inputs), a.inputs, a.outputs[0], true, req, "concat");
  };
  // The layout comes from the inputs: the gradient of an input that wants none may be an empty blob.
  d.cpu.backward = [](const OpContext& oc, const std::any& p, const BackwardArgs& a) {
    copy_parts(oc, concat_layout(param<ConcatParam>(p), a.inputs), a.in_grads, a.out_grads[0], false, a.req, "concat");
  };
  r.add(std::move(d));
  r.add_alias("concat", "Concat");
  r.add_alias("_rnn_param_concat", "Concat");  // MXNet's concat of the fused RNN's parameters
}

// ---- stack ----

struct StackParam {
  int64_t axis = 0;
  int num_args = 1;
};

JoinLayout stack_layout(const StackParam& p, const Shape& part) {
  const int axis = normalize_axis("stack", "axis", p.axis, part.ndim() + 1, part);
  return {part.prod(0, axis), part.prod(axis, part.ndim()), Dims(static_cast<size_t>(p.num_args), 1)};
}

bool infer_stack(const StackParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  Shape part;
  for (size_t i = 0; i < in.size(); ++i) merge_shape(part, in[i], "stack", cat("input arg", i));
  if (out[0].known()) {
    BRAID_CHECK(out[0].ndim() >= 1, "operator stack: output shape ", out[0], " has no axis to stack on");
    const int axis = normalize_axis("stack", "axis", p.axis, out[0].ndim(), out[0]);
    Dims dims = out[0].dims();
    dims.erase(dims.begin() + axis);
    merge_shape(part, Shape(dims), "stack", "every input (from the output shape)");
  }
  if (!part.known()) return false;
  for (auto& s : in) s = part;
  const int axis = normalize_axis("stack", "axis", p.axis, part.ndim() + 1, part);
  Dims dims = part.dims();
  dims.insert(dims.begin() + axis, p.num_args);
  merge_shape(out[0], Shape(dims), "stack", "output");
  return part.fully_known();
}

void add_stack(Registry& r) {
  OpDef d;
  d.name = "stack";
  d.doc = "Joins num_args arrays of one shape along a new axis.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "stack");
    StackParam p;
    p.axis = rd.get<int64_t>("axis", 0);
    p.num_args = rd.get<int>("num_args");
    rd.finish();
    BRAID_CHECK(p.num_args >= 1, "operator stack: num_args=", p.num_args, " must be at least 1");
    return std::any(p);
  };
  d.list_arguments = [](const std::any& p) { return numbered_args(param<StackParam>(p).num_args); };
  d.key_var_num_args = "num_args";
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_stack(param<StackParam>(p), in, out);
  };
  d.cpu.forward = [](const OpContext& oc, const std::any& p, const ForwardArgs& a) {
    std::vector<OpReq> req(a.inputs.size(), a.req[0]);
    copy_parts(oc, stack_layout(param<StackParam>(p), a.inputs[0].shape), a.inputs, a.outputs[0], true, req, "stack");
  };
  d.cpu.backward = [](const OpContext& oc, const std::any& p, const BackwardArgs& a) {
    copy_parts(oc, stack_layout(param<StackParam>(p), a.inputs[0].shape), a.in_grads, a.out_grads[0], false, a.req,
               "stack");
  };
  r.add(std::move(d));
}

// ---- split ----

struct SplitParam {
  int num_outputs = 1;
  int64_t axis = 1;
  bool squeeze_axis = false;
};

JoinLayout split_layout(const SplitParam& p, const Shape& in) {
  BRAID_CHECK(in.ndim() >= 1, "operator split: cannot split a 0-D array");
  const int axis = normalize_axis("split", "axis", p.axis, in.ndim(), in);
  const int64_t n = in[axis];
  BRAID_CHECK(n % p.num_outputs == 0, "operator split: input shape ", in, " cannot be split into ", p.num_outputs,
              " equal parts along axis ", axis, " (", n, " is not divisible by ", p.num_outputs, ")");
  BRAID_CHECK(!p.squeeze_axis || n == p.num_outputs, "operator split: squeeze_axis=True needs axis ", axis,
              " of input shape ", in, " to have size num_outputs=", p.num_outputs);
  return {in.prod(0, axis), in.prod(axis + 1, in.ndim()), Dims(static_cast<size_t>(p.num_outputs), n / p.num_outputs)};
}

void add_split(Registry& r) {
  OpDef d;
  d.name = "SliceChannel";  // MXNet's name, written in symbol files; split is its alias
  d.doc = "Splits an array into num_outputs equal parts along axis.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "split");
    SplitParam p;
    p.num_outputs = rd.get<int>("num_outputs");
    p.axis = rd.get<int64_t>("axis", 1);
    p.squeeze_axis = rd.get<bool>("squeeze_axis", false);
    rd.finish();
    BRAID_CHECK(p.num_outputs >= 1, "operator split: num_outputs=", p.num_outputs, " must be at least 1");
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any& p) { return param<SplitParam>(p).num_outputs; };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<SplitParam>(pa);
    // Backward, as MXNet: the parts (all of one shape) tell the input's other dimensions.
    Shape part;
    for (size_t i = 0; i < out.size(); ++i)
      if (out[i].known()) merge_shape(part, out[i], "split", cat("output ", i));
    const bool ambiguous = p.squeeze_axis && part.known() && part.ndim() == 1 && part[0] == 1;  // maybe 0-D
    if (part.known() && !ambiguous) {
      Dims d = part.dims();
      const int nd = part.ndim() + (p.squeeze_axis ? 1 : 0);
      const int axis = normalize_axis("split", "axis", p.axis, nd, part);
      if (p.squeeze_axis)
        d.insert(d.begin() + axis, p.num_outputs);
      else
        d[static_cast<size_t>(axis)] *= p.num_outputs;
      merge_shape(in[0], Shape(d), "split", "data");
    }
    if (!in[0].known()) return false;
    const int axis = normalize_axis("split", "axis", p.axis, in[0].ndim(), in[0]);
    Dims dims = in[0].dims();
    if (in[0].fully_known())
      dims[static_cast<size_t>(axis)] = split_layout(p, in[0]).lens[0];
    else if (dim_known(dims[static_cast<size_t>(axis)]))
      dims[static_cast<size_t>(axis)] /= p.num_outputs;  // an unknown extent stays unknown
    if (p.squeeze_axis) dims.erase(dims.begin() + axis);
    if (dims.empty()) dims.push_back(1);  // as squeeze: no 0-D arrays
    for (size_t i = 0; i < out.size(); ++i) merge_shape(out[i], Shape(dims), "split", cat("output ", i));
    return in[0].fully_known();
  };
  d.cpu.forward = [](const OpContext& oc, const std::any& p, const ForwardArgs& a) {
    copy_parts(oc, split_layout(param<SplitParam>(p), a.inputs[0].shape), a.outputs, a.inputs[0], false, a.req,
               "split");
  };
  d.cpu.backward = [](const OpContext& oc, const std::any& p, const BackwardArgs& a) {
    std::vector<OpReq> req(a.out_grads.size(), a.req[0]);
    copy_parts(oc, split_layout(param<SplitParam>(p), a.in_grads[0].shape), a.out_grads, a.in_grads[0], true, req,
               "split");
  };
  r.add(std::move(d));
  r.add_alias("split", "SliceChannel");
}

// ---- _split_v2 (split_v2: parts at given indices, or equal sections) ----

struct SplitV2Param {
  std::vector<int64_t> indices;  // the start of each part, the first 0 (used when sections is 0)
  int64_t axis = 0;
  bool squeeze_axis = false;
  int sections = 0;
  int num_outputs() const { return sections > 0 ? sections : static_cast<int>(indices.size()); }
};

JoinLayout split_v2_layout(const SplitV2Param& p, const Shape& in) {
  BRAID_CHECK(in.ndim() >= 1, "operator split_v2: cannot split a 0-D array");
  const int axis = normalize_axis("split_v2", "axis", p.axis, in.ndim(), in);
  const int64_t n = in[axis];
  JoinLayout l{in.prod(0, axis), in.prod(axis + 1, in.ndim()), {}};
  if (p.sections > 0) {
    BRAID_CHECK(n % p.sections == 0, "operator split_v2: axis ", axis, " of input shape ", in, " (", n,
                ") cannot be split into ", p.sections, " equal sections");
    l.lens.assign(static_cast<size_t>(p.sections), n / p.sections);
  } else {
    for (size_t i = 0; i < p.indices.size(); ++i) {
      const int64_t begin = p.indices[i], end = i + 1 < p.indices.size() ? p.indices[i + 1] : n;
      BRAID_CHECK(0 <= begin && begin <= end && end <= n, "operator split_v2: indices ", Shape(p.indices),
                  " must rise within axis ", axis, " of input shape ", in);
      l.lens.push_back(end - begin);
    }
  }
  for (int64_t len : l.lens)
    BRAID_CHECK(!p.squeeze_axis || len == 1, "operator split_v2: squeeze_axis=True needs parts of size 1 along axis ",
                axis, " of input shape ", in);
  return l;
}

void add_split_v2(Registry& r) {
  OpDef d;
  d.name = "_split_v2";
  d.doc = "Splits an array along axis at the given indices, or into `sections` equal parts.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "_split_v2");
    SplitV2Param p;
    p.indices = rd.get<std::vector<int64_t>>("indices", {});
    p.axis = rd.get<int64_t>("axis", 0);
    p.squeeze_axis = rd.get<bool>("squeeze_axis", false);
    p.sections = rd.get<int>("sections", 0);
    rd.finish();
    BRAID_CHECK(p.num_outputs() >= 1, "operator split_v2: give indices or a positive number of sections");
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any& p) { return param<SplitV2Param>(p).num_outputs(); };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    const auto& p = param<SplitV2Param>(pa);
    const JoinLayout l = split_v2_layout(p, in[0]);
    const int axis = normalize_axis("split_v2", "axis", p.axis, in[0].ndim(), in[0]);
    for (size_t i = 0; i < out.size(); ++i) {
      Dims dims = in[0].dims();
      dims[static_cast<size_t>(axis)] = l.lens[i];
      if (p.squeeze_axis) dims.erase(dims.begin() + axis);
      merge_shape(out[i], Shape(dims), "split_v2", cat("output ", i));
    }
    return true;
  };
  d.cpu.forward = [](const OpContext& oc, const std::any& p, const ForwardArgs& a) {
    copy_parts(oc, split_v2_layout(param<SplitV2Param>(p), a.inputs[0].shape), a.outputs, a.inputs[0], false, a.req,
               "split_v2");
  };
  d.cpu.backward = [](const OpContext& oc, const std::any& p, const BackwardArgs& a) {
    std::vector<OpReq> req(a.out_grads.size(), a.req[0]);
    copy_parts(oc, split_v2_layout(param<SplitV2Param>(p), a.in_grads[0].shape), a.out_grads, a.in_grads[0], true, req,
               "split_v2");
  };
  r.add(std::move(d));
}

}  // namespace

void register_matrix_join_ops(Registry& r) {
  add_concat(r);
  add_stack(r);
  add_split(r);
  add_split_v2(r);
}

}  // namespace braid::op::detail
