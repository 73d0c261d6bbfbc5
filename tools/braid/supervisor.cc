#include "supervisor.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <optional>
#include <string_view>
#include <thread>

#include "braid/base/error.h"

extern char** environ;

namespace braid::cli {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kLingerS = 30;  // non-essential processes' time to exit once the essential ones are done

volatile sig_atomic_t g_signal = 0;
void on_signal(int sig) { g_signal = sig; }

// Handlers for Ctrl-C and friends while the job runs; the previous ones come back after.
class SignalGuard {
 public:
  SignalGuard() {
    struct sigaction sa {};
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < 3; ++i) sigaction(kSignals[i], &sa, &old_[i]);
    g_signal = 0;
  }
  ~SignalGuard() {
    for (size_t i = 0; i < 3; ++i) sigaction(kSignals[i], &old_[i], nullptr);
  }

 private:
  static constexpr int kSignals[3] = {SIGINT, SIGTERM, SIGHUP};
  struct sigaction old_[3];
};

int exit_code(int wait_status) {
  if (WIFEXITED(wait_status)) return WEXITSTATUS(wait_status);
  if (WIFSIGNALED(wait_status)) return 128 + WTERMSIG(wait_status);
  return 1;
}

std::string describe_exit(int wait_status) {
  if (WIFSIGNALED(wait_status))
    return cat("was killed by signal ", WTERMSIG(wait_status), " (", strsignal(WTERMSIG(wait_status)), ")");
  return cat("exited with status ", exit_code(wait_status));
}

}  // namespace

Supervisor::~Supervisor() { stop_all(); }

void Supervisor::start(const ProcessSpec& spec) {
  BRAID_CHECK(!spec.argv.empty(), "braid launch: ", spec.name, " has no command");
  int fds[2];
  BRAID_CHECK(pipe2(fds, O_CLOEXEC) == 0, "braid launch: cannot create a pipe: ", std::strerror(errno));
  fcntl(fds[0], F_SETFL, O_NONBLOCK);

  std::map<std::string, std::string> env;
  for (char** e = environ; *e; ++e) {
    const std::string kv = *e;
    const auto eq = kv.find('=');
    if (eq != std::string::npos) env[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  for (const auto& [k, v] : spec.env) env[k] = v;
  std::vector<std::string> env_strings, args = spec.argv;
  for (const auto& [k, v] : env) env_strings.push_back(k + "=" + v);
  std::vector<char*> envp, argv;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);

  int in[2] = {-1, -1};  // the child's standard input, when it gets one
  if (!spec.input.empty())
    BRAID_CHECK(spec.input.size() < 4096 && pipe2(in, O_CLOEXEC) == 0,
                "braid launch: cannot create a pipe: ", std::strerror(errno));
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 1);
  posix_spawn_file_actions_adddup2(&actions, fds[1], 2);
  if (in[0] >= 0) posix_spawn_file_actions_adddup2(&actions, in[0], 0);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);  // its own group: stopped as a whole
  posix_spawnattr_setpgroup(&attr, 0);
  Child c;
  c.name = spec.name;
  c.essential = spec.essential;
  const int rc = posix_spawnp(&c.pid, argv[0], &actions, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  close(fds[1]);
  if (in[0] >= 0) {
    close(in[0]);
    // Fits the pipe's buffer (4 KiB at least), so this does not block.
    const bool written =
        rc == 0 && write(in[1], spec.input.data(), spec.input.size()) == static_cast<ssize_t>(spec.input.size());
    close(in[1]);
    if (rc == 0 && !written) std::fprintf(out_, "braid launch: could not pass %s its input\n", spec.name.c_str());
  }
  if (rc != 0) {
    close(fds[0]);
    throw Error(cat("braid launch: cannot start ", spec.name, " (", spec.argv[0], "): ", std::strerror(rc)));
  }
  c.out_fd = fds[0];
  children_.push_back(std::move(c));
}

