#include "braid/io/mnist_iter.h"

#include <algorithm>
#include <filesystem>
#include <iostream>
#include <numeric>
#include <random>

#include "braid/base/error.h"
#include "braid/io/idx.h"
#include "gather_rows.h"

namespace braid::io {
namespace {

// load(path), with the file's role and the option that names it in every error.
template <class Load>
NDArray load_file(Load load, const std::string& path, const char* option) {
  BRAID_CHECK(std::filesystem::is_regular_file(path), "MNISTIter: ", option, " file '", path,
              "' does not exist; set MNISTIterOptions::", option, " to an IDX file (gzipped or not)");
  try {
    return load(path);
  } catch (const Error& e) {
    throw Error(cat("MNISTIter: cannot read the ", option, " file: ", e.what()));
  }
}

}  // namespace

MNISTIter::MNISTIter(MNISTIterOptions options) : options_(std::move(options)) {
  const auto& o = options_;
  BRAID_CHECK(o.batch_size > 0, "MNISTIter: batch_size must be positive, got ", o.batch_size);
  BRAID_CHECK(o.num_parts > 0, "MNISTIter: num_parts must be positive, got ", o.num_parts);
  BRAID_CHECK(o.part_index >= 0 && o.part_index < o.num_parts, "MNISTIter: part_index ", o.part_index,
              " is outside [0, num_parts) = [0, ", o.num_parts, ")");
  NDArray images = load_file(load_idx_images, o.image, "image");
  NDArray labels = load_file(load_idx_labels, o.label, "label");
  const int64_t total = images.shape()[0];
  BRAID_CHECK(labels.shape()[0] == total, "MNISTIter: the image file '", o.image, "' holds ", total,
              " images but the label file '", o.label, "' holds ", labels.shape()[0],
              " labels; pass files of the same set");

  const int64_t begin = total * o.part_index / o.num_parts;
  const int64_t end = total * (o.part_index + 1) / o.num_parts;
  std::vector<int64_t> rows(static_cast<size_t>(end - begin));
  std::iota(rows.begin(), rows.end(), begin);
  if (o.shuffle) std::shuffle(rows.begin(), rows.end(), std::mt19937(static_cast<std::mt19937::result_type>(o.seed)));
  index_ = rows;
  if (!rows.empty()) {
    // A copy even when unshuffled, so that one part does not keep the whole file in memory.
    images_ = detail::gather_rows(images, rows).copy();
    labels_ = detail::gather_rows(labels, rows).copy();
  } else {
    images_ = images.slice(0, 0);
    labels_ = labels.slice(0, 0);
  }
  if (o.flat) images_ = images_.reshape({images_.shape()[0], -1});
  images_.wait_to_read();
  labels_.wait_to_read();
  if (!o.silent) {
    std::cerr << "MNISTIter: load " << images_.shape()[0] << " images, shuffle=" << o.shuffle
              << ", shape=" << provide_data()[0].shape << "\n";
  }
}

std::optional<DataBatch> MNISTIter::next() {
  const int64_t bs = options_.batch_size;
  if (cursor_ + bs > num_samples()) return std::nullopt;
  DataBatch batch;
  batch.data.push_back(images_.slice(cursor_, cursor_ + bs));
  batch.label.push_back(labels_.slice(cursor_, cursor_ + bs));
  auto first = index_.begin() + cursor_;
  batch.index.assign(first, first + bs);
  cursor_ += bs;
  return batch;
}

std::vector<DataDesc> MNISTIter::provide_data() const {
  std::vector<int64_t> dims = images_.shape().dims();
  dims[0] = options_.batch_size;
  return {DataDesc{options_.data_name, Shape(std::move(dims)), DType::Float32}};
}

std::vector<DataDesc> MNISTIter::provide_label() const {
  return {DataDesc{options_.label_name, Shape({options_.batch_size}), DType::Float32}};
}

}  // namespace braid::io
