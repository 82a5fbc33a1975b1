// SGLang's launch flags: the capacity table (flags a rule reads, with meaning, bounds and
// deprecations) and the full CLI surface of the modelled version (data/sglang/flags-*.tsv).
#pragma once

#include <string_view>
#include <vector>

#include "engines/flag_spec.h"

namespace servescope::sglang {

/// Flags that touch capacity, as of main 2026-07-20 (server_args.py::ServerArgs).
const std::vector<FlagSpec>& capacity_flags();
/// The capacity flag with this canonical name, alias or deprecated spelling; nullptr if none.
const FlagSpec* find_capacity_flag(std::string_view name);
/// Every flag `python -m sglang.launch_server` accepted on main 2026-07-20.
const std::vector<CliFlag>& cli_surface();
/// Flags older SGLang versions accepted that main 2026-07-20 no longer does, with arity,
/// so old commands parse; each is reported as not accepted by the newest version.
const std::vector<CliFlag>& removed_flags();

}  // namespace servescope::sglang
