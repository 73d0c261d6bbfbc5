#pragma once
/// ImageRecordIter (MXNet's mx.io.ImageRecordIter): batches (N, C, H, W) float32 of images read
/// from a RecordIO file of image records (im2rec's .rec), decoded, resized, cropped, mirrored and
/// normalised by a pool of threads that work batches ahead of the consumer.
///
///   io::ImageRecordIterOptions o;
///   o.path_imgrec = "train.rec";
///   o.data_shape = Shape({3, 224, 224});
///   o.batch_size = 64;
///   o.resize = 256;  o.rand_crop = o.rand_mirror = true;  o.shuffle = true;
///   io::ImageRecordIter it(o);
///   while (auto batch = it.next()) ...
///
/// Each batch is made by one thread; batches come out in order. The random choices of an image
/// (crop, mirror) depend only on seed, the epoch and the image's place in it, so a run repeats
/// whatever the thread count. Per image: shorter side resized to `resize` (when > 0, with
/// `inter_method`), a data_shape crop (random with rand_crop, else centred; the image must be at
/// least that big), a mirror (rand_mirror: half the time; mirror: always), then per channel
/// (pixel - mean) · scale / std, channels in RGB order (or, with dtype uint8 or int8, the pixels
/// or the pixels less the rounded mean).
///
/// The images may instead be files on disk (`files`, e.g. an image folder's: list_image_folder),
/// read by the same threads through the same pipeline.
#include <array>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "braid/io/data_iter.h"

namespace braid::io {

/// An image file (JPEG or PNG) and its labels.
struct ImageFile {
  std::string path;
  std::vector<float> labels;
};

/// The images of an image folder, MXNet's ImageFolderDataset layout: root/<class>/<image>, the
/// classes (sub-folders) in sorted order labelled 0, 1, ..., the .jpg, .jpeg and .png files of each
/// in sorted order. `classes`, when given, receives the class names. Throws naming `root` when it
/// is not a folder or holds no images.
std::vector<ImageFile> list_image_folder(const std::string& root, std::vector<std::string>* classes = nullptr);

struct ImageRecordIterOptions {
  std::string path_imgrec;  ///< the .rec file (required unless `files` is given)
  std::string path_imgidx;  ///< its .idx file; else the records are found by reading the file once
  Shape data_shape;         ///< (channels, height, width), 1 or 3 channels
  int64_t batch_size = 0;
  int64_t label_width = 1;  ///< labels per image; records must hold exactly that many
  bool shuffle = false;     ///< a new order each epoch, drawn from seed
  uint64_t seed = 0;
  int64_t num_parts = 1, part_index = 0;  ///< this reader's share: records [n·i/parts, n·(i+1)/parts)
  bool round_batch = true;  ///< the last batch completed from the first images (else zeros); pad counts them
  int64_t preprocess_threads = 4;
  int64_t prefetch_buffer = 4;  ///< batches made ahead of the consumer
  int64_t resize = -1;
  int inter_method = 1;  ///< OpenCV's numbering (braid/image/resize.h)
  bool rand_crop = false, rand_mirror = false, mirror = false;
  std::array<float, 3> mean{0.f, 0.f, 0.f}, std{1.f, 1.f, 1.f};  ///< per channel, R G B
  float scale = 1.f;
  /// The data's type: float32 as above; uint8 the pixels themselves; int8 pixel - round(mean),
  /// saturated (MXNet's: neither takes std or scale).
  DType dtype = DType::Float32;
  std::string data_name = "data", label_name = "softmax_label";
  std::vector<ImageFile> files;  ///< instead of path_imgrec: these files, each with label_width labels
};

class ImageRecordIter : public DataIter {
 public:
  /// Checks the options and reads the record offsets; throws braid::Error naming a bad option or
  /// an unreadable file. The threads start at once on the first epoch.
  explicit ImageRecordIter(ImageRecordIterOptions options);
  ~ImageRecordIter() override;

  /// The next batch; rethrows the error of making it (a broken image names its record).
  std::optional<DataBatch> next() override;
  void reset() override;
  std::vector<DataDesc> provide_data() const override;
  std::vector<DataDesc> provide_label() const override;
  int64_t batch_size() const override { return opts_.batch_size; }
  /// Images of this part (one epoch).
  int64_t num_images() const { return int64_t(opts_.files.empty() ? offsets_.size() : files_.size()); }
  /// Images of all parts together.
  int64_t total_images() const { return total_; }

 private:
  struct Made {
    DataBatch batch;
    std::exception_ptr error;
  };
  void start();
  void stop();
  void work();
  DataBatch make_batch(int64_t k, std::unique_ptr<class RecordReader>& reader) const;

  ImageRecordIterOptions opts_;
  std::vector<uint64_t> offsets_;  // this part's records
  std::vector<ImageFile> files_;   // or this part's files
  int64_t total_ = 0;
  std::vector<int64_t> order_;  // this epoch's order of offsets_
  int64_t epoch_ = 0, batches_ = 0;

  std::mutex mu_;
  std::condition_variable changed_;
  bool stopping_ = false;
  int64_t claimed_ = 0, returned_ = 0;
  std::map<int64_t, Made> ready_;
  std::vector<std::thread> workers_;
};

}  // namespace braid::io
