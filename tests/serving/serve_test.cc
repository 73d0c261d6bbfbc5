// braid serve over real HTTP on 127.0.0.1: every endpoint, the MNIST fixture model classifying test
// images exactly as the model run in this process (JSON and binary requests), every error path
// answered with its status and a JSON reason while the server goes on, and SIGTERM.
#include <gtest/gtest.h>
#include <httplib.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <future>
#include <nlohmann/json.hpp>
#include <thread>

#include "braid/ndarray/creation.h"
#include "braid/serving/model.h"
#include "serve_fixture.h"

namespace braid::test {
namespace {

using json = nlohmann::json;

TEST(Serve, HealthServerAndModelMetadata) {
  Server s(make_repository());
  EXPECT_EQ(s.get("/v2/health/live")["live"], true);
  EXPECT_EQ(s.get("/v2/health/ready")["ready"], true);
  EXPECT_EQ(s.get("/v2")["name"], "braid");
  // The newest version serves by default: 2, which has no config: its shapes are what the symbol
  // and the parameters tell (the first convolution's weight fixes one channel).
  json m = s.get("/v2/models/mnist");
  EXPECT_EQ(m["versions"], json({"2"}));
  EXPECT_EQ(m["inputs"][0], json({{"name", "data"}, {"datatype", "FP32"}, {"shape", {-1, 1, -1, -1}}}));
  EXPECT_EQ(m["outputs"][0]["shape"], json({-1, 10}));
  json v1 = s.get("/v2/models/mnist/versions/1");
  EXPECT_EQ(v1["inputs"][0], json({{"name", "data"}, {"datatype", "FP32"}, {"shape", {-1, 1, 28, 28}}}));
  EXPECT_EQ(v1["outputs"][0]["shape"], json({-1, 10}));
  EXPECT_EQ(s.get("/v2/models/mnist/versions/1/ready")["ready"], true);
}

TEST(Serve, InferAnswersWhatTheModelComputesInJsonAndBinary) {
  const std::string repo = make_repository();
  Server s(repo);
  const NDArray images = test_images(8);
  serving::Model model(repo + "/mnist/1/model-symbol.json", repo + "/mnist/1/model-0035.params");
  const std::vector<float> want = model.run({{"data", images}})[0].to_vector<float>();

  json r = s.post("/v2/models/mnist/versions/1/infer", infer_body(images).dump());
  EXPECT_EQ(r["id"], "req-7");
  EXPECT_EQ(r["model_version"], "1");
  ASSERT_EQ(r["outputs"].size(), 1u);
  EXPECT_EQ(r["outputs"][0]["shape"], json({8, 10}));
  EXPECT_EQ(r["outputs"][0]["data"].get<std::vector<float>>(), want);

  // The binary-tensor extension: the JSON header, then the raw float32 bytes.
  const std::string header = json{{"inputs",
                                   {{{"name", "data"},
                                     {"datatype", "FP32"},
                                     {"shape", {8, 1, 28, 28}},
                                     {"parameters", {{"binary_data_size", 8 * 784 * 4}}}}}}}
                                 .dump();
  std::string body = header;
  body.append(static_cast<const char*>(images.raw_data()), 8 * 784 * 4);
  json b =
      s.post("/v2/models/mnist/infer", body, 200, {{"Inference-Header-Content-Length", std::to_string(header.size())}});
  EXPECT_EQ(b["outputs"][0]["data"].get<std::vector<float>>(), want);

  // Binary outputs: the answer's JSON header says each output's size, its raw bytes follow.
  json ask = infer_body(images);
  ask["parameters"] = {{"binary_data_output", true}};
  auto raw = s.client.Post("/v2/models/mnist/versions/1/infer", ask.dump(), "application/json");
  ASSERT_TRUE(raw && raw->status == 200);
  ASSERT_TRUE(raw->has_header("Inference-Header-Content-Length"));
  const size_t json_bytes = std::stoull(raw->get_header_value("Inference-Header-Content-Length"));
  const json head = json::parse(raw->body.substr(0, json_bytes));
  EXPECT_EQ(head["outputs"][0]["parameters"]["binary_data_size"], 8 * 10 * 4);
  ASSERT_EQ(raw->body.size(), json_bytes + 8 * 10 * 4);
  std::vector<float> got(80);
  std::memcpy(got.data(), raw->body.data() + json_bytes, 320);
  EXPECT_EQ(got, want);
}

TEST(Serve, EveryBadRequestGetsItsStatusAndReasonAndTheServerGoesOn) {
  Server s(make_repository(), {"--max-body-mb", "1"});
  auto error = [](const json& j) { return j.value("error", std::string()); };
  EXPECT_NE(error(s.get("/v2/models/nope", 404)).find("no model named 'nope'"), std::string::npos);
  EXPECT_NE(error(s.get("/v2/models/mnist/versions/9", 404)).find("no version '9'"), std::string::npos);
  EXPECT_NE(error(s.get("/v2/elsewhere", 404)).find("no such route"), std::string::npos);
  const std::string infer = "/v2/models/mnist/versions/1/infer";
  EXPECT_NE(error(s.post(infer, "{not json", 400)).find("not valid JSON"), std::string::npos);
  EXPECT_NE(error(s.post(infer, R"({"inputs": []})", 400)).find("non-empty array"), std::string::npos);
  json body = infer_body(test_images(1));
  body["inputs"][0]["data"].erase(0);
  EXPECT_NE(error(s.post(infer, body.dump(), 400)).find("783 data elements for shape (1, 1, 28, 28), which holds 784"),
            std::string::npos);
  body["inputs"][0]["shape"] = {1, 784};
  EXPECT_NE(error(s.post(infer, body.dump(), 400)).find("takes (-1, 1, 28, 28)"), std::string::npos);
  body = infer_body(test_images(1));
  body["inputs"][0]["datatype"] = "INT32";
  EXPECT_NE(error(s.post(infer, body.dump(), 400)).find("is INT32 but model 'mnist' takes FP32"), std::string::npos);
  body["inputs"][0]["datatype"] = "FP33";
  EXPECT_NE(error(s.post(infer, body.dump(), 400)).find("unknown datatype 'FP33'"), std::string::npos);
  body = infer_body(test_images(1));
  body["inputs"][0]["name"] = "image";
  EXPECT_NE(error(s.post(infer, body.dump(), 400)).find("has no input 'image'; its inputs: data"), std::string::npos);
  body = infer_body(test_images(9));  // max_batch_size 8
  EXPECT_NE(error(s.post(infer, body.dump(), 400)).find("over model 'mnist''s max_batch_size 8"), std::string::npos);
  body = infer_body(test_images(1));
  body["outputs"] = {{{"name", "logits"}}};
  EXPECT_NE(error(s.post(infer, body.dump(), 400)).find("has no output 'logits'"), std::string::npos);
  // Without a config, the shape the model file tells is checked.
  body = infer_body(test_images(1));
  body["inputs"][0]["shape"] = {1, 784};
  EXPECT_NE(error(s.post("/v2/models/mnist/versions/2/infer", body.dump(), 400)).find("takes (-1, 1, -1, -1)"),
            std::string::npos);
  // Over the body limit (1 MB).
  EXPECT_NE(error(s.post(infer, std::string(2 << 20, ' '), 413)).find("over the server's limit"), std::string::npos);
  EXPECT_EQ(s.get("/v2/health/live")["live"], true);
  EXPECT_EQ(s.post(infer, infer_body(test_images(1)).dump())["outputs"][0]["shape"], json({1, 10}));
  EXPECT_FALSE(s.process->wait(0.1).has_value()) << "the server died";
}

// The fixture model classifies the whole MNIST test set through braid infer as MXNet did: 0.9903.
TEST(Serve, BraidInferClassifiesTheTestSetAtTheFixturesAccuracy) {
  const std::string repo = make_repository();
  Server s(repo);
  Process client(
      {BRAID_BINARY_DIR "/bin/braid", "infer", "--url", "http://127.0.0.1:" + std::to_string(s.port), "--model",
       "mnist", "--model-version", "1", "--images", kFixtures + "/mnist-t10k-images-idx3-ubyte.gz", "--labels",
       kFixtures + "/mnist-t10k-labels-idx1-ubyte.gz", "--batch-size", "8", "--concurrency", "4"},
      {}, repo + "/infer.log");
  EXPECT_EQ(client.wait(120), std::optional<int>(0)) << read_text(repo + "/infer.log");
  const std::string out = read_text(repo + "/infer.log");
  EXPECT_NE(out.find("accuracy=0.9903"), std::string::npos) << out;
  EXPECT_NE(out.find("10000 images in 1250 requests"), std::string::npos) << out;
}

// --warmup: untimed requests per connection first; --passes: the images again. The server counts
// every request, the client times only the passes.
TEST(Serve, BraidInferWarmsUpThenGoesOverTheImagesAgain) {
  const std::string repo = make_repository();
  Server s(repo);
  Process client({BRAID_BINARY_DIR "/bin/braid",
                  "infer",
                  "--url",
                  "http://127.0.0.1:" + std::to_string(s.port),
                  "--model",
                  "mnist",
                  "--images",
                  kFixtures + "/mnist-t10k-images-idx3-ubyte.gz",
                  "--labels",
                  kFixtures + "/mnist-t10k-labels-idx1-ubyte.gz",
                  "--limit",
                  "100",
                  "--batch-size",
                  "30",
                  "--concurrency",
                  "3",
                  "--warmup",
                  "2",
                  "--passes",
                  "3"},
                 {}, repo + "/infer.log");
  EXPECT_EQ(client.wait(60), std::optional<int>(0)) << read_text(repo + "/infer.log");
  const std::string out = read_text(repo + "/infer.log");
  EXPECT_NE(out.find("300 images in 12 requests of up to 30, 3 at once"), std::string::npos) << out;  // 3 × 4
  EXPECT_NE(out.find("accuracy="), std::string::npos) << out;
  auto metrics = s.client.Get("/metrics");
  ASSERT_TRUE(metrics);
  EXPECT_NE(metrics->body.find("braid_inference_requests_total{model=\"mnist\",version=\"2\"} 18"), std::string::npos)
      << metrics->body;  // 12 timed + 3 connections × 2 warm-up
}

// Dynamic batching: 8 clients at once, one image each, several rounds; requests merge into
// batches (the metrics show batches of more than one row) and each answer is that image's own.
// 8 clients' single images merge into batches on `instances` copies of the model (copy i on
// cpu(i)); each answer equals the image run alone, within rounding.
void check_concurrent_requests_merge(int instances) {
  const std::string repo = make_repository();
  std::ofstream(repo + "/mnist/1/config.json")
      << R"({"inputs": [{"name": "data", "datatype": "FP32", "shape": [1, 28, 28]}], "max_batch_size": 8,
            "dynamic_batching": {"max_queue_delay_us": 20000}, "instance_count": )"
      << instances << "}";
  Server s(repo);
  const NDArray images = test_images(32);
  serving::Model model(repo + "/mnist/1/model-symbol.json", repo + "/mnist/1/model-0035.params");
  std::vector<std::vector<float>> want;
  for (int64_t i = 0; i < 32; ++i) want.push_back(model.run({{"data", images.slice(i, i + 1)}})[0].to_vector<float>());
  std::vector<std::thread> clients;
  std::vector<int> wrong(8, 0);
  for (int c = 0; c < 8; ++c)
    clients.emplace_back([&, c] {
      httplib::Client client("127.0.0.1", s.port);
      for (int64_t i = c; i < 32; i += 8) {
        auto r = client.Post("/v2/models/mnist/versions/1/infer", infer_body(images.slice(i, i + 1)).dump(),
                             "application/json");
        if (!r || r->status != 200) {
          ++wrong[static_cast<size_t>(c)];
          continue;
        }
        const auto got = json::parse(r->body)["outputs"][0]["data"].get<std::vector<float>>();
        for (size_t k = 0; k < got.size(); ++k)  // within float rounding: a batch may sum in another order
          if (std::abs(got[k] - want[static_cast<size_t>(i)][k]) > 1e-5f) {
            ++wrong[static_cast<size_t>(c)];
            break;
          }
      }
    });
  for (auto& t : clients) t.join();
  for (int c = 0; c < 8; ++c) EXPECT_EQ(wrong[static_cast<size_t>(c)], 0) << "client " << c;
  auto metrics = s.client.Get("/metrics");
  ASSERT_TRUE(metrics);
  const std::string text = metrics->body;
  EXPECT_NE(text.find("braid_inference_requests_total{model=\"mnist\",version=\"1\"} 32"), std::string::npos) << text;
  EXPECT_NE(text.find("braid_batch_size_sum{model=\"mnist\",version=\"1\"} 32"), std::string::npos) << text;
  // Every request waited in the queue and was timed end to end; every batch's compute was timed.
  EXPECT_NE(text.find("braid_queue_seconds_count{model=\"mnist\",version=\"1\"} 32"), std::string::npos) << text;
  EXPECT_NE(text.find("braid_request_seconds_count{model=\"mnist\",version=\"1\"} 32"), std::string::npos) << text;
  EXPECT_NE(text.find("braid_compute_seconds_bucket{model=\"mnist\",version=\"1\",le=\"+Inf\"} "), std::string::npos)
      << text;
  // Fewer batches than requests: some merged.
  const auto at = text.find("braid_batch_size_count{model=\"mnist\",version=\"1\"} ");
  ASSERT_NE(at, std::string::npos) << text;
  EXPECT_LT(std::stoi(text.substr(at + 50)), 32) << text;
}

TEST(Serve, ConcurrentRequestsMergeIntoBatchesAndEachGetsItsOwnRows) { check_concurrent_requests_merge(1); }

TEST(Serve, TwoInstancesOnTwoContextsAnswerAsOne) { check_concurrent_requests_merge(2); }

// The repository API while a client keeps sending: unload, a new version loaded, a broken model
// refused with its reason; the client only ever sees answers (200, or 404 while unloaded).
TEST(Serve, ModelsLoadAndUnloadWhileServing) {
  const std::string repo = make_repository();
  Server s(repo);
  std::atomic<bool> done{false};
  std::atomic<int> ok{0}, missing{0}, other{0};
  std::thread client([&] {
    httplib::Client c("127.0.0.1", s.port);
    const std::string body = infer_body(test_images(1)).dump();
    while (!done) {
      auto r = c.Post("/v2/models/mnist/infer", body, "application/json");
      (r && r->status == 200 ? ok : r && r->status == 404 ? missing : other)++;
    }
  });
  ASSERT_TRUE(wait_until([&] { return ok > 0; }));
  json index = s.post("/v2/repository/index", "");
  EXPECT_EQ(index.size(), 2u);  // versions 1 and 2, READY
  s.post("/v2/repository/models/mnist/unload", "");
  EXPECT_EQ(s.post("/v2/repository/index", "")[0]["state"], "UNAVAILABLE");
  ASSERT_TRUE(wait_until([&] { return missing > 0; }));
  fs::create_directories(repo + "/mnist/3");
  fs::copy_file(repo + "/mnist/2/model-symbol.json", repo + "/mnist/3/model-symbol.json");
  fs::copy_file(repo + "/mnist/2/model-0035.params", repo + "/mnist/3/model-0035.params");
  s.post("/v2/repository/models/mnist/load", "");
  EXPECT_EQ(s.get("/v2/models/mnist")["versions"], json({"3"}));
  const int before = ok;
  EXPECT_TRUE(wait_until([&] { return ok > before; }));  // served again
  done = true;
  client.join();
  EXPECT_GT(ok, 0);
  EXPECT_GT(missing, 0);
  EXPECT_EQ(other, 0);
  EXPECT_NE(s.post("/v2/repository/models/absent/load", "", 404)["error"].get<std::string>().find("no model folder"),
            std::string::npos);
  fs::create_directories(repo + "/broken/1");
  std::ofstream(repo + "/broken/1/model-symbol.json") << "{not a symbol";
  std::ofstream(repo + "/broken/1/model-0000.params") << "garbage";
  EXPECT_NE(
      s.post("/v2/repository/models/broken/load", "", 400)["error"].get<std::string>().find("model broken version 1"),
      std::string::npos);
  EXPECT_EQ(s.get("/v2/health/live")["live"], true);
}

// The queue is bounded: with one request filling a batch (waiting 10 s for a second row) and one
// that does not fit it waiting in a queue of 1, the next is refused at once with 503.
TEST(Serve, AFullQueueAnswers503AtOnce) {
  const std::string repo = make_repository();
  std::ofstream(repo + "/mnist/1/config.json")
      << R"({"inputs": [{"name": "data", "datatype": "FP32", "shape": [1, 28, 28]}], "max_batch_size": 2,
            "dynamic_batching": {"max_queue_delay_us": 10000000, "max_queue_size": 1}})";
  Server s(repo);
  const std::string labels = "{model=\"mnist\",version=\"1\"}";
  auto send = [&](int64_t rows) {
    httplib::Client c("127.0.0.1", s.port);
    c.set_read_timeout(30, 0);
    auto r = c.Post("/v2/models/mnist/versions/1/infer", infer_body(test_images(rows)).dump(), "application/json");
    return r ? r->status : -1;
  };
  auto a = std::async(std::launch::async, send, 1);  // taken, waits for a second row
  ASSERT_TRUE(wait_until([&] { return metric(s.port, "braid_batched_requests" + labels) == 1; }));
  auto b = std::async(std::launch::async, send, 2);  // does not fit: queued
  ASSERT_TRUE(wait_until([&] { return metric(s.port, "braid_queued_requests" + labels) == 1; }));
  json full = s.post("/v2/models/mnist/versions/1/infer", infer_body(test_images(2)).dump(), 503);
  // At once: the 503 came while the first request still waits out its queue delay.
  EXPECT_EQ(a.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  EXPECT_NE(full["error"].get<std::string>().find("queue is full"), std::string::npos) << full;
  EXPECT_EQ(a.get(), 200);
  EXPECT_EQ(b.get(), 200);
}

