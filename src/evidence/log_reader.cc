#include "evidence/log_reader.h"

#include <fmt/format.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <sstream>

#include "core/file.h"
#include "evidence/quoted_line.h"

namespace servescope {

namespace {

constexpr std::size_t kUnknownSamples = 10;
constexpr std::size_t kUnknownSampleBytes = 300;
// Facts a candidate grammar may buffer before the engine is known.
constexpr std::size_t kMaxUndecidedFacts = 100000;

// Length of a valid UTF-8 sequence at p[0..n), or 0.
std::size_t utf8_sequence(const unsigned char* p, std::size_t n) {
  const unsigned char c = p[0];
  std::size_t len = 0;
  unsigned char lo = 0x80;
  unsigned char hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) {
    len = 2;
  } else if (c >= 0xE0 && c <= 0xEF) {
    len = 3;
    if (c == 0xE0)
      lo = 0xA0;
    if (c == 0xED)
      hi = 0x9F;
  } else if (c >= 0xF0 && c <= 0xF4) {
    len = 4;
    if (c == 0xF0)
      lo = 0x90;
    if (c == 0xF4)
      hi = 0x8F;
  } else {
    return 0;
  }
  if (n < len || p[1] < lo || p[1] > hi)
    return 0;
  for (std::size_t k = 2; k < len; ++k) {
    if (p[k] < 0x80 || p[k] > 0xBF)
      return 0;
  }
  return len;
}

// Forwards facts to LogFacts and the caller's sink.
class Collector final : public FactSink {
 public:
  Collector(LogFacts& facts, FactSink* sink) : facts_(facts), sink_(sink) {}
  void on_fact(const Fact& fact) override {
    ++facts_.mutable_counts().facts;
    if (identifying_ == 0 && grammar_ != nullptr && grammar_->identifies_engine(fact))
      ++identifying_;
    if (sink_ != nullptr)
      sink_->on_fact(fact);
    facts_.add(fact);
  }
  void set_grammar(const LogGrammar* g) { grammar_ = g; }
  std::uint64_t identifying() const { return identifying_; }

 private:
  LogFacts& facts_;
  FactSink* sink_;
  const LogGrammar* grammar_ = nullptr;
  std::uint64_t identifying_ = 0;
};

// One engine's grammar reading along while the engine is not yet known.
struct Candidate final : FactSink {
  const Engine* engine = nullptr;
  std::unique_ptr<LogGrammar> grammar;
  std::vector<Fact> buffered;
  std::uint64_t overflow = 0;
  bool identified = false;
  LineCounts counts;  // the classification counts as this grammar sees the lines

  void on_fact(const Fact& fact) override {
    if (grammar->identifies_engine(fact))
      identified = true;
    if (buffered.size() < kMaxUndecidedFacts)
      buffered.push_back(fact);
    else
      ++overflow;
  }
};

class Reader {
 public:
  Reader(std::string name, const LogReadOptions& options)
      : name_(std::move(name)),
        options_(options),
        facts_(options.keep_per_kind, options.keep_batch_per_kind),
        collector_(facts_, options.sink) {
    if (options.engine != nullptr) {
      grammar_ = options.engine->log_grammar();
      engine_ = options.engine;
      collector_.set_grammar(grammar_.get());
    } else {
      for (const auto& e : engines()) {
        auto g = e->log_grammar();
        if (g == nullptr)
          continue;
        auto c = std::make_unique<Candidate>();
        c->engine = e.get();
        c->grammar = std::move(g);
        candidates_.push_back(std::move(c));
      }
    }
  }

  Status check_grammar() const {
    if (options_.engine != nullptr && grammar_ == nullptr)
      return fail(fmt::format("{}: servescope has no log grammar for {} yet", name_,
                              options_.engine->name()));
    if (options_.engine == nullptr && candidates_.empty())
      return fail("no engine with a log grammar is modelled");
    return ok_status();
  }

  void add_bytes(std::size_t n) { facts_.mutable_counts().bytes += n; }

  void line(std::string_view raw, bool overlong) {
    LineCounts& c = facts_.mutable_counts();
    ++c.lines;
    ++number_;
    if (overlong)
      ++c.overlong;
    clean_log_line(raw, scratch_, cleaned_);
    if (cleaned_.changed)
      ++c.control_chars;
    if (cleaned_.invalid_utf8)
      ++c.invalid_utf8;
    if (grammar_ != nullptr) {
      classify(*grammar_, collector_, c);
      return;
    }
    for (auto& cand : candidates_)
      classify(*cand->grammar, *cand, cand->counts);
    for (auto& cand : candidates_) {
      if (cand->identified || cand->buffered.size() >= kMaxUndecidedFacts) {
        decide(*cand);
        return;
      }
    }
  }

