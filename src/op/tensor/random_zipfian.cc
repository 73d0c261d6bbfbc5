// _sample_unique_zipfian (sampled softmax's candidate sampler): for each of `shape[0]` rows,
// `shape[1]` distinct classes of [0, range_max) drawn from the log-uniform (Zipfian) distribution
// P(c) = log((c + 2) / (c + 1)) / log(range_max + 1), and how many draws that took.
#include <cmath>
#include <random>
#include <unordered_set>

#include "op/op_util.h"
#include "random_zipfian.h"

namespace braid::op::detail {
namespace {

struct UniqueZipfianParam {
  int64_t range_max = 0;
  Shape shape;  // (rows, samples per row)
};

}  // namespace

void register_random_zipfian_ops(Registry& r) {
  OpDef d;
  d.name = "_sample_unique_zipfian";
  d.doc = "Distinct log-uniform classes of [0, range_max) per row, and the number of draws each row took.";
  d.parse = [](const AttrMap& a) {
    ParamReader rd(a, "_sample_unique_zipfian");
    UniqueZipfianParam p{rd.get<int64_t>("range_max"), rd.get<Shape>("shape")};
    rd.finish();
    BRAID_CHECK(p.shape.ndim() == 2 && p.shape[0] >= 1 && p.shape[1] >= 1,
                "operator _sample_unique_zipfian: shape must be (rows, samples), got ", p.shape);
    BRAID_CHECK(p.shape[1] <= p.range_max, "operator _sample_unique_zipfian: ", p.shape[1],
                " distinct samples cannot come from range_max=", p.range_max, " classes");
    return std::any(p);
  };
  d.list_arguments = args({});
  d.num_outputs = [](const std::any&) { return 2; };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>&, std::vector<Shape>& out, std::vector<Shape>&) {
    const Shape& s = param<UniqueZipfianParam>(pa).shape;
    merge_shape(out[0], s, "_sample_unique_zipfian", "samples");
    merge_shape(out[1], Shape({s[0]}), "_sample_unique_zipfian", "num_tries");
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>&, std::vector<DType>& out, std::vector<DType>&) {
    out[0] = out[1] = DType::Int64;
  };
  d.needs_rng = true;
  d.cpu.forward = [](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<UniqueZipfianParam>(pa);
    const double log_range = std::log(static_cast<double>(p.range_max) + 1);
    std::uniform_real_distribution<double> u(0.0, 1.0);
    int64_t* samples = a.outputs[0].ptr<int64_t>();
    int64_t* tries = a.outputs[1].ptr<int64_t>();
    for (int64_t row = 0; row < p.shape[0]; ++row) {
      std::unordered_set<int64_t> seen;
      int64_t n = 0;
      while (static_cast<int64_t>(seen.size()) < p.shape[1]) {
        ++n;
        const auto c = (static_cast<int64_t>(std::exp(u(*ctx.rng) * log_range)) - 1) % p.range_max;
        if (seen.insert(c).second) samples[row * p.shape[1] + static_cast<int64_t>(seen.size()) - 1] = c;
      }
      tries[row] = n;
    }
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
