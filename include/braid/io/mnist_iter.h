#pragma once
/// MNISTIter (MXNet's mx.io.MNISTIter): batches of the MNIST (or Fashion-MNIST) IDX files,
/// gzipped or not, loaded into memory at construction.
///
///   io::MNISTIter it({.image = dir + "/train-images-idx3-ubyte.gz",
///                     .label = dir + "/train-labels-idx1-ubyte.gz", .batch_size = 100});
///
/// data: float32 pixels / 255 of shape (B, 1, rows, cols), or (B, rows * cols) when flat;
/// label: float32 class numbers of shape (B,). With num_parts = n, part k is the contiguous
/// samples [k*N/n, (k+1)*N/n) of the files (one part per worker). Shuffling happens once, at
/// construction, with `seed`; every epoch visits the samples in that order. An incomplete last
/// batch is dropped. `index` gives each row's sample number in the files. Batches are views of
/// the iterator's arrays: treat them as read-only.
#include <cstdint>
#include <string>

#include "braid/io/data_iter.h"

namespace braid::io {

struct MNISTIterOptions {
  std::string image = "./train-images-idx3-ubyte";
  std::string label = "./train-labels-idx1-ubyte";
  int64_t batch_size = 128;
  bool shuffle = true;
  bool flat = false;
  uint64_t seed = 0;
  /// When false, construction prints one line (sample count, shuffle, batch shape) to stderr.
  bool silent = false;
  int num_parts = 1;
  int part_index = 0;
  std::string data_name = "data";
  std::string label_name = "softmax_label";
};

class MNISTIter : public DataIter {
 public:
  /// Reads both files; throws braid::Error naming the file and the problem when one is missing
  /// or malformed, when their sample counts differ, or when an option is out of range.
  explicit MNISTIter(MNISTIterOptions options);

  std::optional<DataBatch> next() override;
  /// Back to the first batch (same order: no reshuffle, as in MXNet).
  void reset() override { cursor_ = 0; }
  std::vector<DataDesc> provide_data() const override;
  std::vector<DataDesc> provide_label() const override;
  int64_t batch_size() const override { return options_.batch_size; }
  /// Samples in this part (the last batch_size-incomplete batch included).
  int64_t num_samples() const { return images_.shape()[0]; }

 private:
  MNISTIterOptions options_;
  NDArray images_;              // (n, 1, rows, cols) or (n, rows * cols), in visiting order
  NDArray labels_;              // (n,)
  std::vector<int64_t> index_;  // sample number in the files of each row
  int64_t cursor_ = 0;
};

}  // namespace braid::io
