// Spatial transformer networks (MXNet 1.x): GridGenerator makes sampling grids, BilinearSampler
// samples images at them, SpatialTransformer does both from an affine transform.
//
// A grid (N, 2, H, W) holds, for every output pixel, the source position (x, y) in normalized
// coordinates: -1 is the first pixel's centre, 1 the last one's, along each axis (PyTorch's
// align_corners=True). Sampling is bilinear; corners outside the image count as zero.
#include <cmath>
#include <initializer_list>

#include "nn_util.h"

namespace braid::op::detail {
namespace {

/// Normalized coordinate of pixel k of n along an axis.
double normalized(int64_t k, int64_t n) { return -1.0 + static_cast<double>(k) * 2.0 / static_cast<double>(n - 1); }

// ---- bilinear sampling -------------------------------------------------------------------

/// The four neighbours of a real position and their weights.
struct Bilinear {
  int64_t x0, y0;
  double wx, wy;  // weight of the x0 + 1 column and y0 + 1 row
  Bilinear(double x, double y) : x0(static_cast<int64_t>(std::floor(x))), y0(static_cast<int64_t>(std::floor(y))) {
    wx = x - static_cast<double>(x0);
    wy = y - static_cast<double>(y0);
  }
};

/// Calls f(row, column, weight, d weight / dx, d weight / dy) for each neighbour inside h × w.
template <class F>
void for_each_corner(const Bilinear& b, int64_t h, int64_t w, F f) {
  for (int dy = 0; dy < 2; ++dy)
    for (int dx = 0; dx < 2; ++dx) {
      const int64_t r = b.y0 + dy, c = b.x0 + dx;
      if (r < 0 || r >= h || c < 0 || c >= w) continue;
      const double ax = dx ? b.wx : 1 - b.wx, ay = dy ? b.wy : 1 - b.wy;
      f(r, c, ax * ay, (dx ? 1.0 : -1.0) * ay, (dy ? 1.0 : -1.0) * ax);
    }
}

/// Image positions of the grid point (gx, gy) in an h × w image.
double source_x(double gx, int64_t w) { return (gx + 1) * static_cast<double>(w - 1) / 2; }
double source_y(double gy, int64_t h) { return (gy + 1) * static_cast<double>(h - 1) / 2; }

/// out (N, C, Ho, Wo) = data (N, C, H, W) sampled at grid (N, 2, Ho, Wo).
template <class T>
void sample_forward(const TBlob& data, const T* grid, const TBlob& out, OpReq req) {
  const Shape &s = data.shape, &o = out.shape;
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3], pixels = o[2] * o[3];
  const T* x = data.ptr<T>();
  write_with_req(out.ptr<T>(), out.size(), req, [&](T* y) {
#pragma omp parallel for schedule(static) if (out.size() > (1 << 14))
    for (int64_t b = 0; b < n; ++b) {
      const T* g = grid + b * 2 * pixels;
      for (int64_t p = 0; p < pixels; ++p) {
        const Bilinear at(source_x(g[p], w), source_y(g[pixels + p], h));
        for (int64_t ch = 0; ch < c; ++ch) {
          const T* plane = x + (b * c + ch) * h * w;
          double v = 0;
          for_each_corner(at, h, w,
                          [&](int64_t r, int64_t col, double wt, double, double) { v += wt * plane[r * w + col]; });
          y[(b * c + ch) * pixels + p] = static_cast<T>(v);
        }
      }
    }
  });
}

/// Gradients of sample_forward: into data (when ddata) and into the grid (when dgrid), both
/// overwritten.
template <class T>
void sample_backward(const TBlob& data, const T* grid, const T* dy, const Shape& out, T* ddata, T* dgrid) {
  const Shape& s = data.shape;
  const int64_t n = s[0], c = s[1], h = s[2], w = s[3], pixels = out[2] * out[3];
  const T* x = data.ptr<T>();
  if (ddata) std::fill(ddata, ddata + data.size(), T(0));
  const double sx = static_cast<double>(w - 1) / 2, sy = static_cast<double>(h - 1) / 2;
#pragma omp parallel for schedule(static) if (n * c * pixels > (1 << 14))
  for (int64_t b = 0; b < n; ++b) {
    const T* g = grid + b * 2 * pixels;
    for (int64_t p = 0; p < pixels; ++p) {
      const Bilinear at(source_x(g[p], w), source_y(g[pixels + p], h));
      double gx = 0, gy = 0;
      for (int64_t ch = 0; ch < c; ++ch) {
        const int64_t plane = (b * c + ch) * h * w;
        const double d = dy[(b * c + ch) * pixels + p];
        for_each_corner(at, h, w, [&](int64_t r, int64_t col, double wt, double dwx, double dwy) {
          if (ddata) ddata[plane + r * w + col] += static_cast<T>(d * wt);
          gx += d * dwx * x[plane + r * w + col];
          gy += d * dwy * x[plane + r * w + col];
        });
      }
      if (dgrid) {
        dgrid[b * 2 * pixels + p] = static_cast<T>(gx * sx);
        dgrid[b * 2 * pixels + pixels + p] = static_cast<T>(gy * sy);
      }
    }
  }
}

/// The input gradients computed aside, into in_grads by req (Null ones are not touched).
template <class T>
void write_grads(const BackwardArgs& a, std::initializer_list<const std::vector<T>*> grads) {
  size_t k = 0;
  for (const std::vector<T>* v : grads) {
    if (a.req[k] != OpReq::Null)
      write_each(a.in_grads[k].ptr<T>(), a.req[k], a.inputs[k].size(),
                 [v](int64_t i) { return (*v)[static_cast<size_t>(i)]; });
    ++k;
  }
}

// ---- grids -------------------------------------------------------------------------------

/// grid (N, 2, H, W) = theta (N, 2×3) · (x_t, y_t, 1) at every target pixel.
template <class T>
void affine_grid(const T* theta, int64_t n, int64_t h, int64_t w, T* grid) {
  for (int64_t b = 0; b < n; ++b) {
    const T* a = theta + b * 6;
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j) {
        const double xt = normalized(j, w), yt = normalized(i, h);
        grid[(b * 2) * h * w + i * w + j] = static_cast<T>(a[0] * xt + a[1] * yt + a[2]);
        grid[(b * 2 + 1) * h * w + i * w + j] = static_cast<T>(a[3] * xt + a[4] * yt + a[5]);
      }
  }
}

