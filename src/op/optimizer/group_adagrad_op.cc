// contrib.group_adagrad_update (MXNet's Group AdaGrad): AdaGrad with one history value per row
// of the weight (an embedding's row), for every row of a dense gradient:
//   g = clip(rescale_grad*grad); history[r] += mean(g[r]²); w[r] -= lr*g[r]/sqrt(history[r] + epsilon)
#include <cmath>

#include "braid/op/param_reader.h"
#include "braid/op/shape_inference.h"
#include "op/op_util.h"
#include "op/register_all.h"
#include "update_op.h"

namespace braid::op::detail {
namespace {

struct GroupAdagradParam {
  double lr = 0, rescale_grad = 1, clip_gradient = -1, epsilon = 1e-5;
};

template <class T>
void group_adagrad(const GroupAdagradParam& p, const ForwardArgs& a) {
  const TBlob& weight = a.inputs[0];
  const int64_t rows = weight.shape.ndim() > 0 ? weight.shape[0] : 1;
  const int64_t row = rows > 0 ? weight.size() / rows : 0;
  const T *w = weight.ptr<T>(), *g = a.inputs[1].ptr<T>();
  T* history = a.inputs[2].ptr<T>();
  T* out = a.outputs[0].ptr<T>();
  const T clip = p.clip_gradient >= 0 ? T(p.clip_gradient) : T(INFINITY), scale = T(p.rescale_grad);
  for (int64_t r = 0; r < rows; ++r) {
    const T* gr = g + r * row;
    T ssq = 0;
    for (int64_t j = 0; j < row; ++j) ssq += clip_to(scale * gr[j], clip) * clip_to(scale * gr[j], clip);
    history[r] += ssq / T(row);
    const T denom = std::sqrt(history[r] + T(p.epsilon));
    for (int64_t j = 0; j < row; ++j)
      assign(out[r * row + j], a.req[0], w[r * row + j] - T(p.lr) * clip_to(scale * gr[j], clip) / denom);
  }
}

}  // namespace

void register_group_adagrad_op(Registry& r) {
  OpDef d;
  d.name = "_contrib_group_adagrad_update";
  d.doc =
      "Group AdaGrad: one history value per row; history[r] += mean(g[r]^2), w[r] -= lr*g[r]/sqrt(history[r] + "
      "epsilon), g = clip(rescale_grad*grad).";
  d.parse = [](const AttrMap& attrs) {
    ParamReader rd(attrs, "group_adagrad_update");
    GroupAdagradParam p;
    p.lr = rd.get<double>("lr");
    p.rescale_grad = rd.get<double>("rescale_grad", p.rescale_grad);
    p.clip_gradient = rd.get<double>("clip_gradient", p.clip_gradient);
    p.epsilon = rd.get<double>("epsilon", p.epsilon);
    rd.finish();
    return std::any(p);
  };
  d.list_arguments = args({"weight", "grad", "history"});
  d.mutate_inputs = [](const std::any&) { return std::vector<int>{2}; };
  d.infer_shape = [](const std::any&, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    merge_shape(out[0], in[0], "group_adagrad_update", "weight");
    merge_shape(out[0], in[1], "group_adagrad_update", "grad");
    merge_shape(in[0], out[0], "group_adagrad_update", "weight");
    merge_shape(in[1], out[0], "group_adagrad_update", "grad");
    if (!out[0].fully_known()) return false;
    const int64_t rows = out[0].ndim() > 0 ? out[0][0] : 1;
    if (!in[2].known()) in[2] = Shape({rows, 1});
    BRAID_CHECK(in[2].size() == rows, "group_adagrad_update: history has shape ", in[2], " but the weight has ", rows,
                " rows; give one history value per row, e.g. shape (", rows, ", 1)");
    return true;
  };
  d.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "group_adagrad_update",
                           { group_adagrad<T>(param<GroupAdagradParam>(pa), a); });
  };
  r.add(std::move(d));
}

}  // namespace braid::op::detail
