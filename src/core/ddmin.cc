#include "core/ddmin.h"

#include <algorithm>
#include <map>

namespace servescope {
namespace {

std::vector<std::vector<std::size_t>> split_into(const std::vector<std::size_t>& set,
                                                 std::size_t parts) {
  std::vector<std::vector<std::size_t>> out;
  const std::size_t n = set.size();
  std::size_t start = 0;
  for (std::size_t i = 0; i < parts; ++i) {
    const std::size_t end = start + (n - start) / (parts - i);
    out.emplace_back(set.begin() + static_cast<std::ptrdiff_t>(start),
                     set.begin() + static_cast<std::ptrdiff_t>(end));
    start = end;
  }
  return out;
}

std::vector<std::size_t> minus(const std::vector<std::size_t>& a,
                               const std::vector<std::size_t>& b) {
  std::vector<std::size_t> out;
  std::set_difference(a.begin(), a.end(), b.begin(), b.end(), std::back_inserter(out));
  return out;
}

}  // namespace

DdminResult ddmin(std::size_t n,
                  const std::function<DdminOutcome(const std::vector<std::size_t>&)>& test) {
  DdminResult result;
  std::map<std::vector<std::size_t>, DdminOutcome> cache;
  auto run = [&](const std::vector<std::size_t>& subset) {
    auto it = cache.find(subset);
    if (it != cache.end())
      return it->second;
    ++result.tests;
    DdminOutcome o = test(subset);
    cache.emplace(subset, o);
    return o;
  };
  std::vector<std::size_t> current(n);
  for (std::size_t i = 0; i < n; ++i)
    current[i] = i;
  if (n == 0 || run(current) != DdminOutcome::kFail)
    return result;
  result.reproduced = true;
  std::size_t granularity = 2;
  while (current.size() >= 2) {
    granularity = std::min(granularity, current.size());
    const auto subsets = split_into(current, granularity);
    bool reduced = false;
    for (const auto& s : subsets) {  // reduce to a subset
      if (run(s) == DdminOutcome::kFail) {
        current = s;
        granularity = 2;
        reduced = true;
        break;
      }
    }
    if (!reduced && granularity > 2) {
      for (const auto& s : subsets) {  // reduce to a complement
        auto complement = minus(current, s);
        if (run(complement) == DdminOutcome::kFail) {
          current = complement;
          granularity = std::max<std::size_t>(granularity - 1, 2);
          reduced = true;
          break;
        }
      }
    }
    if (!reduced) {
      if (granularity >= current.size())
        break;
      granularity = std::min(current.size(), granularity * 2);
    }
  }
  // ddmin's "complement at granularity 2" step: with two halves, try each complement too, so
  // a 1-minimal result is guaranteed for small sets.
  bool changed = true;
  while (changed && current.size() > 1) {
    changed = false;
    for (std::size_t i = 0; i < current.size(); ++i) {
      std::vector<std::size_t> without = current;
      without.erase(without.begin() + static_cast<std::ptrdiff_t>(i));
      if (run(without) == DdminOutcome::kFail) {
        current = without;
        changed = true;
        break;
      }
    }
  }
  result.culprits = current;
  return result;
}

}  // namespace servescope
