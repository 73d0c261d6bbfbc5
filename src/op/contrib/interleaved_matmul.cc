// The attention products of MXNet 1.x's contrib transformer ops, on projections laid out
// (sequence, batch, ...) with the heads interleaved in the last axis:
// - interleaved_matmul_selfatt_qk(qkv, heads): qkv (S, B, 3·H·D), each head's q, k, v side by
//   side; output (B·H, S, S) = q·kᵀ / sqrt(D) per (batch, head).
// - interleaved_matmul_selfatt_valatt(qkv, attention, heads): (S, B, H·D) = attention·v.
// - interleaved_matmul_encdec_qk(queries, keys_values, heads): queries (Sq, B, H·D), keys_values
//   (Sk, B, 2·H·D) with each head's k, v side by side; output (B·H, Sq, Sk).
// - interleaved_matmul_encdec_valatt(keys_values, attention, heads): (Sq, B, H·D).
// Each (batch, head) is one strided matrix product (gemm with leading dimensions).
#include <cmath>

#include "op/common/gemm.h"
#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {
namespace {

struct HeadsParam {
  int64_t heads = 1;
};

/// Where one head's q (or k, v) matrix starts and its row stride, in an interleaved projection
/// (seq, batch, groups·H·D): `slot` 0..groups-1 picks q/k/v (or k/v).
struct Interleaved {
  int64_t seq, batch, heads, dim, groups;
  int64_t ld() const { return batch * groups * heads * dim; }
  int64_t offset(int64_t b, int64_t h, int64_t slot) const {
    return b * groups * heads * dim + (h * groups + slot) * dim;
  }
};

/// A plain projection (seq, batch, H·D).
struct Plain {
  int64_t seq, batch, heads, dim;
  int64_t ld() const { return batch * heads * dim; }
  int64_t offset(int64_t b, int64_t h) const { return b * heads * dim + h * dim; }
};

std::any parse_heads(const AttrMap& attrs, const std::string& op) {
  ParamReader rd(attrs, op);
  HeadsParam p;
  p.heads = rd.get<int64_t>("heads");
  rd.finish();
  BRAID_CHECK(p.heads > 0, "operator ", op, ": heads must be positive; got ", p.heads);
  return std::any(p);
}

/// The per-head size D of a projection whose last axis holds groups·heads·D values.
int64_t head_dim(const Shape& s, int64_t groups, int64_t heads, const std::string& op, const char* what) {
  BRAID_CHECK(s.ndim() == 3 && s[2] % (groups * heads) == 0, "operator ", op, ": ", what, " must be (sequence, batch, ",
              groups, "·heads·head size) with heads=", heads, "; got ", s);
  return s[2] / (groups * heads);
}

/// Runs f(b, h) for every (batch, head).
template <class F>
void for_each_head(int64_t batch, int64_t heads, F f) {
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t h = 0; h < heads; ++h) f(b, h);
}

/// Gradient into `grad` (req): zeros outside what `fill` writes.
template <class T, class F>
void write_grad(const TBlob& grad, OpReq req, F fill) {
  if (req == OpReq::Null) return;
  write_with_req(grad.ptr<T>(), grad.size(), req, [&](T* g) {
    std::fill(g, g + grad.size(), T(0));
    fill(g);
  });
}

OpDef heads_op(const std::string& name, const std::vector<std::string>& arguments) {
  OpDef d;
  d.name = name;
  d.parse = [name](const AttrMap& attrs) { return parse_heads(attrs, name); };
  d.list_arguments = args(arguments);
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  return d;
}

