// What `simulate` (and later `bench`) sends: request lengths from a SPEC — a number,
// `uniform:A:B`, `normal:MEAN:SD`, or a JSONL file of (input, output) lengths — and an
// arrival process for open-loop runs (poisson, constant, gamma:K).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"
#include "twin/random.h"

namespace servescope {

struct LengthPair {
  std::int64_t input = 0;
  std::int64_t output = 0;
};

class LengthSpec {
 public:
  enum class Kind { kFixed, kUniform, kNormal, kFile };

  /// Parses a SPEC; `option` names the option in errors ("--input-len"). A file path reads
  /// the file (one JSON object per line with input/output lengths, or [input, output]).
  static Result<LengthSpec> parse(std::string_view spec, std::string_view option);
  static LengthSpec fixed(std::int64_t n);

  Kind kind() const { return kind_; }
  /// One length ≥ 1 (a file spec returns the input column of the next row; see pair()).
  std::int64_t sample(Random& random, bool output_column = false);
  /// "1024", "uniform:100:2000", "normal:512:128", "file.jsonl (1,000 rows)".
  std::string describe() const;

 private:
  Kind kind_ = Kind::kFixed;
  double a_ = 0, b_ = 0;
  std::string path_;
  std::vector<LengthPair> rows_;
  std::size_t next_input_ = 0, next_output_ = 0;
};

/// Reads a JSONL file of lengths. Each line: {"input": N, "output": M} (also input_len /
/// output_len, prompt_len, input_tokens / output_tokens) or [N, M]. Blank lines are skipped;
/// a bad line is an error naming the file and line.
Result<std::vector<LengthPair>> read_length_rows(const std::string& path);

class ArrivalProcess {
 public:
  enum class Kind { kPoisson, kConstant, kGamma };
  /// "poisson", "constant" or "gamma:K" (K > 0: below 1 burstier than Poisson, above smoother).
  static Result<ArrivalProcess> parse(std::string_view spec);

  /// Seconds to the next arrival at `rate` requests per second.
  double next_gap(Random& random, double rate) const;
  std::string describe() const;
  Kind kind() const { return kind_; }

 private:
  Kind kind_ = Kind::kPoisson;
  double shape_ = 1;
};

/// Parses "8,16,32" (or one number) into positive values; `option` names it in errors.
Result<std::vector<double>> parse_number_list(std::string_view text, std::string_view option);

}  // namespace servescope
