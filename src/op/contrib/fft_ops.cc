// contrib.fft and contrib.ifft (MXNet's cuFFT operators, here on the CPU): fft takes real vectors
// along the last axis, d values each, to their discrete Fourier transforms as d complex numbers
// (re, im) interleaved (last axis 2d); ifft takes such complex vectors to the real part of their
// inverse transform, unnormalized as MXNet's (ifft(fft(x)) = d·x). Gradients: fft's is the real
// part of the inverse transform of the output's gradient, ifft's the transform of its (real)
// gradient, exactly the adjoints. compute_size (MXNet's sub-batch size) is accepted.
#include <cmath>
#include <numbers>
#include <vector>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

// One discrete Fourier transform of length n: out_k = Σ_j in_j e^{∓2πi jk/n} (inverse: +), the
// inputs complex (re, im) or, with `real_input`, real; in double, from a table of e^{-2πi m/n}.
class Dft {
 public:
  explicit Dft(int64_t n) : n_(n), cos_(static_cast<size_t>(n)), sin_(static_cast<size_t>(n)) {
    for (int64_t m = 0; m < n; ++m) {
      const double angle = 2 * std::numbers::pi * static_cast<double>(m) / static_cast<double>(n);
      cos_[static_cast<size_t>(m)] = std::cos(angle);
      sin_[static_cast<size_t>(m)] = std::sin(angle);
    }
  }
  // out (2n values, re/im interleaved) of in (n real values, or 2n interleaved)
  template <class T>
  void run(const T* in, bool real_input, bool inverse, double* out) const {
    const double sign = inverse ? 1.0 : -1.0;
    for (int64_t k = 0; k < n_; ++k) {
      double re = 0, im = 0;
      for (int64_t j = 0; j < n_; ++j) {
        const auto m = static_cast<size_t>(j * k % n_);
        const double c = cos_[m], s = sign * sin_[m];
        const double a = real_input ? static_cast<double>(in[j]) : static_cast<double>(in[2 * j]);
        const double b = real_input ? 0.0 : static_cast<double>(in[2 * j + 1]);
        re += a * c - b * s;
        im += a * s + b * c;
      }
      out[2 * k] = re;
      out[2 * k + 1] = im;
    }
  }

 private:
  int64_t n_;
  std::vector<double> cos_, sin_;
};

// Transforms every vector of `in` (rows of `n` reals or 2n interleaved values) into `out`: the
// complex result (2n values a row), or its real part (n values) with `real_output`.
template <class T>
void transform_rows(const TBlob& in, const TBlob& out, OpReq req, int64_t n, bool real_input, bool inverse,
                    bool real_output) {
  if (req == OpReq::Null || n == 0) return;
  const Dft dft(n);
  const int64_t rows = in.size() / (real_input ? n : 2 * n), out_width = real_output ? n : 2 * n;
  const T* x = in.ptr<T>();
  T* y = out.ptr<T>();
  std::vector<double> row(static_cast<size_t>(2 * n));
  for (int64_t r = 0; r < rows; ++r) {
    dft.run(x + r * (real_input ? n : 2 * n), real_input, inverse, row.data());
    write_each(y + r * out_width, req, out_width, [&](int64_t i) {
      return static_cast<T>(real_output ? row[static_cast<size_t>(2 * i)] : row[static_cast<size_t>(i)]);
    });
  }
}

// fft (to_complex) or ifft: the output's last axis doubled or halved.
void add_transform(Registry& r, const std::string& name, bool to_complex) {
  OpDef d;
  d.name = name;
  d.doc = to_complex ? "The discrete Fourier transform of real vectors along the last axis, as (re, im) pairs."
                     : "The real part of the unnormalized inverse transform of (re, im) vectors along the last axis.";
  d.parse = [name](const AttrMap& attrs) {
    ParamReader rd(attrs, name);
    const int compute_size = rd.get<int>("compute_size", 128);
    rd.finish();
    BRAID_CHECK(compute_size > 0, "operator ", name, ": compute_size must be positive; got ", compute_size);
    return std::any();
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [name, to_complex](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out,
                                     std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() >= 1, "operator ", name, ": data needs at least one axis");
    std::vector<int64_t> dims = in[0].dims();
    BRAID_CHECK(to_complex || dims.back() % 2 == 0, "operator ", name, ": the last axis holds (re, im) pairs, so its ",
                "length must be even; got shape ", in[0]);
    dims.back() = to_complex ? dims.back() * 2 : dims.back() / 2;
    merge_shape(out[0], Shape(dims), name, "output");
    return true;
  };
  d.cpu.forward = [name, to_complex](const OpContext&, const std::any&, const ForwardArgs& a) {
    const int64_t n =
        to_complex ? a.inputs[0].shape[a.inputs[0].ndim() - 1] : a.outputs[0].shape[a.outputs[0].ndim() - 1];
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      transform_rows<T>(a.inputs[0], a.outputs[0], a.req[0], n, to_complex, !to_complex, !to_complex);
    });
  };
  // fft's gradient: Re(inverse transform of g); ifft's: the transform of the real g.
  d.cpu.backward = [name, to_complex](const OpContext&, const std::any&, const BackwardArgs& a) {
    const TBlob& g = a.out_grads[0];
    const int64_t n = to_complex ? g.shape[g.ndim() - 1] / 2 : g.shape[g.ndim() - 1];
    BRAID_REAL_TYPE_SWITCH(g.dtype, T, name.c_str(),
                           { transform_rows<T>(g, a.in_grads[0], a.req[0], n, !to_complex, to_complex, to_complex); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
}

}  // namespace

void register_fft_ops(Registry& r) {
  add_transform(r, "_contrib_fft", true);
  add_transform(r, "_contrib_ifft", false);
}

}  // namespace braid::op::detail
