// MXNet's other samplers, all drawing from their context's generator: _random_<dist> (scalar
// parameters: gamma, exponential, poisson, negative_binomial, generalized_negative_binomial),
// _random_<dist>_like (the shape and dtype of an input), _sample_<dist> (parameters as arrays, a
// block of `shape` draws per parameter element), _sample_multinomial and _shuffle.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "op/op_util.h"
#include "op/register_all.h"
#include "random_dist.h"
#include "random_param.h"

namespace braid::op::detail {
namespace {

DType dtype_or(const std::optional<DType>& d, DType fallback) { return d ? *d : fallback; }

std::optional<DType> read_dtype(ParamReader& rd, const std::string& fallback) {
  std::string name = rd.get<std::string>("dtype", fallback);
  if (name == "None") return std::nullopt;
  return dtype_from_name(name);
}

/// The parser of a distribution's ops: its parameters as attributes when `scalar`, plus `shape`
/// (default `default_shape`) and `dtype`.
std::function<std::any(const AttrMap&)> dist_parser(const std::string& op, const Distribution& dist, bool scalar,
                                                    bool has_shape, const std::string& default_dtype) {
  return [=](const AttrMap& a) {
    ParamReader rd(a, op);
    DistParam p;
    // A scalar sampler without a shape leaves it to inference from its consumers, as MXNet's
    // symbols do; mx.nd's functions pass (1,) then.
    if (has_shape) p.shape = rd.get<Shape>("shape", scalar ? Shape() : Shape(std::vector<int64_t>{}));
    p.dtype = read_dtype(rd, default_dtype);
    if (scalar) {
      p.a = rd.get<double>(dist.first, dist.default_a);
      if (dist.second) p.b = rd.get<double>(dist.second, dist.default_b);
    }
    rd.get<std::string>("ctx", "");
    rd.finish();
    if (scalar) dist.check(op, p.a, p.b);
    return std::any(p);
  };
}

// _random_<dist>: no inputs, scalar parameters.
void add_random(Registry& r, const Distribution& dist) {
  OpDef d;
  d.name = "_random_" + dist.name;
  d.doc = cat("Samples from the ", dist.name, " distribution with scalar parameters.");
  d.parse = dist_parser(d.name, dist, true, true, "float32");
  d.list_arguments = args({});
  d.infer_shape = [name = d.name](const std::any& p, std::vector<Shape>&, std::vector<Shape>& out,
                                  std::vector<Shape>&) {
    const Shape& s = param<DistParam>(p).shape;
    if (s.known()) merge_shape(out[0], s, name, "output");
    return out[0].fully_known();
  };
  d.infer_type = [](const std::any& p, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = dtype_or(param<DistParam>(p).dtype, DType::Float32);
  };
  d.needs_rng = true;
  d.cpu.forward = [kind = dist.kind](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<DistParam>(pa);
    fill_draws((*ctx.rng)(), kind, p.a, p.b, a.outputs[0], 0, a.outputs[0].size());
  };
  r.add(std::move(d));
}

// _random_<dist>_like: the shape and dtype of `data`, scalar parameters.
void add_random_like(Registry& r, const Distribution& dist) {
  OpDef d;
  d.name = "_random_" + dist.name + "_like";
  d.doc = cat("Samples from the ", dist.name, " distribution an array shaped like data.");
  d.parse = dist_parser(d.name, dist, true, false, "None");
  d.list_arguments = args({"data"});
  d.infer_shape = [name = d.name](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out,
                                  std::vector<Shape>&) { return infer_same_shape(name, in, out); };
  d.needs_rng = true;
  d.cpu.forward = [kind = dist.kind](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<DistParam>(pa);
    fill_draws((*ctx.rng)(), kind, p.a, p.b, a.outputs[0], 0, a.outputs[0].size());
  };
  r.add(std::move(d));
}

/// Parameter arrays (read as double) of a _sample_ op.
std::vector<double> as_doubles(const TBlob& t) {
  std::vector<double> v(static_cast<size_t>(t.size()));
  convert_elements(t.dptr, t.dtype, v.data(), DType::Float64, t.size());
  return v;
}

// _sample_<dist>: parameters as arrays of one shape; output shape = that shape + `shape`.
void add_sample(Registry& r, const Distribution& dist) {
  OpDef d;
  d.name = "_sample_" + dist.name;
  d.doc = cat("Samples from the ", dist.name, " distribution, `shape` draws for each element of the parameter arrays.");
  d.parse = dist_parser(d.name, dist, false, true, "None");
  std::vector<std::string> names{dist.array_first ? dist.array_first : dist.first};
  if (dist.second) names.push_back(dist.array_second ? dist.array_second : dist.second);
  d.list_arguments = args(names);
  d.infer_shape = [name = d.name](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out,
                                  std::vector<Shape>&) {
    for (const auto& s : in) {
      if (!s.fully_known()) return false;
      BRAID_CHECK(s == in[0], "operator ", name, ": the parameter arrays must have one shape, got ", in[0], " and ", s);
    }
    std::vector<int64_t> dims = in[0].dims();
    for (int64_t v : param<DistParam>(pa).shape.dims()) dims.push_back(v);
    out[0] = Shape(dims);
    return true;
  };
  d.infer_type = [](const std::any& p, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = dtype_or(param<DistParam>(p).dtype, in[0]);
  };
  d.needs_rng = true;
  d.cpu.forward = [dist, name = d.name](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const std::vector<double> first = as_doubles(a.inputs[0]);
    const std::vector<double> second = a.inputs.size() > 1 ? as_doubles(a.inputs[1]) : std::vector<double>();
    const int64_t block = param<DistParam>(pa).shape.size();
    const uint64_t seed = (*ctx.rng)();
    for (size_t i = 0; i < first.size(); ++i) {
      const double pb = second.empty() ? 0.0 : second[i];
      dist.check(name, first[i], pb);
      fill_draws(seed, dist.kind, first[i], pb, a.outputs[0], static_cast<int64_t>(i) * block, block);
    }
  };
  r.add(std::move(d));
}

struct MultinomialParam {
  Shape shape;
  bool get_prob = false;
  DType dtype = DType::Int32;
};

// The largest integer every smaller one of which `t` represents exactly (MXNet's MaxIntegerValue).
int64_t largest_exact_integer(DType t) {
  switch (t) {
    case DType::UInt8:
      return 255;
    case DType::Int8:
      return 127;
    case DType::Float16:
      return 1 << 11;
    case DType::BFloat16:
      return 1 << 8;
    case DType::Float32:
      return 1 << 24;
    case DType::Int32:
      return std::numeric_limits<int32_t>::max();
    default:
      return std::numeric_limits<int64_t>::max();  // float64 (2^53) and int64 hold any count that fits in memory
  }
}

// _sample_multinomial(data): categories drawn from the last axis of data (probabilities), `shape`
// draws per row; with get_prob the log-probability of each draw as a second output, whose
// gradient reaches data (REINFORCE).
void add_multinomial(Registry& r) {
  OpDef d;
  d.name = "_sample_multinomial";
  d.doc = "Samples categories from the probabilities on the last axis of data.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "_sample_multinomial");
    MultinomialParam p;
    p.shape = rd.get<Shape>("shape", Shape(std::vector<int64_t>{}));
    p.get_prob = rd.get<bool>("get_prob", false);
    p.dtype = dtype_from_name(rd.get<std::string>("dtype", "int32"));
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any& p) { return param<MultinomialParam>(p).get_prob ? 2 : 1; };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() >= 1, "operator _sample_multinomial: data needs at least one axis (the categories)");
    const DType t = param<MultinomialParam>(pa).dtype;
    const int64_t k = in[0].dims().back();
    BRAID_CHECK(k <= largest_exact_integer(t), "operator _sample_multinomial: ", k, " categories do not fit dtype ",
                dtype_name(t), " (it holds integers up to ", largest_exact_integer(t),
                " exactly); choose a wider dtype");
    std::vector<int64_t> dims(in[0].dims().begin(), in[0].dims().end() - 1);
    for (int64_t v : param<MultinomialParam>(pa).shape.dims()) dims.push_back(v);
    for (auto& o : out) o = Shape(dims);
    return true;
  };
  d.infer_type = [](const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = param<MultinomialParam>(pa).dtype;
    if (out.size() > 1) out[1] = in[0];
  };
  d.needs_rng = true;
  d.cpu.forward = [](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const std::vector<double> probs = as_doubles(a.inputs[0]);
    const int64_t k = a.inputs[0].shape.back(), rows = k ? a.inputs[0].size() / k : 0;
    const int64_t block = param<MultinomialParam>(pa).shape.size();
    std::vector<double> picks(static_cast<size_t>(rows * block)), logp(picks.size());
    std::uniform_real_distribution<double> u(0.0, 1.0);
    for (int64_t row = 0; row < rows; ++row) {
      const double* p = probs.data() + row * k;
      for (int64_t j = 0; j < block; ++j) {
        double x = u(*ctx.rng), acc = 0;
        int64_t c = 0;
        for (; c < k - 1; ++c) {  // the last category takes what rounding leaves
          acc += p[c];
          if (x < acc) break;
        }
        picks[static_cast<size_t>(row * block + j)] = static_cast<double>(c);
        logp[static_cast<size_t>(row * block + j)] = std::log(p[c]);
      }
    }
    convert_elements(picks.data(), DType::Float64, a.outputs[0].dptr, a.outputs[0].dtype, a.outputs[0].size());
    if (a.outputs.size() > 1)
      convert_elements(logp.data(), DType::Float64, a.outputs[1].dptr, a.outputs[1].dtype, a.outputs[1].size());
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    BRAID_CHECK(param<MultinomialParam>(pa).get_prob,
                "operator _sample_multinomial: only the log-probability "
                "output (get_prob=True) has a gradient");
    const TBlob& data = a.inputs[0];
    const std::vector<double> probs = as_doubles(data);
    const std::vector<double> picks = as_doubles(a.outputs[0]);
    const std::vector<double> og = as_doubles(a.out_grads[1]);
    const int64_t k = data.shape.back(), rows = k ? data.size() / k : 0;
    const int64_t block = rows ? static_cast<int64_t>(picks.size()) / rows : 0;
    std::vector<double> grad(probs.size(), 0.0);
    if (a.req[0] == OpReq::Add) grad = as_doubles(a.in_grads[0]);
    for (int64_t row = 0; row < rows; ++row)
      for (int64_t j = 0; j < block; ++j) {
        const auto c = static_cast<int64_t>(picks[static_cast<size_t>(row * block + j)]);
        const size_t at = static_cast<size_t>(row * k + c);
        grad[at] += og[static_cast<size_t>(row * block + j)] / probs[at];
      }
    convert_elements(grad.data(), DType::Float64, a.in_grads[0].dptr, a.in_grads[0].dtype, a.in_grads[0].size());
  };
  r.add(std::move(d));
}

