// A bounded fuzz of the inference request parser: valid requests mutated at random (bytes
// flipped, cut short, tokens swapped, numbers replaced) must each either parse or be refused
// with a RequestError (400) — never another exception, a crash or a hang.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <random>

#include "braid/serving/protocol.h"

namespace braid::serving {
namespace {

const std::vector<std::string> kTokens = {"{",
                                          "}",
                                          "[",
                                          "]",
                                          ",",
                                          ":",
                                          "\"",
                                          "null",
                                          "true",
                                          "-1",
                                          "1e999",
                                          "99999999999",
                                          "\"FP32\"",
                                          "\"BOOL\"",
                                          "\"inputs\"",
                                          "\"shape\"",
                                          "\"data\"",
                                          "\"binary_data_size\"",
                                          "18446744073709551615",
                                          "\\u0000",
                                          "0.5"};

std::string mutate(std::string s, std::mt19937& rng) {
  std::uniform_int_distribution<int> what(0, 4);
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits && !s.empty(); ++e) {
    const size_t at = rng() % s.size();
    switch (what(rng)) {
      case 0:
        s[at] = static_cast<char>(rng() % 256);
        break;  // a byte
      case 1:
        s.resize(at);
        break;  // cut short
      case 2:
        s.insert(at, kTokens[rng() % kTokens.size()]);
        break;  // a token in
      case 3:
        s.erase(at, 1 + rng() % 8);
        break;  // bytes out
      default:
        s.replace(at, std::min<size_t>(4, s.size() - at), std::to_string(static_cast<int>(rng()) % 1000));
    }
  }
  return s;
}

TEST(ProtocolFuzz, MutatedRequestsParseOrAreRefusedWithTheirReason) {
  const std::vector<std::string> seeds = {
      R"({"id": "a", "inputs": [{"name": "data", "shape": [2, 3], "datatype": "FP32", "data": [1, 2, 3, 4, 5, 6]}]})",
      R"({"inputs": [{"name": "x", "shape": [1, 2, 2], "datatype": "INT64", "data": [[1, 2], [3, 4]]}],
          "outputs": [{"name": "y"}]})",
      R"({"inputs": [{"name": "b", "shape": [3], "datatype": "BOOL", "data": [true, false, true]},
                     {"name": "h", "shape": [2], "datatype": "FP16", "data": [0.5, -2]}]})"};
  std::mt19937 rng(1234);
  int parsed = 0, refused = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::string body = mutate(seeds[static_cast<size_t>(i) % seeds.size()], rng);
    try {
      InferRequest r = parse_infer_request(body, body.size());
      for (const auto& in : r.inputs) EXPECT_FALSE(in.data.is_none());
      ++parsed;
    } catch (const RequestError& e) {
      EXPECT_EQ(e.status, 400);
      EXPECT_GT(std::string(e.what()).size(), 10u);
      ++refused;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "an exception other than RequestError for " << nlohmann::json(body).dump() << ": " << e.what();
      break;
    }
  }
  EXPECT_GT(parsed, 100);  // the mutations also leave valid requests
  EXPECT_GT(refused, 10000);
  // A shape far beyond what the body carries is refused before anything is allocated.
  const std::string huge =
      R"({"inputs": [{"name": "d", "shape": [1000000, 1000000], "datatype": "FP64", "data": [1]}]})";
  try {
    parse_infer_request(huge, huge.size());
    ADD_FAILURE() << "a shape of 10^12 elements was accepted";
  } catch (const RequestError& e) {
    EXPECT_NE(std::string(e.what()).find("holds more elements than the"), std::string::npos) << e.what();
  }
  // Binary bodies with a wrong Inference-Header-Content-Length are refused too.
  const std::string header =
      R"({"inputs": [{"name": "d", "shape": [2], "datatype": "FP32", "parameters": {"binary_data_size": 8}}]})";
  std::string body = header + std::string(8, '\0');
  EXPECT_NO_THROW(parse_infer_request(body, header.size()));
  for (size_t cut : {size_t{0}, header.size() - 1, header.size() + 1, body.size() + 5})
    EXPECT_THROW(parse_infer_request(body, cut), RequestError) << cut;
}

}  // namespace
}  // namespace braid::serving
