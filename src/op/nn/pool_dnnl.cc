// Float32 average and sum pooling on oneDNN, cached per geometry, on plain NC(D)HW or N(D)HWC buffers. Sum
// pooling is the average including padding (a constant divisor in oneDNN) times the window size.
#include "dnnl_util.h"
#include "op/common/req_util.h"
#include "pool_kernels.h"

namespace braid::op::detail {
namespace {

using dnnl::memory;

dnnl::algorithm algorithm(const PoolGeom& g) {
  return g.type == PoolType::Avg && !g.include_pad ? dnnl::algorithm::pooling_avg_exclude_padding
                                                   : dnnl::algorithm::pooling_avg_include_padding;
}

// (a, b, c) as the dims of g's spatial axes: (b, c) for 2-D pooling, (a, b, c) for 3-D.
memory::dims spatial(const PoolGeom& g, int64_t a, int64_t b, int64_t c) {
  return g.volumetric ? memory::dims{a, b, c} : memory::dims{b, c};
}

memory::dims with_batch(const PoolGeom& g, memory::dims space) {
  space.insert(space.begin(), {g.n, g.c});
  return space;
}

DnnlExec make(const PoolGeom& g, bool backward, memory::format_tag tag) {
  using ft = memory::format_tag;
  const auto user = g.channels_last ? (g.volumetric ? ft::ndhwc : ft::nhwc) : (g.volumetric ? ft::ncdhw : ft::nchw);
  const memory::dims xd = with_batch(g, spatial(g, g.id, g.ih, g.iw)), yd = with_batch(g, spatial(g, g.od, g.oh, g.ow));
  auto x = plain_md(xd, user), y = plain_md(yd, user);
  auto x_in = plain_md(xd, tag), y_in = plain_md(yd, tag);
  const memory::dims strides = spatial(g, g.sd, g.sh, g.sw), kernel = spatial(g, g.kd, g.kh, g.kw),
                     pad_l = spatial(g, g.pd, g.ph, g.pw), pad_r = spatial(g, g.pd_r, g.ph_r, g.pw_r);
  dnnl::pooling_forward::primitive_desc fwd(
      {dnnl::prop_kind::forward_training, algorithm(g), x_in, y_in, strides, kernel, pad_l, pad_r}, user_scratchpad(),
      dnnl_engine());
  if (!backward)
    return DnnlExec(dnnl::pooling_forward(fwd),
                    {{DNNL_ARG_SRC, x, fwd.src_desc(), false}, {DNNL_ARG_DST, y, fwd.dst_desc(), true}});
  dnnl::pooling_backward::primitive_desc bwd({algorithm(g), x_in, y_in, strides, kernel, pad_l, pad_r},
                                             user_scratchpad(), dnnl_engine(), fwd);
  return DnnlExec(dnnl::pooling_backward(bwd), {{DNNL_ARG_DIFF_DST, y, bwd.diff_dst_desc(), false},
                                                {DNNL_ARG_DIFF_SRC, x, bwd.diff_src_desc(), true}});
}

// oneDNN pools NCHW with a plain loop nest and blocked layouts with JIT kernels: on LeNet's shapes
// (AVX2 host) nChw8c with its reorders ran 5x faster than NCHW, nChw16c 9x slower than NCHW.
std::shared_ptr<const DnnlExec> primitive(const PoolGeom& g, bool backward) {
  auto key = g.key();
  key.push_back(backward);
  return DnnlCache<DnnlExec>::get().find(std::move(key), [&] {
    using ft = memory::format_tag;
    auto in = [&](ft tag) { return [&, tag] { return make(g, backward, tag); }; };
    if (g.volumetric) return first_supported("Pooling", in(g.channels_last ? ft::ndhwc : ft::ncdhw));
    if (g.channels_last) return first_supported("Pooling", in(ft::nhwc));
    return first_supported("Pooling", in(ft::nChw8c), in(ft::nchw));
  });
}

// Sum pooling: oneDNN's average including padding divides by the window size.
void undo_average(const PoolGeom& g, float* v, int64_t n) {
  if (g.type != PoolType::Sum) return;
  const float size = static_cast<float>(g.kd * g.kh * g.kw);
  for (int64_t i = 0; i < n; ++i) v[i] *= size;
}

}  // namespace

bool dnnl_pool_supported(const PoolGeom& g) {
  if (g.type == PoolType::Max || g.type == PoolType::Lp) return false;
  return !(g.type == PoolType::Avg && g.include_pad && (g.pd_r > g.pd || g.ph_r > g.ph || g.pw_r > g.pw));
}

void dnnl_pool_forward(const PoolGeom& g, const float* x, float* y, OpReq req) {
  write_with_req(y, g.y_size(), req, [&](float* out) {
    primitive(g, false)->run({const_cast<float*>(x), out});
    undo_average(g, out, g.y_size());
  });
}

void dnnl_pool_backward(const PoolGeom& g, const float* dy, float* dx, OpReq req) {
  write_with_req(dx, g.x_size(), req, [&](float* out) {
    primitive(g, true)->run({const_cast<float*>(dy), out});
    undo_average(g, out, g.x_size());
  });
}

}  // namespace braid::op::detail
