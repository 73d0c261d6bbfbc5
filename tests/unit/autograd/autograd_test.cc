#include "braid/autograd/autograd.h"

#include <gtest/gtest.h>

#include "braid/base/error.h"
#include "braid/ndarray/creation.h"
#include "braid/ndarray/elemwise.h"
#include "braid/ndarray/invoke.h"
#include "braid/ndarray/reduce.h"
#include "braid/storage/storage.h"

namespace braid {
namespace {

using V = std::vector<float>;

NDArray x123() { return nd::array({1, 2, 3}); }

TEST(Autograd, SquareSumGivesTwiceX) {
  NDArray x = x123();
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    y = nd::sum(x * x);
  }
  y.backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{2, 4, 6}));
}

TEST(Autograd, GradientsOfSeveralPathsAreSummed) {
  NDArray x = x123();
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    NDArray t = x * x;
    y = t * x + x;  // 3x^2 + 1
  }
  y.backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{4, 13, 28}));
}

TEST(Autograd, BackwardMarksGradientsFresh) {
  NDArray x = x123(), unused = x123();
  x.attach_grad();
  unused.attach_grad();
  EXPECT_FALSE(autograd::fresh_grad(x));
  NDArray y;
  {
    autograd::RecordScope rec;
    y = x * 2.0f;
  }
  y.backward();
  EXPECT_TRUE(autograd::fresh_grad(x));
  EXPECT_FALSE(autograd::fresh_grad(unused));
  autograd::set_fresh_grad(x, false);
  EXPECT_FALSE(autograd::fresh_grad(x));
  EXPECT_THROW(autograd::fresh_grad(y), Error);
}

TEST(Autograd, HeadGradientScalesTheResult) {
  NDArray x = x123();
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    y = x * 2.0f;
  }
  y.backward(nd::array({1, 10, 100}));
  EXPECT_EQ(x.grad().to_vector<float>(), (V{2, 20, 200}));
}

TEST(Autograd, AHeadGradientWithExtraRowsGivesItsFirstRowsAsMXNetDoes) {
  NDArray x = nd::array({1, 2, 3, 4}, Shape{2, 2});
  x.attach_grad();
  auto backward_with = [&](const NDArray& head_grad) {
    NDArray y;
    {
      autograd::RecordScope rec;
      y = x * 2.0f;
    }
    y.backward(head_grad);
  };
  backward_with(nd::array({1, 10, 100, 1000, 7, 7}, Shape{3, 2}));
  EXPECT_EQ(x.grad().to_vector<float>(), (V{2, 20, 200, 2000}));
  EXPECT_THROW(backward_with(nd::array({1, 10, 100, 1000, 7, 7}, Shape{2, 3})), Error) << "other columns";
  EXPECT_THROW(backward_with(nd::array({1, 10}, Shape{1, 2})), Error) << "fewer rows";
}

TEST(Autograd, GradReqWriteOverwritesAndAddAccumulates) {
  NDArray w = x123(), a = x123();
  w.attach_grad(GradReq::Write);
  a.attach_grad(GradReq::Add);
  for (int i = 0; i < 2; ++i) {
    NDArray y;
    {
      autograd::RecordScope rec;
      y = w * 3.0f + a * 5.0f;
    }
    y.backward();
  }
  EXPECT_EQ(w.grad().to_vector<float>(), (V{3, 3, 3}));
  EXPECT_EQ(a.grad().to_vector<float>(), (V{10, 10, 10}));
  EXPECT_EQ(a.grad_req(), GradReq::Add);
}

TEST(Autograd, GradReqNullDetachesTheVariable) {
  NDArray x = x123();
  x.attach_grad();
  x.attach_grad(GradReq::Null);
  EXPECT_TRUE(x.grad().is_none());
  autograd::RecordScope rec;
  NDArray y = x * x;
  EXPECT_THROW(y.backward(), Error);  // nothing in y needs a gradient: it was not recorded
}

TEST(Autograd, CopiesOfAHandleShareTheVariable) {
  NDArray x = x123();
  NDArray alias = x;
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    y = alias * 4.0f;
  }
  y.backward();
  EXPECT_EQ(alias.grad().to_vector<float>(), (V{4, 4, 4}));
  EXPECT_EQ(x.grad().to_vector<float>(), (V{4, 4, 4}));
}

TEST(Autograd, GradientsFlowThroughViews) {
  NDArray x = nd::array({1, 2, 3, 4, 5, 6}, Shape({3, 2}));
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    NDArray rows = x.slice(1, 3);           // rows 1 and 2
    NDArray flat = rows.reshape({-1});      // 4 elements
    NDArray last = x.at(2).expand_dims(0);  // row 2 again, shape (1, 2)
    y = nd::sum(flat * flat) + nd::sum(last.squeeze() * 10.0f);
  }
  y.backward();
  // d/dx: rows 1,2 get 2x; row 2 also gets 10.
  EXPECT_EQ(x.grad().to_vector<float>(), (V{0, 0, 6, 8, 20, 22}));
}

TEST(Autograd, GradientsFlowThroughCopiesBetweenContextsAndDtypes) {
  NDArray x = x123();
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    NDArray on1 = x.copyto(cpu(1)).astype(DType::Float64);
    y = on1 * 3.0;
  }
  EXPECT_EQ(y.ctx(), cpu(1));
  y.backward();
  EXPECT_EQ(x.grad().ctx(), cpu(0));
  EXPECT_EQ(x.grad().to_vector<float>(), (V{3, 3, 3}));
}

