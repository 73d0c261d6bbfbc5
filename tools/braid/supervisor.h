#pragma once
// The processes of a job started by `braid launch`: each runs in its own process group with its
// output piped back here and forwarded line by line, prefixed with its name ("worker 1"). The
// job succeeds when every process exits 0; the first failure, or Ctrl-C (SIGINT, SIGTERM,
// SIGHUP), stops every process still running: SIGTERM to its group, SIGKILL after a grace period.
#include <sys/types.h>

#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace braid::cli {

struct ProcessSpec {
  std::string name;                        // "scheduler", "server 0", "worker 1", ...
  std::vector<std::string> argv;           // argv[0] is looked up in PATH
  std::map<std::string, std::string> env;  // set on top of this process's environment
  bool essential = true;                   // false: the process may still run when the others are done
  std::string input{};                     // written to its standard input, which is then closed
};

class Supervisor {
 public:
  explicit Supervisor(std::FILE* out = stdout, double grace_s = 5) : out_(out), grace_s_(grace_s) {}
  ~Supervisor();

  /// Starts `spec`; throws braid::Error if it cannot.
  void start(const ProcessSpec& spec);
  /// Forwards output until every essential process has exited, or one failed, or a signal came;
  /// then stops the rest. Returns 0, the failed process's exit status (128 + signal if killed),
  /// or 130 after Ctrl-C.
  int run();

 private:
  struct Child {
    std::string name;
    pid_t pid = -1;
    int out_fd = -1;
    std::string partial;  // output after the last line break
    bool essential = true, exited = false;
    int status = 0;
  };
  void forward(Child& c, bool flush);
  void reap(Child& c, int wait_status);
  void stop_all();

  std::FILE* out_;
  double grace_s_;
  std::vector<Child> children_;
};

}  // namespace braid::cli
