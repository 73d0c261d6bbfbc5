#include "braid/gluon/data/batchify.h"

#include "braid/base/error.h"
#include "braid/ndarray/matrix.h"

namespace braid::gluon::data {

Batch default_batchify(const std::vector<Sample>& samples) {
  BRAID_CHECK(!samples.empty(), "default_batchify: no samples to join into a batch");
  const size_t fields = samples[0].size();
  Batch batch;
  for (size_t k = 0; k < fields; ++k) {
    std::vector<NDArray> column;
    column.reserve(samples.size());
    for (size_t i = 0; i < samples.size(); ++i) {
      BRAID_CHECK(samples[i].size() == fields, "default_batchify: sample ", i, " has ", samples[i].size(),
                  " fields but sample 0 has ", fields, "; every sample needs the same fields");
      const NDArray& a = samples[i][k];
      BRAID_CHECK(a.shape() == samples[0][k].shape() && a.dtype() == samples[0][k].dtype(), "default_batchify: field ",
                  k, " of sample ", i, " is ", a.shape(), " ", dtype_name(a.dtype()), " but of sample 0 ",
                  samples[0][k].shape(), " ", dtype_name(samples[0][k].dtype()),
                  "; resize or cast samples to one shape and dtype, or give a batchify_fn");
      column.push_back(a);
    }
    batch.push_back(nd::stack(column, 0));
  }
  return batch;
}

}  // namespace braid::gluon::data
