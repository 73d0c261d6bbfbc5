// khatri_rao (MXNet's contrib krprod): the column-wise Khatri-Rao product of num_args matrices
// (n_i, k), a (n_1 · n_2 ⋯, k) matrix whose row (i_1, i_2, ...) — the first matrix's index
// varying slowest — is the element-wise product of row i_1 of the first, i_2 of the second, ...
// As in MXNet it has no gradient.
#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {

void register_khatri_rao_op(Registry& r) {
  OpDef d;
  d.name = "khatri_rao";
  d.doc = "The column-wise Khatri-Rao product of matrices (n_i, k): (prod n_i, k), the first matrix's rows outermost.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "khatri_rao");
    const int n = rd.get<int>("num_args");
    rd.finish();
    BRAID_CHECK(n >= 1, "operator khatri_rao: num_args is ", n, "; give at least one matrix");
    return std::any(n);
  };
  d.key_var_num_args = "num_args";
  d.list_arguments = [](const std::any& pa) {
    std::vector<std::string> names;
    for (int i = 0; i < (pa.has_value() ? param<int>(pa) : 1); ++i) names.push_back(cat("arg", i));
    return names;
  };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    if (!all_known(in)) return false;
    int64_t rows = 1;
    for (size_t i = 0; i < in.size(); ++i) {
      BRAID_CHECK(in[i].ndim() == 2 && in[i][1] == in[0][1], "operator khatri_rao: argument ", i, " has shape ", in[i],
                  "; every argument must be a matrix with the first one's ", in[0].ndim() == 2 ? in[0][1] : 0,
                  " columns");
      rows *= in[i][0];
    }
    merge_shape(out[0], Shape({rows, in[0][1]}), "khatri_rao", "output");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.outputs[0].dtype, T, "khatri_rao", {
      const int64_t k = a.outputs[0].shape[1], rows = a.outputs[0].shape[0];
      std::vector<T> out(static_cast<size_t>(rows * k));
      for (int64_t row = 0; row < rows; ++row) {
        int64_t rest = row;
        T* o = out.data() + row * k;
        std::fill(o, o + k, T(1));
        for (size_t m = a.inputs.size(); m-- > 0;) {  // the last matrix's index varies fastest
          const int64_t n = a.inputs[m].shape[0], i = rest % n;
          rest /= n;
          const T* x = a.inputs[m].ptr<T>() + i * k;
          for (int64_t c = 0; c < k; ++c) o[c] *= x[c];
        }
      }
      write_each(a.outputs[0].ptr<T>(), a.req[0], rows * k, [&](int64_t i) { return out[static_cast<size_t>(i)]; });
    });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
