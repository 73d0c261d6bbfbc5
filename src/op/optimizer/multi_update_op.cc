#include "multi_update_op.h"

#include "braid/op/param_reader.h"
#include "braid/op/shape_inference.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "update_op.h"

namespace braid::op::detail {
namespace {

size_t group_size(const MultiUpdateSpec& spec) {
  return 2 + spec.single.states.size() + (spec.multi_precision ? 1 : 0);
}

MultiUpdateParam parse_multi_update_param(AttrMap attrs, const MultiUpdateSpec& spec) {
  MultiUpdateParam p;
  {
    AttrMap own;
    for (const char* key : {"lrs", "wds", "num_weights"})
      if (auto it = attrs.find(key); it != attrs.end()) {
        own.insert(*it);
        attrs.erase(it);
      }
    ParamReader rd(own, spec.name);
    if (!spec.preloaded) {
      p.lrs = rd.get<std::vector<double>>("lrs");
      p.wds = rd.get<std::vector<double>>("wds");
    }
    p.num_weights = rd.get<int>("num_weights", 1);
    rd.finish();
  }
  BRAID_CHECK(p.num_weights >= 1, spec.name, ": num_weights is ", p.num_weights, "; it must be at least 1");
  const auto n = static_cast<size_t>(p.num_weights);
  if (spec.preloaded) p.lrs = p.wds = std::vector<double>(n);  // read from the arrays at each call
  BRAID_CHECK(p.lrs.size() == n && p.wds.size() == n, spec.name, ": num_weights is ", n, " but lrs has ", p.lrs.size(),
              " and wds ", p.wds.size(), " values; give one learning rate and one weight decay per weight");
  UpdateAttrs accepted = spec.single.attrs;
  accepted.has_lr = false;
  p.common = parse_update_param(attrs, spec.name, accepted);
  return p;
}

}  // namespace

ForwardArgs single_update_args(const ForwardArgs& all, size_t group, size_t i) {
  ForwardArgs a;
  a.inputs.assign(all.inputs.begin() + static_cast<long>(i * group),
                  all.inputs.begin() + static_cast<long>((i + 1) * group));
  a.outputs = {all.outputs[i]};
  a.req = {all.req[i]};
  return a;
}

OpDef multi_update_op_def(const MultiUpdateSpec& spec) {
  OpDef d;
  d.name = spec.name;
  d.doc = cat("Updates num_weights weights at once, each with its own learning rate and weight decay (lrs, wds), as ",
              spec.single.name, " does", spec.multi_precision ? " on float32 master copies weight32_i" : "", ": ",
              spec.single.doc);
  d.parse = [spec](const AttrMap& a) { return std::any(parse_multi_update_param(a, spec)); };
  const size_t group = group_size(spec);
  std::vector<std::string> per_weight{"weight", "grad"};
  per_weight.insert(per_weight.end(), spec.single.states.begin(), spec.single.states.end());
  if (spec.multi_precision) per_weight.push_back("weight32");
  auto count = [](const std::any& pa) {
    return pa.has_value() ? static_cast<size_t>(param<MultiUpdateParam>(pa).num_weights) : size_t{1};
  };
  d.list_arguments = [per_weight, count, preloaded = spec.preloaded](const std::any& pa) {
    std::vector<std::string> names;
    for (size_t i = 0; i < count(pa); ++i)
      for (const auto& n : per_weight) names.push_back(cat(n, "_", i));
    if (preloaded) names.insert(names.end(), {"lrs", "wds"});
    return names;
  };
  d.num_outputs = [count](const std::any& pa) { return static_cast<int>(count(pa)); };
  d.mutate_inputs = [group, count](const std::any& pa) {
    std::vector<int> mutated;
    for (size_t i = 0; i < count(pa); ++i)
      for (size_t k = 2; k < group; ++k) mutated.push_back(static_cast<int>(i * group + k));
    return mutated;
  };
  d.infer_shape = [name = d.name, group](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out,
                                         std::vector<Shape>&) {
    bool known = true;
    for (size_t i = 0; i < out.size(); ++i) {
      std::vector<Shape> args(in.begin() + static_cast<long>(i * group),
                              in.begin() + static_cast<long>((i + 1) * group));
      std::vector<Shape> result{out[i]};
      known = infer_same_shape(cat(name, " (weight ", i, ")"), args, result) && known;
      std::copy(args.begin(), args.end(), in.begin() + static_cast<long>(i * group));
      out[i] = result[0];
    }
    if (in.size() > out.size() * group) {  // preloaded: lrs and wds, one value per weight
      const Shape per_weight({static_cast<int64_t>(out.size())});
      merge_shape(in[in.size() - 2], per_weight, name, "lrs");
      merge_shape(in[in.size() - 1], per_weight, name, "wds");
    }
    return known;
  };
  d.infer_type = [spec, group](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    for (size_t i = 0; i < out.size(); ++i) {
      std::vector<DType> args(in.begin() + static_cast<long>(i * group),
                              in.begin() + static_cast<long>((i + 1) * group));
      std::vector<DType> result{out[i]};
      infer_update_type(spec.single, spec.multi_precision, cat(spec.name, " (weight ", i, ")"), args, result);
      std::copy(args.begin(), args.end(), in.begin() + static_cast<long>(i * group));
      out[i] = result[0];
    }
    for (size_t k = out.size() * group; k < in.size(); ++k)  // preloaded lrs and wds: float32 unless given
      if (in[k] == kDTypeUnknown) in[k] = DType::Float32;
  };
  return d;
}

namespace {

/// The values of a preloaded form's lrs or wds array.
std::vector<double> preloaded_values(const TBlob& b, const std::string& op) {
  std::vector<double> v(static_cast<size_t>(b.size()));
  BRAID_REAL_TYPE_SWITCH(b.dtype, T, op.c_str(), {
    const T* x = b.ptr<T>();
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(x[i]);
  });
  return v;
}

template <class Rule>
void add_multi_update_op(Registry& r, const MultiUpdateSpec& spec) {
  OpDef d = multi_update_op_def(spec);
  d.cpu.forward = [spec, group = group_size(spec)](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    MultiUpdateParam p = param<MultiUpdateParam>(pa);
    if (spec.preloaded) {
      p.lrs = preloaded_values(a.inputs[a.inputs.size() - 2], spec.name);
      p.wds = preloaded_values(a.inputs[a.inputs.size() - 1], spec.name);
    }
    for (size_t i = 0; i < a.outputs.size(); ++i)
      if (a.req[i] != OpReq::Null)
        update_on_cpu<Rule>(p.of(i), single_update_args(a, group, i), spec.multi_precision, spec.name);
  };
  r.add(std::move(d));
}

}  // namespace

void register_multi_update_ops(Registry& r) {
  const auto add = [&r](auto rule, const MultiUpdateSpec& spec) { add_multi_update_op<decltype(rule)>(r, spec); };
  for_each_multi_update_op(add);
  for_each_preloaded_update_op(add);
}

}  // namespace braid::op::detail
