// Image records laid out as MXNet's IRHeader, and ImageRecordIter's batches checked pixel by pixel
// against the images written (PNG, so nothing is lost): crops, mirrors, normalisation, labels,
// shuffling, parts, the last batch, the same output whatever the thread count, and errors that
// name the record.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "braid/base/error.h"
#include "braid/image/codec.h"
#include "braid/io/image_record.h"
#include "braid/io/image_record_iter.h"
#include "braid/io/recordio.h"

namespace braid {
namespace {

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / (name + std::to_string(::getpid()))).string();
}

// Image i: 10 x 12 RGB, pixel (y, x, c) = 20 i + 3 x + 2 y + 50 c.
image::Image picture(int i) {
  image::Image im{10, 12, 3, std::vector<uint8_t>(360)};
  for (int y = 0; y < 10; ++y)
    for (int x = 0; x < 12; ++x)
      for (int c = 0; c < 3; ++c) im.pixels[size_t((y * 12 + x) * 3 + c)] = uint8_t(20 * i + 3 * x + 2 * y + 50 * c);
  return im;
}

std::string write_records(int count, const std::string& name, std::vector<float> (*labels)(int)) {
  const std::string path = temp_path(name);
  io::RecordWriter w(path);
  for (int i = 0; i < count; ++i) {
    const std::string png = image::encode(picture(i), ".png", 1);
    io::ImageRecord r;
    r.labels = labels(i);
    r.id = uint64_t(i);
    r.image = png;
    w.write(io::pack_image_record(r));
  }
  w.close();
  return path;
}

std::vector<float> one_label(int i) { return {float(i)}; }
std::vector<float> two_labels(int i) { return {float(i), float(-i)}; }

io::ImageRecordIterOptions options(const std::string& rec) {
  io::ImageRecordIterOptions o;
  o.path_imgrec = rec;
  o.data_shape = Shape({3, 6, 8});
  o.batch_size = 3;
  return o;
}

std::vector<std::vector<float>> all_batches(io::ImageRecordIter& it,
                                            std::vector<std::vector<float>>* labels = nullptr) {
  std::vector<std::vector<float>> out;
  while (auto b = it.next()) {
    out.push_back(b->data[0].to_vector<float>());
    if (labels) labels->push_back(b->label[0].to_vector<float>());
  }
  return out;
}

TEST(ImageRecord, HeaderIsMXNetsIRHeader) {
  io::ImageRecord r;
  r.labels = {2.5f};
  r.id = 11;
  r.id2 = 12;
  r.image = "img";
  std::string one = io::pack_image_record(r);
  ASSERT_EQ(one.size(), 27u);
  uint32_t flag;
  float label;
  uint64_t id, id2;
  std::memcpy(&flag, one.data(), 4);
  std::memcpy(&label, one.data() + 4, 4);
  std::memcpy(&id, one.data() + 8, 8);
  std::memcpy(&id2, one.data() + 16, 8);
  EXPECT_EQ(flag, 0u);
  EXPECT_EQ(label, 2.5f);
  EXPECT_EQ(id, 11u);
  EXPECT_EQ(id2, 12u);
  EXPECT_EQ(one.substr(24), "img");
  r.labels = {1, 2, 3};
  const std::string many = io::pack_image_record(r);
  std::memcpy(&flag, many.data(), 4);
  EXPECT_EQ(flag, 3u);
  const io::ImageRecord back = io::unpack_image_record(many);
  EXPECT_EQ(back.labels, (std::vector<float>{1, 2, 3}));
  EXPECT_EQ(back.image, "img");
  EXPECT_THROW(io::unpack_image_record("short"), Error);
  EXPECT_THROW(io::unpack_image_record(many.substr(0, 30)), Error);
}

TEST(ImageRecordIter, BatchesHoldTheCentredCropsNormalised) {
  const std::string rec = write_records(7, "irec_plain", one_label);
  auto o = options(rec);
  o.mean = {10.f, 0.f, 0.f};
  o.std = {1.f, 2.f, 1.f};
  o.scale = 0.5f;
  io::ImageRecordIter it(o);
  EXPECT_EQ(it.num_images(), 7);
  std::vector<std::vector<float>> labels;
  const auto batches = all_batches(it, &labels);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(labels[2], (std::vector<float>{6, 0, 1}));  // round_batch: completed from the start
  // Image 4 is the second of batch 1; crop at y0 = (10 - 6)/2 = 2, x0 = (12 - 8)/2 = 2.
  const std::vector<float>& b = batches[1];
  for (int c = 0; c < 3; ++c)
    for (int y = 0; y < 6; ++y)
      for (int x = 0; x < 8; ++x) {
        const float pixel = float(20 * 4 + 3 * (x + 2) + 2 * (y + 2) + 50 * c);
        const float expected = (pixel - o.mean[size_t(c)]) * 0.5f / o.std[size_t(c)];
        EXPECT_FLOAT_EQ(b[size_t(((1 * 3 + c) * 6 + y) * 8 + x)], expected);
      }
  it.reset();
  EXPECT_EQ(all_batches(it), batches);  // unshuffled epochs repeat
}

