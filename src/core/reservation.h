// Reservations for blocked jobs: when and where a job that does not fit now is expected to
// start, from the estimated ends of the running jobs; without estimates, the nodes closest to
// holding it, kept from long-running newcomers.
#ifndef SQUEEZE_CORE_RESERVATION_H_
#define SQUEEZE_CORE_RESERVATION_H_

#include <optional>

#include "core/cycle.h"

namespace squeeze {

// The reservation for `job` in its scope; nullopt when it cannot be expressed (no node of
// its groups can ever hold it, or it asks for a fraction of a GPU).
std::optional<Reservation> ComputeReservation(const CycleContext& c, const Job& job);

}  // namespace squeeze

#endif  // SQUEEZE_CORE_RESERVATION_H_
