// Sampling operators: _random_uniform, _random_normal, _random_randint (no inputs, need the rng);
// the other distributions are in random_samplers.cc.
#include "op/common/elementwise_loop.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "random_dist.h"
#include "random_param.h"
#include "ziggurat.h"

namespace braid::op::detail {
namespace {

void add_sampler(Registry& r, const std::string& name, const char* first, const char* second, double da, double db,
                 DType default_dtype, std::function<void(uint64_t seed, const SampleParam&, const TBlob&)> sample) {
  OpDef d;
  d.name = name;
  d.doc = cat("Samples from a distribution with parameters ", first, " and ", second, ".");
  d.parse = [=](const AttrMap& a) {
    ParamReader rd(a, name);
    SampleParam p;
    p.shape = rd.get<Shape>("shape", Shape());  // none: inferred from the consumers, as MXNet's symbols
    p.dtype = dtype_from_name(rd.get<std::string>("dtype", dtype_name(default_dtype)));
    p.a = rd.get<double>(first, da);
    p.b = rd.get<double>(second, db);
    rd.get<std::string>("ctx", "cpu(0)");
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({});
  d.infer_shape = [name](const std::any& p, std::vector<Shape>&, std::vector<Shape>& out, std::vector<Shape>&) {
    const Shape& s = param<SampleParam>(p).shape;
    if (s.known()) merge_shape(out[0], s, name, "output");
    return out[0].fully_known();
  };
  d.infer_type = [](const std::any& p, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = param<SampleParam>(p).dtype;
  };
  d.needs_rng = true;
  d.cpu.forward = [sample, name](const OpContext& ctx, const std::any& p, const ForwardArgs& a) {
    check_sample_param(name, param<SampleParam>(p));
    sample((*ctx.rng)(), param<SampleParam>(p), a.outputs[0]);
  };
  r.add(std::move(d));
}

}  // namespace

void register_random_ops(Registry& r) {
  add_sampler(r, "_random_uniform", "low", "high", 0.0, 1.0, DType::Float32,
              [](uint64_t seed, const SampleParam& p, const TBlob& out) {
                if (out.dtype != DType::Float32 && out.dtype != DType::Float64)  // float16: through double
                  return fill_draws(seed, ScalarDist::Uniform, p.a, p.b, out, 0, out.size());
                BRAID_REAL_TYPE_SWITCH(out.dtype, T, "_random_uniform", {
                  const T low = static_cast<T>(p.a), high = static_cast<T>(p.b), width = high - low;
                  write_all(out.ptr<T>(), OpReq::Write, out.size(), [=](int64_t i) {
                    const T v = low + width * static_cast<T>(uniform_at(seed, static_cast<uint64_t>(i)));
                    return v < high ? v : low;  // rounding may reach high, which [low, high) excludes
                  });
                });
              });
  add_sampler(r, "_random_normal", "loc", "scale", 0.0, 1.0, DType::Float32,
              [](uint64_t seed, const SampleParam& p, const TBlob& out) {
                if (out.dtype != DType::Float32 && out.dtype != DType::Float64)  // float16: through double
                  return fill_draws(seed, ScalarDist::Normal, p.a, p.b, out, 0, out.size());
                BRAID_REAL_TYPE_SWITCH(out.dtype, T, "_random_normal",
                                       { fill_normals(seed, p.a, p.b, out.ptr<T>(), out.size()); });
              });
  add_sampler(r, "_random_randint", "low", "high", 0.0, 0.0, DType::Int32,
              [](uint64_t seed, const SampleParam& p, const TBlob& out) {
                // In unsigned arithmetic: high - low and low + k may pass int64's range on the way.
                const auto low = static_cast<uint64_t>(static_cast<int64_t>(p.a));
                const auto range = static_cast<uint64_t>(static_cast<int64_t>(p.b)) - low;
                BRAID_TYPE_SWITCH(out.dtype, T, "_random_randint", {
                  // The high 64 bits of bits·range: uniform over [0, range) up to range/2^64.
                  write_all(out.ptr<T>(), OpReq::Write, out.size(), [=](int64_t i) {
                    const auto bits = random_bits(seed, static_cast<uint64_t>(i));
                    const auto k = static_cast<uint64_t>((static_cast<unsigned __int128>(bits) * range) >> 64);
                    return static_cast<T>(static_cast<int64_t>(low + k));
                  });
                });
              });
  r.add_alias("random_uniform", "_random_uniform");
  r.add_alias("uniform", "_random_uniform");
  r.add_alias("random_normal", "_random_normal");
  r.add_alias("normal", "_random_normal");
  r.add_alias("random_randint", "_random_randint");
  register_random_sampler_ops(r);
}

}  // namespace braid::op::detail
