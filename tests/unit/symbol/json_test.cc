// Symbol JSON: what MXNet 1.9 writes, and every fixture MXNet wrote since 0.8 read back.
#include <gtest/gtest.h>

#include <filesystem>

#include <nlohmann/json.hpp>
#include "braid/base/error.h"
#include "braid/io/file.h"
#include "braid/symbol/compose.h"

namespace braid {
namespace {

using Names = std::vector<std::string>;
const std::string kDir = BRAID_FIXTURES_DIR;

TEST(SymbolJson, WritesWhatMxnetWrites) {
  Symbol fc = sym::make("FullyConnected", {Symbol::Variable("data")}, {{"num_hidden", "10"}}, "fc1");
  // mx.sym.FullyConnected(mx.sym.var("data"), num_hidden=10, name="fc1").tojson() in MXNet 1.9.1
  // (the weight and bias MXNet makes copy the node's attributes, as in MXNet's own
  // contrib/clojure-package/examples/imclassification/test/test-symbol.json.ref)
  const char* expected = R"({
  "nodes": [
    {
      "op": "null", 
      "name": "data", 
      "inputs": []
    }, 
    {
      "op": "null", 
      "name": "fc1_weight", 
      "attrs": {"num_hidden": "10"}, 
      "inputs": []
    }, 
    {
      "op": "null", 
      "name": "fc1_bias", 
      "attrs": {"num_hidden": "10"}, 
      "inputs": []
    }, 
    {
      "op": "FullyConnected", 
      "name": "fc1", 
      "attrs": {"num_hidden": "10"}, 
      "inputs": [[0, 0, 0], [1, 0, 0], [2, 0, 0]]
    }
  ], 
  "arg_nodes": [0, 1, 2], 
  "node_row_ptr": [0, 1, 2, 3, 4], 
  "heads": [[3, 0, 0]], 
  "attrs": {"mxnet_version": ["int", 10901]}
})";
  EXPECT_EQ(fc.tojson(), expected);
}

TEST(SymbolJson, MxnetGluonExportRoundTripsByteForByte) {
  std::string text = io::read_file(kDir + "/mnist-symbol.json", io::kMaxTextFileBytes);
  Symbol s = Symbol::fromjson(text);
  EXPECT_EQ(s.list_outputs(), (Names{"hybridsequential9_dense1_tanh_fwd_output"}));
  EXPECT_EQ(s.list_arguments().size(), 9u);
  EXPECT_EQ(s.list_arguments()[1], "hybridsequential9_conv0_weight");
  // MXNet 1.6 with MKL-DNN counted a hidden workspace output of max pooling in node_row_ptr;
  // everything else is written back as it was, Braid writing MXNet 1.9.1's version.
  auto written = nlohmann::json::parse(s.tojson()), original = nlohmann::json::parse(text);
  for (auto* doc : {&written, &original}) doc->erase("node_row_ptr");
  original["attrs"]["mxnet_version"][1] = 10901;
  EXPECT_EQ(written, original);
  auto shapes = s.infer_shape({{"data", Shape{1, 1, 28, 28}}});
  EXPECT_EQ(shapes.arg[1], (Shape{10, 1, 5, 5}));  // __shape__ (10, 0, 5, 5) completed
  EXPECT_EQ(shapes.arg[5], (Shape{20, 400}));
  EXPECT_EQ(shapes.out[0], (Shape{1, 10}));
}

TEST(SymbolJson, ReadsMxnet08) {
  Symbol s = Symbol::load(kDir + "/save_000800.json");
  EXPECT_EQ(s.list_arguments(), (Names{"data", "fc1_weight", "fc1_bias", "fc2_weight", "fc2_bias", "fc3_weight",
                                       "fc3_bias", "batchnorm0_gamma", "batchnorm0_beta", "softmax_label"}));
  // 0.8 did not list BatchNorm's auxiliary states; they are made as MXNet 0.9 made them.
  EXPECT_EQ(s.list_auxiliary_states(), (Names{"batchnorm0_moving_mean", "batchnorm0_moving_var"}));
  auto attrs = s.attr_dict();
  EXPECT_EQ(attrs["fc1"]["__ctx_group__"], "stage1");
  EXPECT_EQ(attrs["fc1"]["__weight_lr_mult__"], "1.2");
  EXPECT_EQ(attrs["fc1"]["num_hidden"], "128");
  EXPECT_EQ(attrs["data"]["__lr_mult__"], "0.2");
  EXPECT_EQ(attrs["fc1"].count("ctx_group"), 0u);
  auto shapes = s.infer_shape({{"data", Shape{4, 20}}});
  EXPECT_EQ(shapes.out[0], (Shape{4, 10}));
  EXPECT_EQ(shapes.aux[0], (Shape{10}));
  // Written back in today's format, then read again: the same graph.
  Symbol again = Symbol::fromjson(s.tojson());
  EXPECT_EQ(again.tojson(), s.tojson());
  EXPECT_EQ(again.list_auxiliary_states(), s.list_auxiliary_states());
}

