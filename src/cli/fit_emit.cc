// `fit --emit`: the chosen configuration as people deploy it. Each form is one the intake reads
// back with --from, so `plan --from` on the emitted file plans what fit promised.
#include <fmt/format.h>

#include "cli/fit_options.h"
#include "core/text.h"
#include "intake/shell_words.h"
#include "lab/k8s_manifest.h"

namespace servescope {
namespace {

// The engine's argv: the command's words without the K=V assignments before the program.
std::vector<std::string> argv_of(const LaunchCommand& command) {
  std::vector<std::string> out;
  bool program_seen = false;
  for (const std::string& w : command.words) {
    const auto eq = w.find('=');
    if (!program_seen && eq != std::string::npos && eq > 0 && w[0] != '-')
      continue;
    program_seen = true;
    out.push_back(w);
  }
  return out;
}

std::string quoted_words(const std::vector<std::string>& words) {
  std::string out;
  for (const std::string& w : words)
    out += (out.empty() ? "" : " ") + shell_quote(w);
  return out;
}

std::string json_string(const std::string& s) {
  return nlohmann::json(s).dump();
}

std::string header(const FitConfiguration& c) {
  return fmt::format("servescope fit: {}× {}, TP {} · PP {}", c.gpus, c.gpu, c.tensor_parallel,
                     c.pipeline_parallel);
}

std::string shell_script(const FitConfiguration& c, const std::vector<std::string>& argv) {
  std::string out = "#!/bin/sh\n# " + header(c) + "\n";
  for (const auto& [k, v] : c.scenario.environment)
    out += fmt::format("export {}={}\n", k, shell_quote(v));
  return out + "exec " + quoted_words(argv) + "\n";
}

std::string systemd_unit(const FitConfiguration& c, const std::vector<std::string>& argv) {
  std::string out =
      fmt::format("[Unit]\nDescription={}\nAfter=network-online.target\n\n[Service]\n", header(c));
  for (const auto& [k, v] : c.scenario.environment)
    out += fmt::format("Environment={}\n", json_string(k + "=" + v));
  out += "ExecStart=" + quoted_words(argv) + "\nRestart=on-failure\n\n";
  return out + "[Install]\nWantedBy=multi-user.target\n";
}

std::string compose_file(const FitConfiguration& c, const std::vector<std::string>& argv,
                         const std::string& image) {
  std::string out = "# " + header(c) + "\nservices:\n  engine:\n";
  out += fmt::format("    image: {}\n    ipc: host\n", image);
  out += "    entrypoint:\n";
  for (const std::string& w : argv)
    out += "      - " + json_string(w) + "\n";
  if (!c.scenario.environment.empty()) {
    out += "    environment:\n";
    for (const auto& [k, v] : c.scenario.environment)
      out += fmt::format("      {}: {}\n", k, json_string(v));
  }
  out += fmt::format(
      "    deploy:\n      resources:\n        reservations:\n          devices:\n"
      "            - driver: nvidia\n              count: {}\n"
      "              capabilities: [gpu]\n",
      c.gpus / c.nodes);
  return out;
}

}  // namespace

Result<std::string> emit_configuration(const std::string& form, const FitConfiguration& c,
                                       const Engine& engine) {
  const std::vector<std::string> argv = argv_of(c.scenario.command);
  const FitKnobs* knobs = engine.fit_knobs();
  const std::string release = c.scenario.version.release;
  const std::string image = fmt::format("{}:{}", knobs != nullptr ? knobs->image_repository : "",
                                        release.empty() ? "latest" : "v" + release);
  if (form == "shell")
    return shell_script(c, argv);
  if (form == "systemd")
    return systemd_unit(c, argv);
  if (form == "compose")
    return compose_file(c, argv, image);
  if (form == "k8s") {
    KubernetesOptions k;
    k.image = image;
    k.gpus = c.gpus / c.nodes;
    k.nodes = c.nodes;
    K8sExperiment e;
    e.object_name = "servescope-fit";
    e.spec.argv = argv;
    for (const auto& [key, v] : c.scenario.environment)
      e.spec.env.emplace_back(key, v);
    e.spec.name = "servescope-fit";
    return render_k8s_manifest(k, e);
  }
  return fail(fmt::format("fit --emit {}: expected shell, systemd, compose or k8s", form));
}

}  // namespace servescope