// Preprocessing in the config: raw UINT8 pixels scaled by 1/255 on the server give the outputs of
// the same images sent as scaled FP32.
TEST(Serve, PreprocessingTurnsRawPixelsIntoTheModelsInput) {
  const std::string repo = make_repository();
  std::ofstream(repo + "/mnist/1/config.json")
      << R"({"inputs": [{"name": "data", "datatype": "UINT8", "shape": [1, 28, 28]}],
            "preprocess": {"scale": 0.00392156862745098}})";
  Server s(repo);
  const NDArray images = test_images(4);  // scaled to [0, 1]
  std::vector<uint8_t> raw;
  for (float v : images.to_vector<float>()) raw.push_back(static_cast<uint8_t>(std::lround(v * 255)));
  json body = {{"inputs", {{{"name", "data"}, {"datatype", "UINT8"}, {"shape", {4, 1, 28, 28}}, {"data", raw}}}}};
  json r = s.post("/v2/models/mnist/versions/1/infer", body.dump());
  serving::Model model(repo + "/mnist/1/model-symbol.json", repo + "/mnist/1/model-0035.params");
  const std::vector<float> want = model.run({{"data", images}})[0].to_vector<float>();
  const auto got = r["outputs"][0]["data"].get<std::vector<float>>();
  ASSERT_EQ(got.size(), want.size()) << r;
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
  body["inputs"][0]["datatype"] = "FP32";
  EXPECT_NE(
      s.post("/v2/models/mnist/versions/1/infer", body.dump(), 400)["error"].get<std::string>().find("takes UINT8"),
      std::string::npos);
}

