// Gradient-check cases of the nn_conv family: FullyConnected, Convolution, Deconvolution, Pooling.
#include <algorithm>
#include <numeric>
#include <random>

#include "unit/op/grad_cases.h"

namespace braid::test {
namespace {

// Distinct values at least 1e-3 apart, so that a max window's winner survives the perturbation.
void distinct_data(std::vector<std::vector<double>>& in) {
  auto& v = in[0];
  std::vector<size_t> order(v.size());
  std::iota(order.begin(), order.end(), 0);
  std::shuffle(order.begin(), order.end(), std::mt19937(5));
  for (size_t i = 0; i < v.size(); ++i) v[order[i]] = -1.0 + 2.0 * static_cast<double>(i) / v.size();
}

// Lp pooling of values in [0.5, 1.5]: its gradient, (x / y)^(p - 1), is smooth away from zero windows.
GradCase lp_pool(int p) {
  return {"Pooling",
          {{"kernel", "(2, 3)"},
           {"stride", "(1, 2)"},
           {"pad", "(1, 1)"},
           {"pool_type", "lp"},
           {"p_value", std::to_string(p)}},
          {Shape({2, 2, 4, 5})},
          {{0.5, 1.5}}};
}

GradCase pool(op::AttrMap attrs, Shape data) {
  bool is_max = !attrs.count("pool_type") || attrs.at("pool_type") == "max";
  return {"Pooling", std::move(attrs), {std::move(data)}, {}, {}, is_max ? distinct_data : nullptr};
}

}  // namespace

std::vector<GradCase> nn_conv_grad_cases() {
  std::vector<GradCase> c;
  c.push_back({"FullyConnected", {{"num_hidden", "4"}}, {Shape({3, 5}), Shape({4, 5}), Shape({4})}});
  c.push_back({"FullyConnected", {{"num_hidden", "3"}}, {Shape({2, 3, 2, 2}), Shape({3, 12}), Shape({3})}});
  c.push_back({"FullyConnected", {{"num_hidden", "4"}, {"no_bias", "True"}}, {Shape({3, 5}), Shape({4, 5})}});
  c.push_back(
      {"FullyConnected", {{"num_hidden", "4"}, {"flatten", "False"}}, {Shape({2, 3, 5}), Shape({4, 5}), Shape({4})}});

  c.push_back({"Convolution",
               {{"kernel", "(3, 3)"}, {"num_filter", "3"}},
               {Shape({2, 2, 5, 5}), Shape({3, 2, 3, 3}), Shape({3})}});
  c.push_back({"Convolution",
               {{"kernel", "(2, 3)"}, {"num_filter", "2"}, {"stride", "(2, 1)"}, {"pad", "(1, 0)"}},
               {Shape({1, 2, 6, 5}), Shape({2, 2, 2, 3}), Shape({2})}});
  c.push_back({"Convolution",
               {{"kernel", "(3, 3)"}, {"num_filter", "2"}, {"dilate", "(2, 2)"}, {"pad", "(1, 1)"}},
               {Shape({1, 2, 7, 6}), Shape({2, 2, 3, 3}), Shape({2})}});
  c.push_back({"Convolution",
               {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"num_group", "2"}, {"no_bias", "True"}},
               {Shape({2, 4, 5, 5}), Shape({4, 2, 3, 3})}});
  c.push_back({"Convolution",
               {{"kernel", "(3,)"}, {"num_filter", "4"}, {"stride", "(2,)"}, {"pad", "(1,)"}},
               {Shape({2, 3, 9}), Shape({4, 3, 3}), Shape({4})}});

  c.push_back({"Convolution",
               {{"kernel", "(2, 3, 2)"}, {"num_filter", "2"}, {"stride", "(1, 2, 1)"}, {"pad", "(1, 0, 1)"}},
               {Shape({1, 2, 3, 5, 4}), Shape({2, 2, 2, 3, 2}), Shape({2})}});

