#include "evidence/log_facts.h"

namespace servescope {

namespace {

constexpr std::size_t kMaxRanks = 256;
constexpr std::size_t kMaxTimelines = 64;

}  // namespace

LogFacts::LogFacts(std::size_t keep_per_kind, std::size_t keep_batch_per_kind)
    : keep_per_kind_(keep_per_kind), keep_batch_per_kind_(keep_batch_per_kind) {}

bool LogFacts::is_batch(std::string_view kind) {
  return kind == "decode_batch" || kind == "prefill_batch";
}

void LogFacts::add(const Fact& fact) {
  auto seen = seen_.find(fact.kind);
  if (seen == seen_.end())
    seen = seen_.emplace(fact.kind, 0).first;
  ++seen->second;

  bool known_rank = false;
  for (const std::string& r : ranks_) {
    if (r == fact.rank.label) {
      known_rank = true;
      break;
    }
  }
  if (!known_rank && ranks_.size() < kMaxRanks)
    ranks_.push_back(fact.rank.label);

  const bool batch = is_batch(fact.kind);
  if (batch) {
    Timeline* t = nullptr;
    for (Timeline& candidate : timelines_) {
      if (candidate.rank() == fact.rank.label) {
        t = &candidate;
        break;
      }
    }
    if (t == nullptr && timelines_.size() < kMaxTimelines) {
      timelines_.emplace_back(fact.rank.label);
      t = &timelines_.back();
    }
    if (t != nullptr)
      t->add(fact);
  }
  const std::size_t keep = batch ? keep_batch_per_kind_ : keep_per_kind_;
  auto& indexes = by_kind_[fact.kind];
  if (indexes.size() >= keep) {
    ++dropped_[fact.kind];
    return;
  }
  indexes.push_back(facts_.size());
  facts_.push_back(fact);
}

const Fact* LogFacts::pick(std::string_view kind, bool last) const {
  auto it = by_kind_.find(kind);
  if (it == by_kind_.end() || it->second.empty())
    return nullptr;
  const std::vector<std::size_t>& idx = it->second;
  const Fact* fallback = nullptr;
  if (!last) {
    for (std::size_t i : idx) {
      if (facts_[i].rank.is_primary())
        return &facts_[i];
    }
    return &facts_[idx.front()];
  }
  for (auto i = idx.rbegin(); i != idx.rend(); ++i) {
    if (facts_[*i].rank.is_primary())
      return &facts_[*i];
  }
  // No primary fact: the last fact of the first rank that has this kind.
  const std::string& rank = facts_[idx.front()].rank.label;
  for (auto i = idx.rbegin(); i != idx.rend(); ++i) {
    if (facts_[*i].rank.label == rank) {
      fallback = &facts_[*i];
      break;
    }
  }
  return fallback;
}

const Fact* LogFacts::first(std::string_view kind) const {
  return pick(kind, false);
}

const Fact* LogFacts::last(std::string_view kind) const {
  return pick(kind, true);
}

const Fact* LogFacts::first(std::string_view kind, std::string_view rank_label) const {
  auto it = by_kind_.find(kind);
  if (it == by_kind_.end())
    return nullptr;
  for (std::size_t i : it->second) {
    if (facts_[i].rank.label == rank_label)
      return &facts_[i];
  }
  return nullptr;
}

const Fact* LogFacts::last(std::string_view kind, std::string_view rank_label) const {
  auto it = by_kind_.find(kind);
  if (it == by_kind_.end())
    return nullptr;
  for (auto i = it->second.rbegin(); i != it->second.rend(); ++i) {
    if (facts_[*i].rank.label == rank_label)
      return &facts_[*i];
  }
  return nullptr;
}

std::vector<const Fact*> LogFacts::all_of(std::string_view kind) const {
  std::vector<const Fact*> out;
  auto it = by_kind_.find(kind);
  if (it == by_kind_.end())
    return out;
  out.reserve(it->second.size());
  for (std::size_t i : it->second)
    out.push_back(&facts_[i]);
  return out;
}

std::uint64_t LogFacts::count(std::string_view kind) const {
  auto it = seen_.find(kind);
  return it == seen_.end() ? 0 : it->second;
}

const Value* LogFacts::server_arg(std::string_view name) const {
  const Fact* args = server_args();
  return args == nullptr ? nullptr : args->find(name);
}

std::string LogFacts::launch_command() const {
  const Fact* f = first("launch_command");
  if (f == nullptr)
    return std::string();
  return f->text("command").value_or("");
}

const Timeline* LogFacts::timeline() const {
  if (timelines_.empty())
    return nullptr;
  // The primary rank: untagged, or every printed index 0 ("TP0", "DP0 TP0").
  for (const Timeline& t : timelines_) {
    bool primary = true;
    for (char c : t.rank()) {
      if (c >= '1' && c <= '9') {
        primary = false;
        break;
      }
    }
    if (primary)
      return &t;
  }
  return &timelines_.front();
}

}  // namespace servescope