void add_selfatt(Registry& r) {
  OpDef qk = heads_op("_contrib_interleaved_matmul_selfatt_qk", {"queries_keys_values"});
  qk.doc = "Self-attention scores (batch·heads, seq, seq) = q·kᵀ / sqrt(head size) from interleaved q, k, v.";
  qk.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const int64_t heads = param<HeadsParam>(pa).heads;
    if (!in[0].fully_known()) return false;
    head_dim(in[0], 3, heads, "interleaved_matmul_selfatt_qk", "queries_keys_values");
    merge_shape(out[0], Shape({in[0][1] * heads, in[0][0], in[0][0]}), "interleaved_matmul_selfatt_qk", "output");
    return true;
  };
  qk.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const Shape& s = a.inputs[0].shape;
    const int64_t heads = param<HeadsParam>(pa).heads;
    const Interleaved qkv{s[0], s[1], heads, s[2] / (3 * heads), 3};
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "interleaved_matmul_selfatt_qk", {
      const T* in = a.inputs[0].ptr<T>();
      const T scale = static_cast<T>(1 / std::sqrt(static_cast<double>(qkv.dim)));
      write_with_req(a.outputs[0].ptr<T>(), a.outputs[0].size(), a.req[0], [&](T* out) {
        for_each_head(qkv.batch, qkv.heads, [&](int64_t b, int64_t h) {
          gemm<T>(false, true, qkv.seq, qkv.seq, qkv.dim, scale, in + qkv.offset(b, h, 0), qkv.ld(),
                  in + qkv.offset(b, h, 1), qkv.ld(), T(0), out + (b * qkv.heads + h) * qkv.seq * qkv.seq, qkv.seq);
        });
      });
    });
  };
  qk.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const Shape& s = a.inputs[0].shape;
    const int64_t heads = param<HeadsParam>(pa).heads;
    const Interleaved qkv{s[0], s[1], heads, s[2] / (3 * heads), 3};
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "interleaved_matmul_selfatt_qk", {
      const T *in = a.inputs[0].ptr<T>(), *dy = a.out_grads[0].ptr<T>();
      const T scale = static_cast<T>(1 / std::sqrt(static_cast<double>(qkv.dim)));
      write_grad<T>(a.in_grads[0], a.req[0], [&](T* g) {
        for_each_head(qkv.batch, qkv.heads, [&](int64_t b, int64_t h) {
          const T* d = dy + (b * qkv.heads + h) * qkv.seq * qkv.seq;
          gemm<T>(false, false, qkv.seq, qkv.dim, qkv.seq, scale, d, qkv.seq, in + qkv.offset(b, h, 1), qkv.ld(), T(0),
                  g + qkv.offset(b, h, 0), qkv.ld());
          gemm<T>(true, false, qkv.seq, qkv.dim, qkv.seq, scale, d, qkv.seq, in + qkv.offset(b, h, 0), qkv.ld(), T(0),
                  g + qkv.offset(b, h, 1), qkv.ld());
        });
      });
    });
  };
  r.add(std::move(qk));

  OpDef va = heads_op("_contrib_interleaved_matmul_selfatt_valatt", {"queries_keys_values", "attention"});
  va.doc = "Self-attention output (seq, batch, heads·head size) = attention·v from interleaved q, k, v.";
  va.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const int64_t heads = param<HeadsParam>(pa).heads;
    if (!in[0].fully_known()) return false;
    const int64_t dim = head_dim(in[0], 3, heads, "interleaved_matmul_selfatt_valatt", "queries_keys_values");
    merge_shape(in[1], Shape({in[0][1] * heads, in[0][0], in[0][0]}), "interleaved_matmul_selfatt_valatt", "attention");
    merge_shape(out[0], Shape({in[0][0], in[0][1], heads * dim}), "interleaved_matmul_selfatt_valatt", "output");
    return true;
  };
  va.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const Shape& s = a.inputs[0].shape;
    const int64_t heads = param<HeadsParam>(pa).heads;
    const Interleaved qkv{s[0], s[1], heads, s[2] / (3 * heads), 3};
    const Plain o{s[0], s[1], heads, qkv.dim};
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "interleaved_matmul_selfatt_valatt", {
      const T *in = a.inputs[0].ptr<T>(), *att = a.inputs[1].ptr<T>();
      write_with_req(a.outputs[0].ptr<T>(), a.outputs[0].size(), a.req[0], [&](T* out) {
        for_each_head(o.batch, o.heads, [&](int64_t b, int64_t h) {
          gemm<T>(false, false, o.seq, o.dim, o.seq, T(1), att + (b * o.heads + h) * o.seq * o.seq, o.seq,
                  in + qkv.offset(b, h, 2), qkv.ld(), T(0), out + o.offset(b, h), o.ld());
        });
      });
    });
  };
  va.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const Shape& s = a.inputs[0].shape;
    const int64_t heads = param<HeadsParam>(pa).heads;
    const Interleaved qkv{s[0], s[1], heads, s[2] / (3 * heads), 3};
    const Plain o{s[0], s[1], heads, qkv.dim};
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "interleaved_matmul_selfatt_valatt", {
      const T *in = a.inputs[0].ptr<T>(), *att = a.inputs[1].ptr<T>(), *dy = a.out_grads[0].ptr<T>();
      write_grad<T>(a.in_grads[0], a.req[0], [&](T* g) {
        for_each_head(o.batch, o.heads, [&](int64_t b, int64_t h) {
          gemm<T>(true, false, o.seq, o.dim, o.seq, T(1), att + (b * o.heads + h) * o.seq * o.seq, o.seq,
                  dy + o.offset(b, h), o.ld(), T(0), g + qkv.offset(b, h, 2), qkv.ld());
        });
      });
      write_grad<T>(a.in_grads[1], a.req[1], [&](T* g) {
        for_each_head(o.batch, o.heads, [&](int64_t b, int64_t h) {
          gemm<T>(false, true, o.seq, o.seq, o.dim, T(1), dy + o.offset(b, h), o.ld(), in + qkv.offset(b, h, 2),
                  qkv.ld(), T(0), g + (b * o.heads + h) * o.seq * o.seq, o.seq);
        });
      });
    });
  };
  r.add(std::move(va));
}

