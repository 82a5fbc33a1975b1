// simulate calibrated from a measured run: against a twin that plays SGLang on an H100 with
// efficiency factors unknown to the simulation (bandwidth 0.5, 1.5 ms per step) and in real
// time, the fit reproduces the points it was fitted on and predicts a point it never saw — a
// concurrency between them — within 10%; uncalibrated, the default factors miss by far more.
// The saved calibration drives simulate again (--calibration) to the same figures.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "tests/twin/twin_process.h"

namespace servescope::testing {
namespace {

using nlohmann::json;

const std::vector<std::string> kCommand = {"python", "-m", "sglang.launch_server", "--model-path",
                                           "Qwen/Qwen3-8B"};

std::string path_of(const std::string& name) {
  return std::filesystem::temp_directory_path() /
         ("servescope-calibration-" + std::to_string(::getpid()) + "-" + name);
}

json bench(int port, const std::string& concurrency, int requests, const std::string& out) {
  int code = -1;
  const std::string text = run_capture(
      std::string(SERVESCOPE_BINARY) + " bench --url http://127.0.0.1:" + std::to_string(port) +
          " --concurrency " + concurrency + " --requests " + std::to_string(requests) +
          " --input-len 256 --output-len 24 --quiet --json " + out + " 2>&1",
      &code);
  EXPECT_EQ(code, 0) << text;
  return json::parse(read_text(out), nullptr, false);
}

json simulate(const std::string& options) {
  int code = -1;
  const std::string text = run_capture(
      std::string(SERVESCOPE_BINARY) + " simulate --gpu h100-sxm " + options +
          " --json -- python -m sglang.launch_server --model-path Qwen/Qwen3-8B 2>/dev/null",
      &code);
  EXPECT_EQ(code, 0) << text;
  return json::parse(text, nullptr, false);
}

double tpot_p50(const json& sim) {
  return sim["points"][0]["tpot_ms"]["p50"].get<double>();
}

TEST(SimulateCalibration, FitsARunAndPredictsAPointItNeverSaw) {
  TwinProcess twin({"--gpu", "h100-sxm", "--efficiency", "bandwidth=0.5,step_overhead_us=1500",
                    "--no-access-log"},
                   kCommand);
  ASSERT_GT(twin.wait_port(), 0) << twin.err();
  ASSERT_TRUE(twin.wait_ready()) << twin.err();
  const std::string run = path_of("run.json"), held = path_of("held.json"),
                    saved = path_of("saved.json");
  const json measured = bench(twin.port, "1,8", 24, run);
  const json unseen = bench(twin.port, "4", 24, held);
  ASSERT_FALSE(measured.is_discarded());
  ASSERT_FALSE(unseen.is_discarded());

  const json fit = simulate("--calibrate-from " + run + " --save-calibration " + saved);
  ASSERT_FALSE(fit.is_discarded());
  EXPECT_LT(fit["rms_log_error_after"].get<double>(), 0.05) << fit.dump(1);
  EXPECT_LT(fit["rms_log_error_after"].get<double>(), fit["rms_log_error_before"].get<double>());
  for (const json& r : fit["residuals"]) {
    EXPECT_NEAR(r["simulated_after"].get<double>() / r["measured"].get<double>(), 1.0, 0.08) << r;
  }
  // The point it never saw: concurrency 4.
  const double truth = unseen["points"][0]["tpot_ms"]["p50"].get<double>();
  const double calibrated = tpot_p50(simulate("--calibration " + saved +
                                              " --concurrency 4 --requests 24 "
                                              "--input-len 256 --output-len 24"));
  const double uncalibrated =
      tpot_p50(simulate("--concurrency 4 --requests 24 --input-len 256 --output-len 24"));
  std::cout << "concurrency 4 TPOT p50: measured " << truth << " ms, calibrated " << calibrated
            << " ms, uncalibrated " << uncalibrated << " ms\n";
  EXPECT_NEAR(calibrated / truth, 1.0, 0.10) << calibrated << " vs measured " << truth;
  EXPECT_GT(std::abs(uncalibrated / truth - 1), 0.25) << uncalibrated << " vs " << truth;
  for (const std::string& p : {run, held, saved})
    std::filesystem::remove(p);
}

TEST(SimulateCalibration, ASavedCalibrationThatIsNotOneIsNamed) {
  const std::string bad = path_of("bad.json");
  { std::ofstream(bad) << "{\"points\": []}"; }
  int code = -1;
  const std::string out =
      run_capture(std::string(SERVESCOPE_BINARY) + " simulate --gpu h100-sxm --calibration " + bad +
                      " --concurrency 1 --requests 4 -- python -m "
                      "sglang.launch_server --model-path Qwen/Qwen3-8B 2>&1",
                  &code);
  EXPECT_EQ(code, 2);
  EXPECT_NE(out.find("not a saved calibration"), std::string::npos) << out;
  std::filesystem::remove(bad);
}

}  // namespace
}  // namespace servescope::testing