  c.push_back(
      {"Deconvolution", {{"kernel", "(3, 3)"}, {"num_filter", "2"}}, {Shape({1, 3, 4, 4}), Shape({3, 2, 3, 3})}});
  c.push_back({"Deconvolution",
               {{"kernel", "(2, 2, 3)"}, {"num_filter", "2"}, {"stride", "(2, 1, 2)"}, {"no_bias", "False"}},
               {Shape({1, 2, 2, 3, 2}), Shape({2, 2, 2, 2, 3}), Shape({2})}});
  c.push_back({"Deconvolution",
               {{"kernel", "(3, 3)"},
                {"num_filter", "3"},
                {"stride", "(2, 2)"},
                {"pad", "(1, 1)"},
                {"adj", "(1, 0)"},
                {"no_bias", "False"}},
               {Shape({1, 2, 3, 3}), Shape({2, 3, 3, 3}), Shape({3})}});
  c.push_back({"Deconvolution",
               {{"kernel", "(3, 3)"}, {"num_filter", "4"}, {"num_group", "2"}, {"dilate", "(2, 2)"}},
               {Shape({1, 4, 3, 3}), Shape({4, 2, 3, 3})}});
  c.push_back({"Deconvolution",
               {{"kernel", "(3, 3)"}, {"num_filter", "2"}, {"stride", "(2, 2)"}, {"target_shape", "(7, 8)"}},
               {Shape({1, 2, 3, 4}), Shape({2, 2, 3, 3})}});
  c.push_back({"Deconvolution",
               {{"kernel", "(4,)"}, {"num_filter", "3"}, {"stride", "(2,)"}, {"pad", "(1,)"}, {"no_bias", "False"}},
               {Shape({2, 2, 5}), Shape({2, 3, 4}), Shape({3})}});

  c.push_back(pool({{"kernel", "(2, 2)"}, {"stride", "(2, 2)"}}, Shape({2, 2, 4, 6})));
  c.push_back(pool({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pooling_convention", "full"}},
                   Shape({1, 2, 6, 5})));
  c.push_back(
      pool({{"kernel", "(3, 3)"}, {"stride", "(2, 2)"}, {"pad", "(1, 1)"}, {"pool_type", "avg"}}, Shape({1, 2, 5, 6})));
  c.push_back(pool({{"kernel", "(3, 2)"},
                    {"stride", "(2, 2)"},
                    {"pad", "(1, 1)"},
                    {"pool_type", "avg"},
                    {"count_include_pad", "False"}},
                   Shape({1, 2, 5, 6})));
  c.push_back(pool({{"kernel", "(3, 3)"},
                    {"stride", "(2, 2)"},
                    {"pad", "(1, 1)"},
                    {"pool_type", "avg"},
                    {"pooling_convention", "full"}},
                   Shape({1, 2, 6, 6})));
  c.push_back(pool({{"kernel", "(2, 2)"}, {"pool_type", "sum"}}, Shape({2, 1, 3, 4})));
  for (int p : {1, 2, 3}) c.push_back(lp_pool(p));
  c.push_back(pool({{"global_pool", "True"}, {"pool_type", "avg"}}, Shape({2, 3, 3, 4})));
  c.push_back(pool({{"global_pool", "True"}}, Shape({2, 3, 3, 4})));
  c.push_back(pool({{"kernel", "(3,)"}, {"stride", "(2,)"}, {"pad", "(1,)"}}, Shape({2, 2, 9})));
  c.push_back(pool({{"kernel", "(2, 2, 2)"}, {"stride", "(2, 1, 2)"}, {"pad", "(1, 0, 1)"}}, Shape({1, 2, 3, 4, 4})));
  c.push_back(
      pool({{"kernel", "(2, 3, 2)"}, {"pool_type", "avg"}, {"pad", "(1, 1, 0)"}, {"count_include_pad", "False"}},
           Shape({1, 2, 3, 4, 3})));
  c.push_back(pool({{"kernel", "(2,)"}, {"pool_type", "avg"}, {"pooling_convention", "full"}, {"stride", "(2,)"}},
                   Shape({2, 2, 7})));
  return c;
}

}  // namespace braid::test
