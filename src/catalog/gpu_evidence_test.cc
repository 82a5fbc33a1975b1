#include "catalog/gpu_evidence.h"

#include <gtest/gtest.h>

#include <string>

namespace servescope {
namespace {

const GpuCatalog& catalog() {
  return GpuCatalog::builtin();
}

// A real paste from a host with an RTX 5080 and an RTX 4090, its spaces squeezed by the page it
// was posted on (public-source index id 47837066970).
TEST(GpuEvidence, ReadsTheDefaultTableOneLinePerGpu) {
  const std::string paste =
      "| GPU Name Persistence-M | Bus-Id Disp.A | Volatile Uncorr. ECC |\n"
      "| Fan Temp Perf Pwr:Usage/Cap | Memory-Usage | GPU-Util Compute M. |\n"
      "| | | MIG M. |\n"
      "|=========================================+========================+======"
      "================|\n"
      "| 0 NVIDIA GeForce RTX 5080 Off | 00000000:02:00.0 Off | N/A |\n"
      "| 0% 60C P1 55W / 360W | 1341MiB / 16303MiB | 13% Default |\n"
      "| | | N/A |\n"
      "+-----------------------------------------+------------------------+-------"
      "---------------+\n"
      "| 1 NVIDIA GeForce RTX 4090 Off | 00000000:83:00.0 Off | Off |\n"
      "| 30% 35C P2 76W / 450W | 2783MiB / 24564MiB | 18% Default |\n";
  const auto gpus = read_gpu_evidence(paste, catalog());
  ASSERT_EQ(gpus.size(), 2u);
  EXPECT_EQ(gpus[0].index, 0);
  EXPECT_EQ(gpus[0].name, "NVIDIA GeForce RTX 5080");
  EXPECT_EQ(gpus[0].total_mib, 16303);
  EXPECT_EQ(gpus[0].power_cap_w, 360.0);
  ASSERT_NE(gpus[0].match, nullptr);
  EXPECT_EQ(gpus[0].match->key, "rtx-5080");
  EXPECT_TRUE(gpus[0].note.empty()) << gpus[0].note;
  ASSERT_NE(gpus[1].match, nullptr);
  EXPECT_EQ(gpus[1].match->key, "rtx-4090");
  EXPECT_EQ(gpus[1].total_mib, 24564);
  const std::string line = describe_evidence(gpus[1]);
  EXPECT_NE(line.find("GPU 1: NVIDIA GeForce RTX 4090, 24564 MiB, 450 W"), std::string::npos)
      << line;
  EXPECT_NE(line.find("-> rtx-4090"), std::string::npos) << line;
  EXPECT_NE(line.find("compute capability"), std::string::npos) << line;
  EXPECT_EQ(line.find('\n'), std::string::npos);
}

// DGX Spark: NVML has no memory total (NVIDIA/k8s-device-plugin#1482, driver 580.95.05).
TEST(GpuEvidence, Gb10MemoryNotSupported) {
  const std::string paste =
      "|=========================================+========================+======"
      "================|\n"
      "|   0  NVIDIA GB10                    On  |   0000000F:01:00.0 Off |            "
      "      N/A |\n"
      "| N/A   40C    P8              4W /  N/A  | Not Supported          |      0%      "
      "Default |\n"
      "|                                         |                        |            "
      "      N/A |\n";
  const auto gpus = read_gpu_evidence(paste, catalog());
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_TRUE(gpus[0].memory_not_supported);
  EXPECT_FALSE(gpus[0].total_mib);
  EXPECT_FALSE(gpus[0].power_cap_w);
  ASSERT_NE(gpus[0].match, nullptr);
  EXPECT_EQ(gpus[0].match->key, "gb10");
  EXPECT_TRUE(gpus[0].match->integrated);
  EXPECT_EQ(gpus[0].lacks.front(), "total memory (not reported: unified memory)");
}

// Names cut short by the table: the RTX 6000 Ada (index 70288770903, real), and a line in the
// same layout naming the RTX PRO 6000 (its name cut as the catalog notes record), which matches
// both editions and says so.
TEST(GpuEvidence, CutNames) {
  const std::string paste =
      "|   0  NVIDIA RTX 6000 Ada Gene...    On  |   00000000:01:00.0 Off |                  "
      "Off |\n"
      "| 30%   31C    P8             23W /  300W |       2MiB /  49140MiB |      0%      "
      "Default |\n"
      "|   1  NVIDIA RTX PRO 6000 Blac...    On  |   00000000:41:00.0 Off |                  "
      "Off |\n"
      "| 30%   31C    P8             23W /  600W |       2MiB /  97887MiB |      0%      "
      "Default |\n";
  const auto gpus = read_gpu_evidence(paste, catalog());
  ASSERT_EQ(gpus.size(), 2u);
  ASSERT_NE(gpus[0].match, nullptr);
  EXPECT_EQ(gpus[0].match->key, "rtx-6000-ada");
  EXPECT_EQ(gpus[0].total_mib, 49140);
  ASSERT_NE(gpus[1].match, nullptr);
  EXPECT_EQ(gpus[1].match->key.rfind("rtx-pro-6000", 0), 0u);
  EXPECT_NE(gpus[1].note.find("cut short"), std::string::npos) << gpus[1].note;
}

// "NVIDIA GeForce RTX 4090 ..." with 16376 MiB at 150 W: the 4090 Laptop GPU, which the catalog
// lacks (index 58554957696, real); it is not taken for the desktop 4090.
TEST(GpuEvidence, ALaptopGpuIsNotTakenForTheDesktopCard) {
  const std::string paste =
      "|   0  NVIDIA GeForce RTX 4090 ...    Off |   00000000:01:00.0  On |                  "
      "N/A |\n"
      "| N/A   46C    P8              8W /  150W |    1070MiB /  16376MiB |     17%      "
      "Default |\n";
  const auto gpus = read_gpu_evidence(paste, catalog());
  ASSERT_EQ(gpus.size(), 1u);
  EXPECT_EQ(gpus[0].match, nullptr);
  EXPECT_EQ(gpus[0].total_mib, 16376);
  EXPECT_NE(gpus[0].note.find("rtx-4090"), std::string::npos) << gpus[0].note;
  EXPECT_NE(describe_evidence(gpus[0]).find("no catalog entry"), std::string::npos);
}

// --query-gpu output with and without the header (index 57532327270 and 61580017853, real
// lines; the header is the one nvidia-smi prints for name,memory.total).
TEST(GpuEvidence, ReadsQueryGpuCsv) {
  const auto with_header = read_gpu_evidence(
      "name, memory.total [MiB]\nNVIDIA GeForce RTX 5070 Ti, 16303 MiB\nNVIDIA GB10, [N/A]\n",
      catalog());
  ASSERT_EQ(with_header.size(), 2u);
  EXPECT_EQ(with_header[0].total_mib, 16303);
  ASSERT_NE(with_header[0].match, nullptr);
  EXPECT_EQ(with_header[0].match->key, "rtx-5070-ti");
  EXPECT_TRUE(with_header[1].memory_not_supported);
  const auto no_header = read_gpu_evidence(
      "NVIDIA GeForce RTX 5070 Ti, 16303 MiB, 3016 MiB, 596.49\n"
      "NVIDIA RTX PRO 5000 Blackwell, 595.71.05, 48935 MiB\n",
      catalog());
  ASSERT_EQ(no_header.size(), 2u);
  EXPECT_EQ(no_header[0].total_mib, 16303);
  EXPECT_EQ(no_header[1].total_mib, 48935);
  ASSERT_NE(no_header[1].match, nullptr);
  EXPECT_EQ(no_header[1].match->key, "rtx-pro-5000");
}

// A memory total that differs from the catalog's is reported (the A5000 with ECC on).
TEST(GpuEvidence, MemoryThatDiffersFromTheCatalogIsNoted) {
  const auto gpus = read_gpu_evidence("NVIDIA RTX A5000, 23028 MiB\n", catalog());
  ASSERT_EQ(gpus.size(), 1u);
  ASSERT_NE(gpus[0].match, nullptr);
  EXPECT_NE(gpus[0].note.find("23028"), std::string::npos) << gpus[0].note;
  EXPECT_NE(gpus[0].note.find("ECC"), std::string::npos) << gpus[0].note;
}

TEST(GpuEvidence, GarbageYieldsNothing) {
  for (std::string_view junk :
       {std::string_view(""), std::string_view("|||||\n|"), std::string_view("| 0 On |\n| |"),
        std::string_view("| 99999999999999 X On | a | b |\n|1W/2W|3MiB/99999999999999MiB|"),
        std::string_view("GPU 0: (UUID\n,,,,\nname\n,\n"), std::string_view("\r\n\r\n|\r")}) {
    const auto gpus = read_gpu_evidence(junk, catalog());
    for (const auto& g : gpus)
      (void)describe_evidence(g);
    EXPECT_LE(gpus.size(), 1u) << junk;
  }
  EXPECT_TRUE(read_gpu_evidence("hello, world\n", catalog()).empty());
}

}  // namespace
}  // namespace servescope