/// dtheta (N, 6) from the gradient of the grid (overwritten).
template <class T>
void affine_grid_backward(const T* dgrid, int64_t n, int64_t h, int64_t w, T* dtheta) {
  for (int64_t b = 0; b < n; ++b) {
    double acc[6] = {0, 0, 0, 0, 0, 0};
    for (int64_t i = 0; i < h; ++i)
      for (int64_t j = 0; j < w; ++j) {
        const double t[3] = {normalized(j, w), normalized(i, h), 1.0};
        for (int r = 0; r < 2; ++r)
          for (int k = 0; k < 3; ++k) acc[r * 3 + k] += dgrid[(b * 2 + r) * h * w + i * w + j] * t[k];
      }
    for (int k = 0; k < 6; ++k) dtheta[b * 6 + k] = static_cast<T>(acc[k]);
  }
}

struct GridParam {
  bool warp = false;
  Shape target;  // (H, W)
};

struct TransformerParam {
  Shape target;
};

Shape read_target(ParamReader& rd, const char* op, bool required) {
  const Shape t = rd.get<Shape>("target_shape", Shape({0, 0}));
  BRAID_CHECK(t.ndim() == 2, "operator ", op, ": target_shape must be (height, width); got ", t);
  BRAID_CHECK(!required || (t[0] > 0 && t[1] > 0), "operator ", op, ": target_shape=", t,
              " must give the output's height and width");
  return t;
}

