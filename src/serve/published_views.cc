#include "serve/published_views.h"

#include <utility>

namespace squeeze {

const std::vector<double> kWaitBounds = {1, 5, 15, 60, 300, 900, 3600, 4 * 3600, 12 * 3600,
                                         86400};

bool PublishedViews::WantsWhy() {
  int interest = why_interest_.load();
  while (interest > 0) {
    if (why_interest_.compare_exchange_weak(interest, interest - 1)) return true;
  }
  return false;
}

void PublishedViews::Publish(std::shared_ptr<ReadView> view) {
  MutexLock lock(mu_);
  if (!view->why && latest_) view->why = latest_->why;
  latest_ = std::move(view);
}

std::shared_ptr<const ReadView> PublishedViews::Latest() const {
  MutexLock lock(mu_);
  return latest_;
}

}  // namespace squeeze
