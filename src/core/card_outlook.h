// `why` for a waiting job on cards of several kinds (issue 38): the cards it may use in the
// order the hardware rule tries them, what holds it back from each, the card it waits for when
// the rule holds it for a faster one, and the cards it may not use and why. Pure.
#ifndef SQUEEZE_CORE_CARD_OUTLOOK_H_
#define SQUEEZE_CORE_CARD_OUTLOOK_H_

#include <string>
#include <vector>

#include "core/cycle.h"

namespace squeeze {

// Empty when the policy is blind to hardware or the job has one kind of card to choose from.
std::vector<std::string> CardOutlook(const CycleContext& c, const Job& job);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_CARD_OUTLOOK_H_
