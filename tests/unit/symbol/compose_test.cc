// Building symbols: MXNet's automatic names, argument lists, internals, attributes.
#include <gtest/gtest.h>

#include "braid/base/error.h"
#include "braid/symbol/compose.h"

namespace braid {
namespace {

using Names = std::vector<std::string>;

/// A fresh name scope so that automatic counters start at 0 in every test.
struct Fresh : ::testing::Test {
  sym::Prefix scope{""};
};

TEST_F(Fresh, MissingInputsBecomeVariablesNamedAfterTheNode) {
  Symbol data = Symbol::Variable("data");
  Symbol fc = sym::make("FullyConnected", {{"data", data}}, {{"num_hidden", "10"}});
  EXPECT_EQ(fc.name(), "fullyconnected0");
  EXPECT_EQ(fc.list_arguments(), (Names{"data", "fullyconnected0_weight", "fullyconnected0_bias"}));
  EXPECT_EQ(fc.list_outputs(), (Names{"fullyconnected0_output"}));
  Symbol fc2 = sym::make("FullyConnected", {fc}, {{"num_hidden", "5"}, {"no_bias", "True"}});
  EXPECT_EQ(fc2.name(), "fullyconnected1");
  EXPECT_EQ(fc2.list_arguments(),
            (Names{"data", "fullyconnected0_weight", "fullyconnected0_bias", "fullyconnected1_weight"}));
  Symbol conv = sym::make("Convolution", {{"data", data}}, {{"kernel", "(3, 3)"}, {"num_filter", "4"}});
  EXPECT_EQ(conv.name(), "convolution0");
}

TEST_F(Fresh, AuxiliaryStatesAreListedApart) {
  Symbol bn = sym::make("BatchNorm", {{"data", Symbol::Variable("x")}}, {}, "bn");
  EXPECT_EQ(bn.list_arguments(), (Names{"x", "bn_gamma", "bn_beta"}));
  EXPECT_EQ(bn.list_auxiliary_states(), (Names{"bn_moving_mean", "bn_moving_var"}));
  EXPECT_EQ(bn.list_inputs(), (Names{"x", "bn_gamma", "bn_beta", "bn_moving_mean", "bn_moving_var"}));
  EXPECT_EQ(bn.list_outputs(), (Names{"bn_output"}));  // BatchNorm shows one of its three outputs
}

TEST_F(Fresh, GivenInputsByNameAndPosition) {
  Symbol w = Symbol::Variable("w"), x = Symbol::Variable("x");
  Symbol fc = sym::make("FullyConnected", {{"weight", w}, {"data", x}}, {{"num_hidden", "2"}, {"no_bias", "1"}}, "fc");
  EXPECT_EQ(fc.list_arguments(), (Names{"x", "w"}));
  EXPECT_THROW(sym::make("FullyConnected", {{"input", x}}, {{"num_hidden", "2"}}), Error);
  EXPECT_THROW(sym::make("Activation", {x, w}, {{"act_type", "relu"}}), Error);
  EXPECT_THROW(sym::make("NoSuchOp", {x}), Error);
  EXPECT_THROW(sym::make("Activation", {x}, {{"act_type", "wobbly"}}), Error);
}

TEST_F(Fresh, VariadicOpsCountTheirInputs) {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b"), c = Symbol::Variable("c");
  Symbol cat3 = sym::make("Concat", {a, b, c}, {{"dim", "1"}});
  EXPECT_EQ(cat3.name(), "concat0");
  EXPECT_EQ(cat3.attr("num_args"), "3");
  EXPECT_EQ(cat3.list_arguments(), (Names{"a", "b", "c"}));
}

TEST_F(Fresh, ArithmeticUsesMxnetsOpsAndNames) {
  Symbol a = Symbol::Variable("a"), b = Symbol::Variable("b");
  Symbol y = (a + b) * 2.0 - 1.0;
  EXPECT_EQ(y.name(), "_minusscalar0");
  EXPECT_EQ(y.get_children().name(), "_mulscalar0");
  EXPECT_EQ(y.get_children().get_children().name(), "_plus0");
  EXPECT_EQ(y.list_arguments(), (Names{"a", "b"}));
  EXPECT_EQ((1.0 - a).name(), "_rminusscalar0");
}

TEST_F(Fresh, PrefixScopesNames) {
  Symbol x = Symbol::Variable("x");
  sym::Prefix p("net_");
  Symbol a = sym::make("Activation", {x}, {{"act_type", "relu"}});
  Symbol b = sym::make("Activation", {a}, {{"act_type", "relu"}}, "out");
  EXPECT_EQ(a.name(), "net_activation0");
  EXPECT_EQ(b.name(), "net_out");
}

TEST_F(Fresh, GroupInternalsAndOutputsByName) {
  Symbol x = Symbol::Variable("x");
  Symbol h = sym::make("FullyConnected", {x}, {{"num_hidden", "4"}}, "fc1");
  Symbol r = sym::make("Activation", {h}, {{"act_type", "relu"}}, "relu1");
  Symbol s = sym::make("split", {r}, {{"num_outputs", "2"}}, "sp");
  EXPECT_EQ(s.list_outputs(), (Names{"sp_output0", "sp_output1"}));
  Symbol internals = r.get_internals();
  EXPECT_EQ(internals.list_outputs(), (Names{"x", "fc1_weight", "fc1_bias", "fc1_output", "relu1_output"}));
  Symbol fc_out = internals["fc1_output"];
  EXPECT_EQ(fc_out.name(), "fc1");
  EXPECT_THROW(internals["fc2_output"], Error);
  Symbol g = Symbol::Group({r, s[1], fc_out});
  EXPECT_EQ(g.list_outputs(), (Names{"relu1_output", "sp_output1", "fc1_output"}));
  EXPECT_EQ(g.list_arguments(), (Names{"x", "fc1_weight", "fc1_bias"}));
  EXPECT_THROW(g.name(), Error);
  EXPECT_EQ(r.get_children().list_outputs(), (Names{"fc1_output"}));
  EXPECT_TRUE(x.get_children().empty());
}

TEST_F(Fresh, AttributesAndAttrScope) {
  Symbol x = Symbol::Variable("x", {{"mood", "calm"}}, {.shape = Shape{2, 3}, .lr_mult = 0.5});
  EXPECT_EQ(x.attr("mood"), "calm");
  EXPECT_EQ(x.attr("__shape__"), "(2, 3)");
  EXPECT_EQ(x.attr("__lr_mult__"), "0.5");
  EXPECT_EQ(x.attr("nothing"), std::nullopt);
  Symbol y;
  {
    sym::AttrScope scope(op::AttrMap{{"ctx_group", "dev1"}});
    y = sym::make("Activation", {x}, {{"act_type", "tanh"}}, "act");
  }
  Symbol z = sym::make("Activation", {y}, {{"act_type", "tanh"}}, "act2");
  EXPECT_EQ(y.attr("__ctx_group__"), "dev1");
  EXPECT_EQ(y.attr("act_type"), "tanh");
  EXPECT_EQ(z.attr("__ctx_group__"), std::nullopt);
  auto dict = z.attr_dict();
  EXPECT_EQ(dict["act"]["__ctx_group__"], "dev1");
  EXPECT_EQ(dict["x"]["mood"], "calm");
  y.set_attr("act_type", "relu");
  EXPECT_EQ(y.attr("act_type"), "relu");
  EXPECT_THROW(y.set_attr("act_type", "nope"), Error);
  EXPECT_EQ(y.attr("act_type"), "relu");  // a rejected value leaves the node as it was
}

TEST_F(Fresh, InferShapeFillsWeightsAndOutputs) {
  Symbol data = Symbol::Variable("data");
  Symbol c = sym::make("Convolution", {data}, {{"kernel", "(5, 5)"}, {"num_filter", "20"}}, "conv");
  Symbol p = sym::make("Pooling", {c}, {{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}, {"pool_type", "max"}}, "pool");
  Symbol bn = sym::make("BatchNorm", {p}, {}, "bn");
  Symbol fc = sym::make("FullyConnected", {bn}, {{"num_hidden", "10"}}, "fc");
  Symbol out = sym::make("SoftmaxOutput", {fc}, {}, "softmax");
  EXPECT_EQ(out.list_arguments(), (Names{"data", "conv_weight", "conv_bias", "bn_gamma", "bn_beta", "fc_weight",
                                         "fc_bias", "softmax_label"}));
  auto r = out.infer_shape({{"data", Shape{8, 1, 28, 28}}});
  EXPECT_EQ(r.arg, (std::vector<Shape>{{8, 1, 28, 28}, {20, 1, 5, 5}, {20}, {20}, {20}, {10, 2880}, {10}, {8}}));
  EXPECT_EQ(r.out, (std::vector<Shape>{{8, 10}}));
  EXPECT_EQ(r.aux, (std::vector<Shape>{{20}, {20}}));

  EXPECT_THROW(out.infer_shape({}), Error);
  auto partial = out.infer_shape_partial({{"softmax_label", Shape{8}}});
  EXPECT_FALSE(partial.arg[0].fully_known());
  EXPECT_EQ(partial.arg[1], Shape());
  EXPECT_EQ(partial.arg[7], (Shape{8}));
  auto zeros = fc.infer_shape_partial({{"data", Shape{0, 1, 28, 28}}});
  EXPECT_EQ(zeros.arg[5], (Shape{10, 2880}));
  EXPECT_EQ(zeros.out[0], (Shape{0, 10}));  // an unknown batch stays 0

  EXPECT_THROW(out.infer_shape({{"data", Shape{8, 1, 3, 3}}}), Error);  // kernel larger than the image
  EXPECT_THROW(out.infer_shape({{"dta", Shape{8, 1, 28, 28}}}), Error);
}

TEST_F(Fresh, InferShapeUsesShapeHints) {
  Symbol w = Symbol::Variable("w", {}, {.shape = Shape{4, 0}});
  Symbol fc = sym::make("FullyConnected", {{"data", Symbol::Variable("x")}, {"weight", w}},
                        {{"num_hidden", "4"}, {"no_bias", "True"}});
  auto r = fc.infer_shape({{"x", Shape{2, 3}}});
  EXPECT_EQ(r.arg[1], (Shape{4, 3}));
  Symbol bad = Symbol::Variable("w2", {}, {.shape = Shape{5, 3}});
  Symbol fc2 = sym::make("FullyConnected", {{"data", Symbol::Variable("x")}, {"weight", bad}},
                         {{"num_hidden", "4"}, {"no_bias", "True"}});
  EXPECT_THROW(fc2.infer_shape({{"x", Shape{2, 3}}}), Error);
}

TEST_F(Fresh, InferType) {
  Symbol x = Symbol::Variable("x");
  Symbol fc = sym::make("FullyConnected", {x}, {{"num_hidden", "4"}}, "fc");
  auto r = fc.infer_type({{"x", DType::Float64}});
  EXPECT_EQ(r.arg, (std::vector<DType>{DType::Float64, DType::Float64, DType::Float64}));
  EXPECT_EQ(r.out, (std::vector<DType>{DType::Float64}));
  auto none = fc.infer_type({});
  EXPECT_EQ(none.out[0], kDTypeUnknown);
}

}  // namespace
}  // namespace braid
