// Attribution of output changes to input changes by counterfactual evaluation: each change
// alone applied to A, each change removed from B, and a minimal culprit set by delta
// debugging; interactions are named, and the derivation path through which a cause acts is
// read off the two plans' graphs.
#pragma once

#include <string>
#include <vector>

#include "diagnose/counterfactuals.h"

namespace servescope {

struct Attribution {
  std::vector<std::size_t> changes;  // indices into Counterfactuals::changes()
  std::string kind;                  // "single" or "interaction"
  std::vector<std::string> path;     // rule ids of the nodes the cause moves, output last
  std::vector<std::string> nodes;    // the same nodes' ids
};

struct OutputChange {
  std::string output;
  Value a, b;
  std::string a_text, b_text;
  std::vector<Attribution> attribution;
  std::vector<std::size_t> movers;  // changes that move the output when applied alone
  std::vector<std::size_t> needed;  // changes whose removal from B moves the output back
  bool explained = false;           // the culprits reproduce B's value exactly
};

struct Cleared {
  std::size_t change = 0;
  std::string reason;
};

struct AttributionResult {
  std::vector<OutputChange> changes;
  std::vector<Cleared> cleared;
  std::size_t evaluations = 0;
};

/// Attributes every differing output among `outputs` (plus "starts").
AttributionResult attribute(Counterfactuals& cf, const Engine& engine,
                            const std::vector<std::string>& outputs);

}  // namespace servescope
