#include "engines/release_flags.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <map>
#include <memory>
#include <mutex>

#include "catalog/embedded_data.h"
#include "core/text.h"
#include "engines/pypi_releases.h"

namespace servescope {
namespace {

bool starts_with(std::string_view s, std::string_view p) {
  return s.substr(0, p.size()) == p;
}

std::string note_value(const std::vector<std::string>& notes, std::string_view key) {
  for (const std::string& n : notes) {
    if (starts_with(n, key))
      return n.substr(key.size());
  }
  return "";
}

std::vector<ReleaseFlag> parse_table(std::string_view tsv) {
  std::vector<ReleaseFlag> rows;
  bool header = false;
  for (std::string_view line : split(tsv, '\n')) {
    if (line.empty() || line.front() == '#')
      continue;
    if (!header) {
      header = true;  // "flag\taliases\tfield\tarity\ttype\tdefault\tnote"
      continue;
    }
    auto cols = split(line, '\t');
    if (cols.size() < 4 || cols[3].size() != 1)
      continue;  // a malformed row is skipped; tools/engine-sync/check_tables.py rejects them
    ReleaseFlag f;
    f.flag = std::string(cols[0]);
    for (std::string_view a : split(cols[1], '|')) {
      if (!a.empty())
        f.aliases.emplace_back(a);
    }
    f.field = std::string(cols[2]);
    f.arity = cols[3][0];
    if (cols.size() > 4)
      f.type = std::string(cols[4]);
    if (cols.size() > 5)
      f.default_value = std::string(cols[5]);
    if (cols.size() > 6) {
      for (std::string_view n : split(cols[6], ' ')) {
        if (!n.empty())
          f.notes.emplace_back(n);
      }
    }
    rows.push_back(std::move(f));
  }
  return rows;
}

std::string_view strip_v(std::string_view spec) {
  spec = trim(spec);
  if (!spec.empty() && (spec.front() == 'v' || spec.front() == 'V'))
    spec.remove_prefix(1);
  return spec;
}

}  // namespace

bool ReleaseFlag::deprecated() const {
  return std::any_of(notes.begin(), notes.end(), [](const std::string& n) {
    return n == "deprecated" || starts_with(n, "deprecated-alias-of:");
  });
}

std::string ReleaseFlag::alias_of() const {
  return note_value(notes, "deprecated-alias-of:");
}

std::string ReleaseFlag::replacement() const {
  std::string r = alias_of();
  return r.empty() ? note_value(notes, "use:") : r;
}

const ReleaseFlagTables& ReleaseFlagTables::of(std::string_view engine) {
  static std::mutex mu;
  static std::map<std::string, std::unique_ptr<ReleaseFlagTables>, std::less<>> cache;
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(engine); it != cache.end())
    return *it->second;
  auto t = std::make_unique<ReleaseFlagTables>();
  t->engine_ = std::string(engine);
  for (const PypiRelease& r : pypi_releases(engine)) {
    if (const std::string_view* tsv =
            find_embedded_file(fmt::format("{}/flags-{}.tsv", engine, r.name)))
      t->releases_.push_back(Table{r.name, parse_table(*tsv)});
  }
  return *cache.emplace(std::string(engine), std::move(t)).first->second;
}

std::vector<std::string> ReleaseFlagTables::releases() const {
  std::vector<std::string> out;
  for (const Table& t : releases_)
    out.push_back(t.release);
  return out;
}

std::optional<std::size_t> ReleaseFlagTables::index(std::string_view spec) const {
  const std::string_view name = strip_v(spec);
  for (std::size_t i = 0; i < releases_.size(); ++i) {
    if (releases_[i].release == name)
      return i;
  }
  return std::nullopt;
}

std::optional<std::string> ReleaseFlagTables::release(std::string_view spec) const {
  if (auto i = index(spec))
    return releases_[*i].release;
  return std::nullopt;
}

const std::vector<ReleaseFlag>* ReleaseFlagTables::table(std::string_view release) const {
  auto i = index(release);
  return i ? &releases_[*i].rows : nullptr;
}

const ReleaseFlag* ReleaseFlagTables::exact(const Table& t, std::string_view spelled) const {
  for (const ReleaseFlag& f : t.rows) {
    if (f.flag == spelled)
      return &f;
    for (const std::string& a : f.aliases) {
      if (a == spelled)
        return &f;
    }
  }
  return nullptr;
}

const ReleaseFlag* ReleaseFlagTables::newest_row(std::string_view spelled) const {
  for (auto it = releases_.rbegin(); it != releases_.rend(); ++it) {
    if (const ReleaseFlag* f = exact(*it, spelled))
      return f;
  }
  return nullptr;
}

