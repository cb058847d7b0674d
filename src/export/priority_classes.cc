#include "export/priority_classes.h"

namespace squeeze {

std::vector<UrgencyClass> UrgencyClasses() {
  std::vector<UrgencyClass> out;
  for (Urgency u : {Urgency::kLow, Urgency::kNormal, Urgency::kHigh, Urgency::kCritical}) {
    const std::string name(UrgencyName(u));
    std::string description = "squeeze urgency class '" + name + "'";
    if (u == Urgency::kLow) {
      description += ", the lowest: its jobs go after every other class's";
    } else {
      description += std::string(u == Urgency::kNormal ? " (squeeze's default)" : "") +
                     ": its jobs go before those of the lower classes and may preempt their "
                     "preemptible jobs";
    }
    out.push_back({u, "squeeze-" + name, 1000 * (static_cast<int>(u) + 1), description});
  }
  return out;
}

}  // namespace squeeze
