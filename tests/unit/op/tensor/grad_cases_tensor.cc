// Gradient-check cases of the tensor operators (src/op/tensor).
#include <cmath>
#include <functional>
#include <string>

#include "unit/op/grad_cases.h"

namespace braid::test {

std::vector<GradCase> tensor_grad_cases() {
  std::vector<GradCase> c;
  for (const char* op : {"exp", "sin", "cos", "tanh", "sigmoid", "softrelu", "square", "negative", "expm1"}) {
    c.push_back({op, {}, {Shape({3, 4})}});
    c.push_back({op, {}, {Shape({2, 3, 5})}});
  }
  for (const char* op : {"log", "sqrt", "rsqrt", "reciprocal", "log1p", "log2", "log10", "cbrt", "rcbrt"})
    c.push_back({op, {}, {Shape({3, 4})}, {{0.5, 2.0}}});
  for (const char* op : {"tan", "arctan", "sinh", "cosh", "arcsinh", "radians", "degrees"})
    c.push_back({op, {}, {Shape({3, 4})}});
  for (const char* op : {"arcsin", "arccos", "arctanh"}) c.push_back({op, {}, {Shape({3, 4})}, {{-0.8, 0.8}}});
  c.push_back({"arccosh", {}, {Shape({3, 4})}, {{1.5, 3.0}}});
  for (const char* op : {"gamma", "gammaln"}) c.push_back({op, {}, {Shape({3, 4})}, {{0.5, 3.0}}});
  for (const char* op : {"erf", "softsign"}) c.push_back({op, {}, {Shape({3, 4})}});
  c.push_back({"erfinv", {}, {Shape({3, 4})}, {{-0.8, 0.8}}});
  c.push_back({"_contrib_quadratic", {{"a", "0.7"}, {"b", "-1.5"}, {"c", "2"}}, {Shape({3, 4})}});
  c.push_back({"_contrib_fft", {}, {Shape({3, 5})}});
  c.push_back({"_contrib_ifft", {}, {Shape({2, 3, 8})}});
  // h: indices into out_dim 4 (two of them shared), s: signs; neither gets a gradient
  c.push_back({"_contrib_count_sketch",
               {{"out_dim", "4"}},
               {Shape({3, 5}), Shape({1, 5}), Shape({1, 5})},
               {},
               {1, 2},
               [](std::vector<std::vector<double>>& in) {
                 in[1] = {0, 3, 1, 3, 2};
                 in[2] = {1, -1, -1, 1, 1};
               }});
  c.push_back({"_contrib_div_sqrt_dim", {}, {Shape({2, 3, 4})}});
  // index: slices 0, 2 and 3 of 4 kept (along axis 0, and along axis 1)
  for (const char* axis : {"0", "1"})
    c.push_back({"_contrib_boolean_mask",
                 {{"axis", axis}},
                 {axis[0] == '0' ? Shape({4, 3}) : Shape({2, 4, 3}), Shape({4})},
                 {},
                 {1},
                 [](std::vector<std::vector<double>>& in) {
                   in[1] = {1, 0, 2.5, -1};
                 }});
  // Two sequences of 5 and 3 events over 3 marks; mu, alpha and beta get gradients (from both
  // outputs), the state and the event data none.
  c.push_back(
      {"_contrib_hawkesll",
       {},
       {Shape({2, 3}), Shape({3}), Shape({3}), Shape({2, 3}), Shape({2, 5}), Shape({2, 5}), Shape({2}), Shape({2})},
       {{0.5, 1.5}, {0.1, 0.5}, {0.5, 2.0}, {0.0, 1.0}, {0.1, 1.0}},
       {3, 4, 5, 6, 7},
       [](std::vector<std::vector<double>>& in) {
         in[5] = {0, 2, 0, 1, 2, 1, 1, 0, 2, 2};
         in[6] = {5, 3};
         in[7] = {8, 6};
       }});
  // Offsets of up to 1.5 pixels, some samples falling outside the image
  c.push_back({"_contrib_DeformableConvolution",
               {{"kernel", "(3,3)"}, {"num_filter", "3"}, {"pad", "(1,1)"}},
               {Shape({2, 2, 4, 4}), Shape({2, 18, 4, 4}), Shape({3, 2, 3, 3}), Shape({3})},
               {{-1, 1}, {-1.5, 1.5}}});
  c.push_back({"_contrib_ModulatedDeformableConvolution",
               {{"kernel", "(2,2)"},
                {"num_filter", "4"},
                {"stride", "(2,2)"},
                {"pad", "(1,1)"},
                {"num_group", "2"},
                {"num_deformable_group", "2"},
                {"no_bias", "True"}},
               {Shape({1, 4, 5, 5}), Shape({1, 16, 3, 3}), Shape({1, 8, 3, 3}), Shape({4, 2, 2, 2})},
               {{-1, 1}, {-1.5, 1.5}, {0, 1}}});
  // Two regions (image, x1, y1, x2, y2) on a 6 x 6 map, 2 x 2 bins of 2 x 2 samples, shifted by trans
  GradCase psroi{"_contrib_DeformablePSROIPooling",
                 {{"spatial_scale", "0.5"},
                  {"output_dim", "2"},
                  {"group_size", "2"},
                  {"pooled_size", "2"},
                  {"sample_per_part", "2"},
                  {"trans_std", "0.1"}},
                 {Shape({2, 8, 6, 6}), Shape({2, 5}), Shape({2, 2, 2, 2})},
                 {},
                 {1},
                 [](std::vector<std::vector<double>>& in) { in[1] = {0, 1, 2, 8, 9, 1, 3, 0, 10, 6}; }};
  psroi.visible_outputs_only = true;
  c.push_back(psroi);
  // With penalty 0 the gradient is the identity's (the penalty: python/tests/test_sparse_reg.py)
  c.push_back({"IdentityAttachKLSparseReg", {{"penalty", "0"}}, {Shape({3, 4}), Shape({4})}, {{0.1, 0.9}, {0.1, 0.9}}});
  c.push_back({"moments", {{"axes", "(0, 2)"}}, {Shape({2, 3, 4})}});
  c.push_back({"moments", {{"keepdims", "True"}}, {Shape({3, 4})}});
  c.push_back({"diag", {{"k", "-1"}}, {Shape({3})}});
  c.push_back({"diag", {{"k", "1"}, {"axis1", "2"}, {"axis2", "0"}}, {Shape({3, 2, 4})}});
  // hard_sigmoid's kinks (alpha x + beta at 0 and 1) and smooth_l1's (|x| = 1 / sigma^2) are avoided.
  c.push_back({"hard_sigmoid", {{"alpha", "0.4"}, {"beta", "0.5"}}, {Shape({3, 4})}, {{-3.0, 3.0}}, {}, [](auto& in) {
                 for (auto& v : in[0]) v = std::abs(std::abs(v) - 1.25) < 0.02 ? v * 0.9 : v;
               }});
  c.push_back({"smooth_l1", {{"scalar", "2"}}, {Shape({3, 4})}, {{-1.0, 1.0}}, {}, [](auto& in) {
                 for (auto& v : in[0]) v = std::abs(std::abs(v) - 0.25) < 0.02 ? v * 0.9 : v;
               }});
  // abs and relu are not differentiable at 0; the random values stay away from it.
  for (const char* op : {"abs", "relu"})
    c.push_back({op, {}, {Shape({4, 5})}, {}, {}, [](auto& in) {
                   for (auto& v : in[0]) v = v < 0 ? v - 0.1 : v + 0.1;
                 }});
  c.push_back({"clip", {{"a_min", "-0.5"}, {"a_max", "0.5"}}, {Shape({4, 5})}, {}, {}, [](auto& in) {
                 for (auto& v : in[0]) v = std::abs(std::abs(v) - 0.5) < 0.01 ? v * 0.5 : v;
               }});
  c.push_back({"_copyto", {}, {Shape({2, 3})}});
  c.push_back({"_identity_with_attr_like_rhs", {}, {Shape({2, 3}), Shape({2, 3})}});
  c.push_back({"Cast", {{"dtype", "float64"}}, {Shape({2, 3})}});
  c.push_back({"cast_storage", {{"stype", "default"}}, {Shape({2, 3})}});  // inside graphs: the identity
  // rows 0 and 2 of 4 kept (indices in any order, repeated); their gradient passes, the others' is 0
  c.push_back({"_sparse_retain", {}, {Shape({4, 3}), Shape({3})}, {}, {1}, [](auto& in) { in[1] = {2, 0, 2}; }});
  c.push_back({"_scatter_elemwise_div", {}, {Shape({2, 3}), Shape({2, 3})}, {{-1, 1}, {0.5, 2}}});
  c.push_back({"_scatter_plus_scalar", {{"scalar", "2"}}, {Shape({2, 3})}});
  c.push_back({"_scatter_minus_scalar", {{"scalar", "2"}}, {Shape({2, 3})}});
  for (const char* axis : {"0", "1"})
    c.push_back({"_square_sum", {{"axis", axis}, {"keepdims", "True"}}, {Shape({3, 4})}});
  // [[a, 0, b], [0, c, d]] (csr parts) times a 3x2 rhs, and its transpose times a 2x2 one; rhs only.
  for (bool transpose : {false, true})
    c.push_back({"_sparse_csr_dot_dense",
                 {{"num_cols", "3"}, {"transpose_a", transpose ? "True" : "False"}},
                 {Shape({4}), Shape({3}), Shape({4}), Shape({transpose ? 2 : 3, 2})},
                 {},
                 {0, 1, 2},
                 [](auto& in) {
                   in[1] = {0, 2, 4};
                   in[2] = {0, 2, 1, 2};
                 }});
  c.push_back({"amp_cast", {{"dtype", "float16"}}, {Shape({2, 3})}});  // float64 passes unchanged
  c.push_back({"amp_multicast", {{"num_outputs", "2"}}, {Shape({2, 3}), Shape({4})}});
  // A gradient of ones (scaled), not a derivative: shape_like_ops_test checks the values.
  c.push_back({"make_loss", {}, {Shape({2, 3})}, {}, {0}});
  // Straight-through estimators: their gradient is not their derivative (python/tests checks it).
  c.push_back({"_contrib_round_ste", {}, {Shape({2, 3})}, {}, {0}});
  c.push_back({"_contrib_sign_ste", {}, {Shape({2, 3})}, {}, {0}});
  c.push_back({"_contrib_gradientmultiplier", {{"scalar", "1"}}, {Shape({2, 3})}});
  c.push_back({"MakeLoss", {}, {Shape({2, 3})}, {}, {0}});
  // Binary ops, on equal shapes and broadcast; power needs a positive base, maximum/minimum and
  // hypot values that never tie or vanish.
  auto separated = [](auto& in) {
    for (size_t k = 0; k < in[0].size(); ++k) in[0][k] = 0.1 + 0.05 * static_cast<double>(k % 7);
    for (size_t k = 0; k < in[1].size(); ++k) in[1][k] = -0.5 + 0.09 * static_cast<double>(k % 13);
  };
  for (const char* stem : {"add", "sub", "mul", "div", "power", "maximum", "minimum", "hypot"}) {
    std::string s = stem;
    std::string same = s == "add" || s == "sub" || s == "mul" || s == "div" ? "elemwise_" + s : "_" + s;
    std::vector<std::pair<double, double>> ranges = {{0.5, 2.0}, {0.5, 2.0}};
    auto fill = (s == "maximum" || s == "minimum") ? std::function<void(std::vector<std::vector<double>>&)>(separated)
                                                   : nullptr;
    c.push_back({same, {}, {Shape({3, 4}), Shape({3, 4})}, ranges, {}, fill});
    c.push_back({"broadcast_" + s, {}, {Shape({2, 3, 4}), Shape({3, 1})}, ranges, {}, fill});
    c.push_back({"broadcast_" + s, {}, {Shape({1, 4}), Shape({3, 1})}, ranges, {}, fill});
  }
  for (const char* op :
       {"_plus_scalar", "_minus_scalar", "_rminus_scalar", "_mul_scalar", "_div_scalar", "_rdiv_scalar",
        "_power_scalar", "_rpower_scalar", "_maximum_scalar", "_minimum_scalar", "_hypot_scalar"})
    c.push_back({op, {{"scalar", "0.75"}}, {Shape({3, 5})}, {{0.1, 2.0}}, {}, [](auto& in) {
                   for (auto& v : in[0]) v = std::abs(v - 0.75) < 0.02 ? v + 0.1 : v;
                 }});
  // mod away from its jumps: a in [2.2, 2.8], b in [1.0, 1.05] (floor(a/b) stays 2).
  const std::vector<std::pair<double, double>> mod_ranges = {{2.2, 2.8}, {1.0, 1.05}};
  c.push_back({"_mod", {}, {Shape({3, 4}), Shape({3, 4})}, mod_ranges});
  c.push_back({"broadcast_mod", {}, {Shape({2, 3, 4}), Shape({3, 1})}, mod_ranges});
  c.push_back({"_mod_scalar", {{"scalar", "1.02"}}, {Shape({3, 5})}, {{2.2, 2.8}}});
  c.push_back({"_rmod_scalar", {{"scalar", "2.5"}}, {Shape({3, 5})}, {{1.0, 1.05}}});
  // Densities: samples inside each support; discrete samples are integer counts (no gradient).
  const Shape samples({2, 3}), rows({2});
  auto counts = [](auto& in) {
    for (size_t k = 0; k < in[0].size(); ++k) in[0][k] = static_cast<double>(k % 4);
  };
  for (const char* is_log : {"False", "True"}) {
    c.push_back({"_random_pdf_normal", {{"is_log", is_log}}, {samples, rows, rows}, {{-1, 1}, {-1, 1}, {0.5, 2}}});
    c.push_back({"_random_pdf_uniform", {{"is_log", is_log}}, {samples, rows, rows}, {{-1, 1}, {-2, -1.5}, {1.5, 2}}});
    c.push_back({"_random_pdf_gamma", {{"is_log", is_log}}, {samples, rows, rows}, {{0.5, 2}, {1, 3}, {0.5, 2}}});
    c.push_back({"_random_pdf_exponential", {{"is_log", is_log}}, {samples, rows}, {{0.5, 2}, {0.5, 2}}});
    c.push_back({"_random_pdf_poisson", {{"is_log", is_log}}, {samples, rows}, {{0, 1}, {1, 3}}, {0}, counts});
    c.push_back({"_random_pdf_negative_binomial",
                 {{"is_log", is_log}},
                 {samples, rows, rows},
                 {{0, 1}, {1, 3}, {0.3, 0.7}},
                 {0},
                 counts});
    c.push_back({"_random_pdf_generalized_negative_binomial",
                 {{"is_log", is_log}},
                 {samples, rows, rows},
                 {{0, 1}, {1, 2}, {0.3, 1}},
                 {0},
                 counts});
    c.push_back(
        {"_random_pdf_dirichlet", {{"is_log", is_log}}, {Shape({2, 3, 4}), Shape({2, 4})}, {{0.2, 0.8}, {0.5, 2}}});
  }
  c.push_back({"broadcast_to", {{"shape", "(2, 3, 4)"}}, {Shape({3, 1})}});
  c.push_back({"broadcast_to", {{"shape", "(0, 5)"}}, {Shape({2, 1})}});
  c.push_back({"broadcast_like", {}, {Shape({1, 4}), Shape({3, 4})}, {}, {1}});
  c.push_back(
      {"broadcast_like", {{"lhs_axes", "(0, 2)"}, {"rhs_axes", "(1, 0)"}}, {Shape({1, 4, 1}), Shape({2, 3})}, {}, {1}});
  c.push_back({"broadcast_axis", {{"axis", "(0, 2)"}, {"size", "(2, 3)"}}, {Shape({1, 4, 1})}});
  c.push_back({"add_n", {{"num_args", "3"}}, {Shape({2, 3}), Shape({2, 3}), Shape({2, 3})}});
  for (const char* mode : {"constant", "edge", "reflect"})
    c.push_back({"pad", {{"mode", mode}, {"pad_width", "(0, 0, 0, 0, 1, 2, 2, 1)"}}, {Shape({1, 2, 3, 4})}});
  c.push_back(
      {"pad", {{"mode", "reflect"}, {"pad_width", "(0, 0, 0, 0, 1, 1, 0, 2, 2, 0)"}}, {Shape({2, 1, 3, 3, 3})}});
  for (const Shape& cond : {Shape({3, 4}), Shape({3})})
    c.push_back({"where", {}, {cond, Shape({3, 4}), Shape({3, 4})}, {}, {0}, [](auto& in) {
                   for (auto& v : in[0]) v = v > 0 ? 1.0 : 0.0;
                 }});
  // The log-probability of each draw (get_prob): d log p[c] / d p[c] = 1 / p[c] at the drawn c
  // (the same draws at every call; the small step leaves them alone).
  c.push_back({"_sample_multinomial", {{"shape", "(3,)"}, {"get_prob", "True"}}, {Shape({2, 4})}, {{0.2, 0.3}}});
  return c;
}

}  // namespace braid::test
