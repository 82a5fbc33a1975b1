// Plan: what an engine will decide for a scenario — the resolved settings, the memory
// budget, the capacity outputs, findings, and the derivation graph behind every number.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "core/derivation.h"

namespace servescope {

enum class Severity { kInfo, kWarning, kError };
std::string_view severity_name(Severity s);

struct Finding {
  Severity severity = Severity::kInfo;
  std::string code;                // stable, e.g. "unmodelled-flag"
  std::vector<std::string> flags;  // flags involved, as typed
  std::string message;             // one sentence
  std::string rule;                // rule id
  std::string source;              // engine file::function
};

struct MemoryRow {
  std::string item;
  double gib = 0;
  std::string source;  // "estimate", "log", "flag", "rule"
};

/// A setting the engine resolves differently from what was typed (or fills in by default).
struct ResolvedSetting {
  std::string name;      // e.g. "mamba_radix_cache_strategy"
  std::string typed;     // what the command said, "" if absent
  std::string resolved;  // what the engine will use
  std::string why;
};

/// The engine's KV-capacity arithmetic in a vocabulary every engine shares, so `diff` can set
/// two engines' plans side by side term by term:
///   tokens ≈ (fraction × base − weights − activation − non_torch − cuda_graphs − other_pools)
///            × 2^30 / bytes_per_token
/// and whatever the engine does beyond that (page rounding, caps, headroom) is the residual.
enum class AccountTermKind {
  kBase,           // GiB the memory fraction multiplies
  kFraction,       // the memory fraction flag's value
  kWeights,        // GiB: target and draft weights
  kActivation,     // GiB: activation peak subtracted from the budget
  kNonTorch,       // GiB: memory outside torch's allocator subtracted from the budget
  kCudaGraphs,     // GiB: CUDA-graph memory subtracted from the budget
  kOtherPools,     // GiB: pools carved out before the KV cache (mamba state, ...)
  kBytesPerToken,  // bytes of KV cache one token takes on one GPU, every layer
};
inline constexpr int kAccountTermKinds = 8;

struct AccountTerm {
  AccountTermKind kind = AccountTermKind::kBase;
  double value = 0;
  std::string label;  // the engine's own name for it, e.g. "P: free before the weights load"
  std::string node;   // derivation node id ("" when the engine has no such term)
  std::string note;   // why it is zero or what it includes, for terms the engine handles apart
  bool estimated = false;
};

struct CapacityAccount {
  std::vector<AccountTerm> terms;    // one per kind, in AccountTermKind order; empty: no account
  std::string tokens_output;         // the output node holding the KV token capacity
  std::string request_limit_output;  // the output node holding the running-request limit
  const AccountTerm& term(AccountTermKind kind) const { return terms[static_cast<int>(kind)]; }
  bool empty() const { return terms.size() != kAccountTermKinds; }
};

struct Plan {
  std::string engine;
  std::string version;
  std::string version_basis;
  std::string rules_date;  // the main-branch date whose rules computed it
  std::string release;     // the release whose flag table judged the command ("" for a date)
  std::vector<std::string> outputs;  // node ids of the capacity outputs, in display order
  std::vector<MemoryRow> memory;
  std::vector<ResolvedSetting> resolved;
  std::vector<Finding> findings;
  std::vector<std::string> estimated;  // inputs that are estimates, not facts
  Derivation graph;
  CapacityAccount account;    // the KV arithmetic in the shared vocabulary
  bool starts = true;         // false: the engine would fail at startup
  std::string startup_error;  // the engine's error line when it would fail
  // Outputs this plan can only bound from above, and why: the figures it was calibrated from
  // were logged at other moments than the engine read them, in a known direction (check
  // compares such an output as logged ≤ predicted).
  std::map<std::string, std::string> upper_bounds;

  const Value& output(std::string_view id) const { return graph.value(id); }
  bool has_output(std::string_view id) const;
  bool has_error() const;
  /// The findings of rules applied only because the GPU shares its memory with the CPU
  /// ("unified-memory", "integrated-…"): explain and check name them beside the figures.
  std::vector<const Finding*> unified_memory_findings() const;
};

}  // namespace servescope
