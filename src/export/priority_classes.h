// squeeze's urgency classes as Kubernetes priority classes (Kueue's WorkloadPriorityClass,
// scheduling.k8s.io PriorityClass): names and values ordered as squeeze orders the classes.
// Pure; thread-safe.
#ifndef SQUEEZE_EXPORT_PRIORITY_CLASSES_H_
#define SQUEEZE_EXPORT_PRIORITY_CLASSES_H_

#include <string>
#include <vector>

#include "core/types.h"

namespace squeeze {

struct UrgencyClass {
  Urgency urgency;
  std::string name;  // "squeeze-<class>"
  int value;         // 1000 (low) to 4000 (critical)
  std::string description;
};

// low, normal, high, critical: ascending values.
std::vector<UrgencyClass> UrgencyClasses();

}  // namespace squeeze

#endif  // SQUEEZE_EXPORT_PRIORITY_CLASSES_H_
