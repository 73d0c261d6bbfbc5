// A valid but long graph, a chain of 200,000 relu nodes, is loaded, inferred, printed, copied and
// destroyed without recursion: each of these used to recurse once per node and overflow the
// default 8 MiB stack the test binary runs with.
#include <gtest/gtest.h>

#include "braid/base/error.h"
#include "braid/symbol/compose.h"
#include "braid/symbol/symbol.h"
#include "common/relu_chain.h"
#include "common/sanitizers.h"

namespace braid {
namespace {

// A quarter of the chain under AddressSanitizer, which runs these passes 8 times slower: there they
// are checked for memory errors, while the main build's run checks that nothing recurses.
constexpr int kLength = test::kUnderAddressSanitizer ? 50000 : 200000;

void expect_whole_chain(const Symbol& chain) {
  EXPECT_EQ(chain.list_arguments(), std::vector<std::string>{"data"});
  EXPECT_EQ(chain.list_outputs(), std::vector<std::string>{cat("r", kLength, "_output")});
  auto shapes = chain.infer_shape({{"data", Shape({2, 3})}});
  EXPECT_EQ(shapes.out, std::vector<Shape>{Shape({2, 3})});
  EXPECT_EQ(chain.infer_type({{"data", DType::Float32}}).out, std::vector<DType>{DType::Float32});
  EXPECT_EQ(chain.get_internals().outputs().size(), static_cast<size_t>(kLength + 1));
  const std::string text = chain.tojson();
  EXPECT_EQ(Symbol::fromjson(text).tojson(), text);
}

TEST(LongGraph, ChainLoadedFromJson) {
  const Symbol chain = Symbol::fromjson(test::relu_chain_json(kLength));
  expect_whole_chain(chain);
}

TEST(LongGraph, ChainComposedThroughTheApi) {
  Symbol chain = Symbol::Variable("data");
  for (int i = 1; i <= kLength; ++i) chain = sym::make("relu", {chain}, {}, cat("r", i));
  expect_whole_chain(chain);
  EXPECT_EQ(chain.tojson(), Symbol::fromjson(test::relu_chain_json(kLength)).tojson());
}

// Each node reads the one before twice (x + x): no input is ever the only reference to its node.
TEST(LongGraph, ChainOfNodesReadingTheirInputTwice) {
  Symbol chain = Symbol::Variable("data");
  for (int i = 0; i < kLength; ++i) chain = chain + chain;
  EXPECT_EQ(chain.infer_shape({{"data", Shape({2})}}).out, std::vector<Shape>{Shape({2})});
}

// The last reference to the head goes while another symbol still holds a node in the middle:
// the shared half survives, the rest is freed.
TEST(LongGraph, DestroyingTheHeadKeepsSharedNodes) {
  Symbol middle;
  {
    const Symbol chain = Symbol::fromjson(test::relu_chain_json(kLength));
    middle = chain.get_internals()[kLength / 2];
  }
  EXPECT_EQ(middle.list_outputs(), std::vector<std::string>{cat("r", kLength / 2, "_output")});
  EXPECT_EQ(middle.get_internals().outputs().size(), static_cast<size_t>(kLength / 2 + 1));
}

}  // namespace
}  // namespace braid
