// SequenceMask, SequenceReverse and SequenceLast: operators on padded batches of sequences laid out
// (time, batch, ...) (axis 0) or (batch, time, ...) (axis 1), each sequence's length given by
// `sequence_length` (one value per batch entry) when use_sequence_length, else the full time axis.
#include <algorithm>

#include "nn_util.h"
#include "op/tensor/strided_copy.h"

namespace braid::op::detail {
namespace {

struct SequenceParam {
  bool use_length = false;
  int axis = 0;
  double value = 0;  // SequenceMask's fill
};

// The layout of `data`: element (t, n, k) at ((t · batch + n) · inner + k) for axis 0, else at
// ((n · steps + t) · inner + k).
struct SequenceLayout {
  int64_t steps, batch, inner;
  int axis;
  SequenceLayout(const Shape& s, int axis)
      : steps(s[axis]), batch(s[1 - axis]), inner(s.size() / std::max<int64_t>(s[0] * s[1], 1)), axis(axis) {}
  int64_t at(int64_t t, int64_t n) const { return (axis == 0 ? t * batch + n : n * steps + t) * inner; }
};

std::any parse_sequence(const AttrMap& attrs, const std::string& op, bool has_value, bool time_major_only) {
  ParamReader rd(attrs, op);
  SequenceParam p;
  p.use_length = rd.get<bool>("use_sequence_length", false);
  p.axis = rd.get<int>("axis", 0);
  if (has_value) p.value = rd.get<double>("value", 0.0);
  rd.finish();
  BRAID_CHECK(p.axis == 0 || (p.axis == 1 && !time_major_only), "operator ", op, ": axis must be 0 (time first)",
              time_major_only ? "" : " or 1 (batch first)", "; got ", p.axis);
  return p;
}

// Each batch entry's length: sequence_length's values (any dtype), or the full time axis.
std::vector<int64_t> sequence_lengths(const SequenceParam& p, const std::vector<TBlob>& inputs, const SequenceLayout& l,
                                      const std::string& op) {
  std::vector<int64_t> len(static_cast<size_t>(l.batch), l.steps);
  if (!p.use_length) return len;
  BRAID_TYPE_SWITCH(inputs[1].dtype, T, op.c_str(), {
    const T* v = inputs[1].ptr<T>();
    for (int64_t n = 0; n < l.batch; ++n) {
      const auto k = static_cast<int64_t>(v[n]);
      BRAID_CHECK(k >= 0 && k <= l.steps, "operator ", op, ": sequence_length[", n, "] = ", static_cast<double>(v[n]),
                  " is outside [0, ", l.steps, "]");
      len[static_cast<size_t>(n)] = k;
    }
  });
  return len;
}

bool infer_sequence(const SequenceParam& p, bool last, const std::string& op, std::vector<Shape>& in,
                    std::vector<Shape>& out) {
  if (!in[0].fully_known()) return false;
  const Shape& s = in[0];
  BRAID_CHECK(s.ndim() >= 2, "operator ", op, ": data must have a time and a batch axis; got shape ", s);
  if (p.use_length) merge_shape(in[1], Shape({s[1 - p.axis]}), op, "sequence_length");
  Shape o = s;
  if (last) {  // the time axis goes
    std::vector<int64_t> dims = s.dims();
    dims.erase(dims.begin() + p.axis);
    o = Shape(dims);
  }
  merge_shape(out[0], o, op, "output");
  return !p.use_length || in[1].fully_known();
}

enum class SequenceKind { kMask, kReverse, kLast };

// Calls f(to, from) for every element pair: output element `to` takes data element `from`
// (kMask: steps within the length; the rest is filled separately).
template <class F>
void for_each_pair(SequenceKind kind, const SequenceLayout& l, const std::vector<int64_t>& len, F f) {
  for (int64_t n = 0; n < l.batch; ++n) {
    const int64_t ln = len[static_cast<size_t>(n)];
    if (kind == SequenceKind::kLast) {
      if (ln > 0)
        for (int64_t k = 0; k < l.inner; ++k) f(n * l.inner + k, l.at(ln - 1, n) + k);
      continue;
    }
    for (int64_t t = 0; t < l.steps; ++t) {
      const int64_t from = kind == SequenceKind::kReverse && t < ln ? ln - 1 - t : t;
      if (kind == SequenceKind::kMask && t >= ln) continue;
      for (int64_t k = 0; k < l.inner; ++k) f(l.at(t, n) + k, l.at(from, n) + k);
    }
  }
}

void add_sequence_op(Registry& r, const std::string& name, SequenceKind kind, const std::string& doc) {
  OpDef d;
  d.name = name;
  d.doc = doc;
  d.parse = [name, kind](const AttrMap& attrs) {
    return parse_sequence(attrs, name, kind == SequenceKind::kMask, kind == SequenceKind::kReverse);
  };
  d.list_arguments = [](const std::any& pa) {
    return param<SequenceParam>(pa).use_length ? std::vector<std::string>{"data", "sequence_length"}
                                               : std::vector<std::string>{"data"};
  };
  d.infer_shape = [name, kind](const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out,
                               std::vector<Shape>&) {
    return infer_sequence(param<SequenceParam>(pa), kind == SequenceKind::kLast, name, in, out);
  };
  d.infer_type = [](const std::any&, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
    if (out[0] == kDTypeUnknown) out[0] = in[0];
    if (in.size() > 1 && in[1] == kDTypeUnknown) in[1] = in[0];  // lengths: any dtype, the data's by default
  };
  d.cpu.forward = [name, kind](const OpContext&, const std::any& pa, const ForwardArgs& a) {
    const auto& p = param<SequenceParam>(pa);
    const SequenceLayout l(a.inputs[0].shape, p.axis);
    const std::vector<int64_t> len = sequence_lengths(p, a.inputs, l, name);
    BRAID_TYPE_SWITCH(a.inputs[0].dtype, T, name.c_str(), {
      const T* x = a.inputs[0].ptr<T>();
      T* y = a.outputs[0].ptr<T>();
      std::vector<T> out(static_cast<size_t>(a.outputs[0].size()), static_cast<T>(p.value));
      for_each_pair(kind, l, len, [&](int64_t to, int64_t from) { out[static_cast<size_t>(to)] = x[from]; });
      for (int64_t i = 0; i < a.outputs[0].size(); ++i) assign(y[i], a.req[0], out[static_cast<size_t>(i)]);
    });
  };
  // The gradient goes back to the element each output came from (nothing to masked steps or
  // the lengths).
  d.cpu.backward = [name, kind](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    const auto& p = param<SequenceParam>(pa);
    if (a.req.size() > 1 && a.req[1] == OpReq::Write) fill_zero(a.in_grads[1]);
    if (a.req[0] == OpReq::Null) return;
    const SequenceLayout l(a.in_grads[0].shape, p.axis);
    const std::vector<int64_t> len = sequence_lengths(p, a.inputs, l, name);
    BRAID_REAL_TYPE_SWITCH(a.in_grads[0].dtype, T, name.c_str(), {
      const T* g = a.out_grads[0].ptr<T>();
      T* dx = a.in_grads[0].ptr<T>();
      std::vector<T> d(static_cast<size_t>(a.in_grads[0].size()), T(0));
      for_each_pair(kind, l, len, [&](int64_t to, int64_t from) { d[static_cast<size_t>(from)] += g[to]; });
      for (int64_t i = 0; i < a.in_grads[0].size(); ++i) assign(dx[i], a.req[0], d[static_cast<size_t>(i)]);
    });
  };
  d.backward_reads = [](const std::any&) { return BackwardReads{true, false}; };
  r.add(std::move(d));
}

}  // namespace

void register_sequence_ops(Registry& r) {
  add_sequence_op(r, "SequenceMask", SequenceKind::kMask,
                  "Sets the steps past each sequence's length to `value` (axis: 0 time-major, 1 batch-major).");
  add_sequence_op(r, "SequenceReverse", SequenceKind::kReverse,
                  "Reverses each sequence's first `length` steps, time-major; the padding stays in place.");
  add_sequence_op(r, "SequenceLast", SequenceKind::kLast, "Each sequence's last step (at its length - 1).");
}

}  // namespace braid::op::detail
