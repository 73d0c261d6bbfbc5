// Push + pull of one key through the parameter server (dist_sync, 1 worker, 1 server, no
// optimizer) against raw ZeroMQ moving the same bytes on the same loopback, in one run: the raw
// client sends the key's bytes to a raw server process and waits for an empty answer, then asks
// and receives the bytes back (what a push and a pull do on the wire). Both servers are separate
// processes; the two are timed in alternation, round by round, so that the shared host's drifts
// hit both. Target (issue 6): 16 MB at >= 0.8x the raw throughput.
//
//   ps_bench [ROUNDS]        (ps_bench --raw-server PORT: the raw server, started by the bench)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <zmq.hpp>

#include "bench_processes.h"
#include "braid/engine/engine.h"
#include "braid/kvstore/kvstore.h"
#include "braid/ndarray/creation.h"

namespace {

using namespace braid;
using Clock = std::chrono::steady_clock;

// The raw server: keeps the last message received; an empty message asks for it back.
int raw_server(int port) {
  zmq::context_t ctx;
  zmq::socket_t sock(ctx, zmq::socket_type::router);
  sock.bind("tcp://127.0.0.1:" + std::to_string(port));
  zmq::message_t kept;
  while (true) {
    zmq::message_t who, body;
    if (!sock.recv(who) || !sock.recv(body)) return 1;
    sock.send(who, zmq::send_flags::sndmore);
    if (body.size() == 0) {
      zmq::message_t copy;
      copy.copy(kept);
      sock.send(copy, zmq::send_flags::none);
    } else {
      kept.move(body);
      sock.send(zmq::message_t(), zmq::send_flags::none);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--raw-server") return raw_server(std::atoi(argv[2]));
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 20;
  const int ps_port = 23000 + getpid() % 1000, secret_port = ps_port + 1, raw_port = ps_port + 1000;
  const std::string dir = bench::self_dir();
  // Two jobs side by side: one without a secret, one whose messages are authenticated.
  auto job_env = [&](int port, const char* role, bool secret) {
    std::vector<std::string> e = bench::ps_job_env(port, role, 1, 1);
    e.push_back(std::string("BRAID_PS_SECRET=") + (secret ? "ps-bench-secret" : ""));
    return e;
  };
  std::vector<pid_t> processes;
  for (const auto& [port, secret] : {std::pair{ps_port, false}, std::pair{secret_port, true}})
    for (const char* role : {"scheduler", "server"})
      processes.push_back(bench::spawn({dir + "/braid", "server"}, job_env(port, role, secret)));
  processes.push_back(bench::spawn({dir + "/ps_bench", "--raw-server", std::to_string(raw_port)}, {}));
  auto worker_store = [&](int port, bool secret) {
    bench::become_ps_worker(port, 1, 1);
    if (secret)
      setenv("BRAID_PS_SECRET", "ps-bench-secret", 1);
    else
      unsetenv("BRAID_PS_SECRET");
    return kv::create("dist_sync");
  };

  std::printf("push+pull of one key, 1 worker and 1 server on 127.0.0.1, median of %d rounds\n", rounds);
  std::printf("%10s %14s %14s %14s %8s %12s\n", "bytes", "braid MB/s", "+secret MB/s", "raw zmq MB/s", "ratio",
              "secret cost");
  {
    auto plain = worker_store(ps_port, false);
    auto sealed = worker_store(secret_port, true);
    zmq::context_t ctx;
    zmq::socket_t sock(ctx, zmq::socket_type::dealer);
    sock.connect("tcp://127.0.0.1:" + std::to_string(raw_port));
    int key = 0;
    for (int64_t bytes : {int64_t{1} << 20, int64_t{16} << 20}) {
      const int64_t n = bytes / 4;
      NDArray grad = nd::ones(Shape{n}), weight = nd::zeros(Shape{n});
      plain->init(key, weight);
      sealed->init(key, weight);
      std::vector<char> buffer(static_cast<size_t>(bytes), 1);
      std::vector<double> ours, authenticated, theirs;
      auto push_pull = [&](kv::KVStore& store) {
        const auto t0 = Clock::now();
        store.push(key, {grad});
        store.pull(key, {weight});
        weight.wait_to_read();
        return 2.0 * static_cast<double>(bytes) / std::chrono::duration<double>(Clock::now() - t0).count() / 1e6;
      };
      for (int r = -2; r < rounds; ++r) {  // two rounds of warm-up
        const double a = push_pull(*plain), b = push_pull(*sealed);
        const auto t0 = Clock::now();
        sock.send(zmq::buffer(buffer), zmq::send_flags::none);
        zmq::message_t ack, back;
        (void)sock.recv(ack);
        sock.send(zmq::message_t(), zmq::send_flags::none);
        (void)sock.recv(back);
        std::memcpy(buffer.data(), back.data(), back.size());  // into the caller's array, as a pull does
        const double s_raw = std::chrono::duration<double>(Clock::now() - t0).count();
        if (r >= 0) {
          ours.push_back(a);
          authenticated.push_back(b);
          theirs.push_back(2.0 * static_cast<double>(bytes) / s_raw / 1e6);
        }
      }
      const double a = bench::median(ours), b = bench::median(authenticated), c = bench::median(theirs);
      std::printf("%10lld %14.0f %14.0f %14.0f %8.2f %11.1f%%\n", static_cast<long long>(bytes), a, b, c, a / c,
                  100.0 * (1.0 - b / a));
      ++key;
    }
  }
  for (pid_t p : processes) kill(p, SIGTERM);
  for (pid_t p : processes) waitpid(p, nullptr, 0);
  return 0;
}