TEST(SymbolJson, ReadsMxnet11ModuleCheckpoint) {
  std::string text = io::read_file(kDir + "/sagemaker-linreg-model-symbol.json", io::kMaxTextFileBytes);
  Symbol s = Symbol::fromjson(text);
  // Written back byte for byte, "attr" now spelled "attrs" and the version MXNet 1.9.1's.
  std::string expected = text;
  for (size_t pos = 0; (pos = expected.find("\"attr\":", pos)) != std::string::npos; ++pos)
    expected.replace(pos, 7, "\"attrs\":");
  expected.replace(expected.find("1100]"), 4, "10901");
  EXPECT_EQ(s.tojson(), expected);
  EXPECT_EQ(s.list_arguments(), (Names{"data", "fc1_weight", "fc1_bias", "lin_reg_label"}));
  EXPECT_EQ(s.list_outputs(), (Names{"lro_output"}));
  EXPECT_EQ(s.get_internals()["fc1_weight"].attr("num_hidden"), "1");
  auto shapes = s.infer_shape({{"data", Shape{1, 2}}});
  EXPECT_EQ(shapes.arg[1], (Shape{1, 2}));
}

TEST(SymbolJson, SaveIsAtomicAndLoadsBack) {
  auto dir = std::filesystem::temp_directory_path() / ("braid_symjson_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Symbol s = sym::make("Activation", {Symbol::Variable("x")}, {{"act_type", "relu"}}, "r");
  s.save((dir / "r-symbol.json").string());
  EXPECT_EQ(Symbol::load((dir / "r-symbol.json").string()).tojson(), s.tojson());
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir), {}), 1);  // no temporary left
  std::filesystem::remove_all(dir);
}

void expect_error(const std::string& json, const std::string& fragment) {
  try {
    Symbol::fromjson(json);
    ADD_FAILURE() << "no error for " << json;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

TEST(SymbolJson, BadFilesGiveClearErrors) {
  expect_error("{\"nodes\": [", "malformed");
  expect_error("[]", "\"nodes\" and \"heads\"");
  expect_error(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "FancyOp", "name": "fancy0", "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]})",
               "operator 'FancyOp' of node 'fancy0' is not supported");
  expect_error(R"({"nodes": [{"op": "Activation", "name": "a", "attrs": {"act_type": "relu"}, "inputs": [[1, 0, 0]]},
      {"op": "null", "name": "x", "inputs": []}], "heads": [[0, 0, 0]]})",
               "not listed before it");
  expect_error(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "Activation", "name": "a", "attrs": {"act_type": "relu"}, "inputs": []}], "heads": [[1, 0, 0]],
      "attrs": {"mxnet_version": ["int", 10901]}})",
               "takes 1 inputs but the node has 0");
  expect_error(R"({"nodes": [{"op": "null", "name": "x", "inputs": []},
      {"op": "Activation", "name": "a", "attrs": {"act_type": "wobble"}, "inputs": [[0, 0, 0]]}], "heads": [[1, 0, 0]]})",
               "node 'a'");
  expect_error(R"({"nodes": [{"op": "null", "name": "x", "inputs": []}], "heads": [[0, 3, 0]]})", "asks for output 3");
  EXPECT_THROW(Symbol::load("/nonexistent/x-symbol.json"), Error);
}

// An attribute nested a million levels deep used to crash the loader: the error message printed
// it recursively. Nesting is now bounded while parsing.
TEST(SymbolJson, DeeplyNestedValueIsRefusedWhileParsing) {
  const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
  const std::string text = R"({"nodes": [{"op": "null", "name": "x", "attrs": {"k": )" + deep +
                           R"(}, "inputs": []}], "heads": [[0, 0, 0]]})";
  try {
    Symbol::fromjson(text);
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(std::string(e.what()),
              "symbol JSON: JSON nested deeper than the limit of 100 levels of objects and arrays");
  }
}

}  // namespace
}  // namespace braid
