// Correlation (MXNet 1.x, FlowNet's correlation layer): for every output position and every
// displacement d of a (2·max_displacement/stride2 + 1)² neighbourhood, the mean over a
// kernel_size² window and the channels of data1(p)·data2(p + d) (is_multiply) or
// |data1(p) - data2(p + d)|. Inputs are zero-padded by pad_size; output (N, displacements,
// ceil((H + 2·pad - 2·border) / stride1), same for W) with border = max_displacement + kernel radius.
#include <cmath>

#include "nn_util.h"

namespace braid::op::detail {
namespace {

struct CorrelationParam {
  int64_t kernel = 1, max_displacement = 1, stride1 = 1, stride2 = 1, pad = 0;
  bool multiply = true;
};

/// Sizes of one call.
struct CorrelationGeom {
  int64_t n, c, h, w, hp, wp;  // input, padded input
  int64_t grid_radius, grid_width, oh, ow;
  CorrelationGeom(const CorrelationParam& p, const Shape& s)
      : n(s[0]), c(s[1]), h(s[2]), w(s[3]), hp(s[2] + 2 * p.pad), wp(s[3] + 2 * p.pad) {
    const int64_t border = p.max_displacement + (p.kernel - 1) / 2;
    grid_radius = p.max_displacement / p.stride2;
    grid_width = 2 * grid_radius + 1;
    oh = (hp - 2 * border + p.stride1 - 1) / p.stride1;
    ow = (wp - 2 * border + p.stride1 - 1) / p.stride1;
  }
  int64_t displacements() const { return grid_width * grid_width; }
};

/// data (N, C, H, W) zero-padded into (N, Hp, Wp, C), channels innermost.
template <class T>
std::vector<T> padded_nhwc(const T* x, const CorrelationGeom& g, int64_t pad) {
  std::vector<T> t(static_cast<size_t>(g.n * g.hp * g.wp * g.c), T(0));
  for (int64_t b = 0; b < g.n; ++b)
    for (int64_t ch = 0; ch < g.c; ++ch)
      for (int64_t y = 0; y < g.h; ++y)
        for (int64_t x0 = 0; x0 < g.w; ++x0)
          t[static_cast<size_t>(((b * g.hp + y + pad) * g.wp + x0 + pad) * g.c + ch)] =
              x[((b * g.c + ch) * g.h + y) * g.w + x0];
  return t;
}

/// Calls f(output index, offset of the data1 pixel, offset of the data2 pixel) for every term:
/// each output element, window pixel; offsets point at channel 0 in the padded NHWC buffers.
/// Rows of the output run in parallel; f must only touch what belongs to its output row or be
/// called with `serial`.
template <class F>
void for_each_term(const CorrelationParam& p, const CorrelationGeom& g, bool serial, F f) {
  const int64_t rows = g.n * g.oh;
#pragma omp parallel for schedule(static) if (!serial && rows * g.ow * g.displacements() > (1 << 12))
  for (int64_t row = 0; row < rows; ++row) {
    const int64_t b = row / g.oh, i = row % g.oh;
    for (int64_t j = 0; j < g.ow; ++j) {
      const int64_t x1 = j * p.stride1 + p.max_displacement, y1 = i * p.stride1 + p.max_displacement;
      for (int64_t d = 0; d < g.displacements(); ++d) {
        const int64_t x2 = x1 + (d % g.grid_width - g.grid_radius) * p.stride2;
        const int64_t y2 = y1 + (d / g.grid_width - g.grid_radius) * p.stride2;
        const int64_t out = ((b * g.displacements() + d) * g.oh + i) * g.ow + j;
        for (int64_t dy = 0; dy < p.kernel; ++dy)
          for (int64_t dx = 0; dx < p.kernel; ++dx)
            f(out, ((b * g.hp + y1 + dy) * g.wp + x1 + dx) * g.c, ((b * g.hp + y2 + dy) * g.wp + x2 + dx) * g.c);
      }
    }
  }
}

template <class T>
void correlation_forward(const CorrelationParam& p, const ForwardArgs& a) {
  const CorrelationGeom g(p, a.inputs[0].shape);
  const std::vector<T> t1 = padded_nhwc(a.inputs[0].ptr<T>(), g, p.pad),
                       t2 = padded_nhwc(a.inputs[1].ptr<T>(), g, p.pad);
  const double scale = 1.0 / static_cast<double>(p.kernel * p.kernel * g.c);
  std::vector<double> sums(static_cast<size_t>(a.outputs[0].size()), 0.0);
  for_each_term(p, g, false, [&](int64_t out, int64_t o1, int64_t o2) {
    double s = 0;
    for (int64_t ch = 0; ch < g.c; ++ch) {
      const double u = t1[static_cast<size_t>(o1 + ch)], v = t2[static_cast<size_t>(o2 + ch)];
      s += p.multiply ? u * v : std::abs(u - v);
    }
    sums[static_cast<size_t>(out)] += s;
  });
  write_each(a.outputs[0].ptr<T>(), a.req[0], a.outputs[0].size(),
             [&](int64_t i) { return static_cast<T>(sums[static_cast<size_t>(i)] * scale); });
}

template <class T>
void correlation_backward(const CorrelationParam& p, const BackwardArgs& a) {
  const CorrelationGeom g(p, a.inputs[0].shape);
  const std::vector<T> t1 = padded_nhwc(a.inputs[0].ptr<T>(), g, p.pad),
                       t2 = padded_nhwc(a.inputs[1].ptr<T>(), g, p.pad);
  const T* dy = a.out_grads[0].ptr<T>();
  const double scale = 1.0 / static_cast<double>(p.kernel * p.kernel * g.c);
  std::vector<double> d1(t1.size(), 0.0), d2(t2.size(), 0.0);
  // Windows of neighbouring outputs overlap: accumulate serially.
  for_each_term(p, g, true, [&](int64_t out, int64_t o1, int64_t o2) {
    const double gr = dy[out] * scale;
    for (int64_t ch = 0; ch < g.c; ++ch) {
      const auto k1 = static_cast<size_t>(o1 + ch), k2 = static_cast<size_t>(o2 + ch);
      if (p.multiply) {
        d1[k1] += gr * t2[k2];
        d2[k2] += gr * t1[k1];
      } else {
        const double sign = t1[k1] >= t2[k2] ? 1.0 : -1.0;
        d1[k1] += gr * sign;
        d2[k2] -= gr * sign;
      }
    }
  });
  for (size_t k = 0; k < 2; ++k) {
    if (a.req[k] == OpReq::Null) continue;
    const std::vector<double>& d = k == 0 ? d1 : d2;
    write_each(a.in_grads[k].ptr<T>(), a.req[k], a.inputs[k].size(), [&](int64_t i) {
      const int64_t x0 = i % g.w, y = (i / g.w) % g.h, ch = (i / (g.w * g.h)) % g.c, b = i / (g.w * g.h * g.c);
      return static_cast<T>(d[static_cast<size_t>(((b * g.hp + y + p.pad) * g.wp + x0 + p.pad) * g.c + ch)]);
    });
  }
}

}  // namespace

void register_correlation_ops(Registry& r) {
  OpDef d;
  d.name = "Correlation";
  d.doc =
      "FlowNet's correlation of data1 and data2 (N, C, H, W) over a neighbourhood of displacements: one output "
      "channel per displacement.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "Correlation");
    CorrelationParam p;
    p.kernel = rd.get<int64_t>("kernel_size", 1);
    p.max_displacement = rd.get<int64_t>("max_displacement", 1);
    p.stride1 = rd.get<int64_t>("stride1", 1);
    p.stride2 = rd.get<int64_t>("stride2", 1);
    p.pad = rd.get<int64_t>("pad_size", 0);
    p.multiply = rd.get<bool>("is_multiply", true);
    rd.finish();
    BRAID_CHECK(p.kernel >= 1 && p.kernel % 2 == 1,
                "operator Correlation: kernel_size must be a positive odd number; "
                "got ",
                p.kernel);
    BRAID_CHECK(p.max_displacement >= 0 && p.pad >= 0,
                "operator Correlation: max_displacement and pad_size must not "
                "be negative");
    BRAID_CHECK(p.stride1 >= 1 && p.stride2 >= 1, "operator Correlation: stride1 and stride2 must be positive");
    return std::any(p);
  };
  d.list_arguments = args({"data1", "data2"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<CorrelationParam>(pa);
    merge_shape(in[1], in[0], "Correlation", "data2");
    merge_shape(in[0], in[1], "Correlation", "data1");
    if (!in[0].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() == 4, "operator Correlation: data must be (batch, channels, height, width); got ", in[0]);
    const CorrelationGeom g(p, in[0]);
    BRAID_CHECK(g.oh >= 1 && g.ow >= 1, "operator Correlation: kernel_size=", p.kernel,
                " and max_displacement=", p.max_displacement, " do not fit in data of shape ", in[0], " padded by ",
                p.pad, "; use a smaller kernel or displacement, or more padding");
    merge_shape(out[0], Shape({g.n, g.displacements(), g.oh, g.ow}), "Correlation", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Correlation",
                           { correlation_forward<T>(param<CorrelationParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "Correlation",
                           { correlation_backward<T>(param<CorrelationParam>(pa), a); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
