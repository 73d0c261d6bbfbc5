#include "model_inputs.h"

#include "braid/base/error.h"
#include "braid/io/idx.h"
#include "braid/io/npy.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/invoke.h"

namespace braid::cli {

namespace {

bool is_channel_count(int64_t n) { return n == 1 || n == 3 || n == 4; }

// Whether a rank-4 input is laid out NHWC.
bool channels_last(const Shape& s, const std::string& layout, const std::string& path) {
  if (layout == "NHWC") return true;
  if (layout == "NCHW") return false;
  BRAID_CHECK(layout == "auto", "--layout must be NCHW, NHWC or auto, got '", layout, "'");
  const bool first = is_channel_count(s[1]), last = is_channel_count(s[3]);
  BRAID_CHECK(!(first && last) || s[1] == s[3], path, " has shape ", s,
              ": axis 1 and axis 3 could both be the channels; say which with --layout NCHW or NHWC");
  return last && !first;
}

// A value per channel as an array that broadcasts over `x` (N, C, ...).
NDArray per_channel(const std::vector<double>& v, const NDArray& x, const char* what) {
  BRAID_CHECK(!v.empty(), "--", what, " needs a value");
  if (v.size() == 1) return nd::full(Shape{1}, v[0]);
  BRAID_CHECK(x.ndim() >= 2 && x.shape()[1] == static_cast<int64_t>(v.size()), "--", what, " has ", v.size(),
              " values but the input has shape ", x.shape(), " (", x.ndim() >= 2 ? x.shape()[1] : 1,
              " channels on axis 1)");
  std::vector<int64_t> dims(static_cast<size_t>(x.ndim()), 1);
  dims[1] = static_cast<int64_t>(v.size());
  return nd::array<double>(v, Shape(dims)).astype(DType::Float32);
}

}  // namespace

NDArray load_inputs(const std::string& path, const InputOptions& o) {
  for (double s : o.std) BRAID_CHECK(s != 0, "--std must not be 0");
  NDArray raw = path.ends_with(".npy") ? io::load_npy(path) : io::load_idx(path);
  BRAID_CHECK(raw.ndim() >= 1 && raw.shape()[0] > 0, path, " holds no samples (shape ", raw.shape(), ")");
  if (raw.ndim() == 3) raw = raw.reshape({raw.shape()[0], 1, raw.shape()[1], raw.shape()[2]});
  if (raw.ndim() == 4 && channels_last(raw.shape(), o.layout, path))
    raw = nd::invoke1("transpose", {raw}, {{"axes", "(0, 3, 1, 2)"}});
  const double scale = o.scale.value_or(raw.dtype() == DType::UInt8 ? 1.0 / 255 : 1.0);
  NDArray x = raw.astype(DType::Float32);
  if (scale != 1) x *= scale;
  if (o.mean != std::vector<double>{0}) x = nd::invoke1("broadcast_sub", {x, per_channel(o.mean, x, "mean")});
  if (o.std != std::vector<double>{1}) x = nd::invoke1("broadcast_div", {x, per_channel(o.std, x, "std")});
  return x;
}

}  // namespace braid::cli
