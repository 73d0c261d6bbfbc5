// base/: dtypes, shapes, contexts, half-precision conversion, environment parsing.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "braid/base/context.h"
#include "braid/base/dtype.h"
#include "braid/base/env.h"
#include "braid/base/shape.h"

namespace braid {
namespace {

TEST(DType, MXNetCodesAndNames) {
  EXPECT_EQ(static_cast<int>(DType::Float32), 0);
  EXPECT_EQ(static_cast<int>(DType::Float16), 2);
  EXPECT_EQ(static_cast<int>(DType::Int64), 6);
  EXPECT_EQ(static_cast<int>(DType::BFloat16), 12);
  EXPECT_STREQ(dtype_name(DType::UInt8), "uint8");
  EXPECT_EQ(dtype_from_name("int32"), DType::Int32);
  EXPECT_EQ(dtype_size(DType::Float64), 8u);
  EXPECT_EQ(dtype_size(DType::Bool), 1u);
  EXPECT_THROW(dtype_from_name("float128"), Error);
  EXPECT_THROW(dtype_from_code(13), Error);
  EXPECT_THROW(dtype_from_code(-1), Error);
}

TEST(Shape, SpellingAndAxes) {
  EXPECT_EQ(Shape({2, 3}).str(), "(2, 3)");
  EXPECT_EQ(Shape({5}).str(), "(5,)");
  EXPECT_EQ(Shape({}).str(), "()");
  EXPECT_EQ(Shape().str(), "?");
  EXPECT_EQ(Shape({}).size(), 1);
  EXPECT_FALSE(Shape({0, 3}).fully_known());
  EXPECT_EQ(Shape({2, 3, 4}).axis(-1), 2);
  EXPECT_THROW(Shape({2, 3}).axis(2), Error);
}

TEST(Context, ParseAndPrint) {
  EXPECT_EQ(cpu(1).str(), "cpu(1)");
  EXPECT_EQ(Context::parse("gpu(3)"), gpu(3));
  EXPECT_EQ(Context::parse("cpu_pinned(0)"), cpu_pinned(0));
  EXPECT_EQ(static_cast<int>(gpu().dev_type), 2);
  EXPECT_THROW(Context::parse("tpu(0)"), Error);
  EXPECT_THROW(Context::parse("cpu"), Error);
}

TEST(Half, RoundTripsAndRounds) {
  // Every finite half value converts to float and back unchanged.
  for (uint32_t bits = 0; bits < 0x10000; ++bits) {
    half_t h{static_cast<uint16_t>(bits)};
    float f = half_to_float(h);
    if (std::isnan(f)) continue;
    EXPECT_EQ(float_to_half(f).bits, h.bits) << bits;
  }
  EXPECT_EQ(half_to_float(float_to_half(1.0f)), 1.0f);
  EXPECT_EQ(half_to_float(float_to_half(65504.f)), 65504.f);
  EXPECT_TRUE(std::isinf(half_to_float(float_to_half(70000.f))));
  EXPECT_EQ(float_to_half(1.0f + 1.0f / 4096).bits, float_to_half(1.0f).bits);  // ties to even
  EXPECT_EQ(bfloat16_to_float(float_to_bfloat16(3.140625f)), 3.140625f);
}

TEST(Half, BulkConversionsEqualTheScalarOnes) {
  // Every half value, and floats around every rounding boundary, overflow and the subnormals;
  // lengths that are not multiples of the vector width take the scalar tail.
  std::vector<half_t> halves;
  for (uint32_t bits = 0; bits < 0x10000; ++bits) halves.push_back(half_t{static_cast<uint16_t>(bits)});
  std::vector<float> widened(halves.size());
  halves_to_floats(halves.data(), widened.data(), static_cast<int64_t>(halves.size()) - 3);
  for (size_t i = 0; i + 3 < halves.size(); ++i) {
    const float expected = half_to_float(halves[i]);
    if (std::isnan(expected))
      EXPECT_TRUE(std::isnan(widened[i])) << i;
    else
      EXPECT_EQ(widened[i], expected) << i;
  }
  std::vector<float> floats;
  for (float f : widened)
    if (std::isfinite(f)) floats.insert(floats.end(), {f, std::nextafter(f, 1e9f), std::nextafter(f, -1e9f)});
  for (float f : {70000.f, 65519.f, 65520.f, 1e-8f, 3e-8f, 2.98e-8f, 1e30f, -1e30f}) floats.push_back(f);
  std::vector<half_t> narrowed(floats.size());
  floats_to_halves(floats.data(), narrowed.data(), static_cast<int64_t>(floats.size()));
  for (size_t i = 0; i < floats.size(); ++i) EXPECT_EQ(narrowed[i].bits, float_to_half(floats[i]).bits) << floats[i];
}

TEST(Env, IntegersAndErrors) {
  setenv("BRAID_TEST_INT", "12", 1);
  EXPECT_EQ(env_int({"BRAID_UNSET_VAR", "BRAID_TEST_INT"}, 5), 12);
  EXPECT_EQ(env_int({"BRAID_UNSET_VAR"}, 5), 5);
  setenv("BRAID_TEST_INT", "12x", 1);
  EXPECT_THROW(env_int({"BRAID_TEST_INT"}, 5), Error);
}

}  // namespace
}  // namespace braid