// Per-channel mean and std (one channel here): the server's (x * scale - mean) / std equals the
// same arithmetic done here before a plain FP32 request.
TEST(Serve, PreprocessingTakesPerChannelMeanAndStd) {
  const std::string repo = make_repository();
  std::ofstream(repo + "/mnist/1/config.json")
      << R"({"inputs": [{"name": "data", "datatype": "FP32", "shape": [1, 28, 28]}],
            "preprocess": {"scale": 2, "mean": [0.5], "std": [4]}})";
  Server s(repo);
  const NDArray images = test_images(2);
  std::vector<float> x = images.to_vector<float>();
  for (float& v : x) v = (v * 2 - 0.5f) / 4;
  serving::Model model(repo + "/mnist/1/model-symbol.json", repo + "/mnist/1/model-0035.params");
  const std::vector<float> want = model.run({{"data", nd::array<float>(x, images.shape())}})[0].to_vector<float>();
  const auto got = s.post("/v2/models/mnist/versions/1/infer", infer_body(images).dump())["outputs"][0]["data"]
                       .get<std::vector<float>>();
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-5) << i;
}

TEST(Serve, SigtermDrainsAndExits) {
  const std::string repo = make_repository();
  Server s(repo, {"--access-log"});
  ASSERT_EQ(s.get("/v2/health/ready")["ready"], true);
  s.post("/v2/models/mnist/versions/1/infer", infer_body(test_images(1)).dump());
  kill(s.process->pid(), SIGTERM);
  EXPECT_EQ(s.process->wait(15), std::optional<int>(0));
  const std::string log = read_text(repo + "/serve.log");
  EXPECT_NE(log.find("finishing the requests in flight"), std::string::npos) << log;
  // --access-log: one line per request, with method, path, status and bytes.
  EXPECT_NE(log.find("127.0.0.1 POST /v2/models/mnist/versions/1/infer 200 "), std::string::npos) << log;
  EXPECT_NE(log.find("127.0.0.1 GET /v2/health/ready 200 "), std::string::npos) << log;
}

}  // namespace
}  // namespace braid::test
