// ravel_multi_index and unravel_index (MXNet 1.x, registered as _ravel_multi_index and
// _unravel_index): between (ndim, ...) arrays of coordinates in an array of `shape` and the flat
// (row-major) positions of those coordinates. The output keeps the input's dtype; a leading
// dimension of -1 in `shape` means unbounded (the first coordinate is not wrapped). Integer
// results: the gradient is zero.
#include <cmath>

#include "op/common/req_util.h"
#include "op/common/zero_backward.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct RavelParam {
  std::vector<int64_t> shape;
};

std::any parse_ravel(const AttrMap& a, const std::string& op) {
  ParamReader rd(a, op);
  RavelParam p;
  p.shape = rd.get<std::vector<int64_t>>("shape");
  rd.finish();
  BRAID_CHECK(!p.shape.empty(), "operator ", op, ": attribute 'shape' must have at least one dimension");
  for (size_t k = 0; k < p.shape.size(); ++k)
    BRAID_CHECK(p.shape[k] > 0 || (k == 0 && p.shape[k] == -1), "operator ", op, ": shape ", Shape(p.shape),
                " must have positive dimensions (the first may be -1: unbounded)");
  return std::any(p);
}

OpDef ravel_def(const std::string& name, bool ravel) {
  OpDef d;
  d.name = name;
  d.parse = [name](const AttrMap& a) { return parse_ravel(a, name); };
  d.list_arguments = args({"data"});
  d.infer_shape = [name, ravel](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out,
                                std::vector<Shape>&) {
    if (!in[0].known()) return false;
    const auto ndim = static_cast<int64_t>(param<RavelParam>(pa).shape.size());
    if (ravel) {
      BRAID_CHECK(in[0].ndim() >= 1 && in[0][0] == ndim, "operator ", name,
                  ": data must hold one row of coordinates per dimension of shape, (", ndim, ", ...); got ", in[0]);
      merge_shape(out[0], Shape(in[0].dims().begin() + 1, in[0].dims().end()), name, "output");
    } else {
      std::vector<int64_t> dims{ndim};
      dims.insert(dims.end(), in[0].dims().begin(), in[0].dims().end());
      merge_shape(out[0], Shape(std::move(dims)), name, "output");
    }
    return in[0].fully_known();
  };
  d.cpu.forward = [ravel](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const std::vector<int64_t>& shape = param<RavelParam>(pa).shape;
    const auto ndim = static_cast<int64_t>(shape.size());
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, ravel ? "ravel_multi_index" : "unravel_index", {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      if (ravel) {
        const int64_t n = a.outputs[0].size();
        write_each(y, a.req[0], n, [&](int64_t i) {
          double flat = 0;
          for (int64_t k = 0; k < ndim; ++k) flat = flat * static_cast<double>(shape[k]) + std::trunc(x[k * n + i]);
          return static_cast<T>(flat);
        });
      } else {
        const int64_t n = a.inputs[0].size();
        std::vector<T> coords(static_cast<size_t>(ndim * n));
        for (int64_t i = 0; i < n; ++i) {
          auto flat = static_cast<int64_t>(x[i]);
          for (int64_t k = ndim - 1; k >= 0; --k) {
            const bool unbounded = k == 0 && shape[0] == -1;
            coords[static_cast<size_t>(k * n + i)] = static_cast<T>(unbounded ? flat : flat % shape[k]);
            if (!unbounded) flat /= shape[k];
          }
        }
        write_each(y, a.req[0], ndim * n, [&](int64_t j) { return coords[static_cast<size_t>(j)]; });
      }
    });
  };
  d.cpu.backward = zero_backward;
  d.zero_gradient = true;
  return d;
}

}  // namespace

void register_ravel_ops(Registry& r) {
  OpDef rv = ravel_def("_ravel_multi_index", true);
  rv.doc = "Flat row-major positions in an array of `shape` of the coordinates in data's rows (ndim, ...).";
  r.add(std::move(rv));
  r.add_alias("ravel_multi_index", "_ravel_multi_index");
  OpDef un = ravel_def("_unravel_index", false);
  un.doc = "Coordinates (ndim, ...) in an array of `shape` of the flat row-major positions in data.";
  r.add(std::move(un));
  r.add_alias("unravel_index", "_unravel_index");
}

}  // namespace braid::op::detail