TEST(ImageRecordIter, Uint8AndInt8BatchesHoldPixelsAsMXNets) {
  const std::string rec = write_records(3, "irec_types", one_label);
  auto o = options(rec);
  o.dtype = DType::UInt8;
  o.mean = {100.4f, 0.f, 0.f};
  o.std = {3.f, 3.f, 3.f};  // not applied to 8-bit output, as in MXNet
  io::ImageRecordIter raw(o);
  EXPECT_EQ(raw.provide_data()[0].dtype, DType::UInt8);
  const auto pixels = raw.next()->data[0].to_vector<uint8_t>();
  o.dtype = DType::Int8;
  io::ImageRecordIter centred(o);
  const auto shifted = centred.next()->data[0].to_vector<int8_t>();
  ASSERT_EQ(pixels.size(), shifted.size());
  for (int y = 0; y < 6; ++y)
    for (int x = 0; x < 8; ++x) {
      const int pixel = 3 * (x + 2) + 2 * (y + 2);  // image 0, channel 0, centred crop
      EXPECT_EQ(pixels[size_t(y * 8 + x)], pixel);
      EXPECT_EQ(shifted[size_t(y * 8 + x)], std::clamp(pixel - 100, -128, 127));
    }
  const size_t green = 6 * 8;  // channel 1 of image 0: 50 more, minus a mean of 0
  EXPECT_EQ(shifted[green], std::clamp(3 * 2 + 2 * 2 + 50, -128, 127));
  o.dtype = DType::Float64;
  EXPECT_THROW(io::ImageRecordIter bad(o), Error);
}

TEST(ImageRecordIter, MirrorsFlipColumnsAndLastBatchPads) {
  const std::string rec = write_records(4, "irec_mirror", one_label);
  auto o = options(rec);
  o.mirror = true;
  o.round_batch = false;
  io::ImageRecordIter it(o);
  auto first = it.next();
  const auto data = first->data[0].to_vector<float>();
  EXPECT_FLOAT_EQ(data[0], float(3 * (2 + 7) + 2 * 2));  // column 0 holds the crop's last column
  auto last = it.next();
  EXPECT_EQ(last->pad, 2);
  const auto tail = last->data[0].to_vector<float>();
  EXPECT_TRUE(std::all_of(tail.begin() + 3 * 6 * 8, tail.end(), [](float v) { return v == 0; }));
  EXPECT_FALSE(it.next().has_value());
}

TEST(ImageRecordIter, RandomChoicesDoNotDependOnThreads) {
  const std::string rec = write_records(9, "irec_random", one_label);
  auto o = options(rec);
  o.shuffle = o.rand_crop = o.rand_mirror = true;
  o.seed = 5;
  o.preprocess_threads = 1;
  io::ImageRecordIter one_thread(o);
  o.preprocess_threads = 3;
  o.prefetch_buffer = 1;
  io::ImageRecordIter three_threads(o);
  std::vector<std::vector<float>> labels;
  const auto epoch1 = all_batches(one_thread, &labels);
  EXPECT_EQ(all_batches(three_threads), epoch1);
  std::multiset<float> seen;
  for (auto& l : labels) seen.insert(l.begin(), l.end());
  EXPECT_EQ(seen, (std::multiset<float>{0, 1, 2, 3, 4, 5, 6, 7, 8}));
  EXPECT_NE(labels[0], (std::vector<float>{0, 1, 2}));  // shuffled (fixed seed: not the file order)
  one_thread.reset();
  EXPECT_NE(all_batches(one_thread), epoch1);  // a new epoch, a new order
}

