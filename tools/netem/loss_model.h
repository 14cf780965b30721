// LossModel decides which packets a link drops at random: none, independent
// losses with probability p (Bernoulli), or bursts (the Gilbert model, the
// simple form of Gilbert-Elliott: a Good state that loses nothing and a Bad
// state that loses every packet, with transition probabilities chosen so that
// the long-run loss rate and the mean burst length are as configured). One
// per LinkPipe direction; it owns its random generator and is not
// thread-safe.

#ifndef TOOLS_NETEM_LOSS_MODEL_H_
#define TOOLS_NETEM_LOSS_MODEL_H_

#include <cstdint>
#include <random>

namespace netem {

struct LossParams {
  enum class Kind { kNone, kBernoulli, kGilbert };
  Kind kind = Kind::kNone;
  // The long-run fraction of packets lost, in [0, 1).
  double rate = 0;
  // kGilbert: the mean number of packets lost in a row (>= 1).
  double mean_burst = 1;
};

class LossModel {
 public:
  LossModel(const LossParams& params, uint64_t seed);

  // Returns whether the next packet is lost.
  bool Drop();

  // The Gilbert chain's transition probabilities (0 for other kinds):
  // p = P(Good -> Bad), r = P(Bad -> Good).
  double p() const { return p_; }
  double r() const { return r_; }

 private:
  LossParams params_;
  std::mt19937_64 rng_;
  std::uniform_real_distribution<double> uniform_{0.0, 1.0};
  double p_ = 0;
  double r_ = 0;
  bool bad_ = false;
};

}  // namespace netem

#endif  // TOOLS_NETEM_LOSS_MODEL_H_
