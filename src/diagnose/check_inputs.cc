// What check takes beside a log's own lines: the user's command and options, and the facts the
// log implies (check.h, CheckResult::inferences).
#include "diagnose/check_inputs.h"

#include <fmt/format.h>

#include <algorithm>

#include "catalog/quantization.h"
#include "core/text.h"
#include "diagnose/log_command_merge.h"

namespace servescope {

// A checkpoint quantized in a format the config at hand does not say (the base model's
// config.json, the run's --quantization auto_round): its weights are that format's, not the
// config's dtype. fp8 is left to the engines, which quantize a 16-bit checkpoint online with it,
// and compressed-tensors names no width.
void infer_checkpoint_quantization(const LaunchCommand& command, ModelShape& model,
                                   CheckResult& out) {
  const FlagSetting* flag = command.find("--quantization");
  if (flag == nullptr || model.quant.method != QuantMethod::kNone)
    return;
  const std::string name = to_lower(flag->value());
  if (name.empty() || name == "none" || name.find("fp8") != std::string::npos ||
      name == "compressed-tensors")
    return;
  Quantization q = quantization_named(name);
  if (q.method == QuantMethod::kNone)
    return;
  model.quant = q;
  out.inferences.push_back(fmt::format(
      "the checkpoint is quantized ({}): the run's --quantization says so and the config.json "
      "at hand has no quantization_config (a base model's); weights estimated at {:.0f} bits in "
      "groups of {}",
      name, q.weight_bits, q.group_size));
}

// What the log's rank prefixes imply (issue: "TP3]" means at least 4 tensor-parallel ranks):
// the parallelism when neither the log's settings nor the user state it, said as inferred; a
// stated value below it is a contradiction.
Status infer_parallelism(const LogFacts& facts, CheckResult& out) {
  int highest = -1;
  for (const Fact& f : facts.all())
    highest = std::max(highest, f.rank.tp);
  if (highest <= 0)
    return ok_status();
  const Engine& engine = *out.engine;
  auto logged = engine.parse_command(out.log.capacity_command);
  if (!logged)
    return ok_status();  // reported when the commands are parsed for the plan
  const std::string flag = canonical_flag(engine, "--tensor-parallel-size");
  if (flag.empty())
    return ok_status();
  const std::string why =
      fmt::format("the log's rank prefixes go up to TP{}, so tensor parallelism is at least {}",
                  highest, highest + 1);
  if (const FlagSetting* stated = logged->find(flag)) {
    if (auto v = parse_int(stated->value()); v && *v < highest + 1)
      out.contradictions.push_back(
          fmt::format("{}: the run's settings show {}; {}", flag, stated->value(), why));
    return ok_status();
  }
  auto merged = merge_user_flag(engine, "--tensor-parallel-size", std::to_string(highest + 1),
                                "inferred", out.log);
  if (!merged)
    return merged.error();
  out.inferences.push_back(
      fmt::format("{} {} ({}): figures are checked under it", flag, highest + 1, why));
  return ok_status();
}

// The user's input beside the log — a launch command (after --, --from, or a file with the
// log's stem), --tp, --model alone — joined to the log's own settings (log_command_merge.h).
Status join_user_input(const CheckOptions& options, CheckResult& out, LaunchInput& given) {
  const Engine& engine = *out.engine;
  auto record = [&](const CommandMerge& m) {
    out.filled.insert(out.filled.end(), m.filled.begin(), m.filled.end());
    out.contradictions.insert(out.contradictions.end(), m.contradictions.begin(),
                              m.contradictions.end());
  };
  if (!options.command.empty() || !options.from.empty()) {
    if (!options.command.empty() && !options.from.empty())
      return fail(fmt::format("--from {} and a command after --: give one of them", options.from));
    auto input = read_user_command(options.from, options.command, &engine);
    if (!input)
      return input.error();
    given = std::move(*input);
    out.command_given = true;
    out.command_origin = !options.command_origin.empty() ? options.command_origin
                         : !options.from.empty()         ? options.from
                                                         : std::string("the command after --");
    auto merged = merge_user_command(engine, given, out.command_origin, out.log);
    if (!merged)
      return merged.error();
    record(*merged);
    for (const std::string& note : given.notes)
      out.notes.push_back(note);
  }
  if (options.tp) {
    auto merged = merge_user_flag(engine, "--tensor-parallel-size", std::to_string(*options.tp),
                                  "--tp", out.log);
    if (!merged)
      return merged.error();
    record(*merged);
  }
  if (!options.model.empty() && out.log.capacity_command.size() <= 3 &&
      !out.log.typed_command_known) {
    assume_defaults_with_model(engine, options.model, out.log);
    out.defaults_assumed = true;
    out.notes.push_back(fmt::format(
        "the log shows no settings: the engine's defaults with --model {} stand for the run "
        "(give its launch command with -- CMD or --from FILE if it set flags)",
        options.model));
  }
  return ok_status();
}

}  // namespace servescope