void add_encdec(Registry& r) {
  OpDef qk = heads_op("_contrib_interleaved_matmul_encdec_qk", {"queries", "keys_values"});
  qk.doc =
      "Encoder-decoder attention scores (batch·heads, query seq, key seq) = q·kᵀ / sqrt(head size), keys and "
      "values interleaved per head.";
  qk.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const int64_t heads = param<HeadsParam>(pa).heads;
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    const int64_t dq = head_dim(in[0], 1, heads, "interleaved_matmul_encdec_qk", "queries");
    const int64_t dk = head_dim(in[1], 2, heads, "interleaved_matmul_encdec_qk", "keys_values");
    BRAID_CHECK(dq == dk && in[0][1] == in[1][1], "operator interleaved_matmul_encdec_qk: queries ", in[0],
                " and keys_values ", in[1], " differ in batch or head size");
    merge_shape(out[0], Shape({in[0][1] * heads, in[0][0], in[1][0]}), "interleaved_matmul_encdec_qk", "output");
    return true;
  };
  qk.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const int64_t heads = param<HeadsParam>(pa).heads;
    const Shape &sq = a.inputs[0].shape, &sk = a.inputs[1].shape;
    const Plain q{sq[0], sq[1], heads, sq[2] / heads};
    const Interleaved kv{sk[0], sk[1], heads, q.dim, 2};
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "interleaved_matmul_encdec_qk", {
      const T *qp = a.inputs[0].ptr<T>(), *kvp = a.inputs[1].ptr<T>();
      const T scale = static_cast<T>(1 / std::sqrt(static_cast<double>(q.dim)));
      write_with_req(a.outputs[0].ptr<T>(), a.outputs[0].size(), a.req[0], [&](T* out) {
        for_each_head(q.batch, q.heads, [&](int64_t b, int64_t h) {
          gemm<T>(false, true, q.seq, kv.seq, q.dim, scale, qp + q.offset(b, h), q.ld(), kvp + kv.offset(b, h, 0),
                  kv.ld(), T(0), out + (b * q.heads + h) * q.seq * kv.seq, kv.seq);
        });
      });
    });
  };
  qk.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const int64_t heads = param<HeadsParam>(pa).heads;
    const Shape &sq = a.inputs[0].shape, &sk = a.inputs[1].shape;
    const Plain q{sq[0], sq[1], heads, sq[2] / heads};
    const Interleaved kv{sk[0], sk[1], heads, q.dim, 2};
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "interleaved_matmul_encdec_qk", {
      const T *qp = a.inputs[0].ptr<T>(), *kvp = a.inputs[1].ptr<T>(), *dy = a.out_grads[0].ptr<T>();
      const T scale = static_cast<T>(1 / std::sqrt(static_cast<double>(q.dim)));
      write_grad<T>(a.in_grads[0], a.req[0], [&](T* g) {
        for_each_head(q.batch, q.heads, [&](int64_t b, int64_t h) {
          gemm<T>(false, false, q.seq, q.dim, kv.seq, scale, dy + (b * q.heads + h) * q.seq * kv.seq, kv.seq,
                  kvp + kv.offset(b, h, 0), kv.ld(), T(0), g + q.offset(b, h), q.ld());
        });
      });
      write_grad<T>(a.in_grads[1], a.req[1], [&](T* g) {
        for_each_head(q.batch, q.heads, [&](int64_t b, int64_t h) {
          gemm<T>(true, false, kv.seq, q.dim, q.seq, scale, dy + (b * q.heads + h) * q.seq * kv.seq, kv.seq,
                  qp + q.offset(b, h), q.ld(), T(0), g + kv.offset(b, h, 0), kv.ld());
        });
      });
    });
  };
  r.add(std::move(qk));

  OpDef va = heads_op("_contrib_interleaved_matmul_encdec_valatt", {"keys_values", "attention"});
  va.doc =
      "Encoder-decoder attention output (query seq, batch, heads·head size) = attention·v, keys and values "
      "interleaved per head.";
  va.infer_shape = [](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
    const int64_t heads = param<HeadsParam>(pa).heads;
    if (!in[0].fully_known() || !in[1].fully_known()) return false;
    const int64_t dim = head_dim(in[0], 2, heads, "interleaved_matmul_encdec_valatt", "keys_values");
    BRAID_CHECK(in[1].ndim() == 3 && in[1][0] == in[0][1] * heads && in[1][2] == in[0][0],
                "operator interleaved_matmul_encdec_valatt: attention must be (batch·heads, query seq, key seq) = (",
                in[0][1] * heads, ", ?, ", in[0][0], "); got ", in[1]);
    merge_shape(out[0], Shape({in[1][1], in[0][1], heads * dim}), "interleaved_matmul_encdec_valatt", "output");
    return true;
  };
  va.cpu.forward = [](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const int64_t heads = param<HeadsParam>(pa).heads;
    const Shape &sk = a.inputs[0].shape, &sa = a.inputs[1].shape;
    const Interleaved kv{sk[0], sk[1], heads, sk[2] / (2 * heads), 2};
    const Plain o{sa[1], sk[1], heads, kv.dim};
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "interleaved_matmul_encdec_valatt", {
      const T *kvp = a.inputs[0].ptr<T>(), *att = a.inputs[1].ptr<T>();
      write_with_req(a.outputs[0].ptr<T>(), a.outputs[0].size(), a.req[0], [&](T* out) {
        for_each_head(o.batch, o.heads, [&](int64_t b, int64_t h) {
          gemm<T>(false, false, o.seq, o.dim, kv.seq, T(1), att + (b * o.heads + h) * o.seq * kv.seq, kv.seq,
                  kvp + kv.offset(b, h, 1), kv.ld(), T(0), out + o.offset(b, h), o.ld());
        });
      });
    });
  };
  va.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const int64_t heads = param<HeadsParam>(pa).heads;
    const Shape &sk = a.inputs[0].shape, &sa = a.inputs[1].shape;
    const Interleaved kv{sk[0], sk[1], heads, sk[2] / (2 * heads), 2};
    const Plain o{sa[1], sk[1], heads, kv.dim};
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "interleaved_matmul_encdec_valatt", {
      const T *kvp = a.inputs[0].ptr<T>(), *att = a.inputs[1].ptr<T>(), *dy = a.out_grads[0].ptr<T>();
      write_grad<T>(a.in_grads[0], a.req[0], [&](T* g) {
        for_each_head(o.batch, o.heads, [&](int64_t b, int64_t h) {
          gemm<T>(true, false, kv.seq, o.dim, o.seq, T(1), att + (b * o.heads + h) * o.seq * kv.seq, kv.seq,
                  dy + o.offset(b, h), o.ld(), T(0), g + kv.offset(b, h, 1), kv.ld());
        });
      });
      write_grad<T>(a.in_grads[1], a.req[1], [&](T* g) {
        for_each_head(o.batch, o.heads, [&](int64_t b, int64_t h) {
          gemm<T>(false, true, o.seq, kv.seq, o.dim, T(1), dy + o.offset(b, h), o.ld(), kvp + kv.offset(b, h, 1),
                  kv.ld(), T(0), g + (b * o.heads + h) * o.seq * kv.seq, kv.seq);
        });
      });
    });
  };
  r.add(std::move(va));
}

}  // namespace

void register_interleaved_matmul_ops(Registry& r) {
  add_selfatt(r);
  add_encdec(r);
}

}  // namespace braid::op::detail
