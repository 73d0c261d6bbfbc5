// braid im2rec: MXNet's tools/im2rec.py. `--list` walks ROOT and writes image lists
// ("index<TAB>label...<TAB>relative path" lines); without it every PREFIX*.lst is packed into
// PREFIX*.rec with an .idx, images decoded, optionally centre-cropped to a square and resized
// (shorter side), and re-encoded, by --num-thread threads, in list order.
#include <algorithm>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <thread>

#include "braid/base/ascii.h"
#include "braid/base/error.h"
#include "braid/image/codec.h"
#include "braid/image/resize.h"
#include "braid/io/image_record.h"
#include "braid/io/recordio.h"
#include "commands.h"
#include "python_random.h"

namespace braid::cli {
namespace {

namespace fs = std::filesystem;

struct ListItem {
  uint64_t index = 0;
  std::string path;  // relative to ROOT
  std::vector<float> labels;
};

bool wanted(const fs::path& file, const std::vector<std::string>& exts) {
  const std::string ext = to_lower(file.extension().string());
  return std::find(exts.begin(), exts.end(), ext) != exts.end();
}

// The images under root: sorted names; with `recursive` each folder holding images is a class
// (numbered in the order the sorted walk meets them), as im2rec.py's os.walk with sorted entries.
std::vector<ListItem> list_images(const Im2recOptions& o, std::ostream& out) {
  std::vector<ListItem> items;
  std::map<fs::path, int> classes;
  std::vector<fs::path> order;
  std::function<void(const fs::path&)> walk = [&](const fs::path& dir) {
    std::vector<fs::path> files, dirs;
    for (const auto& e : fs::directory_iterator(dir, fs::directory_options::follow_directory_symlink))
      (e.is_directory() ? dirs : files).push_back(e.path());
    std::sort(files.begin(), files.end());
    std::sort(dirs.begin(), dirs.end());
    for (const auto& f : files) {
      if (!fs::is_regular_file(f) || !wanted(f, o.exts)) continue;
      int label = 0;
      if (o.recursive) {
        auto [it, fresh] = classes.emplace(dir, int(classes.size()));
        if (fresh) order.push_back(dir);
        label = it->second;
      }
      items.push_back({items.size(), fs::relative(f, o.root).string(), {float(label)}});
    }
    if (o.recursive)
      for (const auto& d : dirs) walk(d);
  };
  BRAID_CHECK(fs::is_directory(o.root), "im2rec: the image folder ", o.root, " does not exist");
  walk(o.root);
  for (const auto& dir : order) out << fs::relative(dir, o.root).string() << ' ' << classes[dir] << '\n';
  return items;
}

void write_list(const std::string& path, const std::vector<ListItem>& items) {
  std::ostringstream text;
  for (const auto& item : items) {
    text << item.index << '\t';
    for (float l : item.labels) text << std::fixed << l << '\t';
    text << item.path << '\n';
  }
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << text.str();
    BRAID_CHECK(f.flush(), "im2rec: cannot write ", tmp);
  }
  fs::rename(tmp, path);
}

int make_lists(const Im2recOptions& o, std::ostream& out) {
  std::vector<ListItem> items = list_images(o, out);
  if (!o.no_shuffle) PythonRandom(100).shuffle(items);  // im2rec.py's random.seed(100); random.shuffle
  const size_t n = items.size(), chunk_size = (n + size_t(o.chunks) - 1) / size_t(o.chunks);
  for (int c = 0; c < o.chunks; ++c) {
    const size_t begin = std::min(n, size_t(c) * chunk_size), end = std::min(n, begin + chunk_size);
    const std::vector<ListItem> chunk(items.begin() + long(begin), items.begin() + long(end));
    const std::string stem = o.prefix + (o.chunks > 1 ? "_" + std::to_string(c) : "");
    const size_t train = size_t(double(chunk_size) * o.train_ratio), test = size_t(double(chunk_size) * o.test_ratio);
    auto part = [&](size_t from, size_t to) {
      from = std::min(from, chunk.size()), to = std::min(to, chunk.size());
      return std::vector<ListItem>(chunk.begin() + long(from), chunk.begin() + long(std::max(from, to)));
    };
    if (o.train_ratio == 1.0) {
      write_list(stem + ".lst", chunk);
      continue;
    }
    if (o.test_ratio > 0) write_list(stem + "_test.lst", part(0, test));
    if (o.train_ratio + o.test_ratio < 1.0) write_list(stem + "_val.lst", part(test + train, chunk.size()));
    write_list(stem + "_train.lst", part(test, test + train));
  }
  out << "im2rec: listed " << n << " images\n";
  return 0;
}

std::vector<ListItem> read_list(const fs::path& path) {
  std::ifstream in(path);
  BRAID_CHECK(in, "im2rec: cannot read the list ", path.string());
  std::vector<ListItem> items;
  std::string line;
  for (int64_t n = 1; std::getline(in, line); ++n) {
    std::vector<std::string> fields;
    std::istringstream s(line);
    for (std::string f; std::getline(s, f, '\t');) fields.push_back(f);
    if (fields.empty() || (fields.size() == 1 && fields[0].empty())) continue;
    BRAID_CHECK(fields.size() >= 3, "im2rec: line ", n, " of ", path.string(), " is not 'index<TAB>label(s)<TAB>path'");
    ListItem item;
    try {
      item.index = std::stoull(fields[0]);
      for (size_t k = 1; k + 1 < fields.size(); ++k) item.labels.push_back(std::stof(fields[k]));
    } catch (const std::exception&) {
      throw Error("im2rec: line " + std::to_string(n) + " of " + path.string() + " has a non-numeric index or label");
    }
    item.path = fields.back();
    items.push_back(std::move(item));
  }
  return items;
}

image::Color color_of(int color) {
  return color == 0 ? image::Color::Gray : color < 0 ? image::Color::AsStored : image::Color::Rgb;
}

// The record of one list item, or nullopt (with the reason in `why`) for an unreadable image.
std::optional<std::string> encode_item(const Im2recOptions& o, const ListItem& item, std::string& why) {
  std::ifstream in(fs::path(o.root) / item.path, std::ios::binary);
  if (!in) {
    why = "cannot read " + (fs::path(o.root) / item.path).string();
    return std::nullopt;
  }
  std::string bytes((std::istreambuf_iterator<char>(in)), {});
  io::ImageRecord rec;
  rec.labels = o.pack_label && item.labels.size() > 1 ? item.labels : std::vector<float>{item.labels[0]};
  rec.id = item.index;
  if (o.pass_through) {
    rec.image = bytes;
    return io::pack_image_record(rec);
  }
  try {
    image::Image im = image::decode(bytes, color_of(o.color));
    if (o.center_crop && im.height != im.width) {
      const int64_t side = std::min(im.height, im.width);
      const int64_t y0 = (im.height - side) / 2, x0 = (im.width - side) / 2;
      image::Image square{side, side, im.channels, std::vector<uint8_t>(size_t(side * side * im.channels))};
      for (int64_t y = 0; y < side; ++y)
        std::copy_n(im.pixels.begin() + ((y0 + y) * im.width + x0) * im.channels, side * im.channels,
                    square.pixels.begin() + y * side * im.channels);
      im = std::move(square);
    }
    if (o.resize > 0) {
      const int64_t h = im.height > im.width ? im.height * o.resize / im.width : o.resize;
      const int64_t w = im.height > im.width ? o.resize : im.width * o.resize / im.height;
      image::Image small{h, w, im.channels, std::vector<uint8_t>(size_t(h * w * im.channels))};
      image::resize<uint8_t>(im.pixels.data(), im.height, im.width, im.channels, small.pixels.data(), h, w,
                             image::Interp::Linear);
      im = std::move(small);
    }
    const std::string encoded = image::encode(im, o.encoding, o.quality);
    rec.image = encoded;
    return io::pack_image_record(rec);
  } catch (const Error& e) {
    why = item.path + ": " + e.what();
    return std::nullopt;
  }
}

void pack_list(const Im2recOptions& o, const fs::path& lst, std::ostream& out) {
  const std::vector<ListItem> items = read_list(lst);
  fs::path rec_path = lst, idx_path = lst;
  rec_path.replace_extension(".rec");
  idx_path.replace_extension(".idx");
  const std::string rec_tmp = rec_path.string() + ".tmp", idx_tmp = idx_path.string() + ".tmp";
  io::RecordWriter writer(rec_tmp);
  std::ofstream index(idx_tmp);
  size_t written = 0, skipped = 0;
  const size_t batch = size_t(64 * o.num_thread);
  for (size_t start = 0; start < items.size(); start += batch) {
    const size_t end = std::min(items.size(), start + batch);
    std::vector<std::optional<std::string>> records(end - start);
    std::vector<std::string> why(end - start);
    std::atomic<size_t> next{start};
    auto work = [&] {
      for (size_t i; (i = next++) < end;) records[i - start] = encode_item(o, items[i], why[i - start]);
    };
    std::vector<std::thread> pool;
    for (int t = 1; t < o.num_thread; ++t) pool.emplace_back(work);
    work();
    for (auto& t : pool) t.join();
    for (size_t i = start; i < end; ++i) {
      if (!records[i - start]) {
        std::cerr << "im2rec: skipping an image: " << why[i - start] << "\n";
        ++skipped;
        continue;
      }
      index << items[i].index << '\t' << writer.tell() << '\n';
      writer.write(*records[i - start]);
      ++written;
    }
    out << "\rim2rec: " << lst.filename().string() << ": " << end << "/" << items.size() << std::flush;
  }
  writer.close();
  BRAID_CHECK(index.flush(), "im2rec: cannot write ", idx_tmp);
  index.close();
  fs::rename(rec_tmp, rec_path);
  fs::rename(idx_tmp, idx_path);
  out << "\nim2rec: wrote " << written << " records to " << rec_path.string();
  if (skipped) out << " (" << skipped << " unreadable images skipped)";
  out << "\n";
}

int pack_lists(const Im2recOptions& o, std::ostream& out) {
  const fs::path prefix(o.prefix);
  const fs::path dir = fs::is_directory(prefix) ? prefix : (prefix.has_parent_path() ? prefix.parent_path() : ".");
  std::vector<fs::path> lists;
  for (const auto& e : fs::directory_iterator(dir)) {
    const std::string name = e.path().string();
    const std::string wanted_start = (fs::is_directory(prefix) ? prefix : dir / prefix.filename()).string();
    if (e.is_regular_file() && e.path().extension() == ".lst" && name.rfind(wanted_start, 0) == 0)
      lists.push_back(e.path());
  }
  std::sort(lists.begin(), lists.end());
  BRAID_CHECK(!lists.empty(), "im2rec: no list file ", o.prefix,
              "*.lst; make one with braid im2rec --list PREFIX ROOT first");
  for (const auto& lst : lists) pack_list(o, lst, out);
  return 0;
}

}  // namespace

