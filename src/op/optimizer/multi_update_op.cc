#include "multi_update_op.h"

#include "braid/op/param_reader.h"
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
    p.lrs = rd.get<std::vector<double>>("lrs");
    p.wds = rd.get<std::vector<double>>("wds");
    p.num_weights = rd.get<int>("num_weights", 1);
    rd.finish();
  }
  BRAID_CHECK(p.num_weights >= 1, spec.name, ": num_weights is ", p.num_weights, "; it must be at least 1");
  const auto n = static_cast<size_t>(p.num_weights);
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
  d.list_arguments = [per_weight, count](const std::any& pa) {
    std::vector<std::string> names;
    for (size_t i = 0; i < count(pa); ++i)
      for (const auto& n : per_weight) names.push_back(cat(n, "_", i));
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
  };
  return d;
}

void register_multi_update_ops(Registry& r) {
  for_each_multi_update_op([&r](auto rule, const MultiUpdateSpec& spec) {
    using Rule = decltype(rule);
    OpDef d = multi_update_op_def(spec);
    d.cpu.forward = [spec, group = group_size(spec)](const OpContext&, const std::any& pa, const ForwardArgs& a) {
      const auto& p = param<MultiUpdateParam>(pa);
      for (size_t i = 0; i < a.outputs.size(); ++i)
        if (a.req[i] != OpReq::Null)
          update_on_cpu<Rule>(p.of(i), single_update_args(a, group, i), spec.multi_precision, spec.name);
    };
    r.add(std::move(d));
  });
}

}  // namespace braid::op::detail
