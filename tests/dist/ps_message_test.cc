// The parameter server's wire format: a message survives encoding, and every kind of malformed
// first frame is rejected with what is wrong; a running scheduler that receives garbage logs it
// and goes on.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <zmq.hpp>

#include "braid/base/error.h"
#include "common/processes.h"
#include "dist/job.h"
#include "kvstore/ps/message.h"

namespace braid::kv::ps {
namespace {

void expect_rejected(const std::string& frame, size_t payload, const std::string& part) {
  Message m;
  try {
    decode_first_frame(frame.data(), frame.size(), payload, m);
    FAIL() << "accepted; expected an error containing: " << part;
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
  }
}

std::string with(const std::function<void(Header&)>& change, const std::string& body = "") {
  Message m;
  m.head.command = static_cast<uint16_t>(Command::kPush);
  m.body = body;
  std::string frame = encode_first_frame(m);
  Header h;
  std::memcpy(&h, frame.data(), sizeof h);
  change(h);
  std::memcpy(frame.data(), &h, sizeof h);
  return frame;
}

TEST(PsMessage, EncodesAndDecodes) {
  Message m;
  m.head.command = static_cast<uint16_t>(Command::kPull);
  m.head.sender = 9;
  m.head.request = 77;
  m.head.key = 3;
  m.head.offset = 10;
  m.head.total = 30;
  m.body = "hello";
  static const float values[4] = {1, 2, 3, 4};
  m.payload = {values, sizeof values, nullptr};
  const std::string frame = encode_first_frame(m);
  Message back;
  decode_first_frame(frame.data(), frame.size(), sizeof values, back);
  EXPECT_EQ(back.command(), Command::kPull);
  EXPECT_EQ(back.head.sender, 9);
  EXPECT_EQ(back.head.request, 77u);
  EXPECT_EQ(back.head.key, 3);
  EXPECT_EQ(back.head.offset, 10);
  EXPECT_EQ(back.head.total, 30);
  EXPECT_EQ(back.head.payload_bytes, sizeof values);
  EXPECT_EQ(back.body, "hello");
}

TEST(PsMessage, MalformedFramesAreRejectedWithTheReason) {
  expect_rejected("short", 0, "shorter than the 96-byte header");
  expect_rejected(with([](Header& h) { h.magic = 1; }), 0, "not from a Braid node");
  expect_rejected(with([](Header& h) { h.version = 9; }), 0, "protocol version 9");
  expect_rejected(with([](Header& h) { h.command = 999; }), 0, "unknown command 999");
  expect_rejected(with([](Header& h) { h.body_bytes = 3; }, "toolong"), 0, "its header announces");
  expect_rejected(with([](Header& h) { h.body_bytes = 1u << 30; }), 0, "over the limit");
  expect_rejected(with([](Header& h) { h.payload_bytes = 8; }), 4, "payload of 4 bytes");
  expect_rejected(with([](Header& h) { h.offset = 5, h.total = 2; }), 0, "outside its value");
}

TEST(PsMessage, ASchedulerLogsGarbageAndGoesOn) {
  const int port = test::free_port();
  const auto log = (std::filesystem::path(::testing::TempDir()) / "braid_ps_garbage.log").string();
  test::Process scheduler({BRAID_BINARY_DIR "/bin/braid", "server"},
                          {{"DMLC_ROLE", "scheduler"},
                           {"DMLC_PS_ROOT_URI", "127.0.0.1"},
                           {"DMLC_PS_ROOT_PORT", std::to_string(port)},
                           {"DMLC_NUM_SERVER", "1"},
                           {"DMLC_NUM_WORKER", "1"}},
                          log);
  zmq::context_t context;
  zmq::socket_t s(context, zmq::socket_type::dealer);
  s.set(zmq::sockopt::linger, 1000);
  s.connect("tcp://127.0.0.1:" + std::to_string(port));
  s.send(zmq::str_buffer("not a braid message"), zmq::send_flags::none);
  s.send(zmq::buffer(with([](Header& h) { h.payload_bytes = 1u << 20; })), zmq::send_flags::none);
  auto read = [&] {
    std::ifstream in(log);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  };
  for (int i = 0; i < 200 && read().find("announces 1048576") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  const std::string text = read();
  EXPECT_NE(text.find("rejected a message"), std::string::npos) << text;
  EXPECT_NE(text.find("shorter than the 96-byte header"), std::string::npos) << text;
  EXPECT_NE(text.find("announces 1048576"), std::string::npos) << text;
  EXPECT_FALSE(scheduler.wait(0.2).has_value()) << "the scheduler died of garbage";
}

// A server fed garbage, a message from a sender outside the node table and a control message not
// from the scheduler logs each and drops it, then serves the job as if nothing happened.
TEST(PsMessage, AServerDropsGarbageAndStrangersAndServesTheJob) {
  test::Job job(1, 1, {{"PS_VERBOSE", "1"}});
  auto scheduler = job.start("scheduler", 0);
  auto server = job.start("server", 0);
  const std::string log = job.log_of("server", 0);
  std::string text;
  for (int i = 0; i < 400 && (text = test::read(log)).find("listening on tcp://") == std::string::npos; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  const auto at = text.find("listening on tcp://");
  ASSERT_NE(at, std::string::npos) << text;
  const std::string address = text.substr(at + 13, text.find('\n', at) - at - 13);
  zmq::context_t context;
  zmq::socket_t s(context, zmq::socket_type::dealer);
  s.set(zmq::sockopt::linger, 1000);
  s.connect(address);
  s.send(zmq::str_buffer("not a braid message"), zmq::send_flags::none);
  s.send(zmq::buffer(with([](Header& h) {
           h.command = static_cast<uint16_t>(Command::kExit);
           h.sender = 4242;
         })),
         zmq::send_flags::none);
  // Before the node table the stranger's push waits; once it is known, it is dropped.
  s.send(zmq::buffer(with([](Header& h) {
           h.command = static_cast<uint16_t>(Command::kPush);
           h.sender = 4243;
         })),
         zmq::send_flags::none);
  auto worker = job.start_worker({BRAID_BINARY_DIR "/tests/braid_dist_kv_worker", "dist_sync", "sync", job.dir}, 0);
  EXPECT_EQ(worker->wait(60), std::optional<int>(0)) << test::read(job.log_of("worker", 0));
  EXPECT_EQ(server->wait(15), std::optional<int>(0)) << test::read(log);
  text = test::read(log);
  EXPECT_NE(text.find("shorter than the 96-byte header"), std::string::npos) << text;
  EXPECT_NE(text.find("dropped a message from an unknown sender: exit from 4242"), std::string::npos) << text;
  EXPECT_NE(text.find("dropped a message from an unknown sender: push from 4243"), std::string::npos) << text;
}

}  // namespace
}  // namespace braid::kv::ps
