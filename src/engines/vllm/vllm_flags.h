// vLLM's launch flags: the capacity table (flags a rule reads, with meaning, bounds and
// deprecations), the environment variables the rules read, and the full `vllm serve`
// command-line surface of a modelled main date (data/vllm/flags-*.tsv).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engines/flag_spec.h"

namespace servescope::vllm {

/// Flags that touch capacity (vllm/engine/arg_utils.py::EngineArgs and the config dataclasses
/// it reads), as of main 2026-05-27.
const std::vector<FlagSpec>& capacity_flags();
/// The capacity flag with this canonical name or alias; nullptr if none.
const FlagSpec* find_capacity_flag(std::string_view name);

/// The main dates whose command-line surface is bundled, oldest first.
const std::vector<std::string>& surface_dates();
/// Every flag `vllm serve` accepted on the newest bundled date at or before `date` (the
/// oldest bundled surface for earlier dates).
const std::vector<CliFlag>& cli_surface(std::string_view date);
/// Every flag any bundled surface accepts (for arity when the version is not yet known).
const std::vector<CliFlag>& cli_surface_union();

/// An environment variable a capacity rule reads.
struct EnvSpec {
  std::string name;
  std::string default_text;  // as vllm/envs.py reads it when unset
  std::string meaning;
};
const std::vector<EnvSpec>& capacity_env_vars();
const EnvSpec* find_capacity_env(std::string_view name);

}  // namespace servescope::vllm
