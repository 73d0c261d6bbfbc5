#include "train_data.h"

#include <cmath>
#include <filesystem>
#include <sstream>

#include "braid/base/error.h"
#include "braid/gluon/data/dataloader.h"
#include "braid/gluon/data/vision/datasets.h"
#include "braid/gluon/data/vision/transforms.h"
#include "braid/gluon/model_zoo/simple.h"
#include "braid/gluon/model_zoo/vision.h"
#include "braid/io/idx.h"
#include "braid/io/image_record_iter.h"

namespace braid::cli {
namespace {

namespace fs = std::filesystem;
namespace data = gluon::data;

// Fashion-MNIST or MNIST: (1, 28, 28) images scaled to [0, 1].
class IdxData : public TrainData {
 public:
  IdxData(const TrainOptions& o, bool train, int rank, int workers) : name_(o.dataset) {
    data::DatasetPtr ds;
    if (o.dataset == "fashion-mnist") {
      ds = std::make_shared<data::vision::FashionMNIST>(o.data_dir.empty() ? io::fashion_mnist_dir() : o.data_dir,
                                                        train);
    } else if (o.dataset == "mnist") {
      BRAID_CHECK(!o.data_dir.empty(), "--dataset mnist needs --data-dir (the folder of the MNIST idx files)");
      ds = std::make_shared<data::vision::MNIST>(o.data_dir, train);
    } else {
      throw Error(cat("unknown dataset '", o.dataset, "'; valid: fashion-mnist, mnist (or images: --data-train)"));
    }
    ds = ds->transform_first(data::vision::transforms::ToTensor());
    const int64_t limit = train ? o.limit : o.test_limit;
    if (limit > 0 && limit < ds->size()) ds = ds->take(limit);
    // A parameter-server worker trains on its own shard, all shards of one size so that every
    // worker runs the same number of batches (a worker with one batch more would wait for the
    // others' pushes forever, MXNet issue 7888).
    if (train && workers > 1) ds = ds->shard(workers, rank)->take(ds->size() / workers);
    images_ = ds->size();
    loader_ = std::make_unique<data::DataLoader>(
        ds, data::DataLoaderOptions{.batch_size = train ? o.batch_size : 1000,
                                    .shuffle = train,
                                    .last_batch = train ? data::LastBatch::Discard : data::LastBatch::Keep,
                                    .num_workers = o.num_workers});
  }
  int64_t images() const override { return images_; }
  int64_t batches() const override { return loader_->size(); }
  void start_epoch(int) override { epoch_.emplace(loader_->begin()); }
  std::optional<LabeledBatch> next() override {
    if (!epoch_ || *epoch_ == std::default_sentinel) return std::nullopt;
    LabeledBatch b{(**epoch_)[0], (**epoch_)[1]};
    ++*epoch_;
    return b;
  }
  Shape image_shape() const override { return Shape({1, 28, 28}); }
  int64_t classes() const override { return 10; }
  std::string describe() const override { return name_; }

