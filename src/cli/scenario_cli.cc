#include "cli/scenario_cli.h"

#include <fmt/format.h>

#include <algorithm>
#include <iostream>

namespace servescope {

void add_scenario_options(CLI::App& app, ScenarioOptions& o, const std::string& model_option) {
  app.add_option("--engine", o.engine,
                 "Engine NAME[@VERSION]: sglang, sglang@0.5.15, sglang@2026-05-01 (default: from "
                 "the command, newest modelled)");
  app.add_option("--gpu", o.gpu,
                 "GPU: catalog key (h100-sxm, rtx-pro-6000, ...) or the name nvidia-smi prints");
  app.add_option("--gpus", o.gpus, "GPUs per node (default: what the command's parallelism needs)");
  app.add_option(model_option, o.model,
                 "Model: a config.json, a model directory or a bundled Hugging Face id (default: "
                 "the command's model path)");
  app.add_option("--calibrate-from", o.calibrate_from,
                 "Take the free-memory figures (and the GPU name, when printed) from a real log");
  app.add_option("--free-before-load", o.free_before_load_gib,
                 "Calibration: free GiB at 'Load weight begin. avail mem=...'");
  app.add_option("--free-after-load", o.free_after_load_gib,
                 "Calibration: free GiB at 'Load weight end. ... avail mem=...'");
  app.add_option("--total-memory", o.total_memory_gib,
                 "Calibration: device total GiB the engine's CUDA runtime reports (vLLM: "
                 "'total_memory=...GiB')");
  app.add_option("--weights", o.weights_gib,
                 "Calibration: weight GiB per GPU the engine measured (vLLM: 'Model loading "
                 "took X GiB')");
  app.add_option("--activation-peak", o.activation_peak_gib,
                 "Calibration: activation peak GiB of the profile run (vLLM: 'torch peak memory "
                 "increase')");
  app.add_option("--non-torch", o.non_torch_gib,
                 "Calibration: non-torch memory growth GiB of the profile run (vLLM: 'non-torch "
                 "forward increase memory')");
  app.add_option("--cuda-graph-memory", o.cuda_graph_gib,
                 "Calibration: CUDA-graph memory estimate GiB (vLLM: 'Estimated CUDA graph "
                 "memory: X GiB total')");
  app.add_option("--kv-memory", o.kv_memory_gib,
                 "Calibration: GiB the engine gave the KV cache per GPU (vLLM: 'Available KV "
                 "cache memory: X GiB')");
  app.add_option("--env", o.env, "Engine environment variable KEY=VALUE (repeatable)");
  app.add_option("--from", o.from,
                 "Read the launch command from a file: a shell script, a systemd unit, a docker "
                 "compose file or a Kubernetes manifest (instead of -- CMD)");
}

std::optional<ExitStatus> parse_command_line(CLI::App& app, const CommandArgs& args) {
  std::vector<std::string> reversed(args.options.rbegin(), args.options.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::CallForHelp&) {
    std::cout << app.help();
    return ExitStatus::kOk;
  } catch (const CLI::ParseError& e) {
    std::string what = e.what();
    std::replace(what.begin(), what.end(), '\n', ' ');
    return usage_error(
        fmt::format("{}: {} (see servescope {} --help)", app.get_name(), what, app.get_name()));
  }
  return std::nullopt;
}

}  // namespace servescope
