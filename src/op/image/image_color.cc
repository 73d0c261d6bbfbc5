// Colour and lighting augmenters on (H, W, C) images and (N, H, W, C) batches, with MXNet 1.9.1's
// names, attributes and arithmetic (src/operator/image/image_random-inl.h):
// _image_random_brightness, _image_random_contrast, _image_random_saturation, _image_random_hue,
// _image_random_color_jitter, _image_adjust_lighting, _image_random_lighting.
//
// As in MXNet: values are computed in float (in double for float64 images, where MXNet rounds to
// float), integer results are clamped to their type's range and truncated toward zero (uint8:
// 0..255), a random op draws its factors once per call (a batch shares them), and the gradient
// is the output gradient passed through unchanged (MXNet's `_copy`, a straight-through estimate).
// MXNet accepts only single images with 1 or 3 channels; Braid also takes batches (contrast then
// uses each image's own mean).
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <optional>
#include <random>
#include <type_traits>

#include "image_util.h"
#include "op/common/req_util.h"

namespace braid::op::detail {
namespace {

// ---- the arithmetic (per image or per pixel; every kernel may run in place, y == x) ----

// n images of `pixels` pixels of c channels each, contiguous.
struct ColorImages {
  int64_t n = 1, pixels = 0, c = 0;
  int64_t size() const { return n * pixels * c; }
};

// The type MXNet computes in: float, except double for float64 images.
template <class T>
using ColorAcc = std::conditional_t<std::is_same_v<T, double>, double, float>;

// MXNet's saturate_cast: floating types as they are; integer types clamped to their range, then
// truncated toward zero (NaN gives 0).
template <class T, class A>
T color_store(A v) {
  if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(v);
  } else {
    constexpr A lo = static_cast<A>(std::numeric_limits<T>::lowest());
    constexpr A hi = static_cast<A>(std::numeric_limits<T>::max());
    if (std::isnan(v)) return T(0);
    if (v <= lo) return std::numeric_limits<T>::lowest();
    if (v >= hi) return std::numeric_limits<T>::max();
    return static_cast<T>(v);
  }
}

// Luma weights of R, G, B (ITU-R BT.601), as float constants like MXNet's.
constexpr float kColorGray[3] = {0.299f, 0.587f, 0.114f};

template <class T>
void color_copy(const T* x, T* y, int64_t size) {
  if (x != y) std::copy(x, x + size, y);
}

// y = x * alpha.
template <class T>
void color_brightness(const T* x, T* y, const ColorImages& g, float alpha) {
  using A = ColorAcc<T>;
  const A a = static_cast<A>(alpha);
  const int64_t size = g.size();
  for (int64_t i = 0; i < size; ++i) y[i] = color_store<T>(static_cast<A>(x[i]) * a);
}

// y = x * alpha + (1 - alpha) * mean gray of the image, the mean summed in order in the compute
// type (gray = 0.299 R + 0.587 G + 0.114 B; a 1-channel image is its own gray).
template <class T>
void color_contrast(const T* x, T* y, const ColorImages& g, float alpha) {
  using A = ColorAcc<T>;
  const A a = static_cast<A>(alpha);
  const int64_t len = g.pixels * g.c;
  for (int64_t n = 0; n < g.n; ++n, x += len, y += len) {
    A sum = 0;
    if (g.c == 3) {
      for (int64_t p = 0; p < g.pixels; ++p)
        for (int64_t k = 0; k < 3; ++k) sum += static_cast<A>(x[3 * p + k]) * static_cast<A>(kColorGray[k]);
    } else {
      for (int64_t p = 0; p < g.pixels; ++p) sum += static_cast<A>(x[p]);
    }
    const A mean = sum / static_cast<A>(g.pixels);
    const A beta = (1 - a) * mean;
    for (int64_t i = 0; i < len; ++i) y[i] = color_store<T>(static_cast<A>(x[i]) * a + beta);
  }
}

// y = x * alpha + (1 - alpha) * gray per pixel, where MXNet's gray is 0.114 * B: its weighted sum
// assigns each term instead of adding it, so only the blue term remains. Kept for identical
// results. A 1-channel image is copied.
template <class T>
void color_saturation(const T* x, T* y, const ColorImages& g, float alpha) {
  using A = ColorAcc<T>;
  if (g.c == 1) return color_copy(x, y, g.size());
  const A a = static_cast<A>(alpha), keep = 1 - a;
  const int64_t pixels = g.n * g.pixels;
  for (int64_t p = 0; p < pixels; ++p, x += 3, y += 3) {
    const A gray = static_cast<A>(x[2]) * static_cast<A>(kColorGray[2]) * keep;
    for (int k = 0; k < 3; ++k) y[k] = color_store<T>(gray + static_cast<A>(x[k]) * a);
  }
}

// RGB on the 0..255 scale to hue (degrees, [0, 360)), lightness and saturation ([0, 1] for
// colours in range): the HLS model (OpenCV's RGB2HLS, which MXNet follows).
template <class A>
void color_rgb_to_hls(A r, A g, A b, A& h, A& l, A& s) {
  r /= A(255);
  g /= A(255);
  b /= A(255);
  const A vmax = std::fmax(std::fmax(r, g), b), vmin = std::fmin(std::fmin(r, g), b);
  const A diff = vmax - vmin;
  l = (vmax + vmin) * A(0.5);
  h = 0;
  s = 0;
  if (!(diff > std::numeric_limits<A>::epsilon())) return;  // gray: no hue
  s = l < A(0.5) ? diff / (vmax + vmin) : diff / (A(2) - vmax - vmin);
  const A deg = A(60) / diff;  // degrees per unit of channel difference
  if (vmax == r)
    h = (g - b) * deg;
  else if (vmax == g)
    h = (b - r) * deg + A(120);
  else
    h = (r - g) * deg + A(240);
  if (h < 0) h += A(360);
}

// The inverse of color_rgb_to_hls (any hue in degrees), back to the 0..255 scale.
template <class A>
void color_hls_to_rgb(A h, A l, A s, A& r, A& g, A& b) {
  r = g = b = l;
  if (s != 0) {
    const A hi = l <= A(0.5) ? l * (1 + s) : l + s - l * s;  // the largest channel
    const A lo = 2 * l - hi;                                 // the smallest
    h *= A(1) / A(60);                                       // sixths of the colour wheel
    if (!std::isfinite(h)) h = 0;
    if (std::fabs(h) > A(1e6)) h = std::fmod(h, A(6));
    while (h < 0) h += 6;
    while (h >= 6) h -= 6;
    const int sector = std::min(static_cast<int>(h), 5);
    h -= static_cast<A>(sector);
    const A down = lo + (hi - lo) * (1 - h), up = lo + (hi - lo) * h;
    switch (sector) {
      case 0:  // red to yellow
        r = hi, g = up, b = lo;
        break;
      case 1:  // yellow to green
        r = down, g = hi, b = lo;
        break;
      case 2:  // green to cyan
        r = lo, g = hi, b = up;
        break;
      case 3:  // cyan to blue
        r = lo, g = down, b = hi;
        break;
      case 4:  // blue to magenta
        r = up, g = lo, b = hi;
        break;
      default:  // magenta to red
        r = hi, g = lo, b = down;
        break;
    }
  }
  r *= A(255);
  g *= A(255);
  b *= A(255);
}

// Turns the hue of every pixel by alpha * 360 degrees (through HLS). A 1-channel image is copied.
template <class T>
void color_hue(const T* x, T* y, const ColorImages& g, float alpha) {
  using A = ColorAcc<T>;
  if (g.c == 1) return color_copy(x, y, g.size());
  const A turn = static_cast<A>(alpha) * A(360);
  const int64_t pixels = g.n * g.pixels;
  for (int64_t p = 0; p < pixels; ++p, x += 3, y += 3) {
    A h, l, s, r, gr, b;
    color_rgb_to_hls(static_cast<A>(x[0]), static_cast<A>(x[1]), static_cast<A>(x[2]), h, l, s);
    color_hls_to_rgb(h + turn, l, s, r, gr, b);
    y[0] = color_store<T>(r);
    y[1] = color_store<T>(gr);
    y[2] = color_store<T>(b);
  }
}

// AlexNet's lighting noise: the offset added to R, G, B for weights alpha of the principal
// components of ImageNet's pixel colours (eigenvalues times eigenvectors, MXNet's constants,
// rounded to float and summed in float as MXNet).
std::array<float, 3> color_pca_offset(const std::array<float, 3>& alpha) {
  static constexpr double kEigval[3] = {55.46, 4.794, 1.148};
  static constexpr double kEigvec[3][3] = {
      {-0.5675, 0.7192, 0.4009}, {-0.5808, -0.0045, -0.8140}, {-0.5836, -0.6948, 0.4203}};
  std::array<float, 3> off{};
  for (size_t c = 0; c < 3; ++c) {
    float v = 0.0f;
    for (size_t j = 0; j < 3; ++j) v += static_cast<float>(kEigval[j] * kEigvec[c][j]) * alpha[j];
    off[c] = v;
  }
  return off;
}

// y = x + offset of the channel. A 1-channel image is copied.
template <class T>
void color_lighting(const T* x, T* y, const ColorImages& g, const std::array<float, 3>& alpha) {
  using A = ColorAcc<T>;
  if (g.c == 1) return color_copy(x, y, g.size());
  const std::array<float, 3> off = color_pca_offset(alpha);
  const int64_t pixels = g.n * g.pixels;
  for (int64_t p = 0; p < pixels; ++p, x += 3, y += 3)
    for (size_t k = 0; k < 3; ++k) y[k] = color_store<T>(static_cast<A>(x[k]) + static_cast<A>(off[k]));
}

// ---- the operators ----

// The images of `s` for `op`; the RGB operators take 1 or 3 channels, as MXNet's.
ColorImages color_images(const std::string& op, const Shape& s, bool rgb) {
  ImageDims d = image_dims(op, s);
  BRAID_CHECK(!rgb || d.c == 1 || d.c == 3, "operator ", op,
              ": expected 1 (gray) or 3 (RGB) channels in the last axis, got ", s,
              "; convert the image to RGB or gray first");
  return {d.n, d.h * d.w, d.c};
}

// Runs kernel(x, y, images) over the input's dtype, honouring req.
template <class F>
void color_forward(const std::string& op, bool rgb, const ForwardArgs& a, F kernel) {
  const TBlob& in = a.inputs[0];
  const TBlob& out = a.outputs[0];
  const ColorImages g = color_images(op, in.shape, rgb);
  BRAID_TYPE_SWITCH(in.dtype, T, op.c_str(), {
    const T* x = in.ptr<T>();
    write_with_req(out.ptr<T>(), out.size(), a.req[0], [&](T* y) { kernel(x, y, g); });
  });
}

// MXNet's gradient of every image augmenter: dx = dy.
void color_pass_gradient(const OpContext&, const std::any&, const BackwardArgs& a) {
  const TBlob& dx = a.in_grads[0];
  BRAID_TYPE_SWITCH(dx.dtype, T, "image augmenter backward", {
    const T* dy = a.out_grads[0].ptr<T>();
    write_each(dx.ptr<T>(), a.req[0], dx.size(), [dy](int64_t i) { return dy[i]; });
  });
}

// Completes `d` (name, doc, parse, forward set) as a one-input image op and registers it with
// its _npx_ alias.
void color_add(Registry& r, OpDef d, bool rgb) {
  const std::string name = d.name;
  set_image_shape(d, [name, rgb](const std::any&, const Shape& in) {
    color_images(name, in, rgb);
    return in;
  });
  d.cpu.backward = color_pass_gradient;
  d.backward_reads = [](const std::any&) { return BackwardReads{false, false}; };
  r.add(std::move(d));
  r.add_alias("_npx_" + name, name);
}

// A float attribute that must be finite (and >= 0 where `nonnegative`).
float color_read(ParamReader& rd, const std::string& op, const char* key, std::optional<float> fallback,
                 bool nonnegative) {
  const float v = fallback ? rd.get<float>(key, *fallback) : rd.get<float>(key);
  BRAID_CHECK(std::isfinite(v) && (!nonnegative || v >= 0.0f), "operator ", op, ": ", key, " is ", v,
              "; give a finite ", nonnegative ? "number >= 0" : "number");
  return v;
}

// ---- random brightness, contrast, saturation, hue: a factor uniform in [min_factor, max_factor] ----

struct ColorFactorRange {
  float min_factor = 0, max_factor = 0;
};

// `kernel(x, y, images, factor)`: a generic lambda over the element type.
template <class K>
void add_color_factor_op(Registry& r, const std::string& name, std::string doc, bool rgb, K kernel) {
  OpDef d;
  d.name = name;
  d.doc = std::move(doc);
  d.parse = [name](const AttrMap& a) {
    ParamReader rd(a, name);
    ColorFactorRange p;
    p.min_factor = color_read(rd, name, "min_factor", std::nullopt, true);
    p.max_factor = color_read(rd, name, "max_factor", std::nullopt, true);
    rd.finish();
    BRAID_CHECK(p.min_factor <= p.max_factor, "operator ", name, ": min_factor (", p.min_factor,
                ") is greater than max_factor (", p.max_factor, "); give min_factor <= max_factor");
    return std::any(p);
  };
  d.needs_rng = true;
  d.cpu.forward = [name, rgb, kernel](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<ColorFactorRange>(pa);
    const float factor = std::uniform_real_distribution<float>(p.min_factor, p.max_factor)(*ctx.rng);
    color_forward(name, rgb, a, [&](const auto* x, auto* y, const ColorImages& g) { kernel(x, y, g, factor); });
  };
  color_add(r, std::move(d), rgb);
}

void add_color_factor_ops(Registry& r) {
  add_color_factor_op(r, "_image_random_brightness",
                      "Multiplies an image (H, W, C) or batch (N, H, W, C) by a factor drawn uniformly from "
                      "[min_factor, max_factor] (once per call). Integer results are clamped to their type's range "
                      "(uint8: 0..255) and truncated.",
                      false,
                      [](const auto* x, auto* y, const ColorImages& g, float f) { color_brightness(x, y, g, f); });
  add_color_factor_op(
      r, "_image_random_contrast",
      "Scales the contrast of an RGB or gray image (H, W, C) or batch (N, H, W, C) by a factor f drawn "
      "uniformly from [min_factor, max_factor] (once per call): x * f + (1 - f) * m, where m is the "
      "mean gray (0.299 R + 0.587 G + 0.114 B) of the image. Integer results are clamped and truncated.",
      true, [](const auto* x, auto* y, const ColorImages& g, float f) { color_contrast(x, y, g, f); });
  add_color_factor_op(r, "_image_random_saturation",
                      "Scales the saturation of an RGB image (H, W, C) or batch (N, H, W, C) by a factor f drawn "
                      "uniformly from [min_factor, max_factor] (once per call): x * f + (1 - f) * gray, with MXNet's "
                      "per-pixel gray 0.114 * B. A gray image is copied. Integer results are clamped and truncated.",
                      true,
                      [](const auto* x, auto* y, const ColorImages& g, float f) { color_saturation(x, y, g, f); });
  add_color_factor_op(r, "_image_random_hue",
                      "Turns the hue of an RGB image (H, W, C) or batch (N, H, W, C), values on the 0..255 scale, by "
                      "f * 360 degrees in the HLS model, f drawn uniformly from [min_factor, max_factor] (once per "
                      "call). A gray image is copied. Integer results are clamped and truncated.",
                      true, [](const auto* x, auto* y, const ColorImages& g, float f) { color_hue(x, y, g, f); });
}

// ---- random colour jitter ----

struct ColorJitterParam {
  float brightness = 0, contrast = 0, saturation = 0, hue = 0;
};

void add_color_jitter(Registry& r) {
  const std::string name = "_image_random_color_jitter";
  OpDef d;
  d.name = name;
  d.doc =
      "Applies, in a random order, brightness (factor 1 + U(-brightness, brightness)), contrast "
      "(1 + U(-contrast, contrast)), saturation (1 + U(-saturation, saturation)) and hue (a turn of "
      "U(-hue, hue) * 360 degrees) to an RGB or gray image (H, W, C) or batch (N, H, W, C); a "
      "jitter whose amount is <= 0 is skipped. Each step rounds to the image's dtype.";
  d.parse = [name](const AttrMap& a) {
    ParamReader rd(a, name);
    ColorJitterParam p;
    p.brightness = color_read(rd, name, "brightness", std::nullopt, false);
    p.contrast = color_read(rd, name, "contrast", std::nullopt, false);
    p.saturation = color_read(rd, name, "saturation", std::nullopt, false);
    p.hue = color_read(rd, name, "hue", std::nullopt, false);
    rd.finish();
    return std::any(p);
  };
  d.needs_rng = true;
  d.cpu.forward = [name](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<ColorJitterParam>(pa);
    std::mt19937_64& rng = *ctx.rng;
    // The order, then each enabled step's factor in that order, as MXNet draws them.
    std::array<int, 4> order = {0, 1, 2, 3};
    std::shuffle(order.begin(), order.end(), rng);
    auto uniform = [&rng](float amount) { return std::uniform_real_distribution<float>(-amount, amount)(rng); };
    std::array<float, 4> factor{};
    std::array<bool, 4> on{};
    const std::array<float, 4> amount = {p.brightness, p.contrast, p.saturation, p.hue};
    for (int step : order) {
      const auto k = static_cast<size_t>(step);
      if (!(amount[k] > 0)) continue;
      on[k] = true;
      const float u = uniform(amount[k]);
      // MXNet adds brightness's and contrast's draw to 1.0 (a double), saturation's to 1.f.
      factor[k] = k == 3 ? u : k == 2 ? 1.0f + u : static_cast<float>(1.0 + static_cast<double>(u));
    }
    color_forward(name, true, a, [&](const auto* x, auto* y, const ColorImages& g) {
      bool done = false;  // after the first step, the next ones work on the output
      for (int step : order) {
        const auto k = static_cast<size_t>(step);
        if (!on[k]) continue;
        const auto* src = done ? y : x;
        if (k == 0) color_brightness(src, y, g, factor[k]);
        if (k == 1) color_contrast(src, y, g, factor[k]);
        if (k == 2) color_saturation(src, y, g, factor[k]);
        if (k == 3) color_hue(src, y, g, factor[k]);
        done = true;
      }
      if (!done) color_copy(x, y, g.size());
    });
  };
  color_add(r, std::move(d), true);
}

// ---- lighting ----

struct ColorLightingParam {
  std::array<float, 3> alpha{};
};

struct ColorLightingStd {
  float alpha_std = 0.05f;
};

void add_color_lighting(Registry& r) {
  const std::string name = "_image_adjust_lighting";
  OpDef d;
  d.name = name;
  d.doc =
      "Adds AlexNet's PCA lighting offset to an RGB image (H, W, C) or batch (N, H, W, C): each pixel "
      "gets sum_j alpha[j] * eigval[j] * eigvec[:, j] with ImageNet's RGB eigenvalues (55.46, 4.794, "
      "1.148) and eigenvectors. A gray image is copied. Integer results are clamped and truncated.";
  d.parse = [name](const AttrMap& a) {
    ParamReader rd(a, name);
    const std::vector<double> v = rd.get<std::vector<double>>("alpha");
    rd.finish();
    BRAID_CHECK(v.size() == 3, "operator ", name, ": alpha has ", v.size(),
                " values; give the three weights of the principal components, e.g. alpha=(0.1, 0.2, 0.3)");
    ColorLightingParam p;
    for (size_t j = 0; j < 3; ++j) {
      BRAID_CHECK(std::isfinite(v[j]), "operator ", name, ": alpha[", j, "] is ", v[j], "; give finite numbers");
      p.alpha[j] = static_cast<float>(v[j]);
    }
    return std::any(p);
  };
  d.cpu.forward = [name](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& alpha = param<ColorLightingParam>(pa).alpha;
    color_forward(name, true, a, [&](const auto* x, auto* y, const ColorImages& g) { color_lighting(x, y, g, alpha); });
  };
  color_add(r, std::move(d), true);

  const std::string random_name = "_image_random_lighting";
  OpDef rd;
  rd.name = random_name;
  rd.doc =
      "_image_adjust_lighting with alpha drawn from N(0, alpha_std^2) (three draws per call, for R, G "
      "and B's components; alpha_std defaults to 0.05).";
  rd.parse = [random_name](const AttrMap& a) {
    ParamReader reader(a, random_name);
    ColorLightingStd p;
    p.alpha_std = color_read(reader, random_name, "alpha_std", 0.05f, true);
    reader.finish();
    return std::any(p);
  };
  rd.needs_rng = true;
  rd.cpu.forward = [random_name](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    const float sd = param<ColorLightingStd>(pa).alpha_std;
    std::array<float, 3> alpha{};
    if (sd > 0) {
      std::normal_distribution<float> normal(0.0f, sd);
      for (auto& v : alpha) v = normal(*ctx.rng);
    }
    color_forward(random_name, true, a,
                  [&](const auto* x, auto* y, const ColorImages& g) { color_lighting(x, y, g, alpha); });
  };
  color_add(r, std::move(rd), true);
}

}  // namespace

void register_image_color_ops(Registry& r) {
  add_color_factor_ops(r);
  add_color_jitter(r);
  add_color_lighting(r);
}

}  // namespace braid::op::detail
