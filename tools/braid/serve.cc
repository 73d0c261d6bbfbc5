// braid serve: the inference server (include/braid/serving/server.h) until SIGTERM or Ctrl-C,
// which let the requests in flight finish.
#include <signal.h>

#include <cstdio>

#include "braid/serving/server.h"
#include "commands.h"

namespace braid::cli {

CLI::App* add_serve_command(CLI::App& app, ServeOptions& o) {
  auto* s = app.add_subcommand("serve", "serve the models of a repository over HTTP (Open Inference Protocol v2)");
  s->add_option("--model-repository", o.repository,
                "DIR/<model>/<version>/ with *-symbol.json, *.params, "
                "optional config.json")
      ->required();
  s->add_option("--http-port", o.port, "0: any free port")->capture_default_str();
  s->add_option("--host", o.host, "the address to listen on")->capture_default_str();
  s->add_option("--max-body-mb", o.max_body_mb, "larger request bodies get 413")->capture_default_str();
  s->add_flag("--access-log", o.access_log, "one line per request on stderr");
  s->add_option("--threads", o.threads, "requests handled at once")->capture_default_str();
  auto& l = o.limits;
  s->add_option("--keep-alive-timeout", l.keep_alive_timeout_s, "seconds an idle connection waits for a request")
      ->capture_default_str()
      ->check(kPositive);
  s->add_option("--header-timeout", l.header_timeout_s, "seconds from a request's first byte to its headers' end")
      ->capture_default_str()
      ->check(kPositive);
  s->add_option("--body-timeout", l.body_timeout_s, "seconds from a request's headers to its body's end")
      ->capture_default_str()
      ->check(kPositive);
  s->add_option("--write-timeout", l.write_timeout_s, "seconds a client may take to receive an answer")
      ->capture_default_str()
      ->check(kPositive);
  s->add_option("--max-connections", l.max_connections, "connections open at once; beyond: 503")
      ->capture_default_str()
      ->check(kPositive);
  s->add_option("--max-connections-per-client", l.max_connections_per_client,
                "connections open at once from one address; beyond: 503")
      ->capture_default_str()
      ->check(kPositive);
  return s;
}

int serve(const ServeOptions& o) {
  // SIGTERM and SIGINT wait for sigwait below: blocked before any thread starts, so that all inherit it.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  auto repository = std::make_shared<serving::Repository>(o.repository);
  serving::ServerOptions options = o.limits;
  options.host = o.host;
  options.port = o.port;
  options.max_body_bytes = o.max_body_mb << 20;
  options.access_log = o.access_log;
  options.threads = o.threads;
  serving::InferenceServer server(repository, options);
  server.start();
  std::string names;
  for (const auto& n : repository->names()) names += (names.empty() ? "" : ", ") + n;
  std::printf("braid serve: %zu model(s) (%s) on http://%s:%d\n", repository->names().size(), names.c_str(),
              o.host.c_str(), server.port());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop_signals, &sig);
  std::printf("braid serve: %s; finishing the requests in flight\n", strsignal(sig));
  std::fflush(stdout);
  server.stop();
  return 0;
}

}  // namespace braid::cli