FlagVerdict ReleaseFlagTables::judge(std::string_view spelled, std::string_view release) const {
  FlagVerdict v;
  const auto at = index(release);
  if (!at)
    return v;  // no table: nothing to judge against
  const Table& t = releases_[*at];
  auto accept = [&](const ReleaseFlag* f) {
    v.row = f;
    v.kind = f->deprecated() ? FlagVerdict::Kind::kDeprecated : FlagVerdict::Kind::kAccepted;
    v.replacement = f->replacement();
    return v;
  };
  if (const ReleaseFlag* f = exact(t, spelled))
    return accept(f);
  // argparse's allow_abbrev (the default in both engines): a unique prefix of the long
  // option strings selects that option.
  std::vector<const ReleaseFlag*> hits;
  for (const ReleaseFlag& f : t.rows) {
    bool hit = starts_with(f.flag, spelled);
    for (const std::string& a : f.aliases)
      hit = hit || starts_with(a, spelled);
    if (hit && spelled.size() > 2)
      hits.push_back(&f);
  }
  if (hits.size() == 1)
    return accept(hits.front());
  if (hits.size() > 1) {
    v.kind = FlagVerdict::Kind::kAmbiguous;
    for (const ReleaseFlag* f : hits)
      v.candidates.push_back(f->flag);
    return v;
  }
  // Absent: the nearest release on either side that has it (a flag removed and added again
  // later is judged by the nearer of the two).
  std::optional<std::size_t> later;
  std::optional<std::size_t> earlier;
  for (std::size_t i = *at + 1; i < releases_.size() && !later; ++i) {
    if (exact(releases_[i], spelled) != nullptr)
      later = i;
  }
  for (std::size_t i = *at; i-- > 0 && !earlier;) {
    if (exact(releases_[i], spelled) != nullptr)
      earlier = i;
  }
  if (earlier && (!later || *at - *earlier <= *later - *at)) {
    v.kind = FlagVerdict::Kind::kRemoved;
    v.last_in = releases_[*earlier].release;
    v.removed_in = releases_[*earlier + 1].release;
    v.replacement = exact(releases_[*earlier], spelled)->replacement();
    return v;
  }
  if (later) {
    v.kind = FlagVerdict::Kind::kNotYet;
    v.added_in = releases_[*later].release;
    return v;
  }
  v.kind = FlagVerdict::Kind::kNeverExisted;
  return v;
}

std::optional<ReleaseFlagTables::Note> ReleaseFlagTables::note(std::string_view spelled,
                                                               std::string_view release) const {
  if (table(release) == nullptr)
    return std::nullopt;
  const FlagVerdict v = judge(spelled, release);
  std::string message = describe(v, spelled, release);
  if (message.empty())
    return std::nullopt;
  using K = FlagVerdict::Kind;
  const char* code = v.kind == K::kDeprecated     ? "deprecated-flag"
                     : v.kind == K::kAmbiguous    ? "ambiguous-flag"
                     : v.kind == K::kNeverExisted ? "unknown-flag"
                                                  : "flag-not-in-version";
  return Note{v.kind != K::kDeprecated, code, std::move(message)};
}

std::string ReleaseFlagTables::describe(const FlagVerdict& v, std::string_view spelled,
                                        std::string_view release) const {
  const std::string where = fmt::format("{} {}", engine_, strip_v(release));
  constexpr std::string_view kExits = "argparse exits with 'unrecognized arguments'";
  switch (v.kind) {
    case FlagVerdict::Kind::kAccepted:
      return "";
    case FlagVerdict::Kind::kDeprecated:
      if (!v.row->alias_of().empty())
        return fmt::format("{} is a deprecated alias of {} in {}; use {}", spelled,
                           v.row->alias_of(), where, v.row->alias_of());
      return fmt::format("{} is deprecated in {}{}", spelled, where,
                         v.replacement.empty() ? "" : "; use " + v.replacement);
    case FlagVerdict::Kind::kAmbiguous:
      return fmt::format(
          "{} is an ambiguous abbreviation in {} (it could be {}); argparse "
          "exits with an error",
          spelled, where, fmt::join(v.candidates, ", "));
    case FlagVerdict::Kind::kNotYet:
      return fmt::format("{} is not a flag of {} ({}); it was added in {}", spelled, where, kExits,
                         v.added_in);
    case FlagVerdict::Kind::kRemoved:
      return fmt::format("{} is not a flag of {} ({}); it was removed in {} (last in {}){}",
                         spelled, where, kExits, v.removed_in, v.last_in,
                         v.replacement.empty() ? "" : "; use " + v.replacement);
    case FlagVerdict::Kind::kNeverExisted:
      return fmt::format("{} is not a flag of {} nor of any {} release {} … {} ({})", spelled,
                         where, engine_, releases_.front().release, releases_.back().release,
                         kExits);
  }
  return "";
}

}  // namespace servescope
