// The request decoder's limits (src/serving/protocol): JSON nesting refused while it is parsed (a
// 200 KB body of 100,000 nested arrays once overflowed the stack), numbers outside their input's
// datatype refused, the model's checks run before an input is allocated, and outputs JSON cannot
// carry (inf, nan) refused rather than sent as null.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <nlohmann/json.hpp>

#include "braid/ndarray/creation.h"
#include "braid/serving/protocol.h"

namespace braid::serving {
namespace {

std::string request_with_data(const std::string& datatype, const std::string& data, const std::string& shape = "[1]") {
  return R"({"inputs": [{"name": "x", "shape": )" + shape + R"(, "datatype": ")" + datatype + R"(", "data": )" + data +
         "}]}";
}

std::string refusal(const std::string& body, const RequestLimits& limits = {}) {
  try {
    parse_infer_request(body, body.size(), limits);
  } catch (const RequestError& e) {
    EXPECT_EQ(e.status, 400);
    return e.what();
  }
  return "(parsed)";
}

TEST(ProtocolLimits, DeepNestingIsRefusedWhileParsing) {
  const std::string deep = request_with_data("FP32", std::string(100000, '[') + "1" + std::string(100000, ']'));
  EXPECT_EQ(refusal(deep), "the request nests JSON deeper than the server's limit of 64 levels");
  // Nesting within the limit is flattened in order.
  const std::string nested = request_with_data("FP32", "[[[1, 2], [3, 4]]]", "[1, 2, 2]");
  InferRequest r = parse_infer_request(nested, nested.size());
  EXPECT_EQ(r.inputs[0].data.to_vector<float>(), (std::vector<float>{1, 2, 3, 4}));
}

TEST(ProtocolLimits, NumbersOutsideTheDatatypeAreRefusedNamingTheInput) {
  EXPECT_EQ(refusal(request_with_data("FP32", "[1e300]")),
            "input 'x': element 0 is 1e+300, outside the range of FP32 (-3.40282e+38 to 3.40282e+38)");
  EXPECT_EQ(refusal(request_with_data("FP16", "[70000]")),
            "input 'x': element 0 is 70000, outside the range of FP16 (-65504 to 65504)");
  EXPECT_EQ(refusal(request_with_data("UINT8", "[0, 256]", "[2]")),
            "input 'x': element 1 is 256, outside the range of UINT8 (0 to 255)");
  EXPECT_EQ(refusal(request_with_data("INT8", "[-129]")),
            "input 'x': element 0 is -129, outside the range of INT8 (-128 to 127)");
  EXPECT_EQ(refusal(request_with_data("INT32", "[1.5]")),
            "input 'x': element 0 is 1.5, not a whole number (INT32 data)");
  // The extremes themselves fit.
  const std::string edges = request_with_data("INT8", "[-128, 127]", "[2]");
  EXPECT_EQ(parse_infer_request(edges, edges.size()).inputs[0].data.to_vector<int64_t>(),
            (std::vector<int64_t>{-128, 127}));
  const std::string fp64 = request_with_data("FP64", "[1e300]");
  EXPECT_EQ(parse_infer_request(fp64, fp64.size()).inputs[0].data.to_vector<double>(), (std::vector<double>{1e300}));
}

TEST(ProtocolLimits, TheModelsChecksRunBeforeAnInputIsAllocated) {
  RequestLimits limits;
  limits.max_inputs = 1;
  std::vector<std::string> checked;
  limits.check_input = [&](const std::string& name, DType, const std::vector<int64_t>& shape) {
    checked.push_back(name);
    if (shape[0] > 4) throw RequestError(400, "batch over 4");
  };
  EXPECT_EQ(refusal(request_with_data("FP32", "[1, 2, 3, 4, 5]", "[5]"), limits), "batch over 4");
  EXPECT_EQ(checked, std::vector<std::string>{"x"});
  const std::string two = R"({"inputs": [{"name": "a", "shape": [1], "datatype": "FP32", "data": [1]},
                                          {"name": "b", "shape": [1], "datatype": "FP32", "data": [1]}]})";
  EXPECT_EQ(refusal(two, limits), "the request has 2 inputs; the model takes at most 1");
}

TEST(ProtocolLimits, NonFiniteOutputsAreRefusedInJsonAndSentInBinary) {
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<InferOutput> outputs = {{"y", nd::array<float>({1, inf, std::nanf("")}, Shape({3}))}};
  try {
    infer_response("m", "1", "", outputs);
    ADD_FAILURE() << "inf and nan were answered in JSON";
  } catch (const RequestError& e) {
    EXPECT_EQ(e.status, 400);
    EXPECT_NE(std::string(e.what()).find("output 'y' holds 2 values that are not finite (inf or nan)"),
              std::string::npos)
        << e.what();
  }
  size_t json_bytes = 0;
  const std::string binary = infer_response("m", "1", "", outputs, true, &json_bytes);
  ASSERT_EQ(binary.size(), json_bytes + 12);
  float got[3];
  std::memcpy(got, binary.data() + json_bytes, sizeof got);
  EXPECT_EQ(got[1], inf);
  EXPECT_TRUE(std::isnan(got[2]));
}

}  // namespace
}  // namespace braid::serving
