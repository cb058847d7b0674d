// The hour-of-week heatmaps of the idle-window report as one SVG document: for each node, 7 rows
// (Mon..Sun) x 24 columns (hours, UTC) coloured by the probability that every GPU of the node is
// idle; for each pool, the mean idle probability of its GPUs; with labelled axes and a legend.
// Plain SVG text; pure; thread-safe.
#ifndef SQUEEZE_SIM_IDLE_HEATMAP_SVG_H_
#define SQUEEZE_SIM_IDLE_HEATMAP_SVG_H_

#include <string>

#include "core/idle/idle_analysis.h"

namespace squeeze {

std::string FormatIdleHeatmapSvg(const IdleAnalysis& analysis);

}  // namespace squeeze

#endif  // SQUEEZE_SIM_IDLE_HEATMAP_SVG_H_
