// FullyConnected: y = x * weight^T + bias, weight (num_hidden, in_units), on OpenBLAS GEMM.
#include <algorithm>

#include "fully_connected.h"
#include "nn_conv_ops.h"
#include "op/common/gemm.h"
#include "op/op_util.h"

namespace braid::op::detail {
namespace {

std::any parse_fc(const AttrMap& attrs) {
  ParamReader r(attrs, "FullyConnected");
  FCParam p;
  p.num_hidden = r.get<int64_t>("num_hidden");
  p.no_bias = r.get<bool>("no_bias", false);
  p.flatten = r.get<bool>("flatten", true);
  r.finish();
  BRAID_CHECK(p.num_hidden >= 1, "operator FullyConnected: num_hidden=", p.num_hidden, " must be positive");
  return p;
}

// flatten: data (batch, d1, d2, ...) is a batch x (d1*d2*...) matrix; otherwise the last axis
// holds the features and every leading axis is batch.
bool infer_fc(const FCParam& p, std::vector<Shape>& in, std::vector<Shape>& out) {
  Shape& data = in[0];
  if (!data.known()) return false;
  const int nd = data.ndim();
  BRAID_CHECK(nd >= 1, "operator FullyConnected: data must have at least one axis, got ", data);
  const int feature_axis = p.flatten ? 1 : nd - 1;
  // Deferred initialization: a 0 feature size is taken from a known weight.
  if (in[1].known() && in[1].ndim() == 2 && in[1][1] != 0 && feature_axis == nd - 1 && data[feature_axis] == 0)
    data[feature_axis] = in[1][1];
  const int64_t in_units = p.flatten ? data.prod(1, nd) : data[nd - 1];
  merge_shape(in[1], Shape({p.num_hidden, in_units}), "FullyConnected", "weight");
  // MXNet takes a (num_hidden, 1) bias too; its values are laid out the same.
  if (!p.no_bias && in[2] != Shape({p.num_hidden, 1}))
    merge_shape(in[2], Shape({p.num_hidden}), "FullyConnected", "bias");
  std::vector<int64_t> o = p.flatten ? std::vector<int64_t>{data[0], p.num_hidden} : data.dims();
  if (!p.flatten) o.back() = p.num_hidden;
  merge_shape(out[0], Shape(o), "FullyConnected", "output");
  for (int i = 0; i < (p.flatten ? std::min(nd, 1) : nd - 1); ++i)
    if (data[i] == 0) data[i] = out[0][i];
  return all_known(in) && out[0].fully_known();
}

template <class T>
void fc_forward(const FCParam& p, const ForwardArgs& a) {
  const OpReq req = a.req[0];
  if (req == OpReq::Null) return;
  const FCDims d(p, a.inputs[0].shape);
  T* y = a.outputs[0].ptr<T>();
  T beta = req == OpReq::Add ? T(1) : T(0);
  if (!p.no_bias) {  // the bias rows go in first; GEMM then accumulates onto them
    const T* b = a.inputs[2].ptr<T>();
    for (int64_t i = 0; i < d.rows; ++i)
      for (int64_t j = 0; j < d.hidden; ++j) assign(y[i * d.hidden + j], req, b[j]);
    beta = T(1);
  }
  gemm(false, true, d.rows, d.hidden, d.in_units, T(1), a.inputs[0].ptr<T>(), d.in_units, a.inputs[1].ptr<T>(),
       d.in_units, beta, y, d.hidden);
}

template <class T>
void fc_backward(const FCParam& p, const BackwardArgs& a) {
  const FCDims d(p, a.inputs[0].shape);
  const T* dy = a.out_grads[0].ptr<T>();
  auto beta = [](OpReq r) { return r == OpReq::Add ? T(1) : T(0); };
  if (a.req[0] != OpReq::Null)  // dx = dy * weight
    gemm(false, false, d.rows, d.in_units, d.hidden, T(1), dy, d.hidden, a.inputs[1].ptr<T>(), d.in_units,
         beta(a.req[0]), a.in_grads[0].ptr<T>(), d.in_units);
  if (a.req[1] != OpReq::Null)  // dw = dy^T * x
    gemm(true, false, d.hidden, d.in_units, d.rows, T(1), dy, d.hidden, a.inputs[0].ptr<T>(), d.in_units,
         beta(a.req[1]), a.in_grads[1].ptr<T>(), d.in_units);
  if (!p.no_bias && a.req[2] != OpReq::Null) {
    std::vector<T> sum(static_cast<size_t>(d.hidden), T(0));
    for (int64_t i = 0; i < d.rows; ++i)
      for (int64_t j = 0; j < d.hidden; ++j) sum[static_cast<size_t>(j)] += dy[i * d.hidden + j];
    T* db = a.in_grads[2].ptr<T>();
    for (int64_t j = 0; j < d.hidden; ++j) assign(db[j], a.req[2], sum[static_cast<size_t>(j)]);
  }
}

}  // namespace

void add_fully_connected(Registry& r) {
  OpDef d;
  d.name = "FullyConnected";
  d.doc =
      "y = x * weight^T + bias with weight (num_hidden, in_units); flatten=True treats all "
      "but the first axis of x as features, flatten=False only the last.";
  d.parse = parse_fc;
  d.list_arguments = [](const std::any& p) {
    return param<FCParam>(p).no_bias ? std::vector<std::string>{"data", "weight"}
                                     : std::vector<std::string>{"data", "weight", "bias"};
  };
  d.infer_shape = [](const std::any& p, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    return infer_fc(param<FCParam>(p), in, out);
  };
  d.cpu.forward = [](const OpContext&, const std::any& p, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "FullyConnected", { fc_forward<T>(param<FCParam>(p), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& p, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "FullyConnected", { fc_backward<T>(param<FCParam>(p), a); });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };  // x and w, not y
  r.add(std::move(d));
}

}  // namespace braid::op::detail
