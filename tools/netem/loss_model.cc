#include "tools/netem/loss_model.h"

namespace netem {

LossModel::LossModel(const LossParams& params, uint64_t seed)
    : params_(params), rng_(seed) {
  if (params_.kind == LossParams::Kind::kGilbert && params_.rate > 0) {
    // In Bad every packet is lost, so a burst lasts a geometric number of
    // packets with mean 1/r; the stationary share of Bad, p / (p + r), is
    // the loss rate.
    r_ = 1.0 / params_.mean_burst;
    p_ = params_.rate * r_ / (1.0 - params_.rate);
  }
}

bool LossModel::Drop() {
  switch (params_.kind) {
    case LossParams::Kind::kNone:
      return false;
    case LossParams::Kind::kBernoulli:
      return params_.rate > 0 && uniform_(rng_) < params_.rate;
    case LossParams::Kind::kGilbert:
      if (params_.rate <= 0) return false;
      // The state changes before each packet, which then takes the new
      // state's fate: bursts have mean length 1/r exactly.
      if (bad_) {
        if (uniform_(rng_) < r_) bad_ = false;
      } else {
        if (uniform_(rng_) < p_) bad_ = true;
      }
      return bad_;
  }
  return false;
}

}  // namespace netem