TEST(ImageRecordIter, PartsShareTheFileAndIndexFilesWork) {
  const std::string rec = write_records(8, "irec_parts", two_labels);
  const std::string idx = temp_path("irec_parts_idx");
  {
    io::RecordReader r(rec);
    std::ofstream out(idx);
    int key = 0;
    for (uint64_t at = r.tell(); r.read(); at = r.tell()) out << key++ << '\t' << at << '\n';
  }
  std::multiset<float> seen;
  for (int part = 0; part < 3; ++part) {
    auto o = options(rec);
    o.path_imgidx = idx;
    o.label_width = 2;
    o.batch_size = 1;
    o.num_parts = 3;
    o.part_index = part;
    io::ImageRecordIter it(o);
    std::vector<std::vector<float>> labels;
    all_batches(it, &labels);
    for (auto& l : labels) {
      EXPECT_EQ(l[1], -l[0]);
      seen.insert(l[0]);
    }
  }
  EXPECT_EQ(seen, (std::multiset<float>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(ImageRecordIter, BadInputIsNamed) {
  const std::string rec = write_records(2, "irec_bad", two_labels);
  auto message = [](const io::ImageRecordIterOptions& o) {
    try {
      io::ImageRecordIter it(o);
      while (it.next()) {
      }
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(options(rec)).find("label_width is 1"), std::string::npos);
  auto big = options(rec);
  big.label_width = 2;
  big.data_shape = Shape({3, 20, 20});
  EXPECT_NE(message(big).find("set resize to at least 20"), std::string::npos);
  big.resize = 20;
  EXPECT_EQ(message(big), "no error");
  auto bad_shape = options(rec);
  bad_shape.data_shape = Shape({2, 4, 4});
  EXPECT_NE(message(bad_shape).find("1 or 3 channels"), std::string::npos);
  const std::string broken = temp_path("irec_broken");
  {
    io::RecordWriter w(broken);
    io::ImageRecord r;
    r.image = "not an image";
    w.write(io::pack_image_record(r));
  }
  EXPECT_NE(message(options(broken)).find("offset 0"), std::string::npos);
  auto missing = options(temp_path("irec_missing"));
  EXPECT_NE(message(missing).find("irec_missing"), std::string::npos);
}

// Image files read from disk go through the same pipeline: an image folder (classes in sorted
// order, files sorted, other files ignored) gives the batches the same images packed in a .rec give.
TEST(ImageRecordIter, ImageFolderFilesGiveTheRecordsBatches) {
  namespace fs = std::filesystem;
  const fs::path root = temp_path("irec_folder");
  fs::remove_all(root);
  std::vector<std::string> pngs;
  for (int i = 0; i < 7; ++i) pngs.push_back(image::encode(picture(i), ".png", 1));
  // Class "a" holds images 0..3, class "b" images 4..6 (its folder made first: order is by name).
  for (const char* cls : {"b", "a"}) fs::create_directories(root / cls);
  for (int i = 0; i < 7; ++i) {
    std::ofstream(root / (i < 4 ? "a" : "b") / (std::string(1, char('k' + i)) + ".png"), std::ios::binary)
        << pngs[size_t(i)];
  }
  std::ofstream(root / "a" / "notes.txt") << "not an image";
  std::ofstream(root / "stray.png") << "outside every class";
  std::vector<std::string> classes;
  const auto files = io::list_image_folder(root.string(), &classes);
  EXPECT_EQ(classes, (std::vector<std::string>{"a", "b"}));
  ASSERT_EQ(files.size(), 7u);
  for (int i = 0; i < 7; ++i) EXPECT_EQ(files[size_t(i)].labels, std::vector<float>{i < 4 ? 0.f : 1.f});

  const std::string rec =
      write_records(7, "irec_folder_rec", [](int i) { return std::vector<float>{i < 4 ? 0.f : 1.f}; });
  for (bool random : {false, true}) {
    auto from_rec = options(rec);
    from_rec.shuffle = from_rec.rand_crop = from_rec.rand_mirror = random;
    from_rec.resize = random ? 9 : -1;
    auto from_files = from_rec;
    from_files.path_imgrec.clear();
    from_files.files = files;
    io::ImageRecordIter a(from_rec), b(from_files);
    std::vector<std::vector<float>> labels_a, labels_b;
    EXPECT_EQ(all_batches(a, &labels_a), all_batches(b, &labels_b));
    EXPECT_EQ(labels_a, labels_b);
    EXPECT_EQ(b.total_images(), 7);
  }
}

TEST(ImageRecordIter, ImageFolderErrorsNameThePath) {
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string missing = temp_path("irec_no_folder");
  EXPECT_NE(message([&] { io::list_image_folder(missing); }).find(missing + " is not a folder"), std::string::npos);
  const std::string empty = temp_path("irec_empty_folder");
  std::filesystem::create_directories(std::filesystem::path(empty) / "cls");
  EXPECT_NE(message([&] { io::list_image_folder(empty); }).find("holds no images"), std::string::npos);
  auto o = options("");
  o.files = {{temp_path("irec_gone.png"), {0.f}}};
  EXPECT_NE(message([&] {
              io::ImageRecordIter it(o);
              it.next();
            }).find("cannot open the image file"),
            std::string::npos);
  o.path_imgrec = "also.rec";
  EXPECT_NE(message([&] { io::ImageRecordIter it(o); }).find("not both"), std::string::npos);
}

}  // namespace
}  // namespace braid
