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

/// One step of a waterfall from A to B: the output after `change` is applied on top of the
/// steps before it.
struct WaterfallStep {
  std::size_t change = 0;
  Value value;
};

struct OutputChange {
  std::string output;
  Value a, b;
  std::string a_text, b_text;
  std::vector<Attribution> attribution;
  std::vector<std::size_t> movers;  // changes that move the output when applied alone
  std::vector<std::size_t> needed;  // changes whose removal from B moves the output back
  bool explained = false;           // the culprits reproduce B's value exactly
  // A → B one change at a time: the causes first (the first attribution's changes, then the
  // other movers and needed ones), then the rest, so each step is that change's contribution
  // given the ones before it. An interaction shows where its last member lands it.
  std::vector<WaterfallStep> waterfall;
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
