// L2Normalization (MXNet 1.x): x / sqrt(Σ x² + eps), the sum over every element of a sample
// (mode 'instance'), over the channels at each position ('channel') or over the positions of
// each channel ('spatial'). The hidden output keeps the norms: (N,), (N, positions) or (N, C).
#include <cmath>

#include "l2_normalization.h"
#include "nn_util.h"

namespace braid::op::detail {
namespace {

template <class T>
void l2_forward(const L2NormParam& p, const ForwardArgs& a) {
  const AxisSplit s = l2_split(p.mode, a.inputs[0].shape);
  const T* x = a.inputs[0].ptr<T>();
  T *y = a.outputs[0].ptr<T>(), *norm = a.outputs[1].ptr<T>();
  std::vector<T> local;
  if (!writes_hidden(a, 1)) {  // the norms are needed here whether or not anyone keeps them
    local.resize(static_cast<size_t>(s.outer * s.inner));
    norm = local.data();
  }
#pragma omp parallel for schedule(static) if (s.outer * s.n * s.inner > (1 << 15))
  for (int64_t o = 0; o < s.outer; ++o) {
    const T* xo = x + o * s.n * s.inner;
    for (int64_t k = 0; k < s.inner; ++k) {
      double sq = 0;
      for (int64_t i = 0; i < s.n; ++i) sq += static_cast<double>(xo[i * s.inner + k]) * xo[i * s.inner + k];
      norm[o * s.inner + k] = static_cast<T>(std::sqrt(sq + p.eps));
    }
    const T* no = norm + o * s.inner;
    write_each(y + o * s.n * s.inner, a.req[0], s.n * s.inner, [=](int64_t j) { return xo[j] / no[j % s.inner]; });
  }
}

// dx = (dy - y · Σ dy·y) / norm, the sum over the elements sharing the norm.
template <class T>
void l2_backward(const L2NormParam& p, const BackwardArgs& a) {
  if (a.req[0] == OpReq::Null) return;
  const AxisSplit s = l2_split(p.mode, a.inputs[0].shape);
  const T *y = a.outputs[0].ptr<T>(), *norm = a.outputs[1].ptr<T>(), *dy = a.out_grads[0].ptr<T>();
#pragma omp parallel for schedule(static) if (s.outer * s.n * s.inner > (1 << 15))
  for (int64_t o = 0; o < s.outer; ++o) {
    const int64_t off = o * s.n * s.inner;
    std::vector<T> dot(static_cast<size_t>(s.inner), T(0));
    for (int64_t i = 0; i < s.n; ++i)
      for (int64_t k = 0; k < s.inner; ++k)
        dot[static_cast<size_t>(k)] += dy[off + i * s.inner + k] * y[off + i * s.inner + k];
    write_each(a.in_grads[0].ptr<T>() + off, a.req[0], s.n * s.inner, [&](int64_t j) {
      const int64_t k = j % s.inner;
      return (dy[off + j] - y[off + j] * dot[static_cast<size_t>(k)]) / norm[o * s.inner + k];
    });
  }
}

}  // namespace

void register_l2_normalization_ops(Registry& r) {
  OpDef d;
  d.name = "L2Normalization";
  d.doc =
      "x / sqrt(sum(x^2) + eps) over each sample (mode 'instance'), each position's channels ('channel') or "
      "each channel's positions ('spatial').";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "L2Normalization");
    L2NormParam p;
    p.eps = rd.get<double>("eps", p.eps);
    const std::string mode = rd.get_enum("mode", {"instance", "channel", "spatial"}, "instance");
    p.mode = mode == "instance" ? L2Mode::kInstance : mode == "channel" ? L2Mode::kChannel : L2Mode::kSpatial;
    rd.finish();
    BRAID_CHECK(p.eps >= 0, "operator L2Normalization: eps must be non-negative; got ", p.eps);
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any&) { return 2; };
  d.num_visible_outputs = [](const std::any&) { return 1; };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<L2NormParam>(pa);
    merge_shape(in[0], out[0], "L2Normalization", "data");
    if (!in[0].fully_known()) return false;
    const int min_ndim = p.mode == L2Mode::kInstance ? 2 : 3;
    BRAID_CHECK(in[0].ndim() >= min_ndim, "operator L2Normalization: mode '",
                p.mode == L2Mode::kInstance  ? "instance"
                : p.mode == L2Mode::kChannel ? "channel"
                                             : "spatial",
                "' needs data with at least ", min_ndim, " axes; got ", in[0]);
    merge_shape(out[0], in[0], "L2Normalization", "output");
    const AxisSplit s = l2_split(p.mode, in[0]);
    const Shape norm = p.mode == L2Mode::kInstance  ? Shape({s.outer})
                       : p.mode == L2Mode::kChannel ? Shape({s.outer, s.inner})
                                                    : Shape({in[0][0], in[0][1]});
    merge_shape(out[1], norm, "L2Normalization", "norm output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "L2Normalization", { l2_forward<T>(param<L2NormParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "L2Normalization", { l2_backward<T>(param<L2NormParam>(pa), a); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, true}; };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