 private:
  std::string name_;
  int64_t images_ = 0;
  std::unique_ptr<data::DataLoader> loader_;
  std::optional<data::DataLoader::Iterator> epoch_;
};

// An image folder or a .rec file through ImageRecordIter: the shorter side resized to 8/7 of the
// crop's longer side (256 for 224), then a crop and, when training, a mirror half the time; values
// (pixel - mean) / std with ImageNet's mean and std per RGB channel (the model zoo's), pixel / 255
// for gray images.
class ImageData : public TrainData {
 public:
  ImageData(const TrainOptions& o, bool train, int rank, int workers) : path_(train ? o.data_train : o.data_val) {
    BRAID_CHECK(!path_.empty(), train ? "--data-train" : "--data-val",
                " is missing: give the training and the test images (an image folder or a .rec file) both");
    BRAID_CHECK(o.limit == 0 && o.test_limit == 0,
                "--limit and --test-limit apply to Fashion-MNIST and MNIST; pass fewer images instead");
    auto& it = opts_;
    it.data_shape = parse_image_shape(o.image_shape, o.model);
    it.batch_size = o.batch_size;
    it.preprocess_threads = std::max(1, o.num_workers);
    it.resize = static_cast<int64_t>(std::ceil(double(std::max(it.data_shape[1], it.data_shape[2])) * 8 / 7));
    it.rand_crop = it.rand_mirror = it.shuffle = train;
    it.round_batch = train;
    if (it.data_shape[0] == 3) {
      it.mean = {123.68f, 116.28f, 103.53f};
      it.std = {58.395f, 57.12f, 57.375f};
    } else {
      it.std = {255.f, 255.f, 255.f};
    }
    if (fs::is_directory(path_)) {
      std::vector<std::string> names;
      it.files = io::list_image_folder(path_, &names);
      classes_ = int64_t(names.size());
    } else {
      BRAID_CHECK(fs::is_regular_file(path_), train ? "--data-train " : "--data-val ", path_,
                  " is neither an image folder nor a .rec file");
      it.path_imgrec = path_;
      const fs::path idx = fs::path(path_).replace_extension(".idx");
      if (fs::is_regular_file(idx)) it.path_imgidx = idx.string();
      BRAID_CHECK(o.classes > 0, "--data-train/--data-val ", path_,
                  ": a .rec file does not say how many classes it holds; give --classes N (labels 0 .. N-1)");
    }
    if (o.classes > 0) classes_ = o.classes;
    if (train && workers > 1) it.num_parts = workers, it.part_index = rank;
    seed_ = o.seed;
    start_epoch(1);
    // Every worker the same number of batches: its share of the images at the smallest share.
    images_ = train ? iter_->total_images() / workers : iter_->num_images();
    batches_ = train ? images_ / o.batch_size : (images_ + o.batch_size - 1) / o.batch_size;
  }
  int64_t images() const override { return images_; }
  int64_t batches() const override { return batches_; }
  void start_epoch(int epoch) override {
    if (epoch_ == epoch) return;  // the iterator made for it (the first epoch's, at construction)
    iter_.reset();                // its threads stopped before the next one's start
    opts_.seed = seed_ + uint64_t(epoch);
    iter_ = std::make_unique<io::ImageRecordIter>(opts_);
    epoch_ = epoch;
    done_ = 0;
  }
  std::optional<LabeledBatch> next() override {
    if (done_ >= batches_) return std::nullopt;
    auto batch = iter_->next();
    if (!batch) return std::nullopt;
    ++done_;
    NDArray x = batch->data[0], y = batch->label[0];
    if (batch->pad > 0) {  // the test data's last batch: only its real images
      const int64_t n = x.shape()[0] - batch->pad;
      x = x.slice(0, n), y = y.slice(0, n);
    }
    return LabeledBatch{x, y};
  }
  Shape image_shape() const override { return opts_.data_shape; }
  int64_t classes() const override { return classes_; }
  std::string describe() const override { return "images in " + path_; }

 private:
  std::string path_;
  io::ImageRecordIterOptions opts_;
  std::unique_ptr<io::ImageRecordIter> iter_;
  uint64_t seed_ = 0;
  int64_t images_ = 0, batches_ = 0, classes_ = 0, done_ = 0;
  int epoch_ = 0;
};

}  // namespace

std::unique_ptr<TrainData> open_train_data(const TrainOptions& o, bool train, int rank, int workers) {
  if (o.data_train.empty() && o.data_val.empty()) return std::make_unique<IdxData>(o, train, rank, workers);
  return std::make_unique<ImageData>(o, train, rank, workers);
}

Shape parse_image_shape(const std::string& text, const std::string& model) {
  if (text.empty()) {
    const auto simple = gluon::model_zoo::simple_model_names();
    if (std::find(simple.begin(), simple.end(), model) != simple.end()) return Shape({1, 28, 28});
    const int64_t side = gluon::model_zoo::vision::image_size(model);
    return Shape({3, side, side});
  }
  std::vector<int64_t> dims;
  std::istringstream in(text);
  for (std::string part; std::getline(in, part, ',');) {
    char* end = nullptr;
    const long long v = std::strtoll(part.c_str(), &end, 10);
    BRAID_CHECK(!part.empty() && *end == '\0' && v > 0 && v <= 65536, "--image-shape ", text,
                ": each of C,H,W must be a positive whole number, e.g. 3,224,224");
    dims.push_back(v);
  }
  BRAID_CHECK(dims.size() == 3 && (dims[0] == 1 || dims[0] == 3), "--image-shape ", text,
              ": give channels (1 or 3), height and width, e.g. 3,224,224");
  return Shape(dims);
}

}  // namespace braid::cli