// Writes the complete lines read so far (all of it when `flush`), each prefixed with the name.
void Supervisor::forward(Child& c, bool flush) {
  char buf[65536];
  while (c.out_fd >= 0) {
    const ssize_t n = read(c.out_fd, buf, sizeof buf);
    if (n > 0) {
      c.partial.append(buf, static_cast<size_t>(n));
      continue;
    }
    if (n == 0 || (errno != EAGAIN && errno != EINTR)) {  // end of output
      close(c.out_fd);
      c.out_fd = -1;
      flush = true;
    }
    break;
  }
  const std::string prefix = "[" + c.name + "]";
  auto print = [&](std::string_view line) {  // Braid's nodes prefix their log lines themselves
    std::fprintf(out_, "%s%.*s\n", line.rfind(prefix, 0) == 0 ? "" : (prefix + " ").c_str(),
                 static_cast<int>(line.size()), line.data());
  };
  size_t begin = 0;
  for (size_t nl; (nl = c.partial.find_first_of("\n\r", begin)) != std::string::npos; begin = nl + 1)
    if (nl > begin) print(std::string_view(c.partial).substr(begin, nl - begin));
  c.partial.erase(0, begin);
  if (flush && !c.partial.empty()) {
    print(c.partial);
    c.partial.clear();
  }
  std::fflush(out_);
}

void Supervisor::reap(Child& c, int wait_status) {
  c.exited = true;
  c.status = wait_status;
  forward(c, true);
}

int Supervisor::run() {
  SignalGuard signals;
  int result = 0;
  std::optional<Clock::time_point> essentials_done;
  while (true) {
    std::vector<pollfd> fds;
    for (const Child& c : children_)
      if (c.out_fd >= 0) fds.push_back({c.out_fd, POLLIN, 0});
    if (!fds.empty())
      poll(fds.data(), fds.size(), 100);
    else
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    bool all_done = true, essentials_running = false;
    for (Child& c : children_) {
      forward(c, false);
      int st = 0;
      if (!c.exited && waitpid(c.pid, &st, WNOHANG) == c.pid) {
        reap(c, st);
        if (exit_code(st) != 0 && result == 0) {
          std::fprintf(out_, "braid launch: %s %s; stopping the job\n", c.name.c_str(), describe_exit(st).c_str());
          result = exit_code(st);
        }
      }
      all_done = all_done && c.exited;
      essentials_running = essentials_running || (c.essential && !c.exited);
    }
    if (g_signal != 0) {
      std::fprintf(out_, "braid launch: %s; stopping the job\n", strsignal(g_signal));
      stop_all();
      return 130;
    }
    if (result != 0 || all_done) break;
    if (!essentials_running) {
      if (!essentials_done) essentials_done = Clock::now();
      if (Clock::now() - *essentials_done > std::chrono::duration<double>(kLingerS)) {
        std::fprintf(out_,
                     "braid launch: the workers are done but the scheduler or a server still runs %g s later; "
                     "stopping it\n",
                     kLingerS);
        result = 1;
        break;
      }
    }
  }
  stop_all();
  return result;
}

void Supervisor::stop_all() {
  bool any = false;
  for (Child& c : children_)
    if (!c.exited) {
      kill(-c.pid, SIGTERM);
      any = true;
    }
  if (!any) return;
  const auto until = Clock::now() + std::chrono::duration<double>(grace_s_);
  bool running = true;
  while (running && Clock::now() < until) {
    running = false;
    for (Child& c : children_) {
      int st = 0;
      if (!c.exited && waitpid(c.pid, &st, WNOHANG) == c.pid) reap(c, st);
      running = running || !c.exited;
    }
    if (running) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  for (Child& c : children_) {
    if (c.exited) continue;
    kill(-c.pid, SIGKILL);
    int st = 0;
    waitpid(c.pid, &st, 0);
    reap(c, st);
  }
}

}  // namespace braid::cli
