// Which of the architectures an engine release serves servescope plans: the release's model
// registry (data/<engine>/architectures.tsv: each architecture with the first and last release
// that lists it, generated from the wheels by tools/engine-sync/registry.py) against the config
// readers servescope has (data/model-layouts.tsv) and the gaps the engine's own code shows
// (data/model-layout-gaps.tsv).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

struct RegisteredArchitecture {
  std::string architecture;  // "LlamaForCausalLM"
  std::string kind;          // text, multimodal, pooling, speculative
  std::string module;        // the engine's model module ("llama")
};

/// One release's registry table.
struct ArchitectureRegistry {
  std::string engine;
  std::string release;  // the release read whose registry this is
  std::string header;   // the table's first line: what made it
  std::vector<RegisteredArchitecture> architectures;

  const RegisteredArchitecture* find(std::string_view architecture) const;
};

/// The engines with a registry table, in name order.
std::vector<std::string> registry_engines();

/// The registry of `engine` at `version`: as the release read at or before it lists it ("" = the
/// newest release read). Fails with one line when the engine is unknown or `version` is older
/// than every release read.
Result<ArchitectureRegistry> architecture_registry(std::string_view engine,
                                                   std::string_view version);

enum class CoverageStatus { kModelled, kGaps, kNotModelled };

std::string_view coverage_status_name(CoverageStatus status);  // modelled, gaps, not-modelled

struct ArchitectureCoverage {
  RegisteredArchitecture registered;
  std::string model_type;  // transformers' model_type for the architecture, "" if it has none
  std::string family;      // servescope's reader ("dense", ...), "" when not modelled
  CoverageStatus status = CoverageStatus::kNotModelled;
  std::string reason;  // why not modelled, or the named gaps
};

/// Coverage of each text and multimodal architecture of the registry, in its order.
std::vector<ArchitectureCoverage> architecture_coverage(const ArchitectureRegistry& registry);

/// One line when `release` of `engine` is a release whose registry was read and does not list
/// `architecture` (what the engine says, the releases that do list it, and the Transformers
/// fallback both engines try); "" when it is listed or no table covers that exact release.
std::string unregistered_architecture(std::string_view engine, std::string_view release,
                                      std::string_view architecture);

/// One line naming the figures where servescope's layout of `architecture` is known to disagree
/// with `engine`'s own model code (data/model-layout-gaps.tsv), or "" where none is named.
std::string layout_gap_note(std::string_view engine, std::string_view architecture);

/// The model_type transformers gives an architecture (data/architecture-model-types.tsv).
std::string transformers_model_type(std::string_view architecture);

/// transformers' model_type for an architecture, else the one vLLM's own config registry or
/// model module gives its checkpoints (engine_model_type); "" when neither knows one.
std::string registered_model_type(std::string_view architecture);

}  // namespace servescope