TEST(Autograd, SecondBackwardNeedsRetainGraph) {
  NDArray x = x123();
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    y = x * x;
  }
  y.backward(NDArray(), /*retain_graph=*/true);
  y.backward(NDArray(), /*retain_graph=*/false);
  EXPECT_EQ(x.grad().to_vector<float>(), (V{2, 4, 6}));
  try {
    y.backward();
    FAIL() << "a released graph was back-propagated";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("retain_graph"), std::string::npos) << e.what();
  }
}

// As MXNet: after a backward that released its graph, the graph's arrays are constants to new
// recordings; gradients stop there.
TEST(Autograd, ReleasedResultsAreConstantsOfLaterGraphs) {
  NDArray x = x123(), w = x123();
  x.attach_grad();
  w.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    y = x * x;
  }
  y.backward();
  NDArray z;
  {
    autograd::RecordScope rec;
    z = y * w;
  }
  z.backward();
  EXPECT_EQ(w.grad().to_vector<float>(), (V{1, 4, 9}));
  EXPECT_EQ(x.grad().to_vector<float>(), (V{2, 4, 6}));  // from the first backward only
}

TEST(Autograd, GradReturnsGradientsWithoutTouchingGradBuffers) {
  NDArray x = x123(), z = x123();
  x.attach_grad();
  z.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    y = nd::sum(x * x * x);
  }
  auto g = autograd::grad({y}, {x, z});
  ASSERT_EQ(g.size(), 2u);
  EXPECT_EQ(g[0].to_vector<float>(), (V{3, 12, 27}));
  EXPECT_EQ(g[1].to_vector<float>(), (V{0, 0, 0}));  // y does not depend on z
  EXPECT_EQ(x.grad().to_vector<float>(), (V{0, 0, 0}));
}

TEST(Autograd, ScopesSetRecordingAndTrainingMode) {
  EXPECT_FALSE(autograd::is_recording());
  EXPECT_FALSE(autograd::is_training());
  {
    autograd::RecordScope rec;
    EXPECT_TRUE(autograd::is_recording());
    EXPECT_TRUE(autograd::is_training());
    {
      autograd::PauseScope pause;
      EXPECT_FALSE(autograd::is_recording());
      EXPECT_FALSE(autograd::is_training());
      auto m = autograd::train_mode();
      EXPECT_TRUE(autograd::is_training());
    }
    EXPECT_TRUE(autograd::is_recording());
  }
  {
    autograd::RecordScope rec(/*train_mode=*/false);
    EXPECT_FALSE(autograd::is_training());
  }
  EXPECT_FALSE(autograd::is_recording());
}

TEST(Autograd, OpsInsidePauseAreConstants) {
  NDArray x = x123();
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    NDArray c;
    {
      autograd::PauseScope pause;
      c = x * 100.0f;  // not recorded: a constant
    }
    y = x * c;
  }
  y.backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{100, 200, 300}));
}

TEST(Autograd, DetachCutsTheGraph) {
  NDArray x = x123();
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    y = x * x.detach();
  }
  y.backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{1, 2, 3}));
}

TEST(Autograd, InPlaceWriteIntoTheGraphWhileRecordingIsAnError) {
  NDArray x = x123();
  x.attach_grad();
  autograd::RecordScope rec;
  EXPECT_THROW(x += 1.0f, Error);
  NDArray y = x * 2.0f;
  EXPECT_THROW(y *= 2.0f, Error);
}

TEST(Autograd, BackwardOfAnUnrecordedArrayIsAClearError) {
  NDArray x = x123();
  try {
    x.backward();
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("RecordScope"), std::string::npos) << e.what();
  }
}

TEST(Autograd, NonDifferentiableOpsGiveConstants) {
  NDArray x = x123();
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    NDArray idx = nd::invoke1("argmax", {x}, {{"axis", "0"}});  // no gradient: a constant
    y = x * 2.0f;
  }
  y.backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{2, 2, 2}));
}

TEST(Autograd, ReachedVariableWithoutGradientGetsZeros) {
  NDArray x = x123();
  x.attach_grad();
  NDArray y;
  {
    autograd::RecordScope rec;
    y = x * 2.0f;
  }
  y.backward();
  NDArray z;
  {
    autograd::RecordScope rec;
    z = nd::invoke1("floor", {x}) + 1.0f;  // floor's gradient is zero
  }
  z.backward();
  EXPECT_EQ(x.grad().to_vector<float>(), (V{0, 0, 0}));
}

TEST(Autograd, TapeMemoryIsReleasedAfterBackwardUnlessRetained) {
  const int64_t n = 1 << 20;  // 4 MB per array
  auto in_use = [] {
    nd::waitall();
    return Storage::get().stats(cpu()).bytes_in_use;
  };
  for (bool retain : {false, true}) {
    NDArray x = nd::ones(Shape({n}));
    x.attach_grad();
    NDArray y;
    {
      autograd::RecordScope rec;
      y = nd::sum(nd::exp(nd::exp(x)));  // two intermediates of n elements live only on the tape
    }
    size_t before = in_use();
    y.backward(NDArray(), retain);
    size_t after = in_use();
    if (retain) {
      EXPECT_GE(after, before) << "retained tape freed";
    } else {
      EXPECT_LE(after + 2 * n * sizeof(float), before) << "tape not freed after backward";
    }
  }
}

}  // namespace
}  // namespace braid
