#include "lab/search.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace servescope {
namespace {

Subset minus(const Subset& a, const Subset& b) {
  Subset out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

bool includes(const Subset& outer, const Subset& inner) {
  return std::includes(outer.begin(), outer.end(), inner.begin(), inner.end());
}

std::string names(const std::vector<std::string>& labels, const Subset& s) {
  std::vector<std::string> out;
  for (std::size_t i : s)
    out.push_back(labels[i]);
  return out.empty() ? "(nothing)" : fmt::format("{}", fmt::join(out, " + "));
}

// Zeller's ddmin over `within` (known to reproduce); empty when it does not reproduce.
Subset ddmin_within(const Subset& within, Trials& trials) {
  const DdminResult r = ddmin(within.size(), [&](const std::vector<std::size_t>& local) {
    Subset mapped;
    for (std::size_t i : local)
      mapped.push_back(within[i]);
    return trials.one(mapped);
  });
  Subset out;
  if (!r.reproduced)
    return out;
  for (std::size_t i : r.culprits)
    out.push_back(within[i]);
  return out;
}

// One minimal set within `within` (known to reproduce): the optimistic bisection, then ddmin.
Subset find_one(const Subset& within, Trials& trials, std::vector<std::string>& notes,
                const std::vector<std::string>& labels) {
  if (within.size() <= 1)
    return within;
  Subset s = within;
  bool untested = false;  // s was chosen because its other half passed, not tested itself
  bool defeated = false;
  while (s.size() > 1 && !defeated && !trials.stopped()) {
    const auto mid = static_cast<std::ptrdiff_t>(s.size() / 2);
    const Subset a(s.begin(), s.begin() + mid), b(s.begin() + mid, s.end());
    if (trials.parallel() >= 2) {
      const auto o = trials.run({a, b});
      if (o[0] == DdminOutcome::kFail)
        s = a;
      else if (o[1] == DdminOutcome::kFail)
        s = b;
      else
        defeated = true;
      untested = false;
      continue;
    }
    const DdminOutcome oa = trials.one(a);
    if (oa == DdminOutcome::kFail) {
      s = a;
      untested = false;
    } else if (oa == DdminOutcome::kPass) {
      s = b;  // a single cause is then in b; checked at the end
      untested = true;
    } else if (trials.one(b) == DdminOutcome::kFail) {
      s = b;
      untested = false;
    } else {
      defeated = true;
    }
  }
  if (trials.stopped())
    return {};
  if (!defeated && untested && trials.one(s) != DdminOutcome::kFail)
    defeated = true;
  if (!defeated)
    return s;
  notes.push_back(fmt::format(
      "bisection of {} change(s) found no single cause (an interaction or a failed start); "
      "delta debugging over them",
      within.size()));
  (void)labels;
  return ddmin_within(within, trials);
}

// Finds minimal sets in `within` (known to reproduce) until what is left no longer
// reproduces without them.
void find_all(Subset within, Trials& trials, SearchResult& out,
              const std::vector<std::string>& labels) {
  for (std::size_t round = 0; round < labels.size() && !within.empty(); ++round) {
    const Subset k = find_one(within, trials, out.notes, labels);
    if (trials.stopped())
      return;
    if (k.empty()) {
      out.notes.push_back("no minimal set reproduces the bad value (unresolved experiments)");
      return;
    }
    out.culprits.push_back(k);
    const Subset rest = minus(within, k);
    if (rest.empty())
      return;
    const DdminOutcome o = trials.one(rest);
    if (o == DdminOutcome::kPass)
      return;
    if (o == DdminOutcome::kUnresolved) {
      out.notes.push_back(fmt::format(
          "the other changes without {} could not be measured: whether {} is the only cause "
          "is not known",
          names(labels, k), names(labels, k)));
      return;
    }
    out.notes.push_back(
        fmt::format("without {} the other changes still reproduce the bad value: another cause",
                    names(labels, k)));
    within = rest;
  }
}

}  // namespace

SearchResult search_one_at_a_time(const std::vector<std::string>& labels, Trials& trials) {
  SearchResult out;
  const std::size_t n = labels.size();
  Subset all;
  std::vector<Subset> singles;
  for (std::size_t i = 0; i < n; ++i) {
    all.push_back(i);
    singles.push_back({i});
  }
  const auto alone = trials.run(singles);
  for (std::size_t i = 0; i < n; ++i) {
    if (alone[i] == DdminOutcome::kFail)
      out.culprits.push_back({i});
  }
  if (!out.culprits.empty() || trials.stopped() || n < 2)
    return out;
  out.notes.push_back(
      "no change reproduces the bad value alone; removing each from the bad configuration");
  std::vector<Subset> without;
  for (std::size_t i = 0; i < n; ++i)
    without.push_back(minus(all, {i}));
  const auto removed = trials.run(without);
  Subset needed;
  for (std::size_t i = 0; i < n; ++i) {
    if (removed[i] == DdminOutcome::kPass)
      needed.push_back(i);
  }
  if (needed.empty()) {
    out.notes.push_back("no change is needed for the bad value on its own: not isolated");
    return out;
  }
  if (trials.one(needed) == DdminOutcome::kFail)
    out.culprits.push_back(needed);
  else
    out.notes.push_back(fmt::format("{} are each needed but do not reproduce it together alone",
                                    names(labels, needed)));
  return out;
}

SearchResult search_ddmin(const std::vector<std::string>& labels, Trials& trials) {
  SearchResult out;
  Subset all;
  for (std::size_t i = 0; i < labels.size(); ++i)
    all.push_back(i);
  find_all(all, trials, out, labels);
  return out;
}

SearchResult search_guided(const std::vector<std::string>& labels, Trials& real, Trials& model) {
  Subset all;
  for (std::size_t i = 0; i < labels.size(); ++i)
    all.push_back(i);
  SearchResult predicted;
  if (model.one(all) == DdminOutcome::kFail)
    predicted = search_ddmin(labels, model);
  SearchResult out;
  if (predicted.culprits.empty()) {
    out.model_gaps.push_back(
        "the model names no change that reproduces the bad value; delta debugging instead");
    SearchResult r = search_ddmin(labels, real);
    out.culprits = r.culprits;
    out.notes.insert(out.notes.end(), r.notes.begin(), r.notes.end());
    return out;
  }
  std::vector<std::string> said;
  for (const Subset& p : predicted.culprits)
    said.push_back(names(labels, p));
  out.notes.push_back(fmt::format("the model predicts: {}", fmt::join(said, "; ")));

  Subset remaining;
  for (std::size_t i = 0; i < labels.size(); ++i)
    remaining.push_back(i);
  auto fall_back = [&](const Subset& within) {
    if (within.empty())
      return;
    SearchResult r;
    find_all(within, real, r, labels);
    out.culprits.insert(out.culprits.end(), r.culprits.begin(), r.culprits.end());
    out.notes.insert(out.notes.end(), r.notes.begin(), r.notes.end());
  };
  for (std::size_t k = 0; k < predicted.culprits.size(); ++k) {
    const Subset& p = predicted.culprits[k];
    if (real.stopped())
      return out;
    if (!includes(remaining, p))
      continue;
    const Subset rest = minus(remaining, p);
    std::vector<Subset> batch = {p};
    if (!rest.empty())
      batch.push_back(rest);
    const auto o = real.run(batch);
    if (real.stopped())
      return out;
    if (o[0] != DdminOutcome::kFail) {
      out.model_gaps.push_back(fmt::format(
          "the model predicts {} alone reproduces the bad value; the launch {}", names(labels, p),
          o[0] == DdminOutcome::kPass ? "does not" : "could not tell"));
      fall_back(remaining);
      return out;
    }
    Subset confirmed = p;
    if (p.size() > 1) {  // minimal: each member removed must lose the bad value
      std::vector<Subset> smaller;
      for (std::size_t x : p)
        smaller.push_back(minus(p, {x}));
      const auto so = real.run(smaller);
      for (std::size_t i = 0; i < so.size(); ++i) {
        if (so[i] == DdminOutcome::kFail) {
          out.model_gaps.push_back(fmt::format(
              "the model predicts {} needs all its changes; without {} it still reproduces",
              names(labels, p), labels[p[i]]));
          confirmed = ddmin_within(p, real);
          break;
        }
      }
    }
    out.culprits.push_back(confirmed);
    if (rest.empty())
      return out;
    if (o[1] == DdminOutcome::kPass) {
      if (k + 1 < predicted.culprits.size())
        out.model_gaps.push_back(fmt::format(
            "the model predicts more causes ({}); without {} nothing else reproduces the bad "
            "value",
            names(labels, predicted.culprits[k + 1]), names(labels, confirmed)));
      return out;
    }
    if (o[1] == DdminOutcome::kUnresolved) {
      out.notes.push_back(fmt::format(
          "the other changes without {} could not be measured: whether it is the only cause is "
          "not known",
          names(labels, confirmed)));
      return out;
    }
    remaining = minus(remaining, confirmed);
    if (k + 1 == predicted.culprits.size()) {
      out.model_gaps.push_back(fmt::format(
          "the model predicts no cause besides {}; without it the other changes still reproduce "
          "the bad value",
          names(labels, confirmed)));
      fall_back(remaining);
      return out;
    }
  }
  // Every predicted set left overlapped a confirmed one: what remains is checked directly.
  if (!remaining.empty() && !real.stopped() && real.one(remaining) == DdminOutcome::kFail)
    fall_back(remaining);
  return out;
}

}  // namespace servescope
