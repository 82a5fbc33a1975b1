// Reading the `name=value` and `name: value` pairs that engines print in their f-string log
// messages ("avail mem=63.72 GB", "#running-req: 5", "bs=[1, 2, 4]"), into fact fields with
// the unit in the field name. Engine-neutral; the grammars decide which text to scan.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "engines/log_grammar.h"

namespace servescope {

/// Fills a Fact in place, reusing the storage of the previous one: a grammar reads millions
/// of periodic lines, and reused strings do not allocate.
class FactBuilder {
 public:
  explicit FactBuilder(Fact& fact) : fact_(fact) {}
  /// Starts a new fact: sets kind, line, clears fields, rank, time, raw and `partial`.
  void begin(std::string_view kind, std::uint64_t line);
  /// Appends a field (no duplicate check) and returns its value slot.
  Value& add(std::string_view name);
  void add(std::string_view name, Value value) { add(name) = std::move(value); }
  /// Replaces the value of an existing field or appends it.
  void set(std::string_view name, Value value);
  bool has(std::string_view name) const;
  /// Ends the fact: drops slots left over from a longer previous fact.
  Fact& finish();
  Fact& fact() { return fact_; }

 private:
  Fact& fact_;
  std::size_t used_ = 0;
};

/// Field names from printed labels and units; a small cache makes repeated labels free.
class LogFieldScanner {
 public:
  /// Reads every pair of `text` into `out`; returns how many. Values: numbers (int or double;
  /// a unit after the number goes into the name: "GB" → _gb, "s" → _s, "%" → _pct, "MB" →
  /// _mb, "ms" → _ms), True/False → bool, None → none, [ints] → int list, 'quoted' → string,
  /// anything else → the word up to the next comma or space.
  std::size_t scan(std::string_view text, FactBuilder& out);

  /// The fast path for comma-separated "label: value" lists (the periodic batch lines); an
  /// item of another shape goes through scan(). Same names and values as scan().
  std::size_t scan_list(std::string_view text, FactBuilder& out);

  /// ("avail mem", "GB") → "avail_mem_gb"; ("#running-req", "") → "running_req";
  /// ("gen throughput (token/s)", "") → "gen_throughput_tok_per_s"; ("Time elapsed", "s") →
  /// "elapsed_s".
  static std::string field_name(std::string_view label, std::string_view unit);

 private:
  const std::string& cached_name(std::string_view label, std::string_view unit);

  struct Entry {
    std::uint64_t first8 = 0;  // the label's first and last eight bytes
    std::uint64_t last8 = 0;
    std::string label;
    std::string unit;
    std::string name;
  };
  std::array<Entry, 128> cache_{};
};

/// A number as printed by an f-string: "46611" → int, "0.85" / "1e-05" → double.
bool parse_log_number(std::string_view text, Value& out);

}  // namespace servescope
