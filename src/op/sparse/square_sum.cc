// _square_sum(data, axis, keepdims): the sum of the squares of a 2-d array's elements along axis
// 0 or 1 (MXNet's, which sparse optimizers use for row norms). Its gradient is 2 * data * dy,
// dy broadcast back along the axis. A row_sparse input summed along axis 1 with keepdims gives
// a row_sparse result (ndarray/sparse_dispatch.cc).
#include "square_sum.h"

#include "op/op_util.h"

namespace braid::op::detail {
namespace {

struct SquareSumParam {
  int axis = 0;
  bool keepdims = false;
};

// The index into the reduced output of element (i, j).
int64_t out_index(const SquareSumParam& p, int64_t i, int64_t j) { return p.axis == 0 ? j : i; }

}  // namespace

void register_square_sum(Registry& r) {
  OpDef d;
  d.name = "_square_sum";
  d.doc = "The sum of squares of a 2-d array along axis 0 or 1 (keepdims keeps the axis, of size 1).";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "_square_sum");
    SquareSumParam p;
    const std::string axis = rd.get<std::string>("axis", "0");
    p.keepdims = rd.get<bool>("keepdims", false);
    rd.get<bool>("exclude", false);
    rd.finish();
    const std::string a = axis.front() == '(' ? axis.substr(1, axis.find_first_of(",)") - 1) : axis;
    BRAID_CHECK(a == "0" || a == "1" || a == "-1" || a == "-2", "_square_sum: axis must be 0 or 1, got ", axis);
    p.axis = a == "0" || a == "-2" ? 0 : 1;
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!in[0].known()) return false;
    BRAID_CHECK(in[0].ndim() == 2, "_square_sum takes a 2-d array, got shape ", in[0]);
    const auto& p = param<SquareSumParam>(pa);
    const int64_t kept = in[0][1 - p.axis];
    out[0] = !p.keepdims ? Shape{kept} : p.axis == 0 ? Shape{1, kept} : Shape{kept, 1};
    return true;
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>& aux) {
    infer_same_type("_square_sum", in, out, aux);
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<SquareSumParam>(pa);
    const TBlob &x = a.inputs[0], &y = a.outputs[0];
    const int64_t m = x.shape[0], n = x.shape[1];
    BRAID_REAL_TYPE_SWITCH(x.dtype, T, "_square_sum", {
      std::vector<double> sums(static_cast<size_t>(y.size()), 0.0);
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const double v = static_cast<double>(x.ptr<T>()[i * n + j]);
          sums[static_cast<size_t>(out_index(p, i, j))] += v * v;
        }
      for (int64_t k = 0; k < y.size(); ++k) {
        const T v = static_cast<T>(sums[static_cast<size_t>(k)]);
        y.ptr<T>()[k] = a.req[0] == OpReq::Add ? static_cast<T>(y.ptr<T>()[k] + v) : v;
      }
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    if (a.req[0] == OpReq::Null) return;
    const auto& p = param<SquareSumParam>(pa);
    const TBlob &x = a.inputs[0], &dy = a.out_grads[0], &dx = a.in_grads[0];
    const int64_t m = x.shape[0], n = x.shape[1];
    BRAID_REAL_TYPE_SWITCH(x.dtype, T, "_square_sum gradient", {
      for (int64_t i = 0; i < m; ++i)
        for (int64_t j = 0; j < n; ++j) {
          const T g = static_cast<T>(2 * x.ptr<T>()[i * n + j] * dy.ptr<T>()[out_index(p, i, j)]);
          T& out = dx.ptr<T>()[i * n + j];
          out = a.req[0] == OpReq::Add ? static_cast<T>(out + g) : g;
        }
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
