#pragma once
// Internal helpers of the layer operators (activations, normalization, softmax, dropout,
// output layers, Embedding, Flatten): registration entry points of its files and the small pieces
// of kernel plumbing they share.
#include <cmath>
#include <random>
#include <type_traits>
#include <vector>

#include "op/common/axis_split.h"
#include "op/common/req_util.h"
#include "op/op_util.h"
#include "op/register_all.h"

namespace braid::op::detail {

void register_activation_ops(Registry& r);        // activation.cc
void register_leaky_relu_ops(Registry& r);        // leaky_relu.cc
void register_batch_norm_ops(Registry& r);        // batch_norm.cc
void register_layer_norm_ops(Registry& r);        // layer_norm.cc
void register_dropout_ops(Registry& r);           // dropout.cc
void register_softmax_ops(Registry& r);           // softmax.cc
void register_softmax_output_ops(Registry& r);    // softmax_output.cc
void register_regression_ops(Registry& r);        // regression_output.cc
void register_embedding_ops(Registry& r);         // embedding.cc
void register_flatten_ops(Registry& r);           // flatten.cc
void register_ctc_loss_ops(Registry& r);          // ctc_loss.cc
void register_lrn_ops(Registry& r);               // lrn.cc
void register_sequence_ops(Registry& r);          // sequence_ops.cc
void register_svm_output_ops(Registry& r);        // svm_output.cc
void register_rnn_ops(Registry& r);               // rnn.cc
void register_group_norm_ops(Registry& r);        // group_norm.cc (GroupNorm, InstanceNorm)
void register_l2_normalization_ops(Registry& r);  // l2_normalization.cc
void register_upsampling_ops(Registry& r);        // upsampling.cc
void register_spatial_sampling_ops(
    Registry& r);                            // spatial_sampling.cc (GridGenerator, BilinearSampler, SpatialTransformer)
void register_correlation_ops(Registry& r);  // correlation.cc
void register_im2col_ops(Registry& r);       // im2col.cc (im2col, col2im)

/// `axis` (negative counts from the end) as an index into `s`; throws naming `op` when out of range.
inline int checked_axis(const std::string& op, int axis, const Shape& s) {
  const int nd = s.ndim();
  BRAID_CHECK(axis >= -nd && axis < nd, "operator ", op, ": axis ", axis, " is out of range for data of shape ", s,
              " (valid: ", -nd, " to ", nd - 1, ")");
  return axis < 0 ? axis + nd : axis;
}

/// Calls `f(std::true_type{})` when `inner` is 1 and `f(std::false_type{})` otherwise, so that a
/// kernel written as `const int64_t inner = unit ? 1 : split.inner;` loses its innermost loop in
/// the common last-axis case and vectorizes over `inner` in the other.
template <class F>
void dispatch_unit_inner(int64_t inner, F&& f) {
  if (inner == 1)
    f(std::true_type{});
  else
    f(std::false_type{});
}

/// Whether backward received a gradient for output `k` (hidden outputs may come without one).
inline bool has_out_grad(const BackwardArgs& a, size_t k) {
  return k < a.out_grads.size() && a.out_grads[k].dptr != nullptr;
}

/// Writes hidden outputs (masks, saved statistics) unless the caller asked for nothing: they are
/// state for backward, so Add makes no sense for them and is treated as Write.
inline bool writes_hidden(const ForwardArgs& a, size_t k) { return k < a.req.size() && a.req[k] != OpReq::Null; }

/// A uniform draw from [0, 1) with 53 random bits; the same on every platform (unlike
/// std::uniform_real_distribution), so that seeded runs repeat exactly.
inline double uniform01(std::mt19937_64& g) { return static_cast<double>(g() >> 11) * 0x1.0p-53; }

/// The gradient of an input that has none (labels, indices): zeros for Write, nothing otherwise.
void zero_grad(const TBlob& g, OpReq req);

}  // namespace braid::op::detail
