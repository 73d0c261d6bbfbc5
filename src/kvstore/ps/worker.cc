#include "worker.h"

#include <atomic>
#include <future>

#include "braid/base/error.h"
#include "key_value.h"
#include "scheduler.h"

namespace braid::kv::ps {

namespace {
uint64_t wire_bytes(const Message& m) { return sizeof(Header) + m.body.size() + m.payload.size; }
}  // namespace

// One request spread over several servers.
struct Worker::Exchange {
  std::vector<Message> replies;
  size_t answered = 0;
  std::vector<uint64_t> ids;  // the request id of each part
  OnReplies done;
  std::atomic<bool> finished{false};

  void finish(std::exception_ptr error) {
    if (finished.exchange(true)) return;
    done(error, replies);
  }
};

Worker::Worker(Config config) : node_(std::move(config)) {
  node_.start([this](Message&& m) { on_data(std::move(m)); }, [this](const std::string& why) { fail_all(why); });
}

void Worker::finish() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (finished_) return;
    finished_ = true;
  }
  node_.finish();
  fail_all("this worker has finished its part in the job (its KVStore was closed)");
}

Worker::~Worker() {
  try {
    finish();
  } catch (const Error&) {
    // logged by the node; the job's failure was reported to whoever waited on a request
  }
}

void Worker::request(const std::vector<int>& servers, std::vector<Message> requests, OnReplies done) {
  auto x = std::make_shared<Exchange>();
  x->replies.resize(requests.size());
  x->done = std::move(done);
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!failure_.empty()) {
      x->finish(std::make_exception_ptr(Error(failure_)));
      return;
    }
    for (size_t i = 0; i < requests.size(); ++i) {
      const uint64_t id = next_request_++;
      requests[i].head.request = id;
      x->ids.push_back(id);
      pending_[id] = x;
    }
  }
  std::vector<int> peers;
  for (size_t i = 0; i < requests.size(); ++i) {
    sent_ += wire_bytes(requests[i]);
    peers.push_back(node_.servers().at(static_cast<size_t>(servers[i])));
  }
  try {
    messages_sent_ += node_.send(peers, requests);
  } catch (const Error& e) {
    fail_all(e.what());
  }
}

void Worker::on_data(Message&& m) {
  received_ += wire_bytes(m);
  std::shared_ptr<Exchange> x;
  {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = pending_.find(m.head.request);
    if (m.command() != Command::kReply || it == pending_.end()) {
      node_.log("an unexpected message from node " + std::to_string(m.head.sender) + ": " + m.describe());
      return;
    }
    x = it->second;
    pending_.erase(it);
    if (m.head.flags & kFlagError) {  // the exchange fails: forget its other parts
      for (uint64_t id : x->ids) pending_.erase(id);
    } else {
      for (size_t i = 0; i < x->ids.size(); ++i)
        if (x->ids[i] == m.head.request) x->replies[i] = std::move(m);
      if (++x->answered < x->ids.size()) return;
    }
  }
  if (m.head.flags & kFlagError) {
    x->finish(std::make_exception_ptr(Error(cat("parameter server: server node ", m.head.sender, ": ", m.body))));
    return;
  }
  x->finish(nullptr);
}

void Worker::fail_all(const std::string& why) {
  std::map<uint64_t, std::shared_ptr<Exchange>> failed;
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (failure_.empty()) failure_ = why;
    failed.swap(pending_);
  }
  for (auto& [id, x] : failed) x->finish(std::make_exception_ptr(Error(why)));
}

void Worker::fail(const std::string& why) { node_.fail(why); }

void Worker::barrier() { node_.barrier(kWorkerGroup); }

std::vector<Message> Worker::call(const std::vector<int>& servers, std::vector<Message> requests) {
  std::promise<std::vector<Message>> answer;
  auto result = answer.get_future();
  request(servers, std::move(requests), [&answer](std::exception_ptr error, std::vector<Message>& replies) {
    if (error)
      answer.set_exception(error);
    else
      answer.set_value(std::move(replies));
  });
  return result.get();
}

std::vector<Message> Worker::call_all(const Message& m) {
  std::vector<int> servers;
  for (int s = 0; s < num_servers(); ++s) servers.push_back(s);
  return call(servers, std::vector<Message>(servers.size(), m));
}

}  // namespace braid::kv::ps