CLI::App* add_im2rec_command(CLI::App& app, Im2recOptions& o) {
  auto* c = app.add_subcommand("im2rec", "make image lists and RecordIO files of images (MXNet's tools/im2rec.py)");
  c->add_option("PREFIX", o.prefix, "the list/record files' path without extension")->required();
  c->add_option("ROOT", o.root, "the folder holding the images")->required();
  c->add_flag("--list", o.list, "write the image list(s) instead of record files");
  c->add_option("--exts", o.exts, "image extensions to list")->capture_default_str();
  c->add_option("--chunks", o.chunks, "lists to split the images into")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  c->add_option("--train-ratio", o.train_ratio, "share of each list for PREFIX_train.lst")->capture_default_str();
  c->add_option("--test-ratio", o.test_ratio, "share of each list for PREFIX_test.lst")->capture_default_str();
  c->add_flag("--recursive", o.recursive, "walk sub-folders; each folder is one class (its label)");
  c->add_flag("--no-shuffle", o.no_shuffle, "keep the sorted order in the lists");
  c->add_flag("--pass-through", o.pass_through, "store the image files as they are (no decoding)");
  c->add_option("--resize", o.resize, "resize the shorter side to this many pixels")->capture_default_str();
  c->add_flag("--center-crop", o.center_crop, "crop the centre square before resizing");
  c->add_option("--quality", o.quality, "JPEG quality (1..100) or PNG compression level (0..9)")->capture_default_str();
  c->add_option("--num-thread", o.num_thread, "threads encoding images")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  c->add_option("--color", o.color, "1 colour, 0 gray, -1 as stored")->capture_default_str()->check(CLI::Range(-1, 1));
  c->add_option("--encoding", o.encoding, "'.jpg' or '.png'")
      ->capture_default_str()
      ->check(CLI::IsMember({".jpg", ".png"}));
  c->add_flag("--pack-label", o.pack_label, "store every label of the list (not only the first)");
  return c;
}

int im2rec(const Im2recOptions& o, std::ostream& out) {
  BRAID_CHECK(o.train_ratio >= 0 && o.test_ratio >= 0 && o.train_ratio + o.test_ratio <= 1.0,
              "im2rec: --train-ratio and --test-ratio must be shares adding up to at most 1");
  return o.list ? make_lists(o, out) : pack_lists(o, out);
}

}  // namespace braid::cli
