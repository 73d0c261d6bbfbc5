#include "eltwise_softmax_dnnl.h"

#include <bit>
#include <memory>
#include <unordered_map>

#include "dnnl_util.h"

namespace braid::op::detail {
namespace {

using Tag = dnnl::memory::format_tag;
using DT = dnnl::memory::data_type;

struct Primitives {
  dnnl::memory::desc md;
  dnnl::primitive fwd, bwd;  // bwd empty where the loops are faster (softmax)
};

// The primitives of `key`, built by `make` on first use and kept in the bounded primitive cache.
template <class Make>
std::shared_ptr<const Primitives> cached(DnnlCache<Primitives>::Key key, const char* what, Make make) {
  return DnnlCache<Primitives>::get().find(std::move(key), [&] {
    try {
      return make();
    } catch (const dnnl::error& e) {
      throw Error(cat("oneDNN could not create the ", what, " primitive: ", e.what()));
    }
  });
}

bool uses_dst(dnnl::algorithm alg) {
  using A = dnnl::algorithm;
  return alg == A::eltwise_relu_use_dst_for_bwd || alg == A::eltwise_tanh_use_dst_for_bwd ||
         alg == A::eltwise_elu_use_dst_for_bwd || alg == A::eltwise_sqrt_use_dst_for_bwd ||
         alg == A::eltwise_logistic_use_dst_for_bwd || alg == A::eltwise_exp_use_dst_for_bwd ||
         alg == A::eltwise_clip_v2_use_dst_for_bwd;
}

std::shared_ptr<const Primitives> eltwise(const DnnlEltwise& f, int64_t n) {
  const DnnlCache<Primitives>::Key key{static_cast<int64_t>(f.alg), std::bit_cast<uint32_t>(f.alpha),
                                       std::bit_cast<uint32_t>(f.beta), n};
  return cached(key, "eltwise", [&] {
    dnnl::memory::desc md({n}, DT::f32, Tag::a);
    dnnl::eltwise_forward::primitive_desc fpd({dnnl::prop_kind::forward_training, f.alg, md, f.alpha, f.beta},
                                              user_scratchpad(), dnnl_engine());
    dnnl::eltwise_backward::primitive_desc bpd({f.alg, md, md, f.alpha, f.beta}, user_scratchpad(), dnnl_engine(), fpd);
    return Primitives{md, dnnl::eltwise_forward(fpd), dnnl::eltwise_backward(bpd)};
  });
}

std::shared_ptr<const Primitives> softmax(bool log, const AxisSplit& s) {
  // Negative tags keep softmax keys apart from eltwise keys (algorithm codes are positive).
  const DnnlCache<Primitives>::Key key{log ? -2 : -1, s.outer, s.n};
  return cached(key, "softmax", [&] {
    dnnl::memory::desc md({s.outer, s.n}, DT::f32, Tag::ab);
    const auto alg = log ? dnnl::algorithm::softmax_log : dnnl::algorithm::softmax_accurate;
    dnnl::softmax_v2_forward::primitive_desc fpd({dnnl::prop_kind::forward_inference, alg, md, md, 1},
                                                 user_scratchpad(), dnnl_engine());
    return Primitives{md, dnnl::softmax_v2_forward(fpd), {}};
  });
}

dnnl::memory mem(const Primitives& p, const float* data) {
  return {p.md, dnnl_engine(), const_cast<float*>(data)};  // oneDNN only reads the sources
}

void run(const dnnl::primitive& prim, std::unordered_map<int, dnnl::memory> args) {
  execute(prim, args);
  dnnl_stream().wait();
}

}  // namespace

void dnnl_eltwise_forward(const DnnlEltwise& f, const float* x, float* y, int64_t n) {
  if (n == 0) return;
  auto p = eltwise(f, n);
  run(p->fwd, {{DNNL_ARG_SRC, mem(*p, x)}, {DNNL_ARG_DST, mem(*p, y)}});
}

void dnnl_eltwise_backward(const DnnlEltwise& f, const float* x, const float* y, const float* dy, float* dx,
                           int64_t n) {
  if (n == 0) return;
  auto p = eltwise(f, n);
  const bool dst = uses_dst(f.alg);
  run(p->bwd, {{dst ? DNNL_ARG_DST : DNNL_ARG_SRC, mem(*p, dst ? y : x)},
               {DNNL_ARG_DIFF_DST, mem(*p, dy)},
               {DNNL_ARG_DIFF_SRC, mem(*p, dx)}});
}

void dnnl_softmax_forward(bool log, const float* x, float* y, const AxisSplit& s) {
  BRAID_CHECK(s.inner == 1, "dnnl_softmax_forward: the axis must be the last one");
  if (s.outer * s.n == 0) return;
  auto p = softmax(log, s);
  run(p->fwd, {{DNNL_ARG_SRC, mem(*p, x)}, {DNNL_ARG_DST, mem(*p, y)}});
}

}  // namespace braid::op::detail
