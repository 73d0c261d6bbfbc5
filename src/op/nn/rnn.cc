// RNN (MXNet 1.x's fused recurrent operator): stacked, optionally bidirectional LSTM, GRU or
// plain tanh/relu RNN layers over a time-major sequence (T, N, input), with MXNet's packed
// weight vector (rnn_layout.h), dropout between layers, the final states as optional outputs,
// variable sequence lengths, LSTM state clipping and LSTM projections (projection_size). Computed in rnn_compute.cc; a
// hidden output keeps what backward needs.
#include <limits>

#include "nn_util.h"
#include "rnn_compute.h"

namespace braid::op::detail {
namespace {

std::any parse_rnn(const AttrMap& attrs) {
  ParamReader rd(attrs, "RNN");
  RnnParam p;
  p.state_size = rd.get<int64_t>("state_size");
  p.num_layers = rd.get<int64_t>("num_layers");
  const std::string mode = rd.get_enum("mode", {"rnn_relu", "rnn_tanh", "lstm", "gru"}, "");
  p.mode = mode == "rnn_relu"   ? RnnMode::kRnnRelu
           : mode == "rnn_tanh" ? RnnMode::kRnnTanh
           : mode == "lstm"     ? RnnMode::kLstm
                                : RnnMode::kGru;
  p.bidirectional = rd.get<bool>("bidirectional", false);
  p.state_outputs = rd.get<bool>("state_outputs", false);
  p.p = rd.get<double>("p", 0.0);
  p.use_sequence_length = rd.get<bool>("use_sequence_length", false);
  const std::optional<int64_t> projection = rd.get_optional<int64_t>("projection_size");
  p.clip_min = rd.get_optional<double>("lstm_state_clip_min");
  p.clip_max = rd.get_optional<double>("lstm_state_clip_max");
  p.clip_nan = rd.get<bool>("lstm_state_clip_nan", false);
  rd.finish();
  BRAID_CHECK(mode != "", "operator RNN: attribute 'mode' is required (rnn_relu, rnn_tanh, lstm or gru)");
  BRAID_CHECK(p.state_size > 0, "operator RNN: state_size must be positive; got ", p.state_size);
  BRAID_CHECK(p.num_layers > 0, "operator RNN: num_layers must be positive; got ", p.num_layers);
  BRAID_CHECK(p.p >= 0 && p.p < 1, "operator RNN: the dropout rate p must be in [0, 1); got ", p.p);
  if (projection) {
    BRAID_CHECK(p.mode == RnnMode::kLstm, "operator RNN: projection_size is for LSTM only");
    BRAID_CHECK(*projection > 0, "operator RNN: projection_size must be positive; got ", *projection);
    p.projection = *projection;
  }
  BRAID_CHECK(p.clip_min.has_value() == p.clip_max.has_value(),
              "operator RNN: lstm_state_clip_min and lstm_state_clip_max go together; give both or neither");
  if (p.clip_min) {
    BRAID_CHECK(p.mode == RnnMode::kLstm, "operator RNN: state clipping (lstm_state_clip_min/max) is for LSTM only");
    BRAID_CHECK(*p.clip_max >= *p.clip_min, "operator RNN: lstm_state_clip_max (", *p.clip_max,
                ") must not be less than lstm_state_clip_min (", *p.clip_min, ")");
  }
  return p;
}

std::vector<std::string> rnn_arguments(const std::any& pa) {
  const auto& p = param<RnnParam>(pa);
  std::vector<std::string> names{"data", "parameters", "state"};
  if (p.has_cell()) names.emplace_back("state_cell");
  if (p.use_sequence_length) names.emplace_back("sequence_length");
  return names;
}

int rnn_visible_outputs(const RnnParam& p) { return p.state_outputs ? (p.has_cell() ? 3 : 2) : 1; }

bool infer_rnn_shape(const std::any& pa, std::vector<Shape>& in, std::vector<Shape>& out, std::vector<Shape>&) {
  const auto& p = param<RnnParam>(pa);
  if (!in[0].fully_known()) return false;
  BRAID_CHECK(in[0].ndim() == 3, "operator RNN: data must be (sequence length, batch, input size), time first; got ",
              in[0]);
  const RnnDims m(p, in[0][0], in[0][1], in[0][2]);
  merge_shape(in[1], Shape({m.param_size()}), "RNN", "parameters");
  const Shape state({m.L * m.D, m.N, m.R}), cell({m.L * m.D, m.N, m.H});  // R: P with a projection, else H
  merge_shape(in[2], state, "RNN", "state");
  size_t next = 3;
  if (p.has_cell()) merge_shape(in[next++], cell, "RNN", "state_cell");
  if (p.use_sequence_length) merge_shape(in[next], Shape({m.N}), "RNN", "sequence_length");
  merge_shape(out[0], Shape({m.T, m.N, m.D * m.R}), "RNN", "output");
  const int visible = rnn_visible_outputs(p);
  if (visible > 1) merge_shape(out[1], state, "RNN", "state output");
  if (visible > 2) merge_shape(out[2], cell, "RNN", "cell state output");
  merge_shape(out.back(), Shape({m.reserve_size()}), "RNN", "saved state");
  return true;
}

void infer_rnn_type(const std::any& pa, std::vector<DType>& in, std::vector<DType>& out, std::vector<DType>&) {
  const auto& p = param<RnnParam>(pa);
  const size_t lengths = p.use_sequence_length ? in.size() - 1 : in.size();
  DType t = kDTypeUnknown;
  for (size_t i = 0; i < lengths && t == kDTypeUnknown; ++i) t = in[i];
  for (size_t i = 0; i < out.size() && t == kDTypeUnknown; ++i) t = out[i];
  if (t == kDTypeUnknown) return;
  for (size_t i = 0; i < lengths; ++i) {
    if (in[i] == kDTypeUnknown) in[i] = t;
    BRAID_CHECK(in[i] == t, "operator RNN: every input but sequence_length has the data's dtype ", dtype_name(t),
                "; input ", i, " is ", dtype_name(in[i]));
  }
  if (p.use_sequence_length && in.back() == kDTypeUnknown) in.back() = DType::Int32;
  for (auto& o : out)
    if (o == kDTypeUnknown) o = t;
}

/// The T·N "inside its sequence" flags from the sequence_length input, or none without it.
std::vector<uint8_t> active_steps(const RnnParam& p, const RnnDims& m, const std::vector<TBlob>& inputs) {
  std::vector<uint8_t> active;
  if (!p.use_sequence_length) return active;
  active.assign(static_cast<size_t>(m.T * m.N), 0);
  BRAID_TYPE_SWITCH(inputs.back().dtype, L, "RNN sequence_length", {
    const L* len = inputs.back().ptr<L>();
    for (int64_t n = 0; n < m.N; ++n) {
      const double v = static_cast<double>(len[n]);
      BRAID_CHECK(v >= 0 && v <= static_cast<double>(m.T) && v == static_cast<double>(static_cast<int64_t>(v)),
                  "operator RNN: sequence_length[", n, "] = ", v, " is not a whole number of steps in [0, ", m.T, "]");
      for (int64_t t = 0; t < static_cast<int64_t>(v); ++t) active[static_cast<size_t>(t * m.N + n)] = 1;
    }
  });
  return active;
}

template <class T>
void rnn_forward_typed(const OpContext& ctx, const RnnParam& p, const ForwardArgs& a) {
  const Shape& s = a.inputs[0].shape;
  const RnnDims m(p, s[0], s[1], s[2]);
  const std::vector<uint8_t> active = active_steps(p, m, a.inputs);
  RnnForwardIO<T> io;
  io.x = a.inputs[0].ptr<T>(), io.w = a.inputs[1].ptr<T>(), io.h0 = a.inputs[2].ptr<T>();
  if (p.has_cell()) io.c0 = a.inputs[3].ptr<T>();
  io.active = active.empty() ? nullptr : active.data();
  std::vector<T> scratch;  // the saved state, where nothing will read it
  if (a.outputs.back().dptr) {
    io.reserve = a.outputs.back().ptr<T>();
  } else {
    scratch.resize(static_cast<size_t>(m.reserve_size()));
    io.reserve = scratch.data();
  }
  // Outputs asked for with Add (or not at all) are computed aside; Add's are then added.
  std::vector<std::vector<T>> aside(a.outputs.size() - 1);
  auto target = [&](size_t k) -> T* {
    if (a.req[k] == OpReq::Write) return a.outputs[k].ptr<T>();
    aside[k].resize(static_cast<size_t>(a.outputs[k].size()));
    return aside[k].data();
  };
  io.y = target(0);
  if (p.state_outputs) io.hy = target(1);
  if (p.state_outputs && p.has_cell()) io.cy = target(2);
  rnn_forward<T>(p, m, io, ctx.is_train, ctx.rng);
  for (size_t k = 0; k < aside.size(); ++k) {
    if (aside[k].empty() || a.req[k] != OpReq::Add) continue;
    const T* v = aside[k].data();
    write_each(a.outputs[k].ptr<T>(), OpReq::Add, a.outputs[k].size(), [=](int64_t i) { return v[i]; });
  }
}

template <class T>
void rnn_backward_typed(const RnnParam& p, const BackwardArgs& a) {
  const Shape& s = a.inputs[0].shape;
  const RnnDims m(p, s[0], s[1], s[2]);
  const std::vector<uint8_t> active = active_steps(p, m, a.inputs);
  RnnBackwardIO<T> io;
  io.x = a.inputs[0].ptr<T>(), io.w = a.inputs[1].ptr<T>(), io.h0 = a.inputs[2].ptr<T>();
  if (p.has_cell()) io.c0 = a.inputs[3].ptr<T>();
  io.reserve = a.outputs.back().ptr<T>();
  io.active = active.empty() ? nullptr : active.data();
  std::vector<T> zeros;
  if (has_out_grad(a, 0)) {
    io.dy = a.out_grads[0].ptr<T>();
  } else {
    zeros.assign(static_cast<size_t>(a.outputs[0].size()), T(0));
    io.dy = zeros.data();
  }
  if (p.state_outputs && has_out_grad(a, 1)) io.dhy = a.out_grads[1].ptr<T>();
  if (p.state_outputs && p.has_cell() && has_out_grad(a, 2)) io.dcy = a.out_grads[2].ptr<T>();
  // Gradients wanted with Add (or not at all, where the computation needs somewhere to write)
  // go aside first.
  const size_t states = p.has_cell() ? 2 : 1;
  std::vector<std::vector<T>> aside(2 + states);
  auto target = [&](size_t k) -> T* {
    if (a.req[k] == OpReq::Write) return a.in_grads[k].ptr<T>();
    aside[k].resize(static_cast<size_t>(a.inputs[k].size()));
    return aside[k].data();
  };
  io.dx = a.req[0] == OpReq::Null ? nullptr : target(0);
  io.dw = target(1);
  io.dh0 = target(2);
  if (p.has_cell()) io.dc0 = target(3);
  rnn_backward<T>(p, m, io);
  for (size_t k = 0; k < aside.size(); ++k) {
    if (aside[k].empty() || a.req[k] != OpReq::Add) continue;
    const T* v = aside[k].data();
    write_each(a.in_grads[k].ptr<T>(), OpReq::Add, a.inputs[k].size(), [=](int64_t i) { return v[i]; });
  }
  if (p.use_sequence_length) zero_grad(a.in_grads.back(), a.req.back());
}

}  // namespace

void register_rnn_ops(Registry& r) {
  OpDef d;
  d.name = "RNN";
  d.doc =
      "Stacked (bidirectional) LSTM, GRU or tanh/relu RNN layers over a (T, N, C) sequence with "
      "MXNet's packed parameter vector; outputs (T, N, directions·state_size) and, with "
      "state_outputs, the final hidden (and cell) states.";
  d.parse = parse_rnn;
  d.list_arguments = rnn_arguments;
  d.num_visible_outputs = [](const std::any& pa) { return rnn_visible_outputs(param<RnnParam>(pa)); };
  d.num_outputs = [](const std::any& pa) { return rnn_visible_outputs(param<RnnParam>(pa)) + 1; };
  d.list_outputs = [](const std::any& pa) {
    std::vector<std::string> names{"output", "state_output", "statecell_output"};
    names.resize(static_cast<size_t>(rnn_visible_outputs(param<RnnParam>(pa))));
    return names;
  };
  d.infer_shape = infer_rnn_shape;
  d.infer_type = infer_rnn_type;
  d.cpu.forward = [](const OpContext& ctx, const std::any& pa, const ForwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "RNN", { rnn_forward_typed<T>(ctx, param<RnnParam>(pa), a); });
  };
  d.cpu.backward = [](const OpContext&, const std::any& pa, const BackwardArgs& a) {
    BRAID_REAL_TYPE_SWITCH(a.inputs[0].dtype, T, "RNN", { rnn_backward_typed<T>(param<RnnParam>(pa), a); });
  };
  d.needs_rng = true;
  r.add(std::move(d));
}

}  // namespace braid::op::detail
