// Engine-neutral description of a launch flag and of an engine's whole CLI surface.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace servescope {

enum class FlagType { kBool, kInt, kFloat, kString, kChoice, kIntList, kJson };

/// A flag a capacity rule reads (or that lint knows something about).
struct FlagSpec {
  std::string name;   // canonical, e.g. "--tp-size"
  std::string field;  // engine field it writes, e.g. "tp_size"
  FlagType type = FlagType::kString;
  std::string default_text;          // as the engine documents it ("None", "auto", "1")
  std::vector<std::string> aliases;  // other spellings the engine accepts
  std::vector<std::string> choices;  // for kChoice
  std::optional<double> min;         // inclusive bounds for numbers
  std::optional<double> max;
  bool min_exclusive = false;
  bool max_exclusive = false;
  std::optional<std::string> const_value;  // store-const flags write this to `field`
  std::string deprecated_for;              // "--cuda-graph-backend-prefill disabled"
  std::string meaning;                     // one sentence
  std::string runtime_effect;              // for flags that size nothing: what they do at run time
};

/// One flag of an engine's full command-line surface (every flag, modelled or not), used
/// for arity, argparse-style abbreviation and "does this version accept it".
struct CliFlag {
  std::string name;
  std::vector<std::string> aliases;
  std::string field;
  char arity = '1';  // '0' store-true, '1' one value, '+' one or more, '*' zero or more, '?'
  std::string type;  // the engine's annotation, e.g. "Optional[int]"
};

/// Checks a flag value against its spec: a type error or out-of-range value names the flag
/// as typed and the accepted values.
Status validate_flag_value(const FlagSpec& spec, std::string_view spelled,
                           const std::vector<std::string>& values);

/// The spec named `name` in `flags`, by its canonical name or an alias; nullptr if none.
const FlagSpec* find_flag_spec(const std::vector<FlagSpec>& flags, std::string_view name);

/// The surface flag named `name` exactly (canonical or alias); nullptr if none.
const CliFlag* find_cli_flag(const std::vector<CliFlag>& surface, std::string_view name);

/// Whether a command-line word is an option (argparse: "-x", "--x", but not "-1" or "-.5").
bool is_option_word(std::string_view word);

/// Parses the CLI-surface table (data/<engine>/flags-*.tsv).
Result<std::vector<CliFlag>> parse_cli_surface(std::string_view tsv, std::string_view source);

}  // namespace servescope
