// Compares Activation, LeakyReLU, BatchNorm, LayerNorm, softmax and log_softmax with PyTorch:
// outputs and input gradients, in float64 and float32, all cases in one Python run.
#include <gtest/gtest.h>

#include "unit/op/nn/nn_test_util.h"

namespace braid::test::nn_ops {
namespace {

struct TorchCase {
  std::string name;
  OpCall call;        // float64 values; out_grads[0] set
  std::string expr;   // PyTorch expression of the output from x (arguments) and aux (aux states)
  std::string extra;  // more Python statements after the backward (may save NAME_* arrays)
  int nargs = 1;
};

Values kinkless(Values v) {
  for (auto& x : v) x = x < 0 ? x - 0.05 : x + 0.05;
  return v;
}

TorchCase make_case(std::string name, std::string op, op::AttrMap attrs, std::vector<Shape> shapes,
                    std::vector<Values> values, std::string expr, int nargs, std::string extra = "") {
  TorchCase c{std::move(name), {}, std::move(expr), std::move(extra), nargs};
  c.call.op = std::move(op);
  c.call.attrs = std::move(attrs);
  c.call.shapes = std::move(shapes);
  c.call.values = std::move(values);
  c.call.out_grads = {random_values(static_cast<size_t>(c.call.shapes[0].size()), -1, 1, 99)};
  return c;
}

std::vector<TorchCase> cases() {
  std::vector<TorchCase> cs;
  const Shape s({4, 5});
  const Values x = kinkless(random_values(20, -3, 3, 1));
  const std::pair<const char*, const char*> acts[] = {{"relu", "torch.relu(x[0])"},
                                                      {"sigmoid", "torch.sigmoid(x[0])"},
                                                      {"tanh", "torch.tanh(x[0])"},
                                                      {"softrelu", "F.softplus(x[0])"},
                                                      {"softsign", "F.softsign(x[0])"}};
  for (auto [act, expr] : acts)
    cs.push_back(make_case(cat("act_", act), "Activation", {{"act_type", act}}, {s}, {x}, expr, 1));
  cs.push_back(make_case("leaky", "LeakyReLU", {{"slope", "0.1"}}, {s}, {x}, "F.leaky_relu(x[0], 0.1)", 1));
  cs.push_back(
      make_case("elu", "LeakyReLU", {{"act_type", "elu"}, {"slope", "0.7"}}, {s}, {x}, "F.elu(x[0], alpha=0.7)", 1));
  cs.push_back(make_case("selu", "LeakyReLU", {{"act_type", "selu"}}, {s}, {x}, "F.selu(x[0])", 1));
  cs.push_back(make_case("gelu", "LeakyReLU", {{"act_type", "gelu"}}, {s}, {x}, "F.gelu(x[0])", 1));
  cs.push_back(make_case("prelu", "LeakyReLU", {{"act_type", "prelu"}}, {Shape({2, 3, 4}), Shape({3})},
                         {kinkless(random_values(24, -2, 2, 2)), {0.1, 0.3, -0.2}}, "F.prelu(x[0], x[1])", 2));

  // BatchNorm: data (4, 3, 2, 5), gamma, beta, moving mean, moving var.
  const std::vector<Shape> bn_shapes = {Shape({4, 3, 2, 5}), Shape({3}), Shape({3}), Shape({3}), Shape({3})};
  const std::vector<Values> bn_values = {
      random_values(120, -2, 3, 3), {0.5, 1.5, -0.7}, {0.1, -0.2, 0.3}, {0.2, -0.1, 0.4}, {0.8, 1.2, 2.0}};
  // MXNet's moving variance uses the biased batch variance (PyTorch's the unbiased one).
  const std::string moving =
      "save('{}_mm', 0.9 * aux[0] + 0.1 * x[0].detach().mean(dim=(0, 2, 3)))\n"
      "save('{}_mv', 0.9 * aux[1] + 0.1 * x[0].detach().var(dim=(0, 2, 3), unbiased=False))\n";
  auto bn =
      make_case("bn_train", "BatchNorm", {{"fix_gamma", "False"}}, bn_shapes, bn_values,
                "F.batch_norm(x[0], aux[0].clone(), aux[1].clone(), x[1], x[2], training=True, eps=1e-3)", 3, moving);
  bn.call.is_train = true;
  cs.push_back(bn);
  bn = make_case("bn_fixgamma", "BatchNorm", {{"eps", "1e-5"}}, bn_shapes, bn_values,
                 "F.batch_norm(x[0], aux[0].clone(), aux[1].clone(), torch.ones(3), x[2], training=True, eps=1e-5)", 3);
  bn.call.is_train = true;
  cs.push_back(bn);
  cs.push_back(make_case("bn_infer", "BatchNorm", {{"fix_gamma", "False"}}, bn_shapes, bn_values,
                         "F.batch_norm(x[0], aux[0], aux[1], x[1], x[2], training=False, eps=1e-3)", 3));
  bn = make_case("bn_last_axis", "BatchNorm", {{"fix_gamma", "False"}, {"axis", "-1"}},
                 {Shape({4, 5, 3}), Shape({3}), Shape({3}), Shape({3}), Shape({3})},
                 {bn_values[0], bn_values[1], bn_values[2], bn_values[3], bn_values[4]},
                 "F.batch_norm(x[0].permute(0, 2, 1), aux[0].clone(), aux[1].clone(), x[1], x[2], training=True, "
                 "eps=1e-3).permute(0, 2, 1)",
                 3);
  bn.call.values[0].resize(60);
  bn.call.is_train = true;
  cs.push_back(bn);

  cs.push_back(make_case("ln_last", "LayerNorm", {}, {Shape({3, 7}), Shape({7}), Shape({7})},
                         {random_values(21, -2, 2, 4), random_values(7, 0.5, 1.5, 5), random_values(7, -1, 1, 6)},
                         "F.layer_norm(x[0], (7,), x[1], x[2], eps=1e-5)", 3));
  cs.push_back(make_case("ln_axis1", "LayerNorm", {{"axis", "1"}, {"eps", "1e-3"}},
                         {Shape({2, 4, 3}), Shape({4}), Shape({4})},
                         {random_values(24, -2, 2, 7), random_values(4, 0.5, 1.5, 8), random_values(4, -1, 1, 9)},
                         "F.layer_norm(x[0].transpose(1, 2), (4,), x[1], x[2], eps=1e-3).transpose(1, 2)", 3));

  cs.push_back(make_case("lrn", "LRN", {{"nsize", "5"}, {"alpha", "0.01"}, {"beta", "0.75"}, {"knorm", "2"}},
                         {Shape({2, 7, 3, 2})}, {random_values(84, -3, 3, 11)},
                         "F.local_response_norm(x[0], 5, alpha=0.01, beta=0.75, k=2.0)", 1));

  const Values sx = random_values(24, -4, 4, 10);
  cs.push_back(make_case("softmax_last", "softmax", {}, {Shape({4, 6})}, {sx}, "torch.softmax(x[0], -1)", 1));
  cs.push_back(make_case("softmax_axis1_t", "softmax", {{"axis", "1"}, {"temperature", "2"}}, {Shape({2, 3, 4})}, {sx},
                         "torch.softmax(x[0] / 2, 1)", 1));
  cs.push_back(
      make_case("log_softmax_last", "log_softmax", {}, {Shape({4, 6})}, {sx}, "torch.log_softmax(x[0], -1)", 1));
  cs.push_back(make_case("log_softmax_axis0_t", "log_softmax", {{"axis", "0"}, {"temperature", "0.5"}}, {Shape({4, 6})},
                         {sx}, "torch.log_softmax(x[0] / 0.5, 0)", 1));
  return cs;
}

// The case as a Python function: forward, backward with the output gradient, saved results.
std::string python_of(const TorchCase& c) {
  const std::string& n = c.name;
  std::string body = cat("x = [torch.tensor(load('", n, "_in%d' % i), requires_grad=True) for i in range(", c.nargs,
                         ")]\naux = [torch.tensor(load('", n, "_in%d' % i)) for i in range(", c.nargs, ", ",
                         c.call.shapes.size(), ")]\ny = ", c.expr, "\ny.backward(torch.tensor(load('", n,
                         "_og')))\nsave('", n, "_out', y)\nfor i in range(", c.nargs, "):\n    save('", n,
                         "_g%d' % i, x[i].grad if x[i].grad is not None else torch.zeros_like(x[i]))\n", c.extra);
  for (size_t p; (p = body.find("{}")) != std::string::npos;) body.replace(p, 2, n);
  std::string py = cat("def case_", n, "():\n");
  for (size_t b = 0, e; b < body.size(); b = e + 1) {
    e = body.find('\n', b);
    py += "    " + body.substr(b, e - b) + "\n";
  }
  return py + cat("case_", n, "()\n");
}

TEST(NnBasicTorch, MatchesPyTorchInFloat64AndFloat32) {
  const auto cs = cases();
  std::string script = "import torch.nn.functional as F\n";
  std::map<std::string, std::pair<Shape, Values>> arrays;
  for (const auto& c : cs) {
    for (size_t i = 0; i < c.call.shapes.size(); ++i)
      arrays[cat(c.name, "_in", i)] = {c.call.shapes[i], c.call.values[i]};
    arrays[c.name + "_og"] = {c.call.shapes[0], c.call.out_grads[0]};
    script += python_of(c);
  }
  auto ref = run_torch(script, arrays);
  // The reference is a dependency (scripts/install-deps.sh): its absence fails, never skips.
  ASSERT_TRUE(ref) << "/usr/bin/python3 cannot run torch; run scripts/install-deps.sh";

  for (const auto& c : cs) {
    for (DType t : {DType::Float64, DType::Float32}) {
      const bool f64 = t == DType::Float64;
      const double rtol = f64 ? 1e-9 : 2e-5, atol = f64 ? 1e-11 : 2e-5;
      OpCall call = c.call;
      call.dtype = t;
      const OpResult r = run_op(call);
      const std::string what = cat(c.name, " in ", dtype_name(t));
      EXPECT_TRUE(all_close(r.outputs[0], ref->at(c.name + "_out"), rtol, atol)) << what << ": output";
      for (int i = 0; i < c.nargs; ++i)
        EXPECT_TRUE(all_close(r.grads[static_cast<size_t>(i)], ref->at(cat(c.name, "_g", i)), rtol, atol))
            << what << ": gradient of input " << i;
      if (ref->count(c.name + "_mm")) {
        EXPECT_TRUE(all_close(r.aux[0], ref->at(c.name + "_mm"), rtol, atol)) << what << ": moving mean";
        EXPECT_TRUE(all_close(r.aux[1], ref->at(c.name + "_mv"), rtol, atol)) << what << ": moving var";
      }
    }
  }
}

}  // namespace
}  // namespace braid::test::nn_ops
