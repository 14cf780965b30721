// A libFuzzer-compatible driver for gcc builds: runs LLVMFuzzerTestOneInput
// over the seeds given on the command line (files) and then over a fixed
// number of deterministic random mutations of them, so every fuzz target is
// exercised in `bazel test` without clang. Real coverage-guided fuzzing:
// tools/fuzz.sh (clang, -fsanitize=fuzzer,address).

#include <cstdint>
#include <cstdio>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

int main(int argc, char** argv) {
  std::vector<std::string> seeds = {""};
  for (int i = 1; i < argc; ++i) {
    std::ifstream in(argv[i], std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    seeds.push_back(s.str());
  }
  std::mt19937_64 rng(20261121);
  const int kIterations = 20000;
  for (const std::string& seed : seeds) {
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(seed.data()),
                           seed.size());
  }
  for (int i = 0; i < kIterations; ++i) {
    std::string input = seeds[rng() % seeds.size()];
    int mutations = 1 + rng() % 8;
    for (int m = 0; m < mutations; ++m) {
      switch (rng() % 4) {
        case 0:  // flip a byte
          if (!input.empty())
            input[rng() % input.size()] = static_cast<char>(rng());
          break;
        case 1:  // insert a byte
          input.insert(
              input.begin() + (input.empty() ? 0 : rng() % input.size()),
              static_cast<char>(rng()));
          break;
        case 2:  // truncate
          if (!input.empty()) input.resize(rng() % input.size());
          break;
        case 3: {  // duplicate a slice
          if (input.empty()) break;
          size_t a = rng() % input.size();
          size_t n = rng() % (input.size() - a + 1);
          input.insert(rng() % input.size(), input.substr(a, n));
          break;
        }
      }
    }
    LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()),
                           input.size());
  }
  std::printf("fuzz smoke: %zu seeds, %d mutated inputs, no crash\n",
              seeds.size(), kIterations);
  return 0;
}
