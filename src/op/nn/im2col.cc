// im2col and col2im (MXNet 1.x): the sliding windows of a convolution as columns, and back.
// im2col turns data (N, C, spatial...) into (N, C·prod(kernel), number of windows), each column
// one window (zero where it reaches into the padding); col2im adds such columns back into an
// image of output_size, overlapping windows summed. Each is the other's gradient.
#include "nn_util.h"

namespace braid::op::detail {
namespace {

struct Im2colParam {
  Shape kernel, stride, dilate, pad, output_size;  // output_size: col2im's image size
  const char* op = "im2col";
};

Shape window_attr(ParamReader& rd, const Im2colParam& p, const char* key, int64_t fallback) {
  Shape s = rd.get<Shape>(key, Shape({}));
  if (s.ndim() == 0) s = Shape(std::vector<int64_t>(static_cast<size_t>(p.kernel.ndim()), fallback));
  BRAID_CHECK(s.ndim() == p.kernel.ndim(), "operator ", p.op, ": ", key, "=", s,
              " must have as many axes as kernel=", p.kernel);
  return s;
}

Im2colParam parse_im2col(const AttrMap& attrs, const char* op) {
  ParamReader rd(attrs, op);
  Im2colParam p;
  p.op = op;
  p.kernel = rd.get<Shape>("kernel");
  BRAID_CHECK(p.kernel.ndim() >= 1 && p.kernel.ndim() <= 3, "operator ", op, ": kernel=", p.kernel,
              " must have 1 to 3 axes");
  p.stride = window_attr(rd, p, "stride", 1);
  p.dilate = window_attr(rd, p, "dilate", 1);
  p.pad = window_attr(rd, p, "pad", 0);
  if (std::string(op) == "col2im") {
    p.output_size = rd.get<Shape>("output_size");
    BRAID_CHECK(p.output_size.ndim() == p.kernel.ndim(), "operator col2im: output_size=", p.output_size,
                " must have as many axes as kernel=", p.kernel);
  }
  rd.finish();
  for (int i = 0; i < p.kernel.ndim(); ++i)
    BRAID_CHECK(p.kernel[i] > 0 && p.stride[i] > 0 && p.dilate[i] > 0 && p.pad[i] >= 0, "operator ", op,
                ": kernel, stride and dilate must be positive and pad non-negative; got kernel=", p.kernel,
                ", stride=", p.stride, ", dilate=", p.dilate, ", pad=", p.pad);
  return p;
}

/// Sizes: image spatial dims, windows per axis, kernel volume, window count.
struct ColGeom {
  int64_t n = 0, c = 0, kvol = 1, windows = 1, pixels = 1;
  std::vector<int64_t> image, out;
  ColGeom(const Im2colParam& p, int64_t batch, int64_t channels, const Shape& image_dims)
      : n(batch), c(channels), image(image_dims.dims()) {
    for (int i = 0; i < p.kernel.ndim(); ++i) {
      const int64_t span = p.dilate[i] * (p.kernel[i] - 1) + 1;
      const int64_t o = (image[static_cast<size_t>(i)] + 2 * p.pad[i] - span) / p.stride[i] + 1;
      BRAID_CHECK(image[static_cast<size_t>(i)] + 2 * p.pad[i] >= span, "operator ", p.op, ": kernel=", p.kernel,
                  " with dilate=", p.dilate, " does not fit in the padded image ", image_dims);
      out.push_back(o);
      kvol *= p.kernel[i];
      windows *= o;
      pixels *= image[static_cast<size_t>(i)];
    }
  }
};

/// Calls f(column element offset, image element offset) for every column element inside the
/// image, (batch, channel) planes in parallel.
template <class F>
void for_each_window_element(const Im2colParam& p, const ColGeom& g, F f) {
  const int nd = p.kernel.ndim();
#pragma omp parallel for schedule(static) if (g.n * g.c * g.kvol * g.windows > (1 << 15))
  for (int64_t plane = 0; plane < g.n * g.c; ++plane) {
    for (int64_t k = 0; k < g.kvol; ++k) {
      for (int64_t w = 0; w < g.windows; ++w) {
        int64_t kk = k, ww = w, pos = 0;
        bool inside = true;
        for (int i = nd - 1; i >= 0; --i) {  // unravel the kernel offset and the window, last axis fastest
          const auto ui = static_cast<size_t>(i);
          const int64_t ko = kk % p.kernel[i], wo = ww % g.out[ui];
          kk /= p.kernel[i], ww /= g.out[ui];
          const int64_t x = wo * p.stride[i] - p.pad[i] + ko * p.dilate[i];
          inside = inside && x >= 0 && x < g.image[ui];
          int64_t stride = 1;
          for (int j = i + 1; j < nd; ++j) stride *= g.image[static_cast<size_t>(j)];
          pos += x * stride;
        }
        if (inside) f((plane * g.kvol + k) * g.windows + w, plane * g.pixels + pos);
      }
    }
  }
}

/// columns (N, C·kvol, windows) from image (N, C, spatial...), overwritten.
template <class T>
void im2col_into(const Im2colParam& p, const ColGeom& g, const T* image, T* cols) {
  std::fill(cols, cols + g.n * g.c * g.kvol * g.windows, T(0));
  for_each_window_element(p, g, [&](int64_t col, int64_t img) { cols[col] = image[img]; });
}

/// image (N, C, spatial...) summed from columns, overwritten. Planes are disjoint, so the
/// parallel planes write apart.
template <class T>
void col2im_into(const Im2colParam& p, const ColGeom& g, const T* cols, T* image) {
  std::fill(image, image + g.n * g.c * g.pixels, T(0));
  for_each_window_element(p, g, [&](int64_t col, int64_t img) { image[img] += cols[col]; });
}

OpDef im2col_def(bool to_columns) {
  OpDef d;
  const char* op = to_columns ? "im2col" : "col2im";
  d.name = op;
  d.doc = to_columns ? "The convolution windows of data (N, C, spatial...) as columns (N, C·prod(kernel), windows)."
                     : "Columns (N, C·prod(kernel), windows) summed back into images (N, C, output_size...).";
  d.parse = [op](const AttrMap& attrs) { return std::any(parse_im2col(attrs, op)); };
  d.list_arguments = args({"data"});
  d.infer_shape = [to_columns](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out,
                               std::vector<Shape>&) {
    const auto& p = param<Im2colParam>(pa);
    if (!in[0].fully_known()) return false;
    const int nd = p.kernel.ndim();
    if (to_columns) {
      BRAID_CHECK(in[0].ndim() == nd + 2, "operator im2col: data must be (batch, channels) and ", nd,
                  " spatial axes for kernel=", p.kernel, "; got ", in[0]);
      const ColGeom g(p, in[0][0], in[0][1], Shape(in[0].dims().begin() + 2, in[0].dims().end()));
      merge_shape(out[0], Shape({g.n, g.c * g.kvol, g.windows}), "im2col", "output");
    } else {
      const ColGeom g(p, in[0][0], 1, p.output_size);
      BRAID_CHECK(in[0].ndim() == 3 && in[0][1] % g.kvol == 0 && in[0][2] == g.windows,
                  "operator col2im: data must "
                  "be (batch, channels·",
                  g.kvol, ", ", g.windows, ") for kernel=", p.kernel, " and output_size=", p.output_size, "; got ",
                  in[0]);
      std::vector<int64_t> dims{in[0][0], in[0][1] / g.kvol};
      dims.insert(dims.end(), p.output_size.dims().begin(), p.output_size.dims().end());
      merge_shape(out[0], Shape(std::move(dims)), "col2im", "output");
    }
    return true;
  };
  // Forward of one is the backward of the other: `image` is the image-shaped tensor.
  auto run = [](const Im2colParam& p, bool columns, const TBlob& image_shaped, const TBlob& src, const TBlob& dst,
                OpReq req) {
    const Shape& s = image_shaped.shape;
    const ColGeom g(p, s[0], s[1], Shape(s.dims().begin() + 2, s.dims().end()));
    BRAID_REAL_TYPE_SWITCH(src.dtype, T, p.op, {
      write_with_req(dst.ptr<T>(), dst.size(), req, [&](T* y) {
        if (columns)
          im2col_into(p, g, src.ptr<T>(), y);
        else
          col2im_into(p, g, src.ptr<T>(), y);
      });
    });
  };
  d.cpu.forward = [to_columns, run](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    run(param<Im2colParam>(pa), to_columns, to_columns ? a.inputs[0] : a.outputs[0], a.inputs[0], a.outputs[0],
        a.req[0]);
  };
  d.cpu.backward = [to_columns, run](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    run(param<Im2colParam>(pa), !to_columns, to_columns ? a.inputs[0] : a.out_grads[0], a.out_grads[0], a.in_grads[0],
        a.req[0]);
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  return d;
}

}  // namespace

void register_im2col_ops(Registry& r) {
  r.add(im2col_def(true));
  r.add(im2col_def(false));
}

}  // namespace braid::op::detail
