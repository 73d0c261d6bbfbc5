// contrib.count_sketch (MXNet's GPU-only CountSketch, here on the CPU): data (..., d) hashed to
// (..., out_dim) by out[..., h[j]] += s[j] · data[..., j], h (1, d) holding indices in [0, out_dim)
// and s (1, d) signs, both in data's dtype. data's gradient is s[j] · g[..., h[j]]; h and s get
// none. processing_batch_size (MXNet's sub-batch size) is accepted.
#include <algorithm>
#include <cstring>
#include <vector>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

constexpr const char* kName = "_contrib_count_sketch";

// h's values as output positions, checked against out_dim.
template <class T>
std::vector<int64_t> sketch_positions(const TBlob& h, int64_t out_dim) {
  const T* v = h.ptr<T>();
  std::vector<int64_t> pos(static_cast<size_t>(h.size()));
  for (size_t j = 0; j < pos.size(); ++j) {
    pos[j] = static_cast<int64_t>(v[j]);
    BRAID_CHECK(static_cast<double>(v[j]) == static_cast<double>(pos[j]) && pos[j] >= 0 && pos[j] < out_dim,
                "operator ", kName, ": h[", j, "] = ", static_cast<double>(v[j]),
                " is not an index in [0, out_dim = ", out_dim, ")");
  }
  return pos;
}

}  // namespace

void register_count_sketch_op(Registry& r) {
  OpDef d;
  d.name = kName;
  d.doc = "Hashes the last axis (d values) to out_dim values: out[..., h[j]] += s[j] * data[..., j].";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, kName);
    const auto out_dim = rd.get<int64_t>("out_dim");
    rd.get<int>("processing_batch_size", 32);
    rd.finish();
    BRAID_CHECK(out_dim > 0, "operator ", kName, ": out_dim must be positive; got ", out_dim);
    return std::any(out_dim);
  };
  d.list_arguments = args({"data", "h", "s"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() == 2 || in[0].ndim() == 4, "operator ", kName, ": data must be 2-D or 4-D; got shape ",
                in[0]);
    const int64_t d = in[0][in[0].ndim() - 1];
    merge_shape(in[1], Shape({1, d}), kName, "h");
    merge_shape(in[2], Shape({1, d}), kName, "s");
    std::vector<int64_t> dims = in[0].dims();
    dims.back() = param<int64_t>(pa);
    merge_shape(out[0], Shape(dims), kName, "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const int64_t out_dim = param<int64_t>(pa);
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, {
      const std::vector<int64_t> pos = sketch_positions<T>(a.inputs[1], out_dim);
      const T *x = a.inputs[0].ptr<T>(), *sign = a.inputs[2].ptr<T>();
      const auto d = static_cast<int64_t>(pos.size());
      const int64_t rows = a.inputs[0].size() / d;
      write_with_req(a.outputs[0].ptr<T>(), rows * out_dim, a.req[0], [&](T* y) {
        std::fill(y, y + rows * out_dim, T(0));
        for (int64_t r = 0; r < rows; ++r)
          for (int64_t j = 0; j < d; ++j) y[r * out_dim + pos[static_cast<size_t>(j)]] += sign[j] * x[r * d + j];
      });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const int64_t out_dim = param<int64_t>(pa);
    for (size_t k = 1; k < 3; ++k)  // h and s: no gradient
      if (a.req[k] == OpReq::Write)
        std::memset(a.in_grads[k].dptr, 0, static_cast<size_t>(a.in_grads[k].size()) * dtype_size(a.in_grads[k].dtype));
    if (a.req[0] == OpReq::Null) return;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kName, {
      const std::vector<int64_t> pos = sketch_positions<T>(a.inputs[1], out_dim);
      const T *g = a.out_grads[0].ptr<T>(), *sign = a.inputs[2].ptr<T>();
      const auto d = static_cast<int64_t>(pos.size());
      write_each(a.in_grads[0].ptr<T>(), a.req[0], a.inputs[0].size(), [&](int64_t i) {
        const int64_t j = i % d;
        return sign[j] * g[i / d * out_dim + pos[static_cast<size_t>(j)]];
      });
    });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
