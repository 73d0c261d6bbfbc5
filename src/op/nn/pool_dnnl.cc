// The float32 pooling on oneDNN, cached per geometry, on plain NCHW buffers. Max pooling keeps
// oneDNN's workspace (the argmax) in the op's hidden mask output; sum pooling is the average
// including padding (a constant divisor in oneDNN) times the window size.
#include "dnnl_util.h"
#include "pool_kernels.h"
#include "req_util.h"

namespace braid::op::detail {
namespace {

using dnnl::memory;

dnnl::algorithm algorithm(const PoolGeom& g) {
  if (g.type == PoolType::Max) return dnnl::algorithm::pooling_max;
  if (g.type == PoolType::Avg && !g.include_pad) return dnnl::algorithm::pooling_avg_exclude_padding;
  return dnnl::algorithm::pooling_avg_include_padding;
}

dnnl::pooling_forward::primitive_desc forward_pd(const PoolGeom& g, const memory::desc& x,
                                                 const memory::desc& y) {
  dnnl::pooling_forward::desc d(dnnl::prop_kind::forward_training, algorithm(g), x, y, {g.sh, g.sw},
                                {g.kh, g.kw}, {g.ph, g.pw}, {g.ph_r, g.pw_r});
  return {d, dnnl_engine()};
}

std::shared_ptr<const DnnlExec> primitive(const PoolGeom& g, bool backward) {
  auto key = g.key();
  key.push_back(backward);
  return DnnlCache::get().find(key, [&] {
    auto x = plain_md({g.n, g.c, g.ih, g.iw}, memory::format_tag::nchw);
    auto y = plain_md({g.n, g.c, g.oh, g.ow}, memory::format_tag::nchw);
    auto fwd = forward_pd(g, x, y);
    auto ws = fwd.workspace_desc();
    BRAID_CHECK(ws.get_size() <= static_cast<size_t>(g.y_size()) * sizeof(float),
                "Pooling: oneDNN's max-pooling workspace (", ws.get_size(),
                " bytes) does not fit the mask output");
    if (!backward)
      return DnnlExec(dnnl::pooling_forward(fwd), {{DNNL_ARG_SRC, x, fwd.src_desc(), false},
                                                   {DNNL_ARG_DST, y, fwd.dst_desc(), true}}, ws);
    dnnl::pooling_backward::desc bd(algorithm(g), x, y, {g.sh, g.sw}, {g.kh, g.kw}, {g.ph, g.pw},
                                    {g.ph_r, g.pw_r});
    dnnl::pooling_backward::primitive_desc pd(bd, dnnl_engine(), fwd);
    return DnnlExec(dnnl::pooling_backward(pd), {{DNNL_ARG_DIFF_DST, y, pd.diff_dst_desc(), false},
                                                 {DNNL_ARG_DIFF_SRC, x, pd.diff_src_desc(), true}}, ws);
  });
}

void scale(float* v, int64_t n, float s) {
  for (int64_t i = 0; i < n; ++i) v[i] *= s;
}

}  // namespace

bool dnnl_pool_supported(const PoolGeom& g) {
  return !(g.type == PoolType::Avg && g.include_pad && (g.ph_r > g.ph || g.pw_r > g.pw));
}

void dnnl_pool_forward(const PoolGeom& g, const float* x, float* y, float* mask, OpReq req) {
  write_with_req(y, g.y_size(), req, [&](float* out) {
    primitive(g, false)->run({const_cast<float*>(x), out}, mask);
    if (g.type == PoolType::Sum) scale(out, g.y_size(), static_cast<float>(g.kh * g.kw));
  });
}

void dnnl_pool_backward(const PoolGeom& g, const float* dy, const float* mask, float* dx, OpReq req) {
  write_with_req(dx, g.x_size(), req, [&](float* out) {
    primitive(g, true)->run({const_cast<float*>(dy), out}, const_cast<float*>(mask));
    if (g.type == PoolType::Sum) scale(out, g.x_size(), static_cast<float>(g.kh * g.kw));
  });
}

}  // namespace braid::op::detail