// _shuffle(data): the rows (first axis) in a random order.
void add_shuffle(Registry& r) {
  OpDef d;
  d.name = "_shuffle";
  d.doc = "Randomly shuffles data along its first axis.";
  d.parse = no_params("_shuffle");
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_same_shape("_shuffle", in, out);
  };
  d.needs_rng = true;
  d.cpu.forward = [](const OpContext& ctx, const std::any&, const ForwardArgs& a) {
    const TBlob& in = a.inputs[0];
    const int64_t rows = in.ndim() == 0 ? 1 : in.shape[0];
    const int64_t row_bytes = rows ? in.size() / rows * static_cast<int64_t>(dtype_size(in.dtype)) : 0;
    std::vector<int64_t> order(static_cast<size_t>(rows));
    std::iota(order.begin(), order.end(), 0);
    for (int64_t i = rows - 1; i > 0; --i)  // Fisher-Yates
      std::swap(order[static_cast<size_t>(i)],
                order[static_cast<size_t>(std::uniform_int_distribution<int64_t>(0, i)(*ctx.rng))]);
    const char* src = static_cast<const char*>(in.dptr);
    std::vector<char> tmp;
    if (in.dptr == a.outputs[0].dptr) {  // in place
      tmp.assign(src, src + rows * row_bytes);
      src = tmp.data();
    }
    char* dst = static_cast<char*>(a.outputs[0].dptr);
    for (int64_t i = 0; i < rows; ++i)
      std::copy_n(src + order[static_cast<size_t>(i)] * row_bytes, row_bytes, dst + i * row_bytes);
  };
  r.add(std::move(d));
}

}  // namespace

void register_random_sampler_ops(Registry& r) {
  for (const auto& dist : distributions()) {
    if (dist.name != "uniform" && dist.name != "normal") {
      add_random(r, dist);
      r.add_alias("random_" + dist.name, "_random_" + dist.name);
    }
    add_random_like(r, dist);
    add_sample(r, dist);
    r.add_alias("sample_" + dist.name, "_sample_" + dist.name);
  }
  add_multinomial(r);
  r.add_alias("sample_multinomial", "_sample_multinomial");
  add_shuffle(r);
  r.add_alias("shuffle", "_shuffle");
}

}  // namespace braid::op::detail
