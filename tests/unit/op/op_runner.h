#pragma once
// Runs a registered operator directly (no engine) on host data in float32 or float64: forward,
// then backward for a given gradient of the first output. Values travel as double.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "braid/op/registry.h"

namespace braid::test {

using Values = std::vector<double>;

struct OpResult {
  std::vector<Shape> in_shapes, out_shapes;
  std::vector<Values> outputs;   // every output, hidden ones included
  std::vector<Values> in_grads;  // empty unless a gradient was given
};

/// Shapes of the outputs (and the completed input shapes) from the input shapes.
inline OpResult infer(const std::string& op, const op::AttrMap& attrs, std::vector<Shape> in) {
  const op::OpDef& def = op::Registry::get().find(op);
  std::any p = def.parse(attrs);
  std::vector<Shape> out(static_cast<size_t>(def.num_outputs(p))), aux;
  def.infer_shape(p, in, out, aux);
  return {in, out, {}, {}};
}

/// Forward on `inputs` in dtype T and, when `dy` is non-empty, backward with dy as the gradient
/// of output 0 (other outputs get zero gradients). `req` applies to every input gradient; with
/// Add the gradients start from `grad_init`.
template <class T>
OpResult run_op(const std::string& op, const op::AttrMap& attrs, const std::vector<Shape>& shapes,
                const std::vector<Values>& inputs, const Values& dy = {}, op::OpReq req = op::OpReq::Write,
                double grad_init = 12345.0) {
  const op::OpDef& def = op::Registry::get().find(op);
  std::any p = def.parse(attrs);
  OpResult r = infer(op, attrs, shapes);
  auto to_t = [](const Values& v) { return std::vector<T>(v.begin(), v.end()); };
  auto blob = [](std::vector<T>& v, const Shape& s) { return op::TBlob{v.data(), s, DTypeOf<T>::value}; };
  std::vector<std::vector<T>> ins, outs;
  for (const auto& v : inputs) ins.push_back(to_t(v));
  op::ForwardArgs fa;
  for (size_t i = 0; i < ins.size(); ++i) fa.inputs.push_back(blob(ins[i], r.in_shapes[i]));
  for (const auto& s : r.out_shapes) outs.emplace_back(static_cast<size_t>(s.size()), T(0));
  for (size_t i = 0; i < outs.size(); ++i) fa.outputs.push_back(blob(outs[i], r.out_shapes[i]));
  fa.req.assign(outs.size(), op::OpReq::Write);
  op::OpContext ctx{true, cpu(), nullptr};
  def.cpu.forward(ctx, p, fa);
  for (const auto& o : outs) r.outputs.emplace_back(o.begin(), o.end());
  if (dy.empty()) return r;

  op::BackwardArgs ba;
  std::vector<std::vector<T>> ogs, grads;
  for (size_t i = 0; i < outs.size(); ++i) {
    ogs.push_back(i == 0 ? to_t(dy) : std::vector<T>(outs[i].size(), T(0)));
    ba.out_grads.push_back(blob(ogs[i], r.out_shapes[i]));
    ba.outputs.push_back(fa.outputs[i]);
  }
  ba.inputs = fa.inputs;
  for (size_t i = 0; i < ins.size(); ++i) {
    grads.emplace_back(ins[i].size(), static_cast<T>(grad_init));
    ba.in_grads.push_back(blob(grads[i], r.in_shapes[i]));
  }
  ba.req.assign(ins.size(), req);
  def.cpu.backward(ctx, p, ba);
  for (const auto& g : grads) r.in_grads.emplace_back(g.begin(), g.end());
  return r;
}

/// Expects a and b equal within atol + rtol * |b| elementwise.
inline void expect_near(const Values& a, const Values& b, double rtol, double atol, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (size_t i = 0; i < a.size(); ++i)
    ASSERT_NEAR(a[i], b[i], atol + rtol * std::abs(b[i])) << what << " element " << i;
}

/// n values uniform in [-1, 1) from a fixed seed.
inline Values random_values(int64_t n, unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  Values v(static_cast<size_t>(n));
  for (auto& x : v) x = u(gen);
  return v;
}

}  // namespace braid::test
