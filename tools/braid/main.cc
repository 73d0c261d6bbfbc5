// The braid command line (CLI11 subcommands). Errors print "braid: error: ..." and exit with 2.
#include <CLI/CLI.hpp>
#include <iostream>

#include "braid/base/error.h"
#include "braid/device/cpu_share.h"
#include "braid/kvstore/ps.h"
#include "commands.h"
#include "usage_errors.h"

int main(int argc, char** argv) {
  CLI::App app{"Braid: deep learning in C++ that speaks MXNet"};
  app.require_subcommand(1);
  app.set_version_flag("--version", braid::cli::version_text(), "print the version and this build's features");

  auto* params = app.add_subcommand("params", "inspect MXNet .params files");
  params->require_subcommand(1);
  std::string params_file;
  auto* show = params->add_subcommand("show", "list the arrays of a .params file: NAME DTYPE (d0, d1, ...)");
  show->add_option("FILE", params_file, "the .params file")->required();

  auto* ops = app.add_subcommand("ops", "the operator registry");
  ops->require_subcommand(1);
  auto* list = ops->add_subcommand("list", "list the registered operators");

  auto* profile = app.add_subcommand("profile", "read profiler traces");
  profile->require_subcommand(1);
  std::vector<std::string> traces;
  auto* profile_steps = profile->add_subcommand(
      "steps",
      "where the steps of braid train --profile traces went: compute, waiting for the kvstore (wire, server "
      "work, other workers), waiting for data");
  profile_steps->add_option("FILES", traces, "traces written by braid train --profile")->required();

  std::vector<std::string> logs;
  std::string plot_out = "curves.png";
  auto* plot = app.add_subcommand("plot", "draw loss and accuracy curves of braid train --json-log files");
  plot->add_option("FILES", logs, "JSON logs written by braid train --json-log")->required();
  plot->add_option("-o,--output", plot_out, "the PNG to write")->capture_default_str();

  braid::cli::ModelOptions model_opt;
  CLI::App* predict = nullptr;
  auto* eval = braid::cli::add_model_commands(app, model_opt, &predict);

  auto* symbol = app.add_subcommand("symbol", "inspect MXNet symbol files");
  symbol->require_subcommand(1);
  std::string symbol_file;
  std::vector<std::string> symbol_shapes;
  auto* symbol_show = symbol->add_subcommand("show", "the graph as a table: node, op, inputs (and shapes)");
  symbol_show->add_option("FILE", symbol_file, "the *-symbol.json file")->required();
  symbol_show->add_option("--shape", symbol_shapes, "an input shape, NAME=D0,D1,... (repeatable)");

  auto* server =
      app.add_subcommand("server",
                         "run this process's parameter-server role (DMLC_ROLE=scheduler or server, with the DMLC_* "
                         "variables that braid launch sets) until the job ends");

  braid::cli::LaunchOptions launch_opt;
  auto* launch = braid::cli::add_launch_command(app, launch_opt);

  braid::cli::ServeOptions serve_opt;
  auto* serve = braid::cli::add_serve_command(app, serve_opt);

  braid::cli::InferOptions infer_opt;
  auto* infer = braid::cli::add_infer_command(app, infer_opt);

  braid::cli::OnnxOptions onnx_opt;
  auto* onnx = braid::cli::add_onnx_command(app, onnx_opt);

  braid::cli::Im2recOptions im2rec_opt;
  auto* im2rec = braid::cli::add_im2rec_command(app, im2rec_opt);

  braid::cli::SimulateOptions simulate_opt;
  auto* simulate = braid::cli::add_simulate_command(app, simulate_opt);

  braid::cli::TrainOptions train_opt;
  auto* train = braid::cli::add_train_command(app, train_opt);

  // braid launch OPTIONS -- COMMAND...: COMMAND is the workers', not options for braid.
  std::vector<std::string> workers_command;
  if (argc > 1 && std::string(argv[1]) == "launch")
    for (int i = 2; i < argc; ++i)
      if (std::string(argv[i]) == "--") {
        workers_command.assign(argv + i + 1, argv + argc);
        argc = i;
        break;
      }
  if (const std::string unknown = braid::cli::unknown_command(app, argc, argv); !unknown.empty()) {
    std::cerr << "braid: error: " << unknown << "\n";
    return 2;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    CLI::App* command = &app;  // the deepest subcommand given
    while (!command->get_subcommands().empty()) command = command->get_subcommands().front();
    if (command != &app && e.get_exit_code() != 0) {
      if (const std::string unknown = braid::cli::unknown_options(*command, argc, argv); !unknown.empty()) {
        std::cerr << "braid: error: " << unknown << "\n";
        return 2;
      }
    }
    int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  // Commands that compute adopt a passive OpenMP wait on a busy machine (a restart, before any work).
  for (const CLI::App* computing : {train, eval, predict, serve, infer})
    if (computing->parsed()) braid::cpu_share::adopt_wait_policy(argv);
  try {
    if (show->parsed()) return braid::cli::params_show(params_file, std::cout);
    if (list->parsed()) return braid::cli::ops_list(std::cout);
    if (plot->parsed()) return braid::cli::plot(logs, plot_out);
    if (profile_steps->parsed()) return braid::cli::profile_steps(traces, std::cout);
    if (train->parsed()) return braid::cli::train(train_opt);
    if (simulate->parsed()) return braid::cli::simulate(simulate_opt);
    if (eval->parsed()) return braid::cli::eval(model_opt, std::cout);
    if (predict->parsed()) return braid::cli::predict(model_opt);
    if (server->parsed()) return braid::kv::run_server();
    if (serve->parsed()) return braid::cli::serve(serve_opt);
    if (infer->parsed()) return braid::cli::infer(infer_opt);
    if (onnx->parsed()) return braid::cli::onnx(*onnx, onnx_opt);
    if (im2rec->parsed()) return braid::cli::im2rec(im2rec_opt, std::cout);
    if (launch->parsed()) {
      std::vector<std::string> command = launch->remaining();
      command.insert(command.end(), workers_command.begin(), workers_command.end());
      return braid::cli::launch(launch_opt, command);
    }
    if (symbol_show->parsed()) return braid::cli::symbol_show(symbol_file, symbol_shapes, std::cout);
  } catch (const braid::Error& e) {
    std::cerr << "braid: error: " << e.what() << "\n";
    return 2;
  }
  return 2;
}
