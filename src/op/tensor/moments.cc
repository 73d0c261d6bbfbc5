// moments: the mean and the (population) variance over `axes` (all by default), as MXNet's
// `moments`; the gradient of both.
#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct MomentsParam {
  std::optional<std::vector<int64_t>> axes;
  bool keepdims = false;
};

std::vector<bool> moment_axes(const MomentsParam& p, const Shape& s) {
  std::vector<bool> reduced(static_cast<size_t>(s.ndim()), !p.axes);
  if (p.axes)
    for (int64_t a : *p.axes) {
      const int k = s.axis(static_cast<int>(a), "moments axes");
      BRAID_CHECK(!reduced[static_cast<size_t>(k)], "operator moments: axis ", a, " is repeated in axes");
      reduced[static_cast<size_t>(k)] = true;
    }
  return reduced;
}

Shape moments_shape(const MomentsParam& p, const Shape& s) {
  const std::vector<bool> reduced = moment_axes(p, s);
  std::vector<int64_t> dims;
  for (int k = 0; k < s.ndim(); ++k) {
    if (!reduced[static_cast<size_t>(k)])
      dims.push_back(s[k]);
    else if (p.keepdims)
      dims.push_back(1);
  }
  if (dims.empty()) dims.push_back(1);  // MXNet 1.x has no 0-D arrays here
  return Shape(dims);
}

// For every input element in order, the index of its mean (and variance).
std::vector<int64_t> output_index(const MomentsParam& p, const Shape& s) {
  const std::vector<bool> reduced = moment_axes(p, s);
  std::vector<int64_t> stride(static_cast<size_t>(s.ndim()), 0);
  int64_t step = 1;
  for (int k = s.ndim() - 1; k >= 0; --k)
    if (!reduced[static_cast<size_t>(k)]) {
      stride[static_cast<size_t>(k)] = step;
      step *= s[k];
    }
  std::vector<int64_t> index(static_cast<size_t>(s.size())), coord(static_cast<size_t>(s.ndim()), 0);
  int64_t at = 0;
  for (int64_t i = 0; i < s.size(); ++i) {
    index[static_cast<size_t>(i)] = at;
    for (int k = s.ndim() - 1; k >= 0; --k) {  // the next row-major coordinate
      auto kk = static_cast<size_t>(k);
      at += stride[kk];
      if (++coord[kk] < s[k]) break;
      at -= stride[kk] * s[k];
      coord[kk] = 0;
    }
  }
  return index;
}

template <class T>
void moments_forward(const MomentsParam& p, const ForwardArgs& a) {
  const Shape& s = a.inputs[0].shape;
  const std::vector<int64_t> index = output_index(p, s);
  const int64_t m = a.outputs[0].size(), count = s.size() / std::max<int64_t>(m, 1);
  const T* x = a.inputs[0].ptr<T>();
  std::vector<double> mean(static_cast<size_t>(m), 0.0), var(static_cast<size_t>(m), 0.0);
  for (int64_t i = 0; i < s.size(); ++i) mean[static_cast<size_t>(index[static_cast<size_t>(i)])] += x[i];
  for (double& v : mean) v /= static_cast<double>(count);
  for (int64_t i = 0; i < s.size(); ++i) {
    const auto j = static_cast<size_t>(index[static_cast<size_t>(i)]);
    var[j] += (x[i] - mean[j]) * (x[i] - mean[j]);
  }
  write_each(a.outputs[0].ptr<T>(), a.req[0], m,
             [&](int64_t j) { return static_cast<T>(mean[static_cast<size_t>(j)]); });
  write_each(a.outputs[1].ptr<T>(), a.req[1], m,
             [&](int64_t j) { return static_cast<T>(var[static_cast<size_t>(j)] / static_cast<double>(count)); });
}

// dx = g_mean / n + g_var · 2 (x - mean) / n.
template <class T>
void moments_backward(const MomentsParam& p, const BackwardArgs& a) {
  const Shape& s = a.inputs[0].shape;
  const std::vector<int64_t> index = output_index(p, s);
  const double n = static_cast<double>(s.size() / std::max<int64_t>(a.outputs[0].size(), 1));
  const T *x = a.inputs[0].ptr<T>(), *mean = a.outputs[0].ptr<T>();
  const T *gm = a.out_grads[0].ptr<T>(), *gv = a.out_grads[1].ptr<T>();
  write_each(a.in_grads[0].ptr<T>(), a.req[0], s.size(), [&](int64_t i) {
    const int64_t j = index[static_cast<size_t>(i)];
    return static_cast<T>((gm[j] + 2.0 * gv[j] * (x[i] - mean[j])) / n);
  });
}

}  // namespace

void register_moments_ops(Registry& r) {
  OpDef d;
  d.name = "moments";
  d.doc = "Mean and variance over `axes` (all by default), with `keepdims`.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "moments");
    MomentsParam p;
    p.axes = rd.get_optional<std::vector<int64_t>>("axes");
    p.keepdims = rd.get<bool>("keepdims", false);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.num_outputs = [](const std::any&) { return 2; };
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    const Shape o = moments_shape(param<MomentsParam>(pa), in[0]);
    merge_shape(out[0], o, "moments", "mean");
    merge_shape(out[1], o, "moments", "var");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "moments", { moments_forward<T>(param<MomentsParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "moments", { moments_backward<T>(param<MomentsParam>(pa), a); });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
