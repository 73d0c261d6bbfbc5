// Embedding (MXNet 1.x): looks up rows of weight (input_dim, output_dim) by the indices in data;
// out has shape data.shape + (output_dim,). Indices are clipped to [0, input_dim - 1] as MXNet's
// kernel does. The weight's gradient accumulates the output gradient rows per index; the indices
// get none.
#include <algorithm>

#include "embedding.h"
#include "nn_util.h"

namespace braid::op::detail {
namespace {

std::any parse_embedding(const AttrMap& attrs) {
  ParamReader rd(attrs, "Embedding");
  EmbeddingParam p;
  p.input_dim = rd.get<int64_t>("input_dim");
  p.output_dim = rd.get<int64_t>("output_dim");
  p.dtype = dtype_from_name(rd.get<std::string>("dtype", "float32"));
  rd.get<bool>("sparse_grad", false);  // the gradient's storage is the weight's grad buffer's
  rd.finish();
  BRAID_CHECK(p.input_dim >= 1 && p.output_dim >= 1,
              "operator Embedding: input_dim and output_dim must be "
              "at least 1, got ",
              p.input_dim, " and ", p.output_dim);
  return p;
}

bool infer_embedding_shape(const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
  const auto& p = param<EmbeddingParam>(pa);
  merge_shape(in[1], Shape({p.input_dim, p.output_dim}), "Embedding", "weight (input_dim, output_dim)");
  if (!in[0].known() && out[0].known() && out[0].ndim() >= 1)
    in[0] = Shape(out[0].dims().begin(), out[0].dims().end() - 1);
  if (!in[0].known()) return false;
  std::vector<int64_t> o = in[0].dims();
  o.push_back(p.output_dim);
  merge_shape(out[0], Shape(o), "Embedding", "output");
  return in[0].fully_known() || in[0].size() == 0;
}

void infer_embedding_type(const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
  // The weight's dtype wins over the attribute, as MXNet; the indices keep their own.
  DType t = in[1] != kDTypeUnknown ? in[1] : out[0] != kDTypeUnknown ? out[0] : param<EmbeddingParam>(pa).dtype;
  BRAID_CHECK(out[0] == kDTypeUnknown || out[0] == t, "operator Embedding: output dtype ", dtype_name(out[0]),
              " differs from the weight's ", dtype_name(t));
  in[1] = out[0] = t;
  if (in[0] == kDTypeUnknown) in[0] = DType::Float32;
}

// Row of the weight for every index, clipped into [0, rows).
std::vector<int64_t> rows_of(const TBlob& data, int64_t rows) {
  std::vector<int64_t> r(static_cast<size_t>(data.size()));
  BRAID_TYPE_SWITCH(data.dtype, I, "Embedding indices", {
    const I* d = data.ptr<I>();
    for (size_t i = 0; i < r.size(); ++i) r[i] = std::clamp<int64_t>(static_cast<int64_t>(d[i]), 0, rows - 1);
  });
  return r;
}

void embedding_forward(const OpContext&, const std::any& pa, const ForwardArgs& a) {
  const auto& p = param<EmbeddingParam>(pa);
  const std::vector<int64_t> rows = rows_of(a.inputs[0], p.input_dim);
  const int64_t dim = p.output_dim;
  BRAID_REAL_TYPE_SWITCH(a.inputs[1].dtype, T, "Embedding", {
    const T* w = a.inputs[1].ptr<T>();
    T* y = a.outputs[0].ptr<T>();
    for (size_t i = 0; i < rows.size(); ++i) {
      const T* src = w + rows[i] * dim;
      write_each(y + static_cast<int64_t>(i) * dim, a.req[0], dim, [src](int64_t j) { return src[j]; });
    }
  });
}

void embedding_backward(const OpContext&, const std::any& pa, const BackwardArgs& a) {
  const auto& p = param<EmbeddingParam>(pa);
  zero_grad(a.in_grads[0], a.req[0]);
  if (a.req[1] == OpReq::Null) return;
  const std::vector<int64_t> rows = rows_of(a.inputs[0], p.input_dim);
  const int64_t dim = p.output_dim;
  BRAID_REAL_TYPE_SWITCH(a.inputs[1].dtype, T, "Embedding", {
    const T* g = a.out_grads[0].ptr<T>();
    T* dw = a.in_grads[1].ptr<T>();
    if (a.req[1] == OpReq::Write) std::fill(dw, dw + a.in_grads[1].size(), T(0));
    for (size_t i = 0; i < rows.size(); ++i) {
      const T* src = g + static_cast<int64_t>(i) * dim;
      T* dst = dw + rows[i] * dim;
      for (int64_t j = 0; j < dim; ++j) dst[j] += src[j];
    }
  });
}

}  // namespace

void register_embedding_ops(Registry& r) {
  OpDef d;
  d.name = "Embedding";
  d.doc = "Looks up rows of weight (input_dim, output_dim) by index; out is data.shape + (output_dim,).";
  d.parse = parse_embedding;
  d.list_arguments = args({"data", "weight"});
  d.infer_shape = infer_embedding_shape;
  d.infer_type = infer_embedding_type;
  d.cpu.forward = embedding_forward;
  d.cpu.backward = embedding_backward;
  r.add(std::move(d));
}

}  // namespace braid::op::detail
