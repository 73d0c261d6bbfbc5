#include "braid/gluon/data/vision/transforms.h"

#include "braid/base/error.h"
#include "braid/gluon/data/random.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/matrix.h"
#include "braid/op/param_reader.h"

namespace braid::gluon::data::vision::transforms {
namespace {

// The batched form of an image op that takes an image (3-D) or a batch (4-D): stacked 3-D
// samples are one 4-D call; anything else is done sample by sample.
Transform::Fn batched(Transform::Fn per_sample) {
  return [per_sample](const NDArray& stacked) {
    if (stacked.ndim() == 4) return per_sample(stacked);
    std::vector<NDArray> items;
    for (int64_t i = 0; i < stacked.shape()[0]; ++i) items.push_back(per_sample(stacked.at(i)));
    return nd::stack(items, 0);
  };
}

Transform both_forms(Transform::Fn per_sample) {
  Transform::Fn batch = batched(per_sample);
  return Transform(std::move(per_sample), std::move(batch));
}

Transform::Fn op_fn(std::string op, op::AttrMap attrs = {}) {
  return [op = std::move(op), attrs = std::move(attrs)](const NDArray& x) { return nd::invoke1(op, {x}, attrs); };
}

std::string tuple_attr(const std::vector<double>& v) {
  std::string s = "(";
  for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + op::format_number(v[i]);
  return s + (v.size() == 1 ? ",)" : ")");
}

// The (height, width) of an image (H, W, C) or batch (N, H, W, C).
std::pair<int64_t, int64_t> image_hw(const NDArray& x, const char* who) {
  BRAID_CHECK(x.ndim() == 3 || x.ndim() == 4, who, ": expected an image (H, W, C) or a batch (N, H, W, C), got ",
              x.shape(), " (apply it before ToTensor, which makes CHW tensors)");
  return {x.shape()[x.ndim() - 3], x.shape()[x.ndim() - 2]};
}

struct CropWindow {
  int64_t width, height, top, bottom, left, right;
  double pad_value;
};

NDArray random_crop(const CropWindow& c, const NDArray& x) {
  auto [h, w] = image_hw(x, "RandomCrop");
  const int64_t ph = h + c.top + c.bottom, pw = w + c.left + c.right;
  BRAID_CHECK(ph >= c.height && pw >= c.width, "RandomCrop: the ", c.width, " x ", c.height,
              " window (width x height) does not fit the padded ", pw, " x ", ph,
              " image; use a smaller size or more padding (Braid does not resize)");
  const int64_t x0 = static_cast<int64_t>(random_below(static_cast<uint64_t>(pw - c.width + 1))) - c.left;
  const int64_t y0 = static_cast<int64_t>(random_below(static_cast<uint64_t>(ph - c.height + 1))) - c.top;
  op::AttrMap attrs = {{"x", cat(x0)}, {"y", cat(y0)}, {"width", cat(c.width)}, {"height", cat(c.height)}};
  if (x0 >= 0 && y0 >= 0 && x0 + c.width <= w && y0 + c.height <= h) return nd::invoke1("_image_crop", {x}, attrs);
  attrs["pad_value"] = op::format_number(c.pad_value);
  return nd::invoke1("_image_padded_crop", {x}, attrs);
}

}  // namespace

ToTensor::ToTensor() : Transform(both_forms(op_fn("_image_to_tensor"))) {}

Normalize::Normalize(std::vector<double> mean, std::vector<double> std)
    : Transform(both_forms(op_fn("_image_normalize", {{"mean", tuple_attr(mean)}, {"std", tuple_attr(std)}}))) {
  BRAID_CHECK(!mean.empty() && !std.empty(), "Normalize: mean and std need at least one value each");
  for (double s : std) BRAID_CHECK(s != 0.0, "Normalize: std contains 0; every standard deviation must be nonzero");
}

Cast::Cast(DType dtype)
    : Transform([dtype](const NDArray& x) { return x.astype(dtype); },
                [dtype](const NDArray& x) { return x.astype(dtype); }) {}

RandomFlipLeftRight::RandomFlipLeftRight()
    : Transform([](const NDArray& x) {
        image_hw(x, "RandomFlipLeftRight");
        return random_below(2) ? nd::invoke1("_image_flip_left_right", {x}) : x;
      }) {}

RandomCrop::RandomCrop(int64_t size, int64_t pad, double pad_value)
    : RandomCrop({size, size}, {pad, pad, pad, pad}, pad_value) {}

RandomCrop::RandomCrop(std::pair<int64_t, int64_t> size, std::vector<int64_t> pad, double pad_value)
    : Transform([c = CropWindow{size.first, size.second, pad.size() == 4 ? pad[0] : 0, pad.size() == 4 ? pad[1] : 0,
                                pad.size() == 4 ? pad[2] : 0, pad.size() == 4 ? pad[3] : 0,
                                pad_value}](const NDArray& x) { return random_crop(c, x); }) {
  BRAID_CHECK(size.first > 0 && size.second > 0, "RandomCrop: size (width, height) must be positive, got (", size.first,
              ", ", size.second, ")");
  BRAID_CHECK(pad.size() == 4, "RandomCrop: pad must be (top, bottom, left, right), got ", pad.size(), " values");
  for (int64_t p : pad) BRAID_CHECK(p >= 0, "RandomCrop: padding must be >= 0, got ", p);
}

Compose::Compose(const std::vector<Transform>& transforms) {
  Transform chain;
  for (const Transform& t : transforms) chain = chain.then(t);
  static_cast<Transform&>(*this) = chain;
}

}  // namespace braid::gluon::data::vision::transforms
