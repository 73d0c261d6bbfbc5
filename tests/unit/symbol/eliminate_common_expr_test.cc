// Common subexpression elimination in the executor (MXNet's MXNET_ELIMINATE_COMMON_EXPR): what
// the optimized graph keeps, that results and gradients do not change, and what is never merged.
#include <gtest/gtest.h>

#include "braid/ndarray/creation.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/executor.h"

namespace braid::cse_test {

std::vector<float> values(const NDArray& a) { return a.to_vector<float>(); }

size_t internals(const Symbol& s) { return s.get_internals().num_outputs(); }

Executor bind(const Symbol& s, bool eliminate) {
  ExecutorOptions options;
  options.eliminate_common_expr = eliminate;
  std::map<std::string, Shape> shapes;
  for (const auto& name : s.list_arguments()) shapes[name] = Shape{2, 3};
  Executor ex = Executor::simple_bind(s, cpu(), shapes, GradReq::Write, {}, {}, {}, options);
  float start = 1;
  for (const auto& name : s.list_arguments()) {
    ex.arg_dict()[name].assign(nd::array<float>({start, 2, 3, 4, 5, 6}, Shape{2, 3}));
    start += 10;
  }
  ex.forward(true);
  ex.backward();
  return ex;
}

/// Binds `s` with and without the pass: the same outputs and gradients, and `saved` fewer
/// entries in the graph that runs. Returns the optimized executor.
Executor expect_saves(const Symbol& s, size_t saved) {
  Executor plain = bind(s, false), merged = bind(s, true);
  EXPECT_EQ(internals(plain.optimized_symbol()), internals(s));
  EXPECT_EQ(internals(merged.optimized_symbol()) + saved, internals(s));
  EXPECT_EQ(merged.optimized_symbol().list_arguments(), s.list_arguments());
  for (size_t i = 0; i < plain.outputs().size(); ++i)
    EXPECT_EQ(values(merged.outputs()[i]), values(plain.outputs()[i]));
  for (const auto& [name, g] : plain.grad_dict()) EXPECT_EQ(values(merged.grad_dict()[name]), values(g)) << name;
  return merged;
}

TEST(EliminateCommonExpr, MergesNodesComputingTheSameThing) {
  sym::Prefix fresh("");
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b"), c = Symbol::Variable("c");
  expect_saves((a + 1.0) + (a + 2.0), 0);            // different attributes
  expect_saves(((a + b) + c) + ((a + b) + c), 2);    // a chain merged whole
  Executor ex = expect_saves((a + b) + (a + b), 1);  // one a + b
  // d/da of 2 (a + b) through the one shared node is still 2.
  EXPECT_EQ(values(ex.grad_dict()["a"]), std::vector<float>(6, 2.0f));
}

TEST(EliminateCommonExpr, OutputsThatBecomeOneValueAreCopiedApart) {
  sym::Prefix fresh("");
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b");
  Symbol d = a + 1.0;
  expect_saves(Symbol::Group({a * d, a * d}), 0);  // one product, then a copy of it
  Symbol net = Symbol::Group({a * d + b, a * d + b});
  Executor ex = expect_saves(net, 1);
  const Symbol& optimized = ex.optimized_symbol();
  EXPECT_EQ(optimized.list_outputs()[1], optimized.outputs()[0].node->name + "_0_copy_output");
  EXPECT_NE(ex.outputs()[0].raw_data(), ex.outputs()[1].raw_data());
  EXPECT_EQ(ex.output_dict().size(), 2u);  // the outputs keep the symbol's names
}

TEST(EliminateCommonExpr, KeepsRandomNodesApartAndLeavesTheSymbolAlone) {
  sym::Prefix fresh("");
  Symbol a = Symbol::Variable("a");
  Symbol twice = sym::make("Dropout", {a}, {{"p", "0.5"}}) + sym::make("Dropout", {a}, {{"p", "0.5"}});
  Executor ex = bind(twice, true);
  EXPECT_EQ(internals(ex.optimized_symbol()), internals(twice));
  Symbol sum = (a * a) + (a * a);
  const size_t before = internals(sum);
  Executor merged = bind(sum, true);
  EXPECT_EQ(internals(sum), before);
  EXPECT_EQ(internals(merged.optimized_symbol()), before - 1);
}

}  // namespace braid::cse_test
