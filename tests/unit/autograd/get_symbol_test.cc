// autograd::get_symbol: the recorded computation as a Symbol that, bound to the same arrays,
// computes what was recorded.
#include "braid/autograd/get_symbol.h"

#include <gtest/gtest.h>

#include "braid/autograd/autograd.h"
#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/symbol/executor.h"

namespace braid {
namespace {

TEST(GetSymbol, TheGraphOfARecordingComputesWhatWasRecorded) {
  NDArray x = nd::array({1, -2, 3, -4, 5, 6}).reshape({2, 3});
  NDArray z = nd::array({0.5, 0.25, 2});
  NDArray constant = nd::array({10, 20, 30});
  x.attach_grad();
  z.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    NDArray h = nd::invoke1("broadcast_add", {nd::relu(x * 2.0), z + constant});
    y = h.reshape({6}).slice(1, 4) * 3.0;  // views of recorded arrays become Reshape and slice_axis nodes
  }
  Symbol s = autograd::get_symbol(y);
  EXPECT_EQ(s.list_arguments(), (std::vector<std::string>{"var0", "var1", "null2"}));  // one counter, as MXNet
  Executor ex = Executor::bind(s, cpu(), {x, z, constant});
  ex.forward();
  EXPECT_EQ(ex.outputs()[0].to_vector<float>(), y.to_vector<float>());
  EXPECT_EQ(ex.outputs()[0].shape(), (Shape{3}));
  // The JSON round trip keeps the operators' attributes.
  Symbol loaded = Symbol::fromjson(s.tojson());
  Executor again = Executor::bind(loaded, cpu(), {x, z, constant});
  again.forward();
  EXPECT_EQ(again.outputs()[0].to_vector<float>(), y.to_vector<float>());
}

TEST(GetSymbol, AnArrayOutsideTheRecordingIsAClearError) {
  NDArray plain = nd::ones(Shape{2}) * 2.0;
  EXPECT_THROW(autograd::get_symbol(plain), Error);
  NDArray x = nd::ones(Shape{2});
  x.attach_grad();
  EXPECT_EQ(autograd::get_symbol(x).list_arguments(), (std::vector<std::string>{"var0"}));
}

}  // namespace
}  // namespace braid