  Result<LogFacts> finish(bool truncated_last_line) {
    facts_.mutable_counts().truncated_last_line = truncated_last_line;
    if (grammar_ == nullptr) {
      for (auto& cand : candidates_)
        cand->grammar->finish(*cand);
      Candidate* best = nullptr;
      for (auto& cand : candidates_) {
        if (cand->identified) {
          best = cand.get();
          break;
        }
      }
      if (best == nullptr) {
        const LineCounts& c = facts_.counts();
        if (c.lines == 0)
          return fail(fmt::format("{}: empty log", name_));
        std::string names;
        for (std::size_t i = 0; i < candidates_.size(); ++i) {
          const char* sep = i == 0 ? "" : (i + 1 == candidates_.size() ? " or " : ", ");
          names += sep + std::string(candidates_[i]->engine->name());
        }
        return fail(fmt::format(
            "{}: no {} log lines recognised in {} lines; is this a server log? (--engine "
            "forces a grammar)",
            name_, names, c.lines));
      }
      decide(*best);
    } else {
      grammar_->finish(collector_);
    }
    if (collector_.identifying() == 0) {
      const LineCounts& c = facts_.counts();
      if (c.lines == 0)
        return fail(fmt::format("{}: empty log", name_));
      return fail(fmt::format("{}: no {} log lines recognised in {} lines", name_, engine_->name(),
                              c.lines));
    }
    facts_.set_engine(std::string(engine_->name()));
    facts_.set_version(grammar_->infer_version(facts_.all()));
    facts_.set_summary(grammar_->summarize(facts_.all()));
    return std::move(facts_);
  }

 private:
  void classify(LogGrammar& grammar, FactSink& sink, LineCounts& c) {
    bool fact = false;
    bool unknown = false;
    bool unknown_capacity = false;
    for (std::string_view seg : cleaned_.segments) {
      // A line quoted in Markdown (a forum post, an issue) is read as the engine printed it.
      switch (grammar.feed(unquote_log_line(seg), number_, sink)) {
        case LineKind::kFact:
          fact = true;
          break;
        case LineKind::kKnown:
          break;
        case LineKind::kUnknown:
          unknown = true;
          break;
        case LineKind::kUnknownCapacity:
          unknown_capacity = true;
          if (c.unknown_capacity_samples.size() < kUnknownSamples)
            c.unknown_capacity_samples.push_back(
                UnknownLine{number_, std::string(seg.substr(0, kUnknownSampleBytes))});
          break;
      }
    }
    if (fact)
      ++c.fact_lines;
    else if (unknown_capacity)
      ++c.unknown_capacity;
    else if (unknown)
      ++c.unknown;
    else
      ++c.known;
  }

  void decide(Candidate& winner) {
    engine_ = winner.engine;
    grammar_ = std::move(winner.grammar);
    collector_.set_grammar(grammar_.get());
    LineCounts& c = facts_.mutable_counts();
    c.fact_lines = winner.counts.fact_lines;
    c.known = winner.counts.known;
    c.unknown = winner.counts.unknown;
    c.unknown_capacity = winner.counts.unknown_capacity;
    c.unknown_capacity_samples = std::move(winner.counts.unknown_capacity_samples);
    for (const Fact& f : winner.buffered)
      collector_.on_fact(f);
    c.facts += winner.overflow;
    candidates_.clear();
  }

  std::string name_;
  LogReadOptions options_;
  LogFacts facts_;
  Collector collector_;
  const Engine* engine_ = nullptr;
  std::unique_ptr<LogGrammar> grammar_;
  std::vector<std::unique_ptr<Candidate>> candidates_;
  std::uint64_t number_ = 0;
  std::string scratch_;
  CleanedLine cleaned_;
};

}  // namespace

