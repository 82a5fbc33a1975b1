// servescope: explain, predict and isolate the serving capacity of LLM servers.
#include <fmt/format.h>

#include <cstdlib>
#include <exception>
#include <iostream>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "catalog/embedded_data.h"
#include "cli/command.h"
#include "core/build_info.h"
#include "core/text.h"
#include "engines/engine.h"
#include "engines/rules_currency.h"

namespace servescope {

namespace {

void print_usage() {
  std::cout << "servescope — explain, predict and isolate the serving capacity of LLM servers\n\n"
               "usage: servescope COMMAND [options] [-- LAUNCH COMMAND]\n"
               "       servescope --version [--json]\n\ncommands:\n";
  for (const Command& c : commands())
    std::cout << fmt::format("  {:<10} {}\n", c.name, c.summary);
  std::cout << "\nRun 'servescope COMMAND --help' for a command's options.\n";
}

// The version, the commit, and how far the engine rules reach (the newest release each pack
// models and the main-branch date it was cut from).
int print_version(bool json) {
  nlohmann::json by_engine = nlohmann::json::object();
  std::string reach;
  for (const auto& e : engines()) {
    const std::string engine(e->name());
    const RulesCurrency& c = rules_currency(engine);
    by_engine[engine] = {{"release", c.release}, {"main_date", c.main_date}};
    reach +=
        fmt::format("{}{} {} (cut {})", reach.empty() ? "" : " · ", engine, c.release, c.main_date);
  }
  if (json) {
    std::cout << nlohmann::json{{"version", build_version()},
                                {"commit", build_commit()},
                                {"commit_date", build_commit_date()},
                                {"engines", by_engine}}
                     .dump(2)
              << "\n";
    return 0;
  }
  std::cout << fmt::format("servescope {} (commit {}, {})\nengine rules: {}\n", build_version(),
                           build_commit(), build_commit_date(), reach);
  return 0;
}

int run(int argc, char** argv) {
  if (argc >= 2 && (std::string(argv[1]) == "--version" || std::string(argv[1]) == "-V"))
    return print_version(argc >= 3 && std::string(argv[2]) == "--json");
  if (argc < 2 || std::string(argv[1]) == "--help" || std::string(argv[1]) == "-h") {
    print_usage();
    return argc < 2 ? static_cast<int>(ExitStatus::kUsage) : 0;
  }
  if (const std::string bad = data_dir_error(); !bad.empty())
    return static_cast<int>(usage_error(bad));
  const std::string name = argv[1];
  CommandArgs args;
  for (int i = 2; i < argc; ++i) {
    std::string word = argv[i];
    if (!args.had_separator && word == "--") {
      args.had_separator = true;
      continue;
    }
    (args.had_separator ? args.launch_command : args.options).push_back(std::move(word));
  }
  for (const Command& c : commands()) {
    if (c.name == name)
      return static_cast<int>(c.run(args));
  }
  std::vector<std::string> names;
  for (const Command& c : commands())
    names.emplace_back(c.name);
  auto near = closest(name, names, 1);
  return static_cast<int>(usage_error(
      fmt::format("unknown command '{}'{}; run servescope --help", name,
                  near.empty() ? "" : fmt::format(" (did you mean {}?)", near.front()))));
}

}  // namespace
}  // namespace servescope

int main(int argc, char** argv) {
  try {
    return servescope::run(argc, argv);
  } catch (const std::logic_error& e) {
    // A table that does not parse is a build defect, unless the user's data folder supplied it.
    if (const char* dir = std::getenv("SERVESCOPE_DATA_DIR"); dir != nullptr && *dir != '\0') {
      std::cerr << "servescope: error: " << e.what() << " (read from SERVESCOPE_DATA_DIR=" << dir
                << "; fix the file or unset it)\n";
      return 2;
    }
    std::cerr << "servescope: internal error: " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "servescope: internal error: " << e.what() << "\n";
    return 3;
  }
}
