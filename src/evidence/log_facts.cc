#include "evidence/log_facts.h"

namespace servescope {

namespace {

constexpr std::size_t kMaxRanks = 256;
constexpr std::size_t kMaxTimelines = 64;
// Kept facts stop here whatever their count (a log of thousands of 4 MiB lines).
constexpr std::size_t kMaxKeptBytes = std::size_t{256} << 20;

}  // namespace

LogFacts::LogFacts(std::size_t keep_per_kind, std::size_t keep_batch_per_kind)
    : keep_per_kind_(keep_per_kind), keep_batch_per_kind_(keep_batch_per_kind) {}

// The lookup caches point into this object's containers: a copy or a move starts without them.
LogFacts::LogFacts(const LogFacts& other) : LogFacts(0, 0) {
  *this = other;
}

LogFacts::LogFacts(LogFacts&& other) noexcept : LogFacts(0, 0) {
  *this = std::move(other);
}

LogFacts& LogFacts::operator=(const LogFacts& other) {
  if (this == &other)
    return *this;
  copy_data(other);
  clear_caches();
  return *this;
}

LogFacts& LogFacts::operator=(LogFacts&& other) noexcept {
  if (this == &other)
    return *this;
  keep_per_kind_ = other.keep_per_kind_;
  keep_batch_per_kind_ = other.keep_batch_per_kind_;
  engine_ = std::move(other.engine_);
  version_ = std::move(other.version_);
  summary_ = std::move(other.summary_);
  counts_ = std::move(other.counts_);
  facts_ = std::move(other.facts_);
  kept_bytes_ = other.kept_bytes_;
  slots_ = std::move(other.slots_);
  dropped_ = std::move(other.dropped_);
  ranks_ = std::move(other.ranks_);
  timelines_ = std::move(other.timelines_);
  clear_caches();
  other.clear_caches();
  return *this;
}

void LogFacts::copy_data(const LogFacts& o) {
  keep_per_kind_ = o.keep_per_kind_;
  keep_batch_per_kind_ = o.keep_batch_per_kind_;
  engine_ = o.engine_;
  version_ = o.version_;
  summary_ = o.summary_;
  counts_ = o.counts_;
  facts_ = o.facts_;
  kept_bytes_ = o.kept_bytes_;
  slots_ = o.slots_;
  dropped_ = o.dropped_;
  ranks_ = o.ranks_;
  timelines_ = o.timelines_;
}

void LogFacts::clear_caches() {
  recent_.fill(nullptr);
  recent_next_ = 0;
  last_rank_ = nullptr;
}

bool LogFacts::is_batch(std::string_view kind) {
  return kind == "decode_batch" || kind == "prefill_batch";
}

LogFacts::KindSlot& LogFacts::slot(const std::string& kind) {
  // The periodic lines alternate between two kinds: remember the last few.
  for (KindSlot* s : recent_) {
    if (s != nullptr && s->kind == kind)
      return *s;
  }
  auto it = slots_.find(kind);
  if (it == slots_.end())
    it = slots_.emplace(kind, KindSlot{kind, 0, {}}).first;
  recent_[recent_next_] = &it->second;
  recent_next_ = (recent_next_ + 1) % recent_.size();
  return it->second;
}

void LogFacts::add(const Fact& fact) {
  KindSlot& s = slot(fact.kind);
  ++s.seen;

  if (last_rank_ == nullptr || *last_rank_ != fact.rank.label) {
    last_rank_ = nullptr;
    for (const std::string& r : ranks_) {
      if (r == fact.rank.label) {
        last_rank_ = &r;
        break;
      }
    }
    if (last_rank_ == nullptr && ranks_.size() < kMaxRanks) {
      ranks_.push_back(fact.rank.label);
      last_rank_ = nullptr;  // the vector may have moved
    }
  }

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
  const std::size_t bytes = fact.raw.size() + 64 * fact.fields.size() + 128;
  if (s.indexes.size() >= keep || kept_bytes_ + bytes > kMaxKeptBytes) {
    ++dropped_[fact.kind];
    return;
  }
  kept_bytes_ += bytes;
  s.indexes.push_back(facts_.size());
  facts_.push_back(fact);
}

const std::map<std::string, std::uint64_t, std::less<>>& LogFacts::counts_by_kind() const {
  seen_.clear();
  for (const auto& [kind, s] : slots_)
    seen_[kind] = s.seen;
  return seen_;
}

const Fact* LogFacts::pick(std::string_view kind, bool last) const {
  auto it = slots_.find(kind);
  if (it == slots_.end() || it->second.indexes.empty())
    return nullptr;
  const std::vector<std::size_t>& idx = it->second.indexes;
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
  auto it = slots_.find(kind);
  if (it == slots_.end())
    return nullptr;
  for (std::size_t i : it->second.indexes) {
    if (facts_[i].rank.label == rank_label)
      return &facts_[i];
  }
  return nullptr;
}

const Fact* LogFacts::last(std::string_view kind, std::string_view rank_label) const {
  auto it = slots_.find(kind);
  if (it == slots_.end())
    return nullptr;
  for (auto i = it->second.indexes.rbegin(); i != it->second.indexes.rend(); ++i) {
    if (facts_[*i].rank.label == rank_label)
      return &facts_[*i];
  }
  return nullptr;
}

std::vector<const Fact*> LogFacts::all_of(std::string_view kind) const {
  std::vector<const Fact*> out;
  auto it = slots_.find(kind);
  if (it == slots_.end())
    return out;
  out.reserve(it->second.indexes.size());
  for (std::size_t i : it->second.indexes)
    out.push_back(&facts_[i]);
  return out;
}

std::uint64_t LogFacts::count(std::string_view kind) const {
  auto it = slots_.find(kind);
  return it == slots_.end() ? 0 : it->second.seen;
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