void add_grid_generator(Registry& r) {
  OpDef d;
  d.name = "GridGenerator";
  d.doc =
      "Sampling grids (N, 2, H, W) in [-1, 1]: from affine transforms (N, 6) over target_shape, or from "
      "pixel offsets (N, 2, H, W) (transform_type='warp').";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "GridGenerator");
    GridParam p;
    p.warp = rd.get_enum("transform_type", {"affine", "warp"}, "") == "warp";
    p.target = read_target(rd, "GridGenerator", !p.warp);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const auto& p = param<GridParam>(pa);
    if (!in[0].fully_known()) return false;
    if (p.warp) {
      BRAID_CHECK(in[0].ndim() == 4 && in[0][1] == 2,
                  "operator GridGenerator: transform_type='warp' takes offsets "
                  "(batch, 2, height, width); got ",
                  in[0]);
      merge_shape(out[0], in[0], "GridGenerator", "output");
    } else {
      BRAID_CHECK(in[0].ndim() == 2 && in[0][1] == 6,
                  "operator GridGenerator: transform_type='affine' takes "
                  "(batch, 6) transforms; got ",
                  in[0]);
      merge_shape(out[0], Shape({in[0][0], 2, p.target[0], p.target[1]}), "GridGenerator", "output");
    }
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<GridParam>(pa);
    const Shape& o = a.outputs[0].shape;
    const int64_t n = o[0], h = o[2], w = o[3];
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "GridGenerator", {
      const T* x = a.inputs[0].ptr<T>();
      write_with_req(a.outputs[0].ptr<T>(), a.outputs[0].size(), a.req[0], [&](T* y) {
        if (!p.warp) return affine_grid(x, n, h, w, y);
        const double sx = 2.0 / static_cast<double>(w - 1), sy = 2.0 / static_cast<double>(h - 1);
        for (int64_t b = 0; b < n; ++b)
          for (int64_t i = 0; i < h; ++i)
            for (int64_t j = 0; j < w; ++j) {
              const int64_t px = (b * 2) * h * w + i * w + j, py = px + h * w;
              y[px] = static_cast<T>((x[px] + static_cast<double>(j)) * sx - 1);
              y[py] = static_cast<T>((x[py] + static_cast<double>(i)) * sy - 1);
            }
      });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const auto& p = param<GridParam>(pa);
    if (a.req[0] == OpReq::Null) return;
    const Shape& o = a.out_grads[0].shape;
    const int64_t n = o[0], h = o[2], w = o[3];
    BRAID_REAL_TYPE_SWITCH(a.out_grads[0].dtype, T, "GridGenerator", {
      const T* g = a.out_grads[0].ptr<T>();
      write_with_req(a.in_grads[0].ptr<T>(), a.in_grads[0].size(), a.req[0], [&](T* dx) {
        if (!p.warp) return affine_grid_backward(g, n, h, w, dx);
        const double sx = 2.0 / static_cast<double>(w - 1), sy = 2.0 / static_cast<double>(h - 1);
        for (int64_t k = 0; k < a.in_grads[0].size(); ++k)
          dx[k] = static_cast<T>(g[k] * ((k / (h * w)) % 2 == 0 ? sx : sy));
      });
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

void add_bilinear_sampler(Registry& r) {
  OpDef d;
  d.name = "BilinearSampler";
  d.doc = "data (N, C, H, W) sampled bilinearly at grid (N, 2, Ho, Wo) in [-1, 1] (zero outside the image).";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "BilinearSampler");
    rd.get_optional<bool>("cudnn_off");
    rd.finish();
    return std::any();
  };
  d.list_arguments = args({"data", "grid"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() == 4 && in[1].ndim() == 4 && in[1][1] == 2 && in[1][0] == in[0][0],
                "operator BilinearSampler: data must be (batch, channels, height, width) and grid (batch, 2, "
                "height, width) with the same batch; got ",
                in[0], " and ", in[1]);
    merge_shape(out[0], Shape({in[0][0], in[0][1], in[1][2], in[1][3]}), "BilinearSampler", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "BilinearSampler",
                           { sample_forward<T>(a.inputs[0], a.inputs[1].ptr<T>(), a.outputs[0], a.req[0]); });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "BilinearSampler", {
      std::vector<T> ddata(a.req[0] == OpReq::Null ? 0 : static_cast<size_t>(a.inputs[0].size()));
      std::vector<T> dgrid(a.req[1] == OpReq::Null ? 0 : static_cast<size_t>(a.inputs[1].size()));
      sample_backward<T>(a.inputs[0], a.inputs[1].ptr<T>(), a.out_grads[0].ptr<T>(), a.out_grads[0].shape,
                         ddata.empty() ? nullptr : ddata.data(), dgrid.empty() ? nullptr : dgrid.data());
      write_grads(a, {&ddata, &dgrid});
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

void add_spatial_transformer(Registry& r) {
  OpDef d;
  d.name = "SpatialTransformer";
  d.doc =
      "data (N, C, H, W) resampled bilinearly to target_shape through the affine transforms loc (N, 6) "
      "(GridGenerator then BilinearSampler).";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "SpatialTransformer");
    TransformerParam p;
    p.target = read_target(rd, "SpatialTransformer", false);
    rd.get_enum("transform_type", {"affine"}, "affine");
    rd.get_enum("sampler_type", {"bilinear"}, "bilinear");
    rd.get_optional<bool>("cudnn_off");
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data", "loc"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const Shape& t = param<TransformerParam>(pa).target;
    if (!in[0].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() == 4, "operator SpatialTransformer: data must be (batch, channels, height, width); got ",
                in[0]);
    merge_shape(in[1], Shape({in[0][0], 6}), "SpatialTransformer", "loc");
    const int64_t h = t[0] > 0 ? t[0] : in[0][2], w = t[1] > 0 ? t[1] : in[0][3];
    merge_shape(out[0], Shape({in[0][0], in[0][1], h, w}), "SpatialTransformer", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    const Shape& o = a.outputs[0].shape;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "SpatialTransformer", {
      std::vector<T> grid(static_cast<size_t>(o[0] * 2 * o[2] * o[3]));
      affine_grid(a.inputs[1].ptr<T>(), o[0], o[2], o[3], grid.data());
      sample_forward<T>(a.inputs[0], grid.data(), a.outputs[0], a.req[0]);
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any&, const BackwardArgs& a) {
    const Shape& o = a.out_grads[0].shape;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "SpatialTransformer", {
      std::vector<T> grid(static_cast<size_t>(o[0] * 2 * o[2] * o[3])), dgrid(grid.size());
      std::vector<T> ddata(a.req[0] == OpReq::Null ? 0 : static_cast<size_t>(a.inputs[0].size()));
      std::vector<T> dloc(static_cast<size_t>(a.inputs[1].size()));
      affine_grid(a.inputs[1].ptr<T>(), o[0], o[2], o[3], grid.data());
      sample_backward<T>(a.inputs[0], grid.data(), a.out_grads[0].ptr<T>(), o, ddata.empty() ? nullptr : ddata.data(),
                         dgrid.data());
      affine_grid_backward(dgrid.data(), o[0], o[2], o[3], dloc.data());
      write_grads(a, {&ddata, &dloc});
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

}  // namespace

void register_spatial_sampling_ops(Registry& r) {
  add_grid_generator(r);
  add_bilinear_sampler(r);
  add_spatial_transformer(r);
}

}  // namespace braid::op::detail
