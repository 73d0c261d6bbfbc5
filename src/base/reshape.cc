#include "braid/base/reshape.h"

#include "braid/base/dim_math.h"
#include "braid/base/error.h"

namespace braid {
namespace {

// The reshaped shape; throws braid::Error saying why there is none.
Shape reshaped(const Shape& src, const std::vector<int64_t>& spec) {
  std::vector<int64_t> out;
  int infer_at = -1;
  int si = 0;  // next source dimension
  for (size_t i = 0; i < spec.size(); ++i) {
    int64_t v = spec[i];
    if (v > 0) {
      out.push_back(v);
      ++si;
    } else if (v == 0) {
      if (si >= src.ndim()) throw Error("0 refers past the last dimension");
      out.push_back(src[si++]);
    } else if (v == -1) {
      if (infer_at >= 0) throw Error("more than one -1");
      infer_at = static_cast<int>(out.size());
      out.push_back(1);
      ++si;
    } else if (v == -2) {
      while (si < src.ndim()) out.push_back(src[si++]);
    } else if (v == -3) {
      if (si + 1 >= src.ndim()) throw Error("-3 needs two dimensions to merge");
      out.push_back(mul_dims(src[si], src[si + 1]));
      si += 2;
    } else if (v == -4) {
      if (i + 2 >= spec.size() || si >= src.ndim()) throw Error("-4 needs two values after it");
      int64_t d = src[si++], a = spec[i + 1], b = spec[i + 2];
      if (a == -1 && b > 0) a = d / b;
      if (b == -1 && a > 0) b = d / a;
      if (a <= 0 || b <= 0 || mul_dims(a, b) != d) throw Error(cat("-4 cannot split ", d, " into ", a, " x ", b));
      out.push_back(a);
      out.push_back(b);
      i += 2;
    } else {
      throw Error(cat("invalid value ", v));
    }
  }
  Shape result(out);
  if (infer_at >= 0) {
    int64_t known = 1;
    for (size_t i = 0; i < out.size(); ++i)
      if (static_cast<int>(i) != infer_at) known = mul_dims(known, out[i]);
    if (known == 0 || src.size() % known != 0) throw Error("size is not divisible");
    result[infer_at] = src.size() / known;
  }
  if (result.size() != src.size()) throw Error(cat("sizes differ (", src.size(), " vs ", result.size(), ")"));
  return result;
}

}  // namespace

Shape infer_reshape(const Shape& src, const std::vector<int64_t>& spec) {
  try {
    return reshaped(src, spec);
  } catch (const Error& e) {
    throw Error(cat("cannot reshape ", src, " with ", Shape(spec), ": ", e.what()));
  }
}

}  // namespace braid