void clean_log_line(std::string_view line, std::string& scratch, CleanedLine& out) {
  out.segments.clear();
  out.changed = false;
  out.invalid_utf8 = false;
  const auto* p = reinterpret_cast<const unsigned char*>(line.data());
  const std::size_t n = line.size();
  // Fast path: printable ASCII, 8 bytes at a time (a byte below 0x20 or above 0x7E, or a
  // tab, sends the word to the byte loop).
  bool simple = true;
  std::size_t i0 = 0;
  constexpr std::uint64_t kOnes = 0x0101010101010101ULL;
  constexpr std::uint64_t kHigh = 0x8080808080808080ULL;
  for (; i0 + 8 <= n; i0 += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i0, 8);
    const std::uint64_t below = (w - kOnes * 0x20) & ~w & kHigh;  // some byte < 0x20
    const std::uint64_t above = (w + kOnes * 0x01) & kHigh;       // some byte ≥ 0x7F
    if ((below | above | (w & kHigh)) != 0)
      break;
  }
  for (std::size_t i = i0; i < n; ++i) {
    const unsigned char c = p[i];
    if (c < 0x20 ? c != '\t' : c >= 0x7F) {
      simple = false;
      break;
    }
  }
  if (simple) {
    out.segments.push_back(line);
    return;
  }
  scratch.clear();
  scratch.reserve(n);
  std::vector<std::size_t> cuts;
  std::size_t i = 0;
  while (i < n) {
    const unsigned char c = p[i];
    if (c == 0x1B) {  // ANSI escape: CSI, OSC or a two-byte sequence
      out.changed = true;
      if (i + 1 < n && p[i + 1] == '[') {
        i += 2;
        while (i < n && p[i] >= 0x30 && p[i] <= 0x3F)
          ++i;
        while (i < n && p[i] >= 0x20 && p[i] <= 0x2F)
          ++i;
        if (i < n && p[i] >= 0x40 && p[i] <= 0x7E)
          ++i;
      } else if (i + 1 < n && p[i + 1] == ']') {
        i += 2;
        while (i < n && p[i] != 0x07 && !(p[i] == 0x1B && i + 1 < n && p[i + 1] == '\\'))
          ++i;
        i += (i < n && p[i] == 0x07) ? 1 : 2;
      } else {
        i += 2;
      }
      continue;
    }
    if (c == '\r') {
      out.changed = true;
      if (i + 1 < n && !scratch.empty())
        cuts.push_back(scratch.size());
      ++i;
      continue;
    }
    if ((c < 0x20 && c != '\t') || c == 0x7F) {
      out.changed = true;
      ++i;
      continue;
    }
    if (c < 0x80) {
      scratch += static_cast<char>(c);
      ++i;
      continue;
    }
    const std::size_t len = utf8_sequence(p + i, n - i);
    if (len == 0) {
      out.invalid_utf8 = true;
      scratch += "\xEF\xBF\xBD";
      ++i;
      continue;
    }
    scratch.append(line.data() + i, len);
    i += len;
  }
  std::size_t begin = 0;
  cuts.push_back(scratch.size());
  for (std::size_t cut : cuts) {
    if (cut > begin)
      out.segments.emplace_back(scratch.data() + begin, cut - begin);
    begin = cut;
  }
  if (out.segments.empty())
    out.segments.emplace_back();
}

Result<LogFacts> read_log(std::istream& in, const std::string& name,
                          const LogReadOptions& options) {
  Reader reader(name, options);
  if (Status s = reader.check_grammar(); !s)
    return s.error();
  const std::size_t max_line = std::max<std::size_t>(options.max_line_bytes, 1024);
  std::vector<char> buf(std::max<std::size_t>(options.chunk_bytes, 4096));
  std::string carry;
  bool carry_overlong = false;
  auto append_carry = [&](std::string_view part) {
    const std::size_t room = max_line - std::min(max_line, carry.size());
    if (part.size() > room) {
      carry_overlong = true;
      part = part.substr(0, room);
    }
    carry.append(part);
  };
  while (true) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const std::size_t n = static_cast<std::size_t>(in.gcount());
    if (n == 0)
      break;
    reader.add_bytes(n);
    const char* data = buf.data();
    std::size_t pos = 0;
    while (pos < n) {
      const void* found = std::memchr(data + pos, '\n', n - pos);
      if (found == nullptr) {
        append_carry(std::string_view(data + pos, n - pos));
        break;
      }
      const std::size_t nl = static_cast<std::size_t>(static_cast<const char*>(found) - data);
      std::string_view seg(data + pos, nl - pos);
      if (!carry.empty() || carry_overlong) {
        append_carry(seg);
        reader.line(carry, carry_overlong);
        carry.clear();
        carry_overlong = false;
      } else if (seg.size() > max_line) {
        reader.line(seg.substr(0, max_line), true);
      } else {
        reader.line(seg, false);
      }
      pos = nl + 1;
    }
    if (!in)
      break;
  }
  if (in.bad())
    return fail(fmt::format("{}: read error", name));
  const bool truncated = !carry.empty() || carry_overlong;
  if (truncated)
    reader.line(carry, carry_overlong);
  return reader.finish(truncated);
}

Result<LogFacts> read_log_file(const std::string& path, const LogReadOptions& options) {
  if (is_directory(path))
    return fail(fmt::format("{}: is a directory; give a log file", path));
  if (!is_regular_file(path))
    return fail(fmt::format("{}: no such file", path));
  std::ifstream in(path, std::ios::binary);
  if (!in)
    return fail(fmt::format("{}: cannot open for reading", path));
  if (in.peek() == std::char_traits<char>::eof())
    return fail(fmt::format("{}: empty file", path));
  return read_log(in, path, options);
}

Result<LogFacts> read_log_text(std::string_view text, const std::string& name,
                               const LogReadOptions& options) {
  std::istringstream in{std::string(text)};
  return read_log(in, name, options);
}

}  // namespace servescope
