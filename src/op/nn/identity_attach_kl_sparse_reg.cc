// IdentityAttachKLSparseReg(data, moving_avg; sparseness_target=0.1, penalty=0.001, momentum=0.9):
// the identity in forward; in backward it keeps a moving average ρ̂ of each feature's mean
// activation (features on axis 1, the mean over every other axis, moving_avg ← momentum ·
// moving_avg + (1 - momentum) · mean) and adds the gradient of the KL-divergence sparsity penalty
// penalty · (-ρ / ρ̂ + (1 - ρ) / (1 - ρ̂)) to the output gradient, ρ the sparseness target
// (Hinton's guide to training RBMs, §11). Meant after a sigmoid: ρ̂ must stay within (0, 1).
#include <vector>

#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

constexpr const char* kSparseReg = "IdentityAttachKLSparseReg";

struct SparseRegParam {
  double sparseness_target = 0.1, penalty = 0.001, momentum = 0.9;
};

void check_fraction(double v, const char* what) {
  BRAID_CHECK(v >= 0 && v <= 1, "operator ", kSparseReg, ": ", what, " must be in [0, 1]; got ", v);
}

}  // namespace

void register_identity_attach_kl_sparse_reg_op(Registry& r) {
  OpDef d;
  d.name = kSparseReg;
  d.doc = "Identity; backward adds the gradient of a KL-divergence sparsity penalty on each feature's mean.";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, kSparseReg);
    SparseRegParam p;
    p.sparseness_target = rd.get<double>("sparseness_target", 0.1);
    p.penalty = rd.get<double>("penalty", 0.001);
    p.momentum = rd.get<double>("momentum", 0.9);
    rd.finish();
    check_fraction(p.sparseness_target, "sparseness_target");
    check_fraction(p.momentum, "momentum");
    return std::any(p);
  };
  d.list_arguments = args({"data"});
  d.list_aux = args({"moving_avg"});
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>& aux) {
    if (!in[0].fully_known()) return false;
    BRAID_CHECK(in[0].ndim() >= 2, "operator ", kSparseReg,
                ": data must have a batch axis and a feature axis; got shape ", in[0]);
    merge_shape(out[0], in[0], kSparseReg, "output");
    merge_shape(aux[0], Shape({in[0][1]}), kSparseReg, "moving_avg");
    return true;
  };
  d.backward_mutates_aux = true;
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  d.cpu.forward = [](const OpContext&, const std::any&, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kSparseReg, {
      const T* x = a.inputs[0].ptr<T>();
      write_each(a.outputs[0].ptr<T>(), a.req[0], a.inputs[0].size(), [x](int64_t i) { return x[i]; });
    });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const auto& p = param<SparseRegParam>(pa);
    const Shape& s = a.inputs[0].shape;
    const int64_t features = s[1], inner = s.size() / (s[0] * features), rows = s[0] * inner;
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, kSparseReg, {
      const T *x = a.inputs[0].ptr<T>(), *g = a.out_grads[0].ptr<T>();
      T* avg = a.aux[0].ptr<T>();
      std::vector<double> extra(static_cast<size_t>(features));
      for (int64_t f = 0; f < features; ++f) {
        double sum = 0;
        for (int64_t b = 0; b < s[0]; ++b)
          for (int64_t k = 0; k < inner; ++k) sum += static_cast<double>(x[(b * features + f) * inner + k]);
        const double rho_hat = p.momentum * static_cast<double>(avg[f]) + (1 - p.momentum) * sum / double(rows);
        avg[f] = static_cast<T>(rho_hat);
        extra[static_cast<size_t>(f)] =
            p.penalty * (-p.sparseness_target / rho_hat + (1 - p.sparseness_target) / (1 - rho_hat));
      }
      if (a.req[0] == OpReq::Null) return;
      write_each(a.in_grads[0].ptr<T>(), a.req[0], a.inputs[0].size(), [&](int64_t i) {
        return static_cast<T>(static_cast<double>(g[i]) + extra[static_cast<size_t>(i / inner % features)]);
      });
    });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
