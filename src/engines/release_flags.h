// Every release's command-line surface, as the engine's own argument parser built it
// (data/<engine>/flags-VERSION.tsv, generated from the PyPI wheels by tools/engine-sync). A
// flag typed for a release is judged the way that release's argparse would take it: accepted,
// a deprecated spelling, an ambiguous abbreviation, not there yet (with the release that added
// it) or gone (with the release that removed it and the replacement its last table names).
// Engine-neutral: the engine packs pass their name and turn verdicts into findings.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace servescope {

/// One row of a release's table (the columns of flags-VERSION.tsv).
struct ReleaseFlag {
  std::string flag;                  // the first long option string
  std::vector<std::string> aliases;  // its other spellings
  std::string field;                 // the dest it stores
  char arity = '1';                  // 0 1 + * ?
  std::string type;
  std::string default_value;
  std::vector<std::string> notes;  // deprecated, deprecated-alias-of:--x, use:--y, boolopt, ...

  bool deprecated() const;
  /// The live flag a deprecated alias stores into ("" when it is none).
  std::string alias_of() const;
  /// The replacement a deprecated flag's help names ("" when none).
  std::string replacement() const;
};

/// What a release's parser makes of a flag as typed.
struct FlagVerdict {
  enum class Kind {
    kAccepted,      // a live flag (exactly, or by a unique abbreviation)
    kDeprecated,    // accepted, deprecated (an alias of another flag, or on its way out)
    kAmbiguous,     // an abbreviation of several flags: argparse exits
    kNotYet,        // added by a later release: argparse exits
    kRemoved,       // accepted by earlier releases only: argparse exits
    kNeverExisted,  // in no release's table
  };
  Kind kind = Kind::kAccepted;
  const ReleaseFlag* row = nullptr;     // the row it selects (kAccepted, kDeprecated)
  std::vector<std::string> candidates;  // kAmbiguous: the flags it could be
  std::string added_in;                 // kNotYet: the first release that has it
  std::string removed_in;               // kRemoved: the first release without it again
  std::string last_in;                  // kRemoved: the last release that had it
  std::string replacement;              // kDeprecated / kRemoved: what to type instead
};

class ReleaseFlagTables {
 public:
  /// The tables of an engine ("sglang", "vllm"): every release of
  /// data/<engine>/pypi-releases.csv that has a flags-VERSION.tsv, oldest first; an engine
  /// without tables has none. Parsed on first use (a few ms); never throws.
  static const ReleaseFlagTables& of(std::string_view engine);

  bool empty() const { return releases_.empty(); }
  const std::string& engine() const { return engine_; }
  /// Releases with a table, oldest first.
  std::vector<std::string> releases() const;
  /// The release a spec names ("0.5.23", "v0.5.23"), when it has a table.
  std::optional<std::string> release(std::string_view spec) const;
  /// The rows of a release's table; nullptr for a release without one.
  const std::vector<ReleaseFlag>* table(std::string_view release) const;

  /// The flag as typed (`--tp`, `--cuda-graph-max-bs`) on `release` (which must have a
  /// table), by argparse's rules: exact option strings, then unique prefixes.
  FlagVerdict judge(std::string_view spelled, std::string_view release) const;

  /// The row for a spelling in the newest release that accepts it exactly (its arity for a
  /// flag the modelled surface lacks), or nullptr.
  const ReleaseFlag* newest_row(std::string_view spelled) const;

  /// One line for a verdict that is not a plain acceptance, naming the engine and release:
  /// "--mamba-max-states-per-path is not a flag of sglang 0.5.16 (argparse exits with
  /// 'unrecognized arguments'); it was added in 0.5.17".
  std::string describe(const FlagVerdict& v, std::string_view spelled,
                       std::string_view release) const;

  /// A finding for a flag as typed on `release`, or nullopt when the release accepts it
  /// plainly: the code (deprecated-flag, ambiguous-flag, flag-not-in-version, unknown-flag), an
  /// error for what argparse rejects and a warning for a deprecation, and the line.
  struct Note {
    bool error = false;
    std::string code;
    std::string message;
  };
  std::optional<Note> note(std::string_view spelled, std::string_view release) const;

  struct Table {
    std::string release;
    std::vector<ReleaseFlag> rows;
  };

 private:
  std::string engine_;
  std::vector<Table> releases_;  // oldest first
  const ReleaseFlag* exact(const Table& t, std::string_view spelled) const;
  std::optional<std::size_t> index(std::string_view release) const;
};

}  // namespace servescope
