#pragma once
// Internal: arrays bound to an executor in compressed storage (row_sparse, csr). The plan's
// kernels read and write dense buffers, so such an array is bound through a dense stand-in: an
// argument or aux state is copied into its stand-in before each forward, and a gradient stand-in
// copied out into the gradient array (in that array's storage type) after each backward. The
// outputs take the storage types the same operator calls on NDArrays give (MXNet's storage type
// inference), converted after each training forward; an inference forward makes those calls.
#include <cstddef>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "braid/ndarray/ndarray.h"
#include "braid/symbol/node.h"
#include "braid/symbol/symbol.h"
#include "run_state.h"

namespace braid::symbol::detail {

struct CompressedArrays {
  std::vector<NDArray> args, arg_grads, aux;                  // as given: what the executor shows
  std::vector<size_t> sparse_args, sparse_grads, sparse_aux;  // where they hold compressed arrays
  std::vector<StorageType> output_stypes;                     // empty: every output dense
  std::vector<NDArray> outputs;                               // the last forward's, converted
};

/// The storage types of the graph's outputs given its arguments' and aux states': those of the
/// same calls on NDArrays (ndarray/sparse_dispatch.cc), found by running the graph once, operator
/// by operator, on zero-valued arrays of those storage types. Dense for a graph that cannot run so.
std::vector<StorageType> output_stypes(const std::vector<Entry>& outputs, const std::vector<NDArray>& args,
                                       const std::vector<NDArray>& aux);

/// `given` with each compressed array replaced by a dense stand-in holding its values, and the
/// positions replaced added to `positions`.
std::vector<NDArray> dense_stand_ins(const std::vector<NDArray>& given, std::vector<size_t>& positions);

/// For arrays none of which is compressed, null; else what `copy_in` and `copy_out` need.
std::shared_ptr<CompressedArrays> compressed_arrays(const std::vector<NDArray>& args,
                                                    const std::vector<NDArray>& arg_grads,
                                                    const std::vector<NDArray>& aux);

/// The gradient storage types the graph's embeddings decide for their weight variables: row_sparse
/// under Embedding(sparse_grad=True) and _contrib_SparseEmbedding, dense under other Embeddings.
std::map<std::string, StorageType> embedding_grad_stypes(const Symbol& symbol);

/// Before a forward: the compressed arguments and aux states into their stand-ins in `state`.
void copy_in(const CompressedArrays& given, RunState& state);
/// After a backward: the stand-ins of compressed gradients into the gradient arrays.
void copy_out(const CompressedArrays& given, const RunState& state);
/// An inference forward: the outputs computed by the same NDArray calls, operator by operator, on
/// the arrays as given (exactly MXNet's results, stored values included, for operators that
/// compute on the stored values only), into `given.outputs`.
void infer_with_ndarrays(CompressedArrays& given, const std::vector<Entry>& outputs);
/// After a training forward: the outputs in their storage types into `given.outputs`.
void convert_outputs(CompressedArrays& given, const RunState& state);

}  // namespace braid::symbol::detail
