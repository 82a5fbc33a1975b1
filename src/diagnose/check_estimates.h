// Figures check cannot compare exactly because the plan rests on an estimate (the device's
// total when the log gives none, the free memory before the load, the weights): each is still
// predicted, over the interval its estimates' own evidence spans, and said to lie inside or
// outside it — counted apart from the figures checked (issue 30 item 6).
#pragma once

#include <vector>

#include "diagnose/check.h"
#include "engines/engine.h"

namespace servescope {

/// The estimates a figure's prediction rests on: estimate nodes of its derivation that are
/// estimates in their own right (not a rule's result marked estimated because an input is).
std::vector<const Node*> estimates_behind(const Plan& plan, const std::string& figure);

/// For each comparison not checked for resting on estimates, plans the result's scenario (its
/// capacity or its defaults one, as the figure came) with the
/// estimates at every corner of their stated intervals and sets its `estimated` interval;
/// a figure whose estimates state no interval, or more than can be cornered, says so in
/// `estimated.note`.
void predict_from_estimates(const Engine& engine, const CheckResult& result,
                            std::vector<Comparison>& comparisons);

}  // namespace servescope
