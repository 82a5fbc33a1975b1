#include "diagnose/scenario_builder.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "catalog/model_catalog.h"
#include "core/text.h"
#include "evidence/log_reader.h"
#include "intake/config_file.h"

namespace servescope {

Result<LaunchInput> read_launch_input(const ScenarioOptions& o, const Engine* engine) {
  const LaunchRecognizer launches = launch_recognizer(engine);
  if (!o.from.empty()) {
    if (!o.command.empty()) {
      return fail(fmt::format(
          "--from {} and a command after --: give one of them (--from reads the command from "
          "the file)",
          o.from));
    }
    auto input = read_launch_file(o.from, launches);
    if (!input)
      return input.error();
    auto dir = o.from.rfind('/') == std::string::npos ? std::string()
                                                      : o.from.substr(0, o.from.rfind('/'));
    auto expanded = expand_config_file(input->argv, dir, false);
    if (!expanded)
      return expanded.error();
    input->argv = std::move(expanded->argv);
    if (!expanded->note.empty())
      input->notes.push_back(expanded->note);
    return input;
  }
  if (o.command.empty()) {
    return fail(
        "no launch command: put it after --, e.g. servescope plan --gpu h100-sxm -- python -m "
        "sglang.launch_server --model-path Qwen/Qwen3-8B, or read it from a file with --from");
  }
  // One word holding a whole command ("$(cat cmd.txt)", a quoted paste) is shell text.
  std::optional<LaunchInput> input;
  if (o.command.size() == 1 && o.command[0].find_first_of(" \t\n") != std::string::npos) {
    auto read = launch_in_shell_text(o.command[0], "", launches);
    if (!read)
      return read.error();
    input = std::move(*read);
  } else {
    input = launch_in_words(o.command, launches);
  }
  if (!input) {
    // Not a launch we can find: hand the words to the engine as typed, so its parser names
    // what is wrong with them.
    input.emplace();
    input->argv = o.command;
  }
  if (input->origin.empty())
    input->origin = "command line";
  auto expanded = expand_config_file(input->argv, "", true);
  if (!expanded)
    return expanded.error();
  input->argv = std::move(expanded->argv);
  if (!expanded->note.empty())
    input->notes.push_back(expanded->note);
  return std::move(*input);
}

Result<BuiltScenario> build_scenario(const ScenarioOptions& o) {
  BuiltScenario out;
  Scenario& s = out.scenario;
  // Engine: --engine NAME[@VERSION], else the launch program decides.
  std::string engine_name = o.engine, version_spec;
  if (auto at = engine_name.find('@'); at != std::string::npos) {
    version_spec = engine_name.substr(at + 1);
    engine_name.resize(at);
  }
  if (!engine_name.empty()) {
    auto e = find_engine(engine_name);
    if (!e)
      return e.error();
    out.engine = *e;
  }
  auto input = read_launch_input(o, out.engine);
  if (!input)
    return input.error();
  if (out.engine == nullptr) {
    auto e = engine_for_command(input->argv);
    if (!e)
      return e.error();
    out.engine = *e;
  }
  s.engine = std::string(out.engine->name());
  if (input->origin != "command line")
    s.inputs_read.push_back("command: " + input->origin);
  for (const std::string& note : input->notes)
    s.inputs_read.push_back(note);
  // A container image's tag names the release when --engine does not.
  bool version_from_image = false;
  if (version_spec.empty() && !input->image_version.empty()) {
    version_spec = input->image_version;
    version_from_image = true;
  }
  auto version = out.engine->resolve_version(version_spec);
  if (!version && version_from_image) {
    s.inputs_read.push_back(
        fmt::format("version: the image {} names release {}, which is not "
                    "modelled; planning on the newest modelled release",
                    input->image, input->image_version));
    version = out.engine->resolve_version("");
  } else if (version_from_image) {
    s.inputs_read.push_back(
        fmt::format("version: {} from the image tag {}", input->image_version, input->image));
  }
  if (!version)
    return version.error();
  s.version = *version;

  auto command = out.engine->parse_command(input->argv);
  if (!command)
    return command.error();
  s.command = std::move(*command);

  // Model: --model wins; else the command's model path, looked up in the catalog.
  const std::string model_spec = !o.model.empty() ? o.model : out.engine->model_path(s.command);
  if (model_spec.empty()) {
    return fail("the command names no model (--model-path); pass --model PATH|ID");
  }
  // --revision pins the model's branch, tag or commit in both engines' CLIs.
  const FlagSetting* revision = s.command.find("--revision");
  auto model = load_model(model_spec, revision != nullptr ? revision->value() : "");
  if (!model)
    return model.error();
  s.model = std::move(*model);
  if (!s.model.origin.empty() && s.model.origin != "bundled config.json")
    s.inputs_read.push_back("model: " + s.model.origin);
  // The drafter's own layers, when the command names a drafter model and its config is at hand.
  if (const std::string draft = out.engine->draft_model_path(s.command); !draft.empty()) {
    auto d = load_model(draft);
    if (d) {
      s.draft_model = std::move(*d);
      s.inputs_read.push_back(
          "draft model: " + draft +
          (s.draft_model->origin.empty() ? std::string() : " (" + s.draft_model->origin + ")"));
    } else {
      s.draft_model_note = fmt::format("the drafter '{}': {}", draft, d.message());
    }
  }

  // --calibrate-from LOG: the memory figures (and the GPU name, when printed) of a real run.
  std::optional<LogScenario> from_log;
  if (!o.calibrate_from.empty()) {
    LogReadOptions read;
    read.engine = out.engine;
    auto facts = read_log_file(o.calibrate_from, read);
    if (!facts)
      return fail("--calibrate-from " + facts.message());
    auto ls = out.engine->scenario_from_log(facts->all());
    if (!ls)
      return fail(fmt::format("--calibrate-from {}: {}", o.calibrate_from, ls.message()));
    if (!ls->calibration_complete) {
      return fail(fmt::format("--calibrate-from {}: the log lacks {}", o.calibrate_from,
                              fmt::join(ls->missing, "; ")));
    }
    from_log = std::move(*ls);
  }
  const std::string gpu_name = !o.gpu.empty() ? o.gpu
                               : from_log     ? from_log->gpu_name
                                              : std::string();
  if (gpu_name.empty()) {
    return fail(
        "--gpu: required; give a catalog key (h100-sxm, h200, rtx-pro-6000, ...) or the name "
        "nvidia-smi prints");
  }
  // vLLM's CPU platform: the "device" is the host's NUMA node, whose total is --total-memory
  // (or the log's "Explicitly/Auto set (X/T) GiB for KV cache" line).
  if (names_cpu_host(gpu_name) && !out.engine->models_cpu_platform()) {
    return fail(fmt::format("--gpu {}: {}'s CPU platform is not modelled; give a GPU", gpu_name,
                            out.engine->name()));
  }
  std::optional<double> host_total = o.total_memory_gib;
  if (!host_total && from_log)
    host_total = from_log->calibration.total_memory_gib;
  auto device = find_device(gpu_name, host_total);
  if (!device)
    return device.error();
  s.hardware.gpu = device->spec;
  s.hardware.gpu_note = device->note;
  // A host of unknown size bounds nothing (its memory figures are checked by the CPU rules).
  const bool unbounded = s.hardware.gpu.is_cpu && s.hardware.gpu.memory_mib == 0;
  const int needed = out.engine->gpus_needed(s.command);
  if (o.gpus) {
    if (*o.gpus < 1)
      return fail(fmt::format("--gpus {}: must be at least 1", *o.gpus));
    if (*o.gpus < needed) {
      return fail(fmt::format("--gpus {}: the command's parallelism needs {} GPUs per node",
                              *o.gpus, needed));
    }
  }
  s.hardware.gpus_per_node = o.gpus.value_or(needed);
  if (!o.gpus && input->gpu_count) {
    if (*input->gpu_count >= needed) {
      s.hardware.gpus_per_node = *input->gpu_count;
      s.inputs_read.push_back(
          fmt::format("GPUs: {} from {}", *input->gpu_count, input->gpu_count_source));
    } else {
      s.inputs_read.push_back(fmt::format(
          "GPUs: {} gives {} GPU(s) but the command's parallelism needs {}; planning on {}",
          input->gpu_count_source, *input->gpu_count, needed, needed));
    }
  }

  auto check_gib = [&](const char* name, const std::optional<double>& v) -> Status {
    if (v && (*v <= 0 ||
              (!unbounded && *v > static_cast<double>(s.hardware.gpu.memory_mib) / 1024.0 + 0.5))) {
      return fail(fmt::format("{} {}: must be between 0 and the GPU's {:.1f} GiB", name, *v,
                              static_cast<double>(s.hardware.gpu.memory_mib) / 1024.0));
    }
    return ok_status();
  };
  if (Status st = check_gib("--free-before-load", o.free_before_load_gib); !st)
    return st.error();
  if (Status st = check_gib("--free-after-load", o.free_after_load_gib); !st)
    return st.error();
  if (o.free_before_load_gib && o.free_after_load_gib &&
      *o.free_after_load_gib > *o.free_before_load_gib) {
    return fail(fmt::format(
        "--free-after-load {} is above --free-before-load {}: loading weights cannot free memory",
        *o.free_after_load_gib, *o.free_before_load_gib));
  }
  s.calibration.free_before_load_gib = o.free_before_load_gib;
  s.calibration.free_after_load_gib = o.free_after_load_gib;
  s.calibration.source = "--free-before-load/--free-after-load";

  // Memory-profile figures: zero is a valid measurement (a run with no non-torch growth).
  const double gpu_gib = static_cast<double>(s.hardware.gpu.memory_mib) / 1024.0;
  const std::pair<const char*, const std::optional<double>*> profile[] = {
      {"--total-memory", &o.total_memory_gib},       {"--weights", &o.weights_gib},
      {"--activation-peak", &o.activation_peak_gib}, {"--non-torch", &o.non_torch_gib},
      {"--cuda-graph-memory", &o.cuda_graph_gib},    {"--kv-memory", &o.kv_memory_gib}};
  for (const auto& [name, v] : profile) {
    if (*v && (**v < 0 || (!unbounded && **v > gpu_gib + 0.5) ||
               (**v == 0 && name == profile[0].first))) {
      return fail(
          fmt::format("{} {}: must be between 0 and the GPU's {:.1f} GiB", name, **v, gpu_gib));
    }
  }
  s.calibration.total_memory_gib = o.total_memory_gib;
  s.calibration.weights_gib = o.weights_gib;
  s.calibration.activation_peak_gib = o.activation_peak_gib;
  s.calibration.non_torch_gib = o.non_torch_gib;
  s.calibration.cuda_graph_gib = o.cuda_graph_gib;
  s.calibration.kv_memory_gib = o.kv_memory_gib;

  if (from_log) {
    // Figures typed on the command line win over the log's.
    for (const std::string& name : calibration_field_names()) {
      std::optional<double>* mine = calibration_field(s.calibration, name);
      std::optional<double>* logged = calibration_field(from_log->calibration, name);
      if (mine != nullptr && logged != nullptr && !mine->has_value())
        *mine = *logged;
    }
    s.calibration.source = "--calibrate-from " + o.calibrate_from;
  }

  s.environment = s.command.environment;
  for (const auto& [k, v] : input->environment)
    s.environment.emplace(k, v);
  for (const std::string& kv : o.env) {
    auto eq = kv.find('=');
    if (eq == std::string::npos || eq == 0)
      return fail(fmt::format("--env {}: expected KEY=VALUE", kv));
    s.environment[kv.substr(0, eq)] = kv.substr(eq + 1);
  }
  return out;
}

}  // namespace servescope
